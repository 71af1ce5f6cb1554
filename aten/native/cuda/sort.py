"""sort on CUDA: the sorted dim is moved last into a contiguous copy, which kernels/sort.cu sorts in
place with each element's original position. Its order is total (NaN largest; equal values keep
their order), so sort and sort(stable=True) give the same, stable, result; topk, kthvalue and the
medians are written over it (aten/native/composite/portable_sorting.py)."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import MAX_BLOCKS
from aten.native.cuda.runtime.transfer import strided_copy
from c10 import scalar_type, tensor_impl

_INT64 = scalar_type.dtype_from_name("int64")
_SHARED_LIMIT = 2048          # 2 * EMBER_SORT_THREADS: a row this long sorts in one block
_THREADS = 256
# the kernel type each dtype's ordered comparisons run (sort here, cummax/cummin in reduce.py):
# bool as its bytes, False < True
ORDERED_TYPES = {"float32": "float32", "float64": "float64", "int64": "int64", "int32": "int32", "int16": "int16",
                 "int8": "int8", "uint8": "uint8", "bool": "uint8"}


def _sort_rows(work: Any, indices: Any, rows: int, n: int, descending: bool) -> None:
    """Sorts each of the rows of the contiguous (rows, n) `work` in place, positions into `indices`."""
    kind = ORDERED_TYPES[work.dtype.name]
    p = 1
    while p < n:
        p *= 2
    args = (np.int64(rows), np.int64(n), np.int64(p), np.uintp(work.data_ptr()), np.uintp(indices.data_ptr()))
    if p <= _SHARED_LIMIT:
        launch_kernel("kernels/sort.cu", f"sort_shared_{kind}", (min(rows, MAX_BLOCKS), 1, 1), (max(1, p // 2), 1, 1),
            *args, np.int32(descending))
        return
    blocks = (min((rows * n + _THREADS - 1) // _THREADS, MAX_BLOCKS), 1, 1)
    launch_kernel("kernels/sort.cu", "sort_iota", blocks, (_THREADS, 1, 1), np.int64(rows), np.int64(n),
        np.uintp(indices.data_ptr()))
    pairs = (min((rows * p // 2 + _THREADS - 1) // _THREADS, MAX_BLOCKS), 1, 1)
    k = 2
    while k <= p:
        j = k // 2
        while j >= 1:
            launch_kernel("kernels/sort.cu", f"sort_step_{kind}", pairs, (_THREADS, 1, 1), *args, np.int64(k),
                np.int64(j), np.int32(descending))
            j //= 2
        k *= 2


def _sort(self: Any, dim: Any, descending: bool) -> tuple[Any, Any]:
    d = self._wrap_dim(dim)
    if self.dtype.name not in ORDERED_TYPES:
        raise NotImplementedError(f'"sort" not implemented for \'{self.dtype.type_name}\'')
    shape = tuple(self.shape)
    values = tensor_impl.empty(shape, self.dtype, self.device)
    indices = tensor_impl.empty(shape, _INT64, self.device)
    if self.numel() == 0:
        return values, indices
    if self.dim() == 0:
        strided_copy(values, self)
        return values, indices.fill_(0)
    order = [i for i in range(self.dim()) if i != d] + [d]
    work = tensor_impl.empty(tuple(shape[i] for i in order), self.dtype, self.device)
    strided_copy(work, self.permute(order))
    moved_indices = tensor_impl.empty(tuple(work.shape), _INT64, self.device)
    n = shape[d]
    _sort_rows(work, moved_indices, self.numel() // n, n, bool(descending))
    strided_copy(values.permute(order), work)
    strided_copy(indices.permute(order), moved_indices)
    return values, indices


def sort_cuda(self: Any, dim: Any = -1, descending: bool = False) -> Any:
    return _sort(self, dim, descending)


def sort_stable_cuda(self: Any, stable: Any = None, dim: Any = -1, descending: bool = False) -> Any:
    """Every sort here is stable, so `stable` changes nothing."""
    return _sort(self, dim, descending)
