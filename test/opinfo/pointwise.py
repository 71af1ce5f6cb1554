"""Generated pointwise ops (ember_pointwise formulas) and their composites, against NumPy.

References compute in float64 where rounding matters and cast to the result dtype; integer
ops use Python's semantics where PyTorch does (floor division, remainder follow the divisor's
sign; fmod the dividend's).
"""
from __future__ import annotations

import math

import numpy as np

import torch
from dtype_cases import random_values
from opinfo.core import ALL, ALL_AND_BOOL, FLOATING, INTEGRAL, NUMPY_OF, OpInfo, SampleInput

SHAPES = [(2, 3), (), (0, 4), (3, 1, 4)]
PAIRS = [((2, 3), (2, 3)), ((4, 1, 3), (5, 1)), ((), (3,)), ((0, 3), (3,))]
INTEGRAL_AND_BOOL = (torch.bool, *INTEGRAL)
F64 = np.float64


def float_result(a: np.ndarray) -> np.dtype:
    return a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)


def domain_values(dtype: torch.dtype, shape: tuple[int, ...], rng: np.random.Generator, domain: str) -> np.ndarray:
    np_dtype = NUMPY_OF[dtype]
    if np_dtype.kind != "f":
        lows = {"any": -10, "pos": 1, "unit": -1, "ge1": 1}
        highs = {"any": 10, "pos": 10, "unit": 1, "ge1": 10}
        low = max(lows[domain], 0 if np_dtype.kind in "ub" else lows[domain])
        return rng.integers(low, highs[domain], size=shape, endpoint=True).astype(np_dtype)
    x = rng.standard_normal(shape)
    x = {"any": x * 3, "pos": np.abs(x) * 3 + 0.01, "unit": np.tanh(x) * 0.99, "ge1": np.abs(x) * 3 + 1}[domain]
    return np.asarray(x).astype(np_dtype)


def unary_samples(domain: str = "any"):
    def make(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
        return [SampleInput((domain_values(dtype, s, rng, domain),), name=str(s)) for s in SHAPES]
    return make


def binary_samples(nonzero: bool = False, int_range: tuple[int, int] = (-10, 10), special: bool = False):
    def make(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
        out = [SampleInput((random_values(dtype, a, rng, int_range=int_range),
                            random_values(dtype, b, rng, nonzero=nonzero, int_range=int_range)), name=f"{a},{b}")
               for a, b in PAIRS]
        if special and NUMPY_OF[dtype].kind == "f":
            v = np.array([np.nan, 1.0, -np.inf, 0.0, np.inf, 2.0], dtype=NUMPY_OF[dtype])
            out.append(SampleInput((v, v[::-1].copy()), name="nan and inf"))
        return out
    return make


def unary_float(np_fn, domain: str = "any") -> tuple:
    def ref(a):
        return np.asarray(np_fn(a.astype(F64))).astype(float_result(a))
    return ref, unary_samples(domain)


def _cast_like(a: np.ndarray, value: np.ndarray) -> np.ndarray:
    return np.asarray(value).astype(a.dtype)


def _floor_divide(a, b):
    if a.dtype.kind == "f":
        return np.floor_divide(a.astype(F64), b.astype(F64)).astype(a.dtype)
    return np.floor_divide(a, b)


def _pow(a, b):
    if a.dtype.kind == "f":
        return np.power(a.astype(F64), b.astype(F64)).astype(a.dtype)
    return np.power(a, b).astype(a.dtype)


def _erfinv(a):
    from math import erf
    out = np.empty(a.shape, F64)
    for idx, y in np.ndenumerate(a.astype(F64)):
        lo, hi = -10.0, 10.0
        for _ in range(200):     # bisection on erf: a slow but independent reference
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if erf(mid) < y else (lo, mid)
        out[idx] = (lo + hi) / 2
    return out.astype(float_result(a))


_erf = np.vectorize(math.erf, otypes=[F64])
_erfc = np.vectorize(math.erfc, otypes=[F64])


def _round_half_even(a):
    return np.round(a) if a.dtype.kind == "f" else a


def _relu(a):
    return np.where((a > 0) | np.isnan(a) if a.dtype.kind == "f" else a > 0, a, 0).astype(a.dtype)


def _where_samples(dtype, rng):
    out = []
    for a, b in PAIRS:
        cond = np.asarray(rng.random(a) < 0.5)
        out.append(SampleInput((cond, random_values(dtype, a, rng), random_values(dtype, b, rng)), name=f"{a},{b}"))
    return out


def _clamp_samples(dtype, rng):
    x = random_values(dtype, (3, 4), rng)
    lo, hi = (-2, 3) if NUMPY_OF[dtype].kind != "u" else (2, 5)
    if NUMPY_OF[dtype].kind == "f":
        lo, hi = float(lo), float(hi)
    return [SampleInput((x,), dict(min=lo, max=hi), name="both"), SampleInput((x,), dict(min=lo), name="min"),
            SampleInput((x,), dict(max=hi), name="max"),
            SampleInput((x, np.asarray(random_values(dtype, (4,), rng)), None), name="tensor min")]


def _clamp(a, *args, min=None, max=None):
    if args:
        min = args[0]
        max = args[1] if len(args) > 1 else None
    out = a
    if min is not None:
        out = np.maximum(out, np.asarray(min).astype(a.dtype))
    if max is not None:
        out = np.minimum(out, np.asarray(max).astype(a.dtype))
    return np.asarray(out).astype(a.dtype)


def _lerp(a, b, w):
    a64, b64, w64 = (np.asarray(v).astype(F64) for v in (a, b, w))
    return np.where(np.abs(w64) < 0.5, a64 + w64 * (b64 - a64), b64 - (b64 - a64) * (1 - w64)).astype(a.dtype)


def _lerp_samples(dtype, rng):
    a, b = random_values(dtype, (3, 4), rng), random_values(dtype, (4,), rng)
    return [SampleInput((a, b, 0.3), name="scalar weight"),
            SampleInput((a, b, np.asarray(rng.random((3, 4))).astype(NUMPY_OF[dtype])), name="tensor weight")]


def _addc_samples(dtype, rng):
    return [SampleInput((random_values(dtype, (3, 4), rng), random_values(dtype, (4,), rng),
                         random_values(dtype, (3, 1), rng, nonzero=True)), dict(value=2), name="value=2"),
            SampleInput((random_values(dtype, (2,), rng), random_values(dtype, (2,), rng),
                         random_values(dtype, (2,), rng, nonzero=True)), name="default value")]


def _shift_samples(dtype, rng):
    a = random_values(dtype, (3, 4), rng)
    return [SampleInput((a, rng.integers(0, 7, size=(3, 4)).astype(NUMPY_OF[dtype])), name="in range")]


def _nan_samples(dtype, rng):
    v = np.array([np.nan, np.inf, -np.inf, 1.5, -2.0, 0.0], dtype=NUMPY_OF[dtype])
    return [SampleInput((v,), name="defaults"), SampleInput((v,), dict(nan=1.0, posinf=2.0, neginf=-3.0), name="given")]


def _nan_to_num(a, nan=None, posinf=None, neginf=None):
    return np.nan_to_num(a, nan=0.0 if nan is None else nan, posinf=posinf, neginf=neginf)


def _act(fn):
    def ref(a, *args, **kwargs):
        return np.asarray(fn(a.astype(F64), *args, **kwargs)).astype(a.dtype)
    return ref


def _softplus(x, beta=1, threshold=20):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946

UNARY_FLOAT = {
    "sqrt": (np.sqrt, "pos"), "rsqrt": (lambda x: 1 / np.sqrt(x), "pos"), "exp2": (np.exp2, "any"),
    "expm1": (np.expm1, "any"), "log": (np.log, "pos"), "log2": (np.log2, "pos"), "log10": (np.log10, "pos"),
    "log1p": (np.log1p, "pos"), "sin": (np.sin, "any"), "cos": (np.cos, "any"), "tan": (np.tan, "unit"),
    "asin": (np.arcsin, "unit"), "acos": (np.arccos, "unit"), "atan": (np.arctan, "any"), "sinh": (np.sinh, "unit"),
    "cosh": (np.cosh, "unit"), "tanh": (np.tanh, "any"), "asinh": (np.arcsinh, "any"), "acosh": (np.arccosh, "ge1"),
    "atanh": (np.arctanh, "unit"), "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), "any"), "erf": (_erf, "any"),
    "erfc": (_erfc, "any"), "reciprocal": (lambda x: 1 / x, "pos"),
}

OPS = [OpInfo(name, *unary_float(fn, domain), ALL_AND_BOOL if domain == "any" else ALL, inplace=name + "_")
       for name, (fn, domain) in UNARY_FLOAT.items()]
OPS[[o.name for o in OPS].index("reciprocal")].tol = {torch.float32: (1.3e-6, 1e-6)}
OPS += [
    OpInfo("erfinv", _erfinv, unary_samples("unit"), FLOATING, inplace="erfinv_",
           tol={torch.float32: (1e-5, 1e-6), torch.float64: (1e-10, 1e-12)}),
    OpInfo("abs", lambda a: np.abs(a), unary_samples(), ALL, inplace="abs_"),
    OpInfo("angle", lambda a: np.angle(a.astype(F64)).astype(float_result(a)), unary_samples(), ALL_AND_BOOL),
    OpInfo("conj_physical", lambda a: a.copy(), unary_samples(), ALL_AND_BOOL, inplace="conj_physical_"),
    OpInfo("sign", lambda a: np.sign(a.astype(np.int64) if a.dtype == np.bool_ else a).astype(a.dtype), unary_samples(), ALL_AND_BOOL, inplace="sign_"),
    OpInfo("floor", np.floor, unary_samples(), ALL, inplace="floor_"),
    OpInfo("ceil", np.ceil, unary_samples(), ALL, inplace="ceil_"),
    OpInfo("trunc", np.trunc, unary_samples(), ALL, inplace="trunc_"),
    OpInfo("round", _round_half_even, unary_samples(), ALL, inplace="round_"),
    OpInfo("frac", lambda a: a - np.trunc(a), unary_samples(), FLOATING, inplace="frac_"),
    OpInfo("square", lambda a: a * a, unary_samples(), ALL, inplace="square_"),
    OpInfo("floor_divide", _floor_divide, binary_samples(nonzero=True), ALL, inplace="floor_divide_"),
    OpInfo("remainder", lambda a, b: np.remainder(a, b).astype(np.result_type(a, b)), binary_samples(nonzero=True),
           ALL, inplace="remainder_"),
    OpInfo("fmod", lambda a, b: np.fmod(a, b).astype(np.result_type(a, b)), binary_samples(nonzero=True), ALL,
           inplace="fmod_"),
    OpInfo("pow", _pow, binary_samples(int_range=(0, 3)), ALL, inplace="pow_"),
    OpInfo("atan2", lambda a, b: np.arctan2(a.astype(F64), b.astype(F64)).astype(float_result(a)), binary_samples(),
           ALL_AND_BOOL, inplace=None),
    OpInfo("hypot", lambda a, b: np.hypot(a.astype(F64), b.astype(F64)).astype(a.dtype), binary_samples(), FLOATING,
           inplace="hypot_"),
    OpInfo("maximum", lambda a, b: np.maximum(a, b), binary_samples(special=True), ALL_AND_BOOL),
    OpInfo("minimum", lambda a, b: np.minimum(a, b), binary_samples(special=True), ALL_AND_BOOL),
    OpInfo("max", lambda a, b: np.maximum(a, b), binary_samples(special=True), ALL_AND_BOOL, variant="max_other"),
    OpInfo("min", lambda a, b: np.minimum(a, b), binary_samples(special=True), ALL_AND_BOOL, variant="min_other"),
    OpInfo("fmax", lambda a, b: np.fmax(a, b), binary_samples(special=True), ALL),
    OpInfo("fmin", lambda a, b: np.fmin(a, b), binary_samples(special=True), ALL),
    OpInfo("where", lambda c, a, b: np.where(c, a, b), _where_samples, ALL_AND_BOOL, method=False),
    OpInfo("clamp", _clamp, _clamp_samples, ALL, inplace="clamp_"),
    OpInfo("clip", _clamp, _clamp_samples, ALL, variant="clip"),
    OpInfo("lerp", _lerp, _lerp_samples, FLOATING, inplace="lerp_"),
    OpInfo("addcmul", lambda a, b, c, value=1: (a + np.asarray(value).astype(a.dtype) * b * c).astype(a.dtype),
           _addc_samples, ALL, inplace="addcmul_"),
    OpInfo("addcdiv", lambda a, b, c, value=1: (a.astype(F64) + value * b.astype(F64) / c.astype(F64)).astype(a.dtype),
           _addc_samples, FLOATING, inplace="addcdiv_"),
    OpInfo("nan_to_num", _nan_to_num, _nan_samples, FLOATING, inplace="nan_to_num_"),
    OpInfo("isnan", lambda a: np.isnan(a), unary_samples(), ALL_AND_BOOL, supports_out=False),
    OpInfo("isinf", lambda a: np.isinf(a), unary_samples(), ALL_AND_BOOL, supports_out=False),
    OpInfo("isfinite", lambda a: np.isfinite(a), unary_samples(), ALL_AND_BOOL, supports_out=False),
    OpInfo("isposinf", lambda a: np.isposinf(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool), unary_samples(),
           ALL_AND_BOOL, method=False),
    OpInfo("isneginf", lambda a: np.isneginf(a) if a.dtype.kind == "f" else np.zeros(a.shape, bool), unary_samples(),
           ALL_AND_BOOL, method=False),
    OpInfo("logical_not", np.logical_not, unary_samples(), ALL_AND_BOOL, inplace="logical_not_"),
    OpInfo("bitwise_not", np.invert, unary_samples(), INTEGRAL_AND_BOOL, inplace="bitwise_not_"),
    OpInfo("bitwise_left_shift", lambda a, b: np.left_shift(a, b), _shift_samples, INTEGRAL,
           inplace="bitwise_left_shift_"),
    OpInfo("bitwise_right_shift", lambda a, b: np.right_shift(a, b), _shift_samples, INTEGRAL,
           inplace="bitwise_right_shift_"),
    OpInfo("relu", _relu, unary_samples(), ALL, inplace="relu_", supports_out=False),
    OpInfo("selu", _act(lambda x: _SELU_SCALE * np.where(x > 0, x, _SELU_ALPHA * np.expm1(x))), unary_samples(),
           FLOATING, method=False, inplace="selu_", supports_out=False),
    OpInfo("celu", _act(lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x / alpha))), unary_samples(),
           FLOATING, method=False, inplace="celu_", supports_out=False),
    OpInfo("threshold", lambda a, t, v: np.where(a <= t, np.asarray(v).astype(a.dtype), a),
           lambda dt, rng: [SampleInput((random_values(dt, (3, 4), rng), 1, 5), name="t=1 v=5")], ALL, method=False,
           inplace="threshold_"),
    OpInfo("logit", _act(lambda x, eps=None: np.log((y := x if eps is None else np.clip(x, eps, 1 - eps)) / (1 - y))),
           lambda dt, rng: [SampleInput((np.asarray(rng.random((3, 4))).astype(NUMPY_OF[dt]),), name="(0,1)"),
                            SampleInput((np.asarray(rng.random((5,)) * 1.4 - 0.2).astype(NUMPY_OF[dt]), 0.1),
                                        name="eps")],
           FLOATING, inplace="logit_"),
    OpInfo("div", lambda a, b, rounding_mode=None: (np.trunc(a.astype(F64) / b) if a.dtype.kind == "f" else
                                                    np.fix(a / b).astype(np.int64)).astype(a.dtype),
           lambda dt, rng: [SampleInput((s.args[0], s.args[1]), dict(rounding_mode="trunc"), name=s.name)
                            for s in binary_samples(nonzero=True)(dt, rng)], ALL, variant="div_trunc",
           inplace="div_"),
    OpInfo("div", lambda a, b, rounding_mode=None: _floor_divide(a, b),
           lambda dt, rng: [SampleInput((s.args[0], s.args[1]), dict(rounding_mode="floor"), name=s.name)
                            for s in binary_samples(nonzero=True)(dt, rng)], ALL, variant="div_floor",
           inplace="div_"),
]

for _name, _fn in [("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                   ("gt", np.greater), ("ge", np.greater_equal)]:
    OPS.append(OpInfo(_name, _fn, binary_samples(), ALL_AND_BOOL))
for _name, _fn in [("logical_and", np.logical_and), ("logical_or", np.logical_or), ("logical_xor", np.logical_xor)]:
    OPS.append(OpInfo(_name, _fn, binary_samples(), ALL_AND_BOOL, inplace=_name + "_"))
for _name, _fn in [("bitwise_and", np.bitwise_and), ("bitwise_or", np.bitwise_or), ("bitwise_xor", np.bitwise_xor)]:
    OPS.append(OpInfo(_name, _fn, binary_samples(), INTEGRAL_AND_BOOL, inplace=_name + "_"))

_NN: dict = {
    "relu6": (lambda x: np.minimum(np.maximum(x, 0), 6), {}),
    "leaky_relu": (lambda x, s=0.01: np.where(x > 0, x, x * s), {}),
    "elu": (lambda x, alpha=1.0: np.where(x > 0, x, alpha * np.expm1(x)), {}),
    "silu": (lambda x: x / (1 + np.exp(-x)), {}),
    "mish": (lambda x: x * np.tanh(np.log1p(np.exp(x))), {}),
    "softplus": (_softplus, {}),
    "hardtanh": (lambda x, lo=-1.0, hi=1.0: np.minimum(np.maximum(x, lo), hi), {}),
    "hardsigmoid": (lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6, {}),
    "hardswish": (lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6, {}),
    "gelu": (lambda x: x * 0.5 * (1 + _erf(x / np.sqrt(2))), {}),
}
for _name, (_fn, _kw) in _NN.items():
    OPS.append(OpInfo(f"_C._nn.{_name}", _act(_fn), unary_samples(), FLOATING, method=False, variant=_name,
                      supports_out=False))
OPS.append(OpInfo("_C._nn.gelu", _act(lambda x, approximate="tanh": 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
                  lambda dt, rng: [SampleInput((s.args[0],), dict(approximate="tanh"), name=s.name)
                                   for s in unary_samples()(dt, rng)], FLOATING, method=False, variant="gelu_tanh",
                  supports_out=False))
