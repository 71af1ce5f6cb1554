"""_softmax and _log_softmax on CUDA, and their gradients (_softmax_backward_data,
_log_softmax_backward_data): the dimension is moved last and made contiguous, one block per row
of kernels/softmax.cu computes the row, and the result is moved back (contiguous, as PyTorch's)."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import MAX_BLOCKS
from aten.native.cuda.runtime.transfer import contiguous_cuda, strided_copy, to_device
from c10 import scalar_type, tensor_impl

_THREADS = 256
_FLOAT32 = scalar_type.dtype_from_name("float32")


def _last(t: Any, dim: int) -> Any:
    order = [d for d in range(t.dim()) if d != dim] + [dim]
    return contiguous_cuda(t.permute(order))


def _back(rows_result: Any, like: Any, dim: int) -> Any:
    """rows_result (like's dims with dim last) as a contiguous tensor of like's shape (and of
    rows_result's dtype)."""
    order = [d for d in range(like.dim()) if d != dim] + [dim]
    inverse = [order.index(d) for d in range(like.dim())]
    if dim == like.dim() - 1:
        return rows_result
    out = tensor_impl.empty(tuple(like.shape), rows_result.dtype, like.device)
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
        launch_kernel("kernels/softmax.cu", f"softmax_rows_{self.dtype.name}", (min(rows, MAX_BLOCKS), 1, 1),
            (_THREADS, 1, 1), np.int64(rows), np.int64(r), np.uintp(source.data_ptr()), np.uintp(out.data_ptr()),
            np.int32(log))
    return out.reshape(()) if self.dim() == 0 else _back(out, self, dim)


def softmax_cuda(self: Any, dim: int, half_to_float: bool = False) -> Any:
    return _softmax(self, dim, False, "softmax")


def log_softmax_cuda(self: Any, dim: int, half_to_float: bool = False) -> Any:
    return _softmax(self, dim, True, "log_softmax")


def _backward(grad_output: Any, output: Any, dim: int, input_dtype: Any, log: bool) -> Any:
    """The gradient of (log_)softmax from its output, in one pass per row (kernels/softmax.cu), in
    float32 (float64 for double) and returned as input_dtype."""
    if tuple(grad_output.shape) != tuple(output.shape):
        raise RuntimeError(f"grad_output and output must have one shape, got {list(grad_output.shape)} and "
                           f"{list(output.shape)}")
    if not (output.dtype.is_floating_point and grad_output.dtype.is_floating_point):
        raise NotImplementedError(f'"softmax_backward_cuda" not implemented for \'{output.dtype.type_name}\'')
    compute = output.dtype if output.dtype.name == "float64" else _FLOAT32
    nd = max(output.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})")
    dim %= nd
    if output.dim() == 0:
        grad, out, rows, r = to_device(grad_output, compute).reshape(1), to_device(output, compute).reshape(1), 1, 1
    else:
        grad, out = _last(to_device(grad_output, compute), dim), _last(to_device(output, compute), dim)
        r = output.shape[dim]
        rows = output.numel() // r if r else 0
    result = tensor_impl.empty(tuple(out.shape), compute, output.device)
    if rows and r:
        launch_kernel("kernels/softmax.cu", f"softmax_backward_rows_{compute.name}", (min(rows, MAX_BLOCKS), 1, 1),
                      (_THREADS, 1, 1), np.int64(rows), np.int64(r), np.uintp(grad.data_ptr()),
                      np.uintp(out.data_ptr()), np.uintp(result.data_ptr()), np.int32(log))
    result = result.reshape(()) if output.dim() == 0 else _back(result, output, dim)
    return to_device(result, input_dtype)


def softmax_backward_data_cuda(grad_output: Any, output: Any, dim: int, input_dtype: Any) -> Any:
    return _backward(grad_output, output, dim, input_dtype, False)


def log_softmax_backward_data_cuda(grad_output: Any, output: Any, dim: int, input_dtype: Any) -> Any:
    return _backward(grad_output, output, dim, input_dtype, True)
