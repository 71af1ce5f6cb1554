"""_softmax and _log_softmax on CUDA: the dimension is moved last and made contiguous, one block
per row of kernels/softmax.cu computes the row, and the result is moved back (contiguous, as
PyTorch's)."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.transfer import contiguous_cuda, strided_copy
from c10 import tensor_impl

_THREADS = 256
_MAX_BLOCKS = 65535


def _last(t: Any, dim: int) -> Any:
    order = [d for d in range(t.dim()) if d != dim] + [dim]
    return contiguous_cuda(t.permute(order))


def _back(rows_result: Any, like: Any, dim: int) -> Any:
    """rows_result (like's dims with dim last) as a contiguous tensor of like's shape."""
    order = [d for d in range(like.dim()) if d != dim] + [dim]
    inverse = [order.index(d) for d in range(like.dim())]
    if dim == like.dim() - 1:
        return rows_result
    out = tensor_impl.empty(tuple(like.shape), like.dtype, like.device)
    strided_copy(out, rows_result.permute(inverse))
    return out


def _softmax(self: Any, dim: int, log: bool, name: str) -> Any:
    if self.dtype.name not in ("float32", "float64"):
        raise NotImplementedError(f'"{name}_cuda" not implemented for \'{self.dtype.type_name}\'')
    nd = max(self.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    dim %= nd
    if self.dim() == 0:
        source, rows, r = contiguous_cuda(self).reshape(1), 1, 1
    else:
        source = _last(self, dim)
        r = self.shape[dim]
        rows = self.numel() // r if r else 0
    out = tensor_impl.empty(tuple(source.shape), self.dtype, self.device)
    if rows and r:
        launch_kernel("kernels/softmax.cu", f"softmax_rows_{self.dtype.name}", (min(rows, _MAX_BLOCKS), 1, 1),
            (_THREADS, 1, 1), np.int64(rows), np.int64(r), np.uintp(source.data_ptr()), np.uintp(out.data_ptr()),
            np.int32(log))
    return out.reshape(()) if self.dim() == 0 else _back(out, self, dim)


def softmax_cuda(self: Any, dim: int, half_to_float: bool = False) -> Any:
    return _softmax(self, dim, False, "softmax")


def log_softmax_cuda(self: Any, dim: int, half_to_float: bool = False) -> Any:
    return _softmax(self, dim, True, "log_softmax")
