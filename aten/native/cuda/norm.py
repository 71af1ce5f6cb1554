"""native_layer_norm on CUDA: kernels/norm.cu, one block per row; the CPU kernel's checks. The
backward passes differentiate it through the composite formulas (reductions and pointwise ops)."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.linalg import _same_device
from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import MAX_BLOCKS
from aten.native.cuda.runtime.transfer import contiguous_cuda
from aten.native.meta.norm_checks import check_norm_shapes
from c10 import tensor_impl

_THREADS = 256


def native_layer_norm_cuda(input: Any, normalized_shape: Any, weight: Any, bias: Any, eps: float) -> Any:
    normalized = check_norm_shapes(input, normalized_shape, weight, bias)
    k = len(normalized)
    shape = tuple(input.shape)
    _same_device(input, *[p for p in (weight, bias) if p is not None])
    if input.dtype.name not in ("float32", "float64"):
        raise NotImplementedError(f'"LayerNormKernelImpl" not implemented for \'{input.dtype.type_name}\'')
    m = 1
    for s in normalized:
        m *= s
    rows = input.numel() // m if m else 0
    stat_shape = shape[:input.dim() - k] + (1,) * k
    out = tensor_impl.empty(shape, input.dtype, input.device)
    mean = tensor_impl.empty(stat_shape, input.dtype, input.device)
    rstd = tensor_impl.empty(stat_shape, input.dtype, input.device)
    if rows == 0 or m == 0:
        if m == 0 and rows:
            mean.fill_(float("nan"))
            rstd.fill_(float("nan"))
        return out, mean, rstd
    x = contiguous_cuda(input)
    w = contiguous_cuda(weight) if weight is not None else None
    b = contiguous_cuda(bias) if bias is not None else None
    launch_kernel("kernels/norm.cu", f"layer_norm_rows_{input.dtype.name}", (min(rows, MAX_BLOCKS), 1, 1),
        (_THREADS, 1, 1), np.int64(rows), np.int64(m), np.uintp(x.data_ptr()),
        np.uintp(w.data_ptr() if w is not None else 0), np.uintp(b.data_ptr() if b is not None else 0), np.float64(eps),
        np.uintp(out.data_ptr()), np.uintp(mean.data_ptr()), np.uintp(rstd.data_ptr()))
    return out, mean, rstd
