"""searchsorted and bucketize on CUDA: kernels/search.cu bisects each value's row of boundaries
(PyTorch's cus_lower_bound / cus_upper_bound) in the dtype both promote to. The checks are the
device-neutral check_searchsorted (aten/native/meta/search_checks.pyx), as the CPU kernel's; the
sorter's values are checked on the device first."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import grid_for
from aten.native.cuda.runtime.transfer import contiguous_cuda, to_device
from aten.native.meta.pointwise import result_type_of
from aten.native.meta.search_checks import check_searchsorted
from c10 import cuda as c10_cuda
from c10 import scalar_type, tensor_impl

_INT64 = scalar_type.dtype_from_name("int64")
_INT32 = scalar_type.dtype_from_name("int32")
_FLOAT32 = scalar_type.dtype_from_name("float32")
_FLOAT64 = scalar_type.dtype_from_name("float64")
_SEARCHED = ("float32", "float64", "int64", "int32", "int16", "int8", "uint8")


def _check_sorter(sorter: Any, row_len: int) -> None:
    state = c10_cuda.lazy_init()
    bad = np.zeros(1, dtype=np.uint64)
    bad_dev = state.drv.to_device(bad)
    grid, block = grid_for(sorter.numel())
    launch_kernel("kernels/search.cu", "check_sorter", grid, block, np.int64(sorter.numel()),
        np.uintp(sorter.data_ptr()), np.int64(row_len), np.uintp(int(bad_dev)))
    state.drv.memcpy_dtoh(bad, bad_dev)
    if bad[0]:
        raise RuntimeError("torch.searchsorted(): sorter index out of range")


def searchsorted_cuda(sorted_sequence: Any, self: Any, out_int32: bool = False, right: bool = False,
                      side: Any = None, sorter: Any = None) -> Any:
    bd = sorted_sequence
    is_right = check_searchsorted(bd, self, right, side, sorter)
    row_len = bd.shape[-1]
    if sorter is not None:
        sorter = contiguous_cuda(sorter)
        if sorter.numel():
            _check_sorter(sorter, row_len)
    out = tensor_impl.empty(tuple(self.shape), _INT64, self.device)
    if self.numel() == 0:
        return to_device(out, _INT32) if out_int32 else out
    common = result_type_of(bd, self) if bd.dtype is not self.dtype else self.dtype
    if common.name not in _SEARCHED:
        raise NotImplementedError(f'"searchsorted_cuda" not implemented for \'{common.type_name}\'')
    values = to_device(contiguous_cuda(self), common)
    boundaries = to_device(contiguous_cuda(bd), common)
    grid, block = grid_for(values.numel())
    launch_kernel("kernels/search.cu", f"searchsorted_{common.name}", grid, block, np.int64(values.numel()),
        np.uintp(values.data_ptr()), np.uintp(boundaries.data_ptr()),
        np.uintp(sorter.data_ptr() if sorter is not None else 0), np.int64(self.shape[-1] if self.dim() else 1),
        np.int64(row_len), np.int32(bd.dim() == 1), np.int32(is_right), np.uintp(out.data_ptr()))
    return to_device(out, _INT32) if out_int32 else out


def _wrapped(value: Any, like: Any) -> Any:
    """A Python number as a 0-dim tensor on like's device in the dtype it promotes with like to
    (a float with integer boundaries: the default float dtype), converted as C converts, wrapping
    or overflowing to infinity, as the CPU kernel's cast does."""
    floating = isinstance(value, float)
    dtype = like.dtype if like.dtype.is_floating_point or not floating else _FLOAT32
    exact = tensor_impl.empty((), _FLOAT64 if floating else _INT64, like.device).fill_(value)
    return to_device(exact, dtype)


def searchsorted_Scalar_cuda(sorted_sequence: Any, self: Any, out_int32: bool = False, right: bool = False,
                             side: Any = None, sorter: Any = None) -> Any:
    return searchsorted_cuda(sorted_sequence, _wrapped(self, sorted_sequence), out_int32, right, side, sorter)


def bucketize_cuda(self: Any, boundaries: Any, out_int32: bool = False, right: bool = False) -> Any:
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.dim()})")
    return searchsorted_cuda(boundaries, self, out_int32, right, None, None)


def bucketize_Scalar_cuda(self: Any, boundaries: Any, out_int32: bool = False, right: bool = False) -> Any:
    return bucketize_cuda(_wrapped(self, boundaries), boundaries, out_int32, right)
