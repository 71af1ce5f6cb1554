"""uniform_, normal_ and bernoulli_ on CUDA: kernels/random.cu, Philox draws keyed by the CUDA
generator's seed and a per-launch offset (c10.cuda.philox_next); torch.manual_seed and
torch.cuda.manual_seed set the seed. Ember has no CUDA Generator objects yet: passing a CPU one
is PyTorch's device error."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.copy import copy_cuda
from aten.native.cuda.pointwise import compiled_module, grid_for
from c10 import cuda as c10_cuda
from c10 import scalar_type, tensor_impl

_UINT8 = scalar_type.dtype_from_name("uint8")
_FLOATING = ("float16", "float32", "float64")     # the dtypes kernels/random.cu draws


def _check_generator(generator: Any) -> None:
    if generator is not None:
        device = getattr(generator, "device", None)
        kind = getattr(device, "type", "cpu")
        raise RuntimeError(f"Expected a 'cuda' device type for generator but found '{kind}'")


def _fill_random(self: Any, kernel: str, a: float, b: float, generator: Any) -> Any:
    _check_generator(generator)
    n = self.numel()
    if n == 0:
        return self
    target = self if self.is_contiguous() else tensor_impl.empty(tuple(self.shape), self.dtype, self.device)
    seed, offset = c10_cuda.philox_next()
    grid, block = grid_for(n)
    compiled_module("kernels/random.cu").get_function(kernel)(
        np.int64(n), np.uintp(target.data_ptr()), np.float64(a), np.float64(b), np.uint64(seed), np.uint64(offset),
        grid=grid, block=block)
    if target is not self:
        copy_cuda(self, target)
    self._bump_version()
    return self


def uniform_cuda(self: Any, from_: float = 0.0, to: float = 1.0, generator: Any = None) -> Any:
    start = from_
    if self.dtype.name not in _FLOATING:
        raise NotImplementedError(f'"uniform_kernel_cuda" not implemented for \'{self.dtype.type_name}\'')
    if start > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={start} > to={to}")
    return _fill_random(self, f"uniform_{self.dtype.name}", start, to, generator)


def normal_cuda(self: Any, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Any:
    if self.dtype.name not in _FLOATING:
        raise NotImplementedError(f'"normal_kernel_cuda" not implemented for \'{self.dtype.type_name}\'')
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return _fill_random(self, f"normal_{self.dtype.name}", mean, std, generator)


def bernoulli_float_cuda(self: Any, p: float = 0.5, generator: Any = None) -> Any:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    _check_generator(generator)
    n = self.numel()
    if n == 0:
        return self
    draws = tensor_impl.empty(tuple(self.shape), _UINT8, self.device)
    seed, offset = c10_cuda.philox_next()
    grid, block = grid_for(n)
    compiled_module("kernels/random.cu").get_function("bernoulli_bytes")(
        np.int64(n), np.uintp(draws.data_ptr()), np.float64(p), np.uint64(seed), np.uint64(offset),
        grid=grid, block=block)
    copy_cuda(self, draws)
    return self
