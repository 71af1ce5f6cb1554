"""uniform_, normal_ and bernoulli_ on CUDA: kernels/random.cu, Philox draws keyed by a CUDA
generator's seed and a per-launch offset: the generator passed (torch.Generator(device="cuda")) or
the default (c10.generator.default_cuda_generator), which torch.manual_seed and
torch.cuda.manual_seed seed. Passing a CPU generator is PyTorch's device error."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from aten.native.cuda.copy import copy_cuda
from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import grid_for
from aten.native.meta.views import view_as_real
from c10 import scalar_type, tensor_impl
from c10.generator import default_cuda_generator

_UINT8 = scalar_type.dtype_from_name("uint8")
_FLOATING = ("float16", "float32", "float64")     # the dtypes kernels/random.cu draws


def _cuda_generator(generator: Any) -> Any:
    """The generator a kernel draws from: generator, which must be a CUDA one, or the default."""
    if generator is None:
        return default_cuda_generator
    kind = getattr(getattr(generator, "device", None), "type", "cpu")
    if kind != "cuda":
        raise RuntimeError(f"Expected a 'cuda' device type for generator but found '{kind}'")
    return generator


def _fill_random(self: Any, kernel: str, a: float, b: float, generator: Any) -> Any:
    generator = _cuda_generator(generator)
    n = self.numel()
    if n == 0:
        return self
    target = self if self.is_contiguous() else tensor_impl.empty(tuple(self.shape), self.dtype, self.device)
    seed, offset = generator._philox_next()
    grid, block = grid_for(n)
    launch_kernel("kernels/random.cu", kernel, grid, block, np.int64(n), np.uintp(target.data_ptr()), np.float64(a),
        np.float64(b), np.uint64(seed), np.uint64(offset))
    if target is not self:
        copy_cuda(self, target)
    self._bump_version()
    return self


def uniform_cuda(self: Any, from_: float = 0.0, to: float = 1.0, generator: Any = None) -> Any:
    if self.dtype.is_complex:       # as PyTorch: both parts uniform, through the (..., 2) real view
        uniform_cuda(view_as_real(self), from_, to, generator)
        return self
    start = from_
    if self.dtype.name not in _FLOATING:
        raise NotImplementedError(f'"uniform_kernel_cuda" not implemented for \'{self.dtype.type_name}\'')
    if start > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={start} > to={to}")
    return _fill_random(self, f"uniform_{self.dtype.name}", start, to, generator)


def normal_cuda(self: Any, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Any:
    if self.dtype.is_complex:       # as PyTorch: each part with half the variance, in the real view
        normal_cuda(view_as_real(self), mean, std / math.sqrt(2), generator)
        return self
    if self.dtype.name not in _FLOATING:
        raise NotImplementedError(f'"normal_kernel_cuda" not implemented for \'{self.dtype.type_name}\'')
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill_random(self, f"normal_{self.dtype.name}", mean, std, generator)


def bernoulli_float_cuda(self: Any, p: float = 0.5, generator: Any = None) -> Any:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    generator = _cuda_generator(generator)
    n = self.numel()
    if n == 0:
        return self
    draws = tensor_impl.empty(tuple(self.shape), _UINT8, self.device)
    seed, offset = generator._philox_next()
    grid, block = grid_for(n)
    launch_kernel("kernels/random.cu", "bernoulli_bytes", grid, block, np.int64(n), np.uintp(draws.data_ptr()),
        np.float64(p), np.uint64(seed), np.uint64(offset))
    copy_cuda(self, draws)
    return self
