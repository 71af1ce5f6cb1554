"""torch.testing.make_tensor: a random tensor of a shape, dtype and device, with PyTorch's ranges."""
from __future__ import annotations

import collections.abc
import math
import warnings
from typing import Any

import numpy as np

import torch

_INTEGRAL: dict[Any, Any] = {torch.uint8: np.uint8, torch.int8: np.int8, torch.int16: np.int16, torch.int32: np.int32,
             torch.int64: np.int64}
_FLOATING = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def _limits(low: Any, high: Any, dtype: Any, lowest: Any, highest: Any, default_low: Any,
            default_high: Any) -> tuple[Any, Any]:
    """Checks and clamps [low, high) into [lowest, highest); integer bounds are rounded up."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(value, float) and math.isnan(value) for value in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in _FLOATING:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype not in _FLOATING:
        # randint's upper bound is exclusive, so both bounds round up to stay inside [low, high).
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape: Any, dtype: Any, device: Any, low: Any = None, high: Any = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format: Any = None) -> Any:
    """A tensor of `shape` filled with values drawn uniformly from [low, high) (PyTorch's make_tensor).

    Default ranges: bool [0, 2), unsigned [0, 10), signed integers [-9, 10), floating [-9, 9).
    `noncontiguous` gives a view with stride 2 in the last dimension (for two or more elements);
    `exclude_zero` replaces zeros by 1 (bool, integers) or the dtype's smallest normal number.
    """
    sizes: Any = shape[0] if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence) else shape
    shape = tuple(sizes)

    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                         f"but got {noncontiguous=} and {memory_format=}")
    if requires_grad and (dtype is torch.bool or dtype in _INTEGRAL):
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got {dtype=}")

    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:   # twice as many values in the last dimension, then take every other one
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype is torch.bool:
        low, high = _limits(low, high, dtype, 0, 2, 0, 2)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = np.iinfo(_INTEGRAL[dtype])
        # randint takes int64 bounds, so int64's exclusive upper limit is its maximum itself.
        highest = int(info.max) + (1 if dtype is not torch.int64 else 0)
        low, high = _limits(low, high, dtype, int(info.min), highest, -9, 10)
        result = torch.randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING:
        finfo = torch.finfo(dtype)
        low, high = _limits(low, high, dtype, finfo.min, finfo.max, -9, 9)
        result = torch.empty(shape, device=device, dtype=dtype)
        if high - low >= finfo.max:   # uniform_ needs high - low to be finite: draw half, double it
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by torch.testing.make_tensor()."
                        " To request support, file an issue at: https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        result = result[..., 1::2]   # offset by one as well, to catch offset bugs
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)

    if exclude_zero:
        result[result == 0] = 1 if dtype not in _FLOATING else torch.finfo(dtype).tiny

    if dtype in _FLOATING:
        result.requires_grad = requires_grad
    return result
