"""Portable random kernels: the random operators whose CPU kernel is a Cython loop (bit-exact with
PyTorch's CPU generator), written again over uniform_, normal_, bernoulli_ and random_ so that a
device with only those (CUDA: Philox, aten/native/cuda/random.py) has them all. Registered as
CompositeExplicitAutograd beside the CPU kernels, as in portable.py; the transforms are PyTorch's
(TransformationHelper.h), the checks and messages the CPU kernels'.
"""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.composite.portable import not_implemented_for
from aten.native.meta.errors import output_cast_error
from aten.native.meta.random_checks import check_randperm
from c10.scalar_type import CPP_TYPE_NAMES
from c10 import scalar_type

_empty_like = find_operator("empty_like")
_uniform_ = find_operator("uniform_")
_normal_ = find_operator("normal_")
_random_from = find_operator("random_.from")
_bernoulli_ = find_operator("bernoulli_.float")
_copy_ = find_operator("copy_")
_to = find_operator("to.dtype")
_lt = find_operator("lt.Tensor")
_ge = find_operator("ge.Tensor")
_le = find_operator("le.Tensor")
_logical_and = find_operator("logical_and")
_all = find_operator("all")
_add = find_operator("add.Tensor")
_mul = find_operator("mul.Tensor")
_div = find_operator("div.Tensor")
_neg = find_operator("neg")
_log = find_operator("log")
_log1p = find_operator("log1p")
_exp = find_operator("exp")
_tan = find_operator("tan")
_ceil = find_operator("ceil")
_clamp_min = find_operator("clamp_min")
_expand = find_operator("expand")
_broadcast_tensors = find_operator("broadcast_tensors")
_ones_like = find_operator("ones_like")
_clone = find_operator("clone")
_empty = find_operator("empty.memory_format")
_sort_stable = find_operator("sort.stable")
_narrow = find_operator("narrow")
_topk = find_operator("topk")
_cumsum = find_operator("cumsum")
_sum_dim = find_operator("sum.dim_IntList")
_unsqueeze = find_operator("unsqueeze")
_cat = find_operator("cat")
_clamp_max = find_operator("clamp_max")
_any = find_operator("any")
_isfinite = find_operator("isfinite")
_logical_not = find_operator("logical_not")
_INT64 = scalar_type.dtype_from_name("int64")
_HALF = scalar_type.dtype_from_name("float16")

_BOOL = scalar_type.dtype_from_name("bool")
_FLOAT32 = scalar_type.dtype_from_name("float32")
_FLOAT64 = scalar_type.dtype_from_name("float64")


def _like(self: Any, dtype: Any, layout: Any, device: Any, pin_memory: Any, memory_format: Any) -> Any:
    return _empty_like(self, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory,
                       memory_format=memory_format)


def _uniform_like(self: Any, generator: Any) -> Any:
    """u in [0, 1) shaped like self, in self's dtype when floating (float32 otherwise)."""
    dtype = self.dtype if self.dtype.is_floating_point else _FLOAT32
    return _uniform_(_empty_like(self, dtype=dtype), 0.0, 1.0, generator=generator)


def _check_floating(self: Any, distribution: str, name: str) -> None:
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"{distribution} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {name}")


# ---- the *_like factories ---------------------------------------------------------------------

def rand_like(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
              memory_format: Any = None) -> Any:
    return rand_like_generator(self, None, dtype, layout, device, pin_memory, memory_format)


def rand_like_generator(self: Any, generator: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                        pin_memory: Any = None, memory_format: Any = None) -> Any:
    out = _like(self, dtype, layout, device, pin_memory, memory_format)
    return _uniform_(out, 0.0, 1.0, generator=generator)


def randn_like(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
               memory_format: Any = None) -> Any:
    return randn_like_generator(self, None, dtype, layout, device, pin_memory, memory_format)


def randn_like_generator(self: Any, generator: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                         pin_memory: Any = None, memory_format: Any = None) -> Any:
    out = _like(self, dtype, layout, device, pin_memory, memory_format)
    return _normal_(out, 0.0, 1.0, generator=generator)


def randint_like(self: Any, high: int, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None, memory_format: Any = None) -> Any:
    return randint_like_low_generator(self, 0, high, None, dtype, layout, device, pin_memory, memory_format)


def randint_like_generator(self: Any, high: int, generator: Any, dtype: Any = None, layout: Any = None,
                           device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Any:
    return randint_like_low_generator(self, 0, high, generator, dtype, layout, device, pin_memory, memory_format)


def _scalar_high(high: Any) -> int:
    if high.dim() != 0 or high.numel() != 1 or high.device.type != "cpu":
        raise RuntimeError("high must be a scalar tensor and on CPU")
    return int(high.item())


def randint_like_tensor(self: Any, high: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                        pin_memory: Any = None, memory_format: Any = None) -> Any:
    return randint_like_low_generator(self, 0, _scalar_high(high), None, dtype, layout, device, pin_memory,
                                      memory_format)


def randint_like_tensor_generator(self: Any, high: Any, generator: Any, dtype: Any = None, layout: Any = None,
                                  device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Any:
    return randint_like_low_generator(self, 0, _scalar_high(high), generator, dtype, layout, device, pin_memory,
                                      memory_format)


def randint_like_low(self: Any, low: int, high: int, dtype: Any = None, layout: Any = None, device: Any = None,
                     pin_memory: Any = None, memory_format: Any = None) -> Any:
    return randint_like_low_generator(self, low, high, None, dtype, layout, device, pin_memory, memory_format)


def randint_like_low_generator(self: Any, low: int, high: int, generator: Any, dtype: Any = None, layout: Any = None,
                               device: Any = None, pin_memory: Any = None, memory_format: Any = None) -> Any:
    out = _like(self, dtype, layout, device, pin_memory, memory_format)
    return _random_from(out, low, high, generator=generator)


# ---- bernoulli --------------------------------------------------------------------------------

def _check_probabilities(p: Any) -> None:
    """The CPU kernel's range check (one device sync: PyTorch's CUDA kernel asserts instead)."""
    if p.numel() and not _all(_logical_and(_ge(p, 0), _le(p, 1))).item():
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")


def bernoulli__tensor(self: Any, p: Any, generator: Any = None) -> Any:
    """self[i] = u[i] < p[i], with p broadcast to self's shape."""
    if self.numel() == 0:
        return self
    if not p.dtype.is_floating_point:
        raise not_implemented_for("bernoulli_tensor", p, "_p_")
    _check_probabilities(p)
    draws = _uniform_like(self, generator)
    return _copy_(self, _lt(draws, _expand(p, tuple(self.shape))))


def bernoulli(self: Any, generator: Any = None) -> Any:
    """A 0/1 tensor like self, each element 1 with the probability self holds there."""
    return bernoulli__tensor(_empty_like(self), self, generator)


def bernoulli_p(self: Any, p: float, generator: Any = None) -> Any:
    return _bernoulli_(_empty_like(self), p, generator=generator)


def native_dropout(input: Any, p: float, train: Any = None) -> Any:
    """(input * mask / (1 - p), mask) with a bool mask like input; training when train is None."""
    if input.numel() == 0:
        return input, _empty_like(input, dtype=_BOOL)
    if train is None or train:
        keep = 1.0 - p
        mask = _bernoulli_(_empty_like(input, dtype=_BOOL), keep)
        if not input.dtype.is_floating_point:
            raise output_cast_error("Float", input.dtype.type_name)
        return _mul(_mul(input, mask), 0.0 if keep == 0 else 1.0 / keep), mask
    return _clone(input), _ones_like(input, dtype=_BOOL)


# ---- normal with tensor mean or std -------------------------------------------------------------

def _check_std(std: Any) -> None:
    if std.numel() and not _all(_ge(std, 0)).item():     # a NaN fails too
        raise RuntimeError("normal expects all elements of std >= 0.0")


def normal_tensor_float(mean: Any, std: float = 1.0, generator: Any = None) -> Any:
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    return _add(_normal_(_empty_like(mean), 0.0, std, generator=generator), mean)


def normal_float_tensor(mean: float, std: Any, generator: Any = None) -> Any:
    _check_std(std)
    return _add(_mul(_normal_(_empty_like(std), 0.0, 1.0, generator=generator), std), mean)


def normal_tensor_tensor(mean: Any, std: Any, generator: Any = None) -> Any:
    _check_std(std)
    mean, std = _broadcast_tensors([mean, std])
    return _add(_mul(_normal_(_empty_like(mean), 0.0, 1.0, generator=generator), std), mean)


# ---- the other continuous distributions, from u in [0, 1) ------------------------------------------

def _fill_(self: Any, values: Any) -> Any:
    return _copy_(self, values if values.dtype is self.dtype else _to(values, self.dtype))


def exponential_(self: Any, lambd: float = 1.0, generator: Any = None) -> Any:
    """-log(1 - u) / lambda: 1 - u is in (0, 1], so the draw is finite."""
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    if self.numel() == 0:
        return self
    _check_floating(self, "Exponential", self.dtype.type_name)
    return _fill_(self, _div(_neg(_log1p(_neg(_uniform_like(self, generator)))), lambd))


def cauchy_(self: Any, median: float = 0.0, sigma: float = 1.0, generator: Any = None) -> Any:
    """median + sigma * tan(pi * (u - 1/2))."""
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _check_floating(self, "Cauchy", CPP_TYPE_NAMES[self.dtype.name])
    if self.numel() == 0:
        return self
    angle = _mul(_add(_uniform_like(self, generator), -0.5), math.pi)
    return _fill_(self, _add(_mul(_tan(angle), sigma), median))


def log_normal_(self: Any, mean: float = 1.0, std: float = 2.0, generator: Any = None) -> Any:
    """exp of a normal(mean, std) draw."""
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if self.numel() == 0:
        return self
    if not self.dtype.is_floating_point:
        raise not_implemented_for("log_normal", self)
    return _fill_(self, _exp(_normal_(_empty_like(self), mean, std, generator=generator)))


def geometric_(self: Any, p: float, generator: Any = None) -> Any:
    """The number of trials to the first success: ceil(log(1 - u) / log(1 - p)), at least 1."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if self.numel() == 0:
        return self
    if self.dtype is _BOOL:
        raise not_implemented_for("geometric", self)
    u = _uniform_like(self, generator)
    if u.dtype is not _FLOAT64:
        u = _to(u, _FLOAT64)
    trials = _clamp_min(_ceil(_div(_log1p(_neg(u)), math.log1p(-p))), 1)
    return _fill_(self, trials)


# ---- permutations and categorical draws -----------------------------------------------------------

def randperm_generator(n: int, generator: Any = None, dtype: Any = None, layout: Any = None, device: Any = None,
                       pin_memory: Any = None) -> Any:
    """The order that sorts n uniform keys (53 random bits each; a tie keeps the smaller index first)."""
    dtype = _INT64 if dtype is None else dtype
    check_randperm(n, dtype.scalar_type)
    keys = _uniform_(_empty((n,), dtype=_FLOAT64, layout=layout, device=device, pin_memory=pin_memory), 0.0, 1.0,
                     generator=generator)
    order = _sort_stable(keys, stable=True)[1]
    return order if dtype is _INT64 else _to(order, dtype)


# categorical draws compared at once against every category, at most this many comparisons per chunk
_COMPARISONS = 1 << 24


def _check_distributions(p: Any) -> None:
    """The CPU kernel's checks of the rows (one device sync)."""
    if _any(_lt(p, 0)).item():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if _any(_logical_not(_isfinite(p))).item():
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    if _any(_le(_sum_dim(p, [-1], False), 0)).item():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _check_rows(p: Any) -> None:
    """The checks of the CPU kernel's draw by keys (no replacement, or one sample)."""
    if p.numel() and _any(_logical_not(_logical_and(_isfinite(p), _ge(p, 0)))).item():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if p.numel() == 0 or _any(_le(_sum_dim(p, [-1], False), 0)).item():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def multinomial(self: Any, num_samples: int, replacement: bool = False, generator: Any = None) -> Any:
    """Without replacement (or one sample): the k largest p / E with E ~ Exp(1), as PyTorch's
    kernels draw; with replacement: for each u ~ U[0, 1), the number of categories whose normalised
    cumulative probability is at most u."""
    if not 0 < self.dim() <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {self.dtype.type_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = self.shape[-1]
    if not (replacement or num_samples <= categories):
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if categories > (1 << 24):
        raise RuntimeError("number of categories cannot exceed 2^24")
    shape = tuple(self.shape[:-1]) + (num_samples,)
    if self.dim() == 2 and self.shape[0] == 0:
        return _empty(shape, dtype=_INT64, device=self.device)
    p = _to(self, _FLOAT32) if self.dtype is _HALF else self
    if not replacement or num_samples == 1:
        _check_rows(p)
        keys = _div(p, exponential_(_empty_like(p), 1.0, generator))
        return _topk(keys, num_samples, -1)[1]
    _check_distributions(p)
    cdf = _cumsum(p, -1)
    cdf = _div(cdf, _narrow(cdf, -1, categories - 1, 1))     # each row over its total
    rows = 1 if p.dim() == 1 else p.shape[0]
    chunk = max(1, _COMPARISONS // (rows * categories))
    pieces = []
    for start in range(0, num_samples, chunk):
        count = min(chunk, num_samples - start)
        u = _uniform_(_empty(tuple(p.shape[:-1]) + (count,), dtype=p.dtype, device=p.device), 0.0, 1.0,
                      generator=generator)
        below = _le(_unsqueeze(cdf, -2), _unsqueeze(u, -1))        # (..., count, categories)
        pieces.append(_clamp_max(_sum_dim(below, [-1], False), categories - 1))
    return pieces[0] if len(pieces) == 1 else _cat(pieces, -1)
