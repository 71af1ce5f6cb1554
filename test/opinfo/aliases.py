"""Alias names and small composites (aten/native/composite: aliases, pointwise_math, products,
splits, predicates, inplace_views) against NumPy.

An alias reuses the database entry of the op it names (same samples, reference and dtypes), under
its own name and in-place method, so the alias is checked exactly as its target. Composites get
their own references, computed in float64 where rounding matters.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

import torch
from dtype_cases import random_values
from opinfo import arithmetic, linalg, pointwise, reductions, shape
from opinfo.core import ALL, ALL_AND_BOOL, FLOATING, INTEGRAL, NUMPY_OF, OpInfo, SampleInput

F64 = np.float64
SHAPES = [(2, 3), (), (0, 4), (3, 1, 4)]


def _entries() -> dict[str, OpInfo]:
    return {op.id: op for module in (arithmetic, linalg, pointwise, reductions, shape) for op in module.OPS}


def _alias(target_id: str, name: str, inplace: str | None = None, variant: str = "", **changes) -> OpInfo:
    target = _entries()[target_id]
    return dataclasses.replace(target, name=name, inplace=inplace, variant=variant, **changes)


def _float_result(a: np.ndarray) -> np.dtype:
    return a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)


def _unary(dtype, rng, shapes=SHAPES):
    return [SampleInput((random_values(dtype, s, rng),), name=str(s)) for s in shapes]


def _binary(dtype, rng):
    pairs = [((2, 3), (2, 3)), ((4, 1, 3), (5, 1)), ((), (3,)), ((0, 3), (3,))]
    return [SampleInput((random_values(dtype, a, rng), random_values(dtype, b, rng)), name=f"{a},{b}")
            for a, b in pairs]


def _with_scalar(dtype, rng):
    """A tensor and a Python number (the Scalar overloads)."""
    number = True if dtype is torch.bool else (3 if NUMPY_OF[dtype].kind in "iu" else 1.5)
    return [SampleInput((random_values(dtype, s, rng), number), name=f"{s},scalar") for s in ((2, 3), (), (0, 2))]


# -- pure aliases -------------------------------------------------------------------------------------

ALIAS_OPS = [
    _alias("abs", "absolute", "absolute_"),
    _alias("acos", "arccos", "arccos_"),
    _alias("acosh", "arccosh", "arccosh_"),
    _alias("asin", "arcsin", "arcsin_"),
    _alias("asinh", "arcsinh", "arcsinh_"),
    _alias("atan", "arctan", "arctan_"),
    _alias("atanh", "arctanh", "arctanh_"),
    _alias("atan2", "arctan2", "arctan2_"),
    _alias("div", "divide", "divide_"),
    _alias("div_trunc", "divide", "divide_", "divide_trunc"),
    _alias("div_floor", "divide", "divide_", "divide_floor"),
    _alias("div", "true_divide", "true_divide_"),
    _alias("mul", "multiply", "multiply_"),
    _alias("sub", "subtract", "subtract_"),
    _alias("neg", "negative", "negative_"),
    _alias("trunc", "fix", "fix_"),
    _alias("ne", "not_equal", "not_equal_"),
    _alias("ge", "greater_equal", "greater_equal_"),
    _alias("le", "less_equal", "less_equal_"),
    _alias("gt", "greater", "greater_"),
    _alias("lt", "less", "less_"),
    _alias("transpose", "swapaxes"),
    _alias("transpose", "swapdims"),
    _alias("sign", "sgn", "sgn_"),
    _alias("outer", "ger"),
    OpInfo("subtract", lambda a, b, alpha=1: arithmetic._sub(a, b, alpha), lambda dt, rng: [
        SampleInput(s.args, {"alpha": 2}, name=s.name) for s in _binary(dt, rng)], ALL, variant="subtract_alpha",
        inplace="subtract_"),
    OpInfo("multiply", lambda a, b: np.asarray(a * b).astype(a.dtype), _with_scalar, ALL_AND_BOOL,
           variant="multiply_scalar", supports_out=False),
    OpInfo("greater", lambda a, b: a > b, _with_scalar, ALL_AND_BOOL, variant="greater_scalar"),
    OpInfo("less_equal", lambda a, b: a <= b, _with_scalar, ALL_AND_BOOL, variant="less_equal_scalar"),
    OpInfo("positive", lambda a: a, _unary, ALL, supports_out=False),
    OpInfo("ravel", lambda a: a.reshape(-1), lambda dt, rng: _unary(dt, rng, [(2, 3), (), (0, 4), (2, 1, 3)]),
           supports_out=False),
    OpInfo("Tensor.view_as", lambda a, b: a.reshape(b.shape), lambda dt, rng: [
        SampleInput((random_values(dt, (2, 3), rng), random_values(dt, (2, 1, 3), rng)), name="2x3 as 2x1x3"),
        SampleInput((random_values(dt, (1,), rng), random_values(dt, (), rng)), name="as 0-dim")],
        supports_out=False, variant="view_as"),
    OpInfo("Tensor.reshape_as", lambda a, b: a.reshape(b.shape), lambda dt, rng: [
        SampleInput((random_values(dt, (2, 3), rng), random_values(dt, (6,), rng)), name="2x3 as 6"),
        SampleInput((random_values(dt, (0, 3), rng), random_values(dt, (3, 0), rng)), name="empty")],
        supports_out=False, variant="reshape_as"),
    OpInfo("Tensor.type_as", lambda a, b: a.astype(b.dtype), lambda dt, rng: [
        SampleInput((random_values(dt, (2, 3), rng), np.zeros(1, d)), name=str(d))
        for d in (np.float32, np.int64, np.bool_, np.float64)], supports_out=False, variant="type_as"),
]

# -- composites ---------------------------------------------------------------------------------------


def _flip_samples(min_dims):
    shapes = [(2, 3), (3, 1, 4), (0, 2), (4,), ()]
    return lambda dt, rng: [SampleInput((random_values(dt, s, rng),), name=str(s)) for s in shapes if len(s) >= min_dims]


def _rot90_ref(a, k=1, dims=(0, 1)):
    return np.rot90(a, k, dims).copy()


def _rot90_samples(dt, rng):
    a = random_values(dt, (2, 3, 4), rng)
    return [SampleInput((a,), name="default"), SampleInput((a, 2), name="k=2"), SampleInput((a, -1, [2, 0]), name="k=-1"),
            SampleInput((a, 3, [-1, 1]), name="neg dims"), SampleInput((a, 4), name="k=4"),
            SampleInput((random_values(dt, (0, 3), rng), 1), name="empty")]


def _nan_values(dt, shape, rng):
    a = random_values(dt, shape, rng)
    if a.dtype.kind == "f" and a.size:
        a.reshape(-1)[::3] = np.nan
    return a


def _nan_reduce_samples(dt, rng):
    a = _nan_values(dt, (3, 4), rng)
    return [SampleInput((a,), name="all"), SampleInput((a, 1), name="dim 1"), SampleInput((a, -2, True), name="keepdim"),
            SampleInput((a, [0, 1]), name="both dims"), SampleInput((_nan_values(dt, (), rng),), name="0-dim"),
            SampleInput((_nan_values(dt, (0, 3), rng), 0), name="empty")]


def _nansum_ref(a, dim=None, keepdim=False, dtype=None):
    out = np.dtype(np.int64) if a.dtype.kind in "biu" else a.dtype
    wide = np.nansum(a.astype(F64 if a.dtype.kind == "f" else np.int64), axis=_axis(dim), keepdims=keepdim)
    return np.asarray(wide).astype(out)


def _nanmean_ref(a, dim=None, keepdim=False, dtype=None):
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(np.nanmean(a.astype(F64), axis=_axis(dim), keepdims=keepdim)).astype(a.dtype)


def _axis(dim):
    return tuple(dim) if isinstance(dim, list) else dim


def _xlogy_ref(a, b):
    a, b = np.asarray(a), np.asarray(b)
    dt = _float_result(a)
    x, y = a.astype(F64), b.astype(F64)
    with np.errstate(all="ignore"):
        r = np.where(np.isnan(y), y, np.where(x == 0, 0.0, x * np.log(y)))
    return r.astype(dt)


def _xlogy_samples(dt, rng):
    pos = lambda s: np.asarray(np.abs(random_values(dt, s, rng))).astype(NUMPY_OF[dt])  # noqa: E731
    out = [SampleInput((random_values(dt, (2, 3), rng), pos((2, 3))), name="2x3"),
           SampleInput((pos(()), pos((3,))), name="0-dim"), SampleInput((pos((0, 2)), pos((2,))), name="empty")]
    if NUMPY_OF[dt].kind == "f":
        v = np.array([0.0, 0.0, 1.0, 2.0, np.nan], dtype=NUMPY_OF[dt])
        out.append(SampleInput((v, np.array([0.0, np.nan, 0.0, 3.0, 1.0], dtype=NUMPY_OF[dt])), name="zeros and nan"))
    return out


def _xlogy_scalar_ref(a, b):
    return _xlogy_ref(a, np.asarray(b, dtype=a.dtype if a.dtype.kind == "f" else np.float32))


def _copysign_ref(a, b):
    return np.copysign(a.astype(F64), b.astype(F64)).astype(_float_result(a))


def _signbit_samples(dt, rng):
    out = _unary(dt, rng)
    if NUMPY_OF[dt].kind == "f":
        out.append(SampleInput((np.array([0.0, -0.0, np.inf, -np.inf, 1.0], dtype=NUMPY_OF[dt]),), name="signed zeros"))
    return out


def _heaviside_samples(dt, rng):
    a = random_values(dt, (3, 4), rng, int_range=(-1, 1))
    if a.dtype.kind == "f":
        a.reshape(-1)[::2] = 0
    return [SampleInput((a, random_values(dt, (4,), rng)), name="3x4"),
            SampleInput((random_values(dt, (), rng), random_values(dt, (), rng)), name="0-dim"),
            SampleInput((random_values(dt, (0,), rng), random_values(dt, (1,), rng)), name="empty")]


def _heaviside_ref(a, v):
    return np.where(a == 0, v, (a > 0).astype(a.dtype)).astype(a.dtype)


def _logaddexp_ref(a, b, base2=False):
    x, y = a.astype(F64), b.astype(F64)
    with np.errstate(all="ignore"):
        r = np.logaddexp2(x, y) if base2 else np.logaddexp(x, y)
    return r.astype(a.dtype)


def _special_binary(dt, rng):
    out = _binary(dt, rng)
    v = np.array([np.inf, -np.inf, np.inf, np.nan, 1.0, -50.0], dtype=NUMPY_OF[dt])
    out.append(SampleInput((v, np.array([np.inf, -np.inf, -np.inf, 1.0, np.nan, 60.0], dtype=NUMPY_OF[dt])), name="inf"))
    return out


def _float_power_ref(a, b):
    return np.power(np.asarray(a).astype(F64), np.asarray(b).astype(F64))


def _float_power_samples(dt, rng):
    base = np.asarray(np.abs(random_values(dt, (2, 3), rng))).astype(NUMPY_OF[dt])
    exps = random_values(dt, (3,), rng, int_range=(0, 3))
    return [SampleInput((base, exps), name="tensor,tensor"), SampleInput((base, 2), name="tensor,int"),
            SampleInput((base, 0.5), name="tensor,float"), SampleInput((random_values(dt, (0,), rng), 2), name="empty")]


def _sinc_ref(a):
    x = a.astype(F64)
    return np.sinc(x).astype(_float_result(a))


def _lgamma_ref(a):
    x = a.astype(F64)
    r = np.array([math.lgamma(v) if not (v <= 0 and v == math.floor(v)) else np.inf for v in x.reshape(-1)])
    return r.reshape(x.shape).astype(_float_result(a))


def _inner_ref(a, b):
    if a.ndim == 0 or b.ndim == 0:
        return arithmetic._mul(a, b)
    wide = np.inner(a.astype(F64 if a.dtype.kind == "f" else np.int64), b.astype(F64 if b.dtype.kind == "f" else np.int64))
    return np.asarray(wide).astype(np.result_type(a, b))


def _inner_samples(dt, rng):
    r = lambda s: random_values(dt, s, rng, int_range=(-3, 3))  # noqa: E731
    return [SampleInput((r((2, 3)), r((4, 3))), name="2x3,4x3"), SampleInput((r((3,)), r((3,))), name="vectors"),
            SampleInput((r((2, 1, 3)), r((3,))), name="3d,1d"), SampleInput((r(()), r((2, 2))), name="0-dim"),
            SampleInput((r((2, 0)), r((3, 0))), name="empty k")]


def _kron_ref(a, b):
    return np.kron(a, b).astype(np.result_type(a, b))


def _kron_samples(dt, rng):
    r = lambda s: random_values(dt, s, rng, int_range=(-3, 3))  # noqa: E731
    return [SampleInput((r((2, 2)), r((3, 1))), name="2x2,3x1"), SampleInput((r((2,)), r((2, 3))), name="1d,2d"),
            SampleInput((r(()), r((2,))), name="0-dim"), SampleInput((r((0, 2)), r((2, 2))), name="empty")]


def _cross_ref(a, b, dim=None):
    return np.cross(a, b, axis=dim).astype(np.result_type(a, b))


def _cross_samples(dt, rng):
    r = lambda s: random_values(dt, s, rng, int_range=(-3, 3))  # noqa: E731
    return [SampleInput((r((4, 3)), r((4, 3)), 1), name="dim 1"), SampleInput((r((3, 2)), r((3, 2)), 0), name="dim 0"),
            SampleInput((r((2, 3, 2)), r((2, 3, 2)), -2), name="negative dim"),
            SampleInput((r((2, 1, 3)), r((1, 4, 3)), -1), name="broadcast"),
            SampleInput((r((0, 3)), r((0, 3)), 1), name="empty")]


def _diff_ref(a, n=1, dim=-1, prepend=None, append=None):
    if a.dtype == np.bool_:
        pieces = [p for p in (prepend, a, append) if p is not None]
        x = np.concatenate(pieces, axis=dim)
        for _ in range(n):
            x = np.logical_xor(np.take(x, range(1, x.shape[dim]), dim), np.take(x, range(x.shape[dim] - 1), dim))
        return x
    return np.diff(a, n, axis=dim, prepend=prepend if prepend is not None else np._NoValue,
                   append=append if append is not None else np._NoValue).astype(a.dtype)


def _diff_samples(dt, rng):
    r = lambda s: random_values(dt, s, rng)  # noqa: E731
    a = r((3, 4))
    return [SampleInput((a,), name="default"), SampleInput((a, 2, 0), name="n=2 dim 0"),
            SampleInput((a, 1, -1, r((3, 1)), r((3, 2))), name="prepend/append"), SampleInput((a, 0), name="n=0"),
            SampleInput((r((4,)), 5), name="n > length"), SampleInput((r((0, 2)), 1, 0), name="empty")]


def _trace_ref(a):
    out = np.int64 if a.dtype.kind in "iu" else a.dtype
    return np.asarray(np.trace(a.astype(F64 if a.dtype.kind == "f" else np.int64))).astype(out)


def _cum_ext_ref(a, dim, take_max=True):
    if a.ndim == 0:
        return a.copy(), np.zeros((), np.int64)
    x = np.moveaxis(a, dim, -1)
    values = np.empty_like(x)
    indices = np.zeros(x.shape, np.int64)
    for idx in np.ndindex(x.shape[:-1]):
        best, bi = None, 0
        for i in range(x.shape[-1]):
            v = x[idx + (i,)]
            isnan = a.dtype.kind == "f" and np.isnan(v)
            if i == 0 or isnan or (not (a.dtype.kind == "f" and np.isnan(best)) and (v >= best if take_max else v <= best)):
                best, bi = v, i
            values[idx + (i,)] = best
            indices[idx + (i,)] = bi
    return np.moveaxis(values, -1, dim), np.moveaxis(indices, -1, dim)


def _cum_samples(dt, rng):
    a = random_values(dt, (3, 5), rng, int_range=(-2, 2))
    if a.dtype.kind == "f":
        a[1, 2] = np.nan
        a[2, 0] = a[2, 3] = np.nan
    long_row = random_values(dt, (2, 1500), rng, int_range=(-50, 50))
    long_col = random_values(dt, (1200, 2), rng, int_range=(-50, 50))
    wide = random_values(dt, (2, 3, 600), rng, int_range=(-3, 3))   # inner 600: more than one scan chunk
    if a.dtype.kind == "f":
        long_row[0, 700] = long_col[900, 1] = wide[1, 1, 550] = np.nan
    return [SampleInput((a, 1), name="dim 1"), SampleInput((a, -2), name="dim -2"),
            SampleInput((random_values(dt, (), rng), 0), name="0-dim"), SampleInput((random_values(dt, (0, 3), rng), 0), name="empty"),
            SampleInput((long_row, 1), name="long dim 1"), SampleInput((long_col, 0), name="long dim 0"),
            SampleInput((wide, 1), name="inner 600")]


def _logcumsumexp_ref(a, dim):
    x = a.astype(F64)
    if x.ndim == 0:
        return x.astype(a.dtype)
    with np.errstate(all="ignore"):
        return np.logaddexp.accumulate(x, axis=dim).astype(a.dtype)


def _aminmax_ref(a, dim=None, keepdim=False):
    return np.amin(a, axis=dim, keepdims=keepdim), np.amax(a, axis=dim, keepdims=keepdim)


def _aminmax_samples(dt, rng):
    a = random_values(dt, (3, 4), rng)
    return [SampleInput((a,), name="all"), SampleInput((a,), {"dim": 1}, name="dim 1"),
            SampleInput((a,), {"dim": -2, "keepdim": True}, name="keepdim"), SampleInput((a,), {"keepdim": True}, name="all keepdim"),
            SampleInput((random_values(dt, (), rng),), name="0-dim"), SampleInput((random_values(dt, (0, 3), rng),), {"dim": 1}, name="empty")]


def _tensor_split_ref(a, spec, dim=0):
    if isinstance(spec, np.ndarray):
        spec = int(spec) if spec.ndim == 0 else list(spec)
    return tuple(np.array_split(a, spec, axis=dim))


def _tensor_split_samples(dt, rng):
    a = random_values(dt, (7, 4), rng)
    return [SampleInput((a, 3), name="sections"), SampleInput((a, [1, 5]), name="indices"),
            SampleInput((a, 2, -1), name="negative dim"), SampleInput((a, [2, 9, 1]), name="indices out of order"),
            SampleInput((a, np.array(3)), name="tensor sections"), SampleInput((a, np.array([2, 4]), 1), name="tensor indices"),
            SampleInput((random_values(dt, (0, 2), rng), 2), name="empty")]


def _named_split_ref(axis):
    def ref(a, sections):
        return tuple(np.array_split(a, sections, axis=axis if a.ndim > 1 or axis != 1 else 0))
    return ref


def _named_split_samples(shape):
    def make(dt, rng):
        a = random_values(dt, shape, rng)
        return [SampleInput((a, 2), name="2 sections"), SampleInput((a, [1, 3]), name="indices")]
    return make


def _sum_to_size_ref(a, size):
    lead = a.ndim - len(size)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and a.shape[lead + i] != 1)
    out = np.int64 if a.dtype.kind in "biu" else a.dtype
    if not dims:
        return a
    wide = a.astype(F64 if a.dtype.kind == "f" else np.int64).sum(axis=dims, keepdims=True)
    return wide.reshape(size).astype(out)


def _sum_to_size_samples(dt, rng):
    a = random_values(dt, (2, 3, 4), rng)
    return [SampleInput((a, (3, 1)), name="3x1"), SampleInput((a, (1, 3, 4)), name="1x3x4"), SampleInput((a, (2, 3, 4)), name="same"),
            SampleInput((a, (4,)), name="4")]


def _diagflat_ref(a, offset=0):
    return np.diagflat(a, offset)


def _diagflat_samples(dt, rng):
    return [SampleInput((random_values(dt, (2, 2), rng),), name="2x2"), SampleInput((random_values(dt, (3,), rng), 1), name="offset 1"),
            SampleInput((random_values(dt, (3,), rng), -2), name="offset -2"), SampleInput((random_values(dt, (), rng),), name="0-dim"),
            SampleInput((random_values(dt, (0,), rng),), name="empty")]


def _digamma_ref(a):
    """psi = d/dx lgamma, by a fourth-order central difference (|error| ~ 1e-11 away from poles),
    with the reflection formula for negative x and PyTorch's values at the poles."""
    def psi(x: float) -> float:
        if x == 0:
            return math.copysign(math.inf, -x)
        if x < 0 and x == math.floor(x):
            return math.nan
        if x < 0.5:
            return psi(1.0 - x) - math.pi / math.tan(math.pi * x)
        h = 1e-3 * max(1.0, x)
        f = math.lgamma
        return (8 * (f(x + h) - f(x - h)) - (f(x + 2 * h) - f(x - 2 * h))) / (12 * h)
    x = a.astype(F64)
    return np.array([psi(v) for v in x.reshape(-1)]).reshape(x.shape).astype(_float_result(a))


def _digamma_samples(dt, rng):
    out = _unary(dt, rng)
    if NUMPY_OF[dt].kind == "f":
        out.append(SampleInput((np.array([0.0, -0.0, -1.0, -2.5, 1.0, 10.0, 1e4], dtype=NUMPY_OF[dt]),), name="poles"))
    return out


def _polygamma_ref(n, a):
    """(-1)^(n+1) n! sum_k (x + k)^-(n+1): 2000 terms summed directly, then the Euler-Maclaurin
    tail (integral, half term, two derivative terms); digamma for n = 0; +-inf at the poles."""
    if n == 0:
        return _digamma_ref(a)
    s = n + 1
    sign = 1.0 if n % 2 else -1.0
    fact = float(math.factorial(n))

    def value(x: float) -> float:
        if x <= 0 and x == math.floor(x):
            return sign * math.inf
        k = np.arange(2000, dtype=F64)
        total = float(np.sum((x + k) ** -s))
        m = x + 2000.0
        total += m ** (1 - s) / (s - 1) + 0.5 * m ** -s + s * m ** (-s - 1) / 12 - s * (s + 1) * (s + 2) * m ** (-s - 3) / 720
        return sign * fact * total

    x = a.astype(F64)
    return np.array([value(v) for v in x.reshape(-1)]).reshape(x.shape).astype(_float_result(a))


def _polygamma_samples(dt, rng):
    """Orders 0 to 4 on positive values (integers: 0 and up), negative non-integers, and the pole
    at 0 (negative integer x is a pole only for n >= 2: n = 1's reflection gives a huge finite value)."""
    out = []
    for n in range(5):
        for shape in SHAPES:
            a = random_values(dt, shape, rng)
            if NUMPY_OF[dt].kind == "f":
                a = np.asarray(np.abs(a) + np.asarray(0.1, a.dtype))
            elif NUMPY_OF[dt].kind in "iu":
                a = np.asarray(np.abs(a.astype(np.int64))).astype(NUMPY_OF[dt])
            out.append(SampleInput((n, a), name=f"n={n} {shape}"))
        if NUMPY_OF[dt].kind == "f":
            out.append(SampleInput((n, np.array([0.0, -0.5, -2.3, 1.0, 7.5, 30.0], dtype=NUMPY_OF[dt])), name=f"n={n} edges"))
    return out


def _int_binary(dt, rng):
    return [SampleInput((random_values(dt, (3, 4), rng, int_range=(-10, 10)), random_values(dt, (4,), rng, int_range=(-9, 9))),
                        name="3x4,4"),
            SampleInput((random_values(dt, (), rng), random_values(dt, (2,), rng)), name="0-dim"),
            SampleInput((np.zeros(3, NUMPY_OF[dt]), np.array([0, 5, 7]).astype(NUMPY_OF[dt])), name="zeros"),
            SampleInput((random_values(dt, (0, 2), rng), random_values(dt, (2,), rng)), name="empty")]


def _deg_ref(factor):
    def ref(a):
        return (a.astype(F64) * factor).astype(_float_result(a))
    return ref


COMPOSITE_OPS = [
    OpInfo("fliplr", np.fliplr, _flip_samples(2), supports_out=False),
    OpInfo("flipud", np.flipud, _flip_samples(1), supports_out=False),
    OpInfo("rot90", _rot90_ref, _rot90_samples, supports_out=False),
    OpInfo("nansum", _nansum_ref, _nan_reduce_samples, ALL_AND_BOOL),
    OpInfo("nanmean", _nanmean_ref, _nan_reduce_samples, FLOATING, tol={torch.float32: (1e-5, 1e-6)}),
    OpInfo("xlogy", _xlogy_ref, _xlogy_samples, ALL_AND_BOOL, inplace="xlogy_"),
    OpInfo("xlogy", _xlogy_scalar_ref, lambda dt, rng: [SampleInput((s.args[0], 2.5), name=s.name)
                                                        for s in _xlogy_samples(dt, rng)], ALL, variant="xlogy_scalar_other"),
    OpInfo("copysign", _copysign_ref, _binary, ALL_AND_BOOL, inplace="copysign_"),
    OpInfo("copysign", lambda a, b: np.copysign(a.astype(F64), b).astype(_float_result(a)),
           lambda dt, rng: [SampleInput((s.args[0], -1.0), name=s.name) for s in _unary(dt, rng)], ALL,
           variant="copysign_scalar"),
    OpInfo("deg2rad", _deg_ref(math.pi / 180), _unary, ALL, inplace="deg2rad_", tol={torch.float32: (2e-6, 1e-6)}),
    OpInfo("rad2deg", _deg_ref(180 / math.pi), _unary, ALL, inplace="rad2deg_", tol={torch.float32: (2e-6, 1e-5)}),
    OpInfo("signbit", lambda a: np.signbit(a) if a.dtype.kind != "b" else np.zeros(a.shape, bool), _signbit_samples,
           ALL_AND_BOOL),
    OpInfo("heaviside", _heaviside_ref, _heaviside_samples, ALL, inplace="heaviside_"),
    OpInfo("logaddexp", _logaddexp_ref, _special_binary, FLOATING),
    OpInfo("logaddexp2", lambda a, b: _logaddexp_ref(a, b, True), _special_binary, FLOATING),
    OpInfo("float_power", _float_power_ref, _float_power_samples, ALL, inplace=None),
    OpInfo("sinc", _sinc_ref, _unary, ALL_AND_BOOL, inplace="sinc_", tol={torch.float32: (1e-5, 1e-6)}),
    OpInfo("lgamma", _lgamma_ref, _unary, ALL_AND_BOOL, inplace="lgamma_", tol={torch.float32: (1e-5, 1e-5)}),
    OpInfo("digamma", _digamma_ref, _digamma_samples, ALL_AND_BOOL, inplace="digamma_",
           tol={torch.float32: (1e-5, 1e-5), torch.float64: (1e-8, 1e-8)}),
    OpInfo("polygamma", _polygamma_ref, _polygamma_samples, ALL_AND_BOOL, method=False,
           tol={torch.float32: (1e-5, 1e-5), torch.float64: (1e-8, 1e-8)}),
    OpInfo("special.polygamma", _polygamma_ref, _polygamma_samples, FLOATING, method=False,
           variant="special_polygamma", tol={torch.float32: (1e-5, 1e-5), torch.float64: (1e-8, 1e-8)}),
    OpInfo("gcd", lambda a, b: np.gcd(a, b).astype(np.result_type(a, b)), _int_binary, INTEGRAL, inplace="gcd_"),
    OpInfo("lcm", lambda a, b: np.lcm(a, b).astype(np.result_type(a, b)), _int_binary, INTEGRAL, inplace="lcm_"),
    OpInfo("inner", _inner_ref, _inner_samples, ALL, tol={torch.float32: (1e-5, 1e-5)}),
    OpInfo("kron", _kron_ref, _kron_samples, ALL_AND_BOOL),
    OpInfo("cross", _cross_ref, _cross_samples, ALL, tol={torch.float32: (1e-5, 1e-5)}),
    OpInfo("diff", _diff_ref, _diff_samples, ALL_AND_BOOL),
    OpInfo("trace", _trace_ref, lambda dt, rng: [SampleInput((random_values(dt, s, rng),), name=str(s))
                                                  for s in ((3, 3), (2, 4), (0, 3))], ALL, supports_out=False),
    OpInfo("cummax", lambda a, dim: _cum_ext_ref(a, dim, True), _cum_samples, ALL_AND_BOOL),
    OpInfo("cummin", lambda a, dim: _cum_ext_ref(a, dim, False), _cum_samples, ALL_AND_BOOL),
    OpInfo("logcumsumexp", _logcumsumexp_ref, lambda dt, rng: [s for s in _cum_samples(dt, rng)], FLOATING,
           tol={torch.float32: (1e-5, 1e-5)}),
    OpInfo("aminmax", _aminmax_ref, _aminmax_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("tensor_split", _tensor_split_ref, _tensor_split_samples, supports_out=False),
    OpInfo("hsplit", _named_split_ref(1), _named_split_samples((4, 4)), supports_out=False),
    OpInfo("hsplit", _named_split_ref(1), _named_split_samples((4,)), supports_out=False, variant="hsplit_1d"),
    OpInfo("vsplit", _named_split_ref(0), _named_split_samples((4, 2)), supports_out=False),
    OpInfo("dsplit", _named_split_ref(2), _named_split_samples((1, 2, 4)), supports_out=False),
    OpInfo("Tensor.sum_to_size", _sum_to_size_ref, _sum_to_size_samples, supports_out=False, variant="sum_to_size"),
    OpInfo("diagflat", _diagflat_ref, _diagflat_samples, supports_out=False),
]

OPS = ALIAS_OPS + COMPOSITE_OPS
