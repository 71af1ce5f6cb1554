"""mm, bmm and addmm on CUDA: the tiled GEMM of kernels/gemm.cu, reading its operands in place
through their strides (transposes and slices need no copy), for float, double and (mm, bmm) the
complex dtypes. Checks and messages are the CPU kernels' (PyTorch's meta functions); addmm's
scaling and bias are the GEMM's epilogue."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.meta.errors import device_mismatch_error
from c10 import tensor_impl

_TILE = 128        # gemm.cu's BM and BN
_THREADS = 256
_MAX_GRID = 65535
_GEMM_TYPES = {"float32": "float", "float64": "double", "complex64": "complex64", "complex128": "complex128"}


def _same_device(*tensors: Any) -> None:
    devices = {str(t.device) for t in tensors}
    if len(devices) > 1:
        first, second = sorted(devices, key=lambda d: d != str(tensors[0].device))[:2]
        raise device_mismatch_error(first, second)


def gemm(a: Any, b: Any, batch: int, alpha: Any = 1, beta: Any = 0, bias: Any = None, out: Any = None) -> Any:
    """alpha * (a @ b) + beta * bias as a new contiguous tensor: (batch, M, K) @ (batch, K, N), or 2-D
    operands as one product; bias (read only when beta != 0) already expanded to (M, N) and the
    same for every batch. `out`, when given, is a contiguous tensor of batch * M * N elements that
    receives the product (in that layout) instead of a new one."""
    dtype = a.dtype
    if dtype.name not in _GEMM_TYPES or (dtype.is_complex and (alpha != 1 or beta != 0)):
        raise NotImplementedError(f'"addmm_cuda" not implemented for \'{dtype.type_name}\'')
    three = a.dim() == 3
    m, k = a.shape[-2], a.shape[-1]
    n = b.shape[-1]
    if out is None:
        out = tensor_impl.empty((batch, m, n) if three else (m, n), dtype, a.device)
    if out.numel() == 0:
        return out
    a_st, b_st = a.stride(), b.stride()
    a_bs, b_bs = (a_st[0], b_st[0]) if three else (0, 0)
    scalar = dtype.numpy_dtype.type
    use_bias = beta != 0 and bias is not None
    bias_ptr, bias_rs, bias_cs = (bias.data_ptr(), *bias.stride()) if use_bias else (0, 0, 0)
    # the kernel loops over row tiles and batches beyond the grid's y and z limits
    grid = ((n + _TILE - 1) // _TILE, min((m + _TILE - 1) // _TILE, _MAX_GRID), min(batch, _MAX_GRID))
    args = [np.int64(batch), np.int64(m), np.int64(n), np.int64(k), np.uintp(a.data_ptr()), np.int64(a_bs),
            np.int64(a_st[-2]), np.int64(a_st[-1]), np.uintp(b.data_ptr()), np.int64(b_bs), np.int64(b_st[-2]),
            np.int64(b_st[-1]), np.uintp(out.data_ptr())]
    if not dtype.is_complex:    # complex: a @ b only, PyCUDA packs no complex alpha and beta
        args += [scalar(alpha), scalar(beta if use_bias else 0), np.uintp(bias_ptr), np.int64(bias_rs),
                 np.int64(bias_cs)]
    launch_kernel("kernels/gemm.cu", f"gemm_{_GEMM_TYPES[dtype.name]}", grid, (_THREADS, 1, 1), *args)
    return out


def _check_mm(self: Any, mat2: Any) -> None:
    if self.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x{self.shape[1]} and "
                           f"{mat2.shape[0]}x{mat2.shape[1]})")
    if self.dtype != mat2.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {self.dtype.type_name} != "
                           f"{mat2.dtype.type_name}")


def mm_cuda(self: Any, mat2: Any) -> Any:
    _same_device(self, mat2)
    _check_mm(self, mat2)
    return gemm(self, mat2, 1)


def bmm_cuda(self: Any, mat2: Any) -> Any:
    _same_device(self, mat2)
    if self.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if mat2.shape[0] != self.shape[0] or mat2.shape[1] != self.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{self.shape[0]}, "
                           f"{self.shape[2]}] but got: [{mat2.shape[0]}, {mat2.shape[1]}].")
    if self.dtype != mat2.dtype:
        raise RuntimeError(f"expected scalar type {self.dtype.type_name} but found {mat2.dtype.type_name}")
    return gemm(self, mat2, self.shape[0])


def addmm_cuda(self: Any, mat1: Any, mat2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    """beta * self + alpha * (mat1 @ mat2) in the GEMM's epilogue; beta == 0 ignores self (NaN in it too)."""
    _same_device(self, mat1, mat2)
    _check_mm(mat1, mat2)
    if self.dtype != mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {self.dtype.type_name} and "
                           f"{mat2.dtype.type_name}")
    bias = self.expand(mat1.shape[0], mat2.shape[1]) if beta != 0 else None
    return gemm(mat1, mat2, 1, alpha, beta, bias)
