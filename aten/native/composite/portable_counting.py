"""Portable counting kernels: bincount, histc, unique and unique_consecutive written over sort,
cumsum and accumulating index_put_, registered as CompositeExplicitAutograd beside the CPU kernels
as in portable.py (checks and messages are theirs). Each needs the size of its result before it
can make it, so each waits once for the device, as PyTorch's CUDA kernels do.
"""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.composite.portable import not_implemented_for
from c10 import scalar_type

_zeros = find_operator("zeros")
_ones = find_operator("ones")
_full = find_operator("full")
_empty = find_operator("empty.memory_format")
_amin = find_operator("amin")
_amax = find_operator("amax")
_to = find_operator("to.dtype")
_index_put_ = find_operator("index_put_")
_reshape = find_operator("reshape")
_sub = find_operator("sub.Tensor")
_mul = find_operator("mul.Tensor")
_div = find_operator("div.Tensor")
_ge = find_operator("ge.Tensor")
_le = find_operator("le.Tensor")
_ne = find_operator("ne.Tensor")
_eq = find_operator("eq.Tensor")
_logical_and = find_operator("logical_and")
_where = find_operator("where.self")
_narrow = find_operator("narrow")
_cat = find_operator("cat")
_cumsum = find_operator("cumsum")
_sort_stable = find_operator("sort.stable")
_index = find_operator("index.Tensor")

_BOOL = scalar_type.dtype_from_name("bool")
_INT64 = scalar_type.dtype_from_name("int64")
_FLOAT32 = scalar_type.dtype_from_name("float32")
_FLOAT64 = scalar_type.dtype_from_name("float64")


def _add_at(out: Any, positions: Any, values: Any) -> Any:
    """out[positions[i]] += values[i] (or += values, broadcast), repeats accumulating."""
    return _index_put_(out, [positions], values, True)


def bincount(self: Any, weights: Any = None, minlength: int = 0) -> Any:
    if self.dtype.is_floating_point or self.dtype is _BOOL:
        raise not_implemented_for("bincount", self)
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if self.dim() == 1 and self.numel() == 0:
        return _zeros((minlength,), dtype=_INT64, device=self.device)
    positions = self if self.dtype is _INT64 else _to(self, _INT64)
    if self.dim() != 1 or _amin(positions, (), False).item() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != self.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    bins = max(int(_amax(positions, (), False).item()) + 1, minlength)
    if weights is None:
        return _add_at(_zeros((bins,), dtype=_INT64, device=self.device), positions,
                       _ones((), dtype=_INT64, device=self.device))
    dtype = _FLOAT32 if weights.dtype is _FLOAT32 else _FLOAT64
    weights = weights if weights.dtype is dtype else _to(weights, dtype)
    return _add_at(_zeros((bins,), dtype=dtype, device=self.device), positions, weights)


def histc(self: Any, bins: int = 100, min: Any = 0, max: Any = 0) -> Any:
    """Each x in [min, max] counts in bin int((x - min) * bins / (max - min)) computed in x's dtype
    (the last bin takes x == max), as the CPU kernel; min == max == 0 takes the data's range."""
    if not self.dtype.is_floating_point:
        raise not_implemented_for("histogram", self)
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and self.numel() > 0:
        lo, hi = float(_amin(self, (), False).item()), float(_amax(self, (), False).item())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{_cpp_double(lo)}, {_cpp_double(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    dtype = self.dtype
    low = _full((), lo, dtype=dtype, device=self.device)
    width = _sub(_full((), hi, dtype=dtype, device=self.device), low)
    inside = _logical_and(_ge(self, lo), _le(self, hi))           # NaN is outside
    x = _where(inside, self, low)
    positions = _to(_div(_mul(_sub(x, low), bins), width), _INT64)
    positions = _where(_eq(positions, bins), bins - 1, positions)
    positions = _reshape(_where(inside, positions, bins), (-1,))   # outside: one bin past the end
    counts = _add_at(_zeros((bins + 1,), dtype=dtype, device=self.device), positions,
                     _ones((), dtype=dtype, device=self.device))
    return _narrow(counts, 0, 0, bins)


def _cpp_double(v: float) -> str:
    return "-nan" if math.isnan(v) else f"{v:g}"


def _unique_runs(values: Any, order: Any, return_inverse: bool, return_counts: bool, shape: Any) -> Any:
    """The runs of equal neighbours in `values` (1-D): their values, the run each original
    element (at order[i]) falls in, reshaped to `shape`, and the runs' lengths."""
    n = values.shape[0]
    starts = _ne(_narrow(values, 0, 1, n - 1), _narrow(values, 0, 0, n - 1))
    starts = _cat([_full((1,), True, dtype=_BOOL, device=values.device), starts], 0)
    run = _sub(_cumsum(starts, 0), 1)                            # int64: the run of each position
    uniques = _index(values, [starts])
    empty = _empty((0,), dtype=_INT64, device=values.device)
    inverse = empty
    if return_inverse:
        inverse = run if order is None else _index_put_(_empty((n,), dtype=_INT64, device=values.device), [order],
                                                        run, False)
        inverse = _reshape(inverse, tuple(shape))
    counts = empty
    if return_counts:
        counts = _add_at(_zeros((uniques.shape[0],), dtype=_INT64, device=values.device), run,
                         _ones((), dtype=_INT64, device=values.device))
    return uniques, inverse, counts


def _unique_nothing(self: Any, return_inverse: bool) -> Any:
    empty = _empty((0,), dtype=_INT64, device=self.device)
    inverse = _empty(tuple(self.shape), dtype=_INT64, device=self.device) if return_inverse else empty
    return _empty((0,), dtype=self.dtype, device=self.device), inverse, empty


def unique2(self: Any, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False) -> Any:
    """Sorted whatever `sorted` says (as PyTorch's CUDA unique); NaNs are each their own value."""
    if self.numel() == 0:
        return _unique_nothing(self, return_inverse)
    values, order = _sort_stable(_reshape(self, (-1,)), stable=True)
    return _unique_runs(values, order, return_inverse, return_counts, self.shape)


def unique_consecutive(self: Any, return_inverse: bool = False, return_counts: bool = False, dim: Any = None) -> Any:
    if dim is not None:
        raise NotImplementedError(f"unique_consecutive with a dim has no kernel for {self.device.type} tensors in "
                                  "Ember yet")
    if self.numel() == 0:
        return _unique_nothing(self, return_inverse)
    return _unique_runs(_reshape(self, (-1,)), None, return_inverse, return_counts, self.shape)
