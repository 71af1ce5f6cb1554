"""digamma, polygamma, gcd and lcm on CUDA: kernels/special.cu, the twins of the CPU's loops in
aten/native/cpu/special.pyx (dtypes and messages as there). Operands are made contiguous (and
broadcast) first; the kernels read them flat."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import grid_for
from aten.native.cuda.runtime.transfer import contiguous_cuda, to_device
from aten.native.meta.errors import device_mismatch_error
from aten.native.meta.pointwise import broadcast_shapes, result_type_of
from c10 import scalar_type, tensor_impl

_INT64 = scalar_type.dtype_from_name("int64")
_FLOAT32 = scalar_type.dtype_from_name("float32")
_BOOL = scalar_type.dtype_from_name("bool")


def _launch(kernel: str, n: int, *tensors: Any, extra: tuple[Any, ...] = ()) -> None:
    grid, block = grid_for(n)
    launch_kernel("kernels/special.cu", kernel, grid, block, np.int64(n), *[np.uintp(t.data_ptr()) for t in tensors],
        *extra)


def _unary(kernel: str, self: Any, extra: tuple[Any, ...] = ()) -> Any:
    """Integers give the default float dtype, as PyTorch's (float32 here)."""
    dtype = self.dtype if self.dtype.is_floating_point else _FLOAT32
    x = to_device(contiguous_cuda(self), dtype)
    out = tensor_impl.empty(tuple(self.shape), dtype, self.device)
    if out.numel():
        _launch(f"{kernel}_{dtype.name}", out.numel(), x, out, extra=extra)
    return out


def digamma_cuda(self: Any) -> Any:
    return _unary("digamma", self)


def polygamma_cuda(n: int, self: Any) -> Any:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return _unary("polygamma", self, (np.int64(n),))


def _integer_binary(name: str, self: Any, other: Any) -> Any:
    """Euclid in int64 on both operands broadcast, stored in their promoted dtype."""
    dtype = result_type_of(self, other)
    if dtype.is_floating_point or dtype is _BOOL:
        raise NotImplementedError(f'"{name}_cuda" not implemented for \'{dtype.type_name}\'')
    for t in (self, other):
        if not t.is_cuda and t.dim() != 0:
            raise device_mismatch_error("cuda:0", t.device)
    shape = broadcast_shapes(self, other)
    a, b = (contiguous_cuda(to_device(t, _INT64).expand(shape)) for t in (self, other))
    out = tensor_impl.empty(shape, _INT64, a.device)
    if out.numel():
        _launch(f"{name}_int64", out.numel(), a, b, out)
    return out if dtype is _INT64 else to_device(out, dtype)


def gcd_cuda(self: Any, other: Any) -> Any:
    return _integer_binary("gcd", self, other)


def lcm_cuda(self: Any, other: Any) -> Any:
    return _integer_binary("lcm", self, other)
