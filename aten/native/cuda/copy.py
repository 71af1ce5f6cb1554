"""aten::copy_ on CUDA: a broadcast scalar (fill_, zeros, ones, full) or a same-shape copy,
converting the dtype on the device."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.pointwise import grid_for, compiled_module, to_device, CUDA_TYPES
from c10 import cuda as c10_cuda


def copy_cuda(self: Any, src: Any, non_blocking: bool = False) -> Any:
    state = c10_cuda.lazy_init()
    if not self.is_contiguous():
        raise NotImplementedError("copy_ into a non-contiguous CUDA tensor is not supported yet")
    n = self.numel()
    if n == 0:
        return self
    if src.numel() == 1 and tuple(self.shape) != tuple(src.shape):
        value = src.item()
        ctype = CUDA_TYPES[self.dtype.name]
        mod = compiled_module(
            '#include <cuda_fp16.h>\n'
            f'extern "C" __global__ void fill(long long n, {ctype}* out, {ctype} v) {{\n'
            "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)\n"
            "    out[i] = v;\n}\n")
        grid, block = grid_for(n)
        mod.get_function("fill")(np.int64(n), np.uintp(self.data_ptr()), self.dtype.numpy_dtype.type(value),
                                 grid=grid, block=block)
    elif tuple(self.shape) == tuple(src.shape):
        converted = to_device(src, self.dtype)
        if not converted.is_contiguous():
            raise NotImplementedError("copy_ from a non-contiguous CUDA tensor is not supported yet")
        state["drv"].memcpy_dtod(self.data_ptr(), converted.data_ptr(), n * self.element_size())
    else:
        raise NotImplementedError(f"copy_ on CUDA broadcasting {list(src.shape)} to {list(self.shape)} is not supported yet")
    self._bump_version()
    return self
