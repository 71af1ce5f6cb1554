"""The ops that compute in complex64 and complex128 (their entries' `complex` loops), against NumPy's
complex arithmetic: tensors of both dtypes, broadcasting, 0-d and empty tensors, Python complex and
real numbers, and real tensors mixed with complex ones."""
from __future__ import annotations

import numpy as np

import torch
from dtype_cases import COMPLEX_DTYPES, random_values
from opinfo.core import OpInfo, SampleInput

COMPLEX = tuple(COMPLEX_DTYPES)
_SHAPES = [((2, 3), (2, 3)), ((4, 1, 3), (5, 1)), ((), (3,)), ((0, 3), (3,)), ((3,), ())]


def unary_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((random_values(dtype, shape, rng),), name=str(shape)) for shape in [(2, 3), (), (0,), (5, 1, 4)]]


def binary_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = [SampleInput((random_values(dtype, a, rng), random_values(dtype, b, rng)), name=f"{a},{b}")
           for a, b in _SHAPES]
    out += [SampleInput((random_values(dtype, (2, 3), rng), 1.5 - 2j), name="python complex"),
            SampleInput((random_values(dtype, (2, 3), rng), 3), name="python int"),
            # a real tensor meets a complex one: both compute in the complex dtype
            SampleInput((random_values(dtype, (2, 3), rng), random_values(torch.float32, (3,), rng)),
                        name="real operand")]
    return out


def _first(fn):
    """fn's result in its first argument's dtype (NumPy promotes a Python complex further)."""
    return lambda a, *rest, **kwargs: np.asarray(fn(a, *rest, **kwargs)).astype(a.dtype)


def _real_of(a: np.ndarray) -> np.dtype:
    return np.empty(0, a.dtype).real.dtype


def _unary(name: str, fn) -> OpInfo:
    return OpInfo(name, _first(fn), unary_samples, COMPLEX, inplace=name + "_", variant="complex_" + name)


def _binary(name: str, fn, **kwargs) -> OpInfo:
    return OpInfo(name, _first(fn), binary_samples, COMPLEX, variant="complex_" + name, **kwargs)


def _where_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    cond = rng.random((2, 3)) < 0.5
    return [SampleInput((cond, random_values(dtype, (2, 3), rng), random_values(dtype, (3,), rng)), name="broadcast"),
            SampleInput((cond[0], random_values(dtype, (3,), rng), 2j), name="python complex")]


def _three_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput(tuple(random_values(dtype, s, rng) for s in ((2, 3), (3,), (2, 1))), {"value": v}, name=str(v))
            for v in (1, 0.5, 2 - 1j)]


def _special_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    real = np.array([0, np.inf, -np.inf, np.nan, 1, 2, -3, 0])
    imag = np.array([0, 1, np.nan, 0, np.inf, -2, np.nan, -np.inf])
    z = np.empty(real.shape, np.dtype(dtype.numpy_dtype))
    z.real, z.imag = real, imag          # not real + 1j * imag, where 1j * inf has a NaN real part
    return [SampleInput((z,), name="special values")]


OPS = [
    _binary("add", lambda a, b, alpha=1: a + alpha * np.asarray(b), inplace="add_"),
    OpInfo("add", lambda a, b, alpha: (a + alpha * b).astype(a.dtype),
           lambda dt, rng: [SampleInput((random_values(dt, (2, 3), rng), random_values(dt, (3,), rng)),
                                        {"alpha": 0.5 + 2j}, name="complex alpha")],
           COMPLEX, inplace="add_", variant="complex_add_alpha"),
    _binary("sub", lambda a, b: a - b, inplace="sub_"),
    _binary("mul", lambda a, b: a * b, inplace="mul_"),
    _binary("div", lambda a, b: a / b, inplace="div_"),
    _binary("pow", lambda a, b: np.power(a, np.asarray(b).astype(a.dtype)), inplace="pow_"),
    OpInfo("eq", lambda a, b: a == b, binary_samples, COMPLEX, variant="complex_eq"),
    OpInfo("ne", lambda a, b: a != b, binary_samples, COMPLEX, variant="complex_ne"),
    _unary("neg", np.negative),
    _unary("exp", np.exp),
    _unary("log", np.log),
    _unary("log2", np.log2),
    _unary("log10", np.log10),
    _unary("sqrt", np.sqrt),
    _unary("rsqrt", lambda a: 1 / np.sqrt(a)),
    _unary("reciprocal", lambda a: 1 / a),
    _unary("sigmoid", lambda a: 1 / (1 + np.exp(-a))),
    _unary("sin", np.sin), _unary("cos", np.cos), _unary("tan", np.tan),
    _unary("asin", np.arcsin), _unary("acos", np.arccos), _unary("atan", np.arctan),
    _unary("sinh", np.sinh), _unary("cosh", np.cosh), _unary("tanh", np.tanh),
    _unary("asinh", np.arcsinh), _unary("acosh", np.arccosh), _unary("atanh", np.arctanh),
    _unary("conj_physical", np.conj),
    # real results: no in-place form (PyTorch refuses abs_ on complex tensors)
    OpInfo("abs", lambda a: np.abs(a).astype(_real_of(a)), unary_samples, COMPLEX, variant="complex_abs"),
    OpInfo("angle", lambda a: np.angle(a).astype(_real_of(a)), unary_samples, COMPLEX, variant="complex_angle"),
    OpInfo("abs", lambda a: np.abs(a).astype(_real_of(a)), _special_samples, COMPLEX, variant="complex_abs_special"),
    OpInfo("isnan", np.isnan, _special_samples, COMPLEX, supports_out=False, variant="complex_isnan"),
    OpInfo("isinf", np.isinf, _special_samples, COMPLEX, supports_out=False, variant="complex_isinf"),
    OpInfo("isfinite", np.isfinite, _special_samples, COMPLEX, supports_out=False, variant="complex_isfinite"),
    OpInfo("where", lambda c, a, b: np.where(c, a, np.asarray(b).astype(a.dtype)), _where_samples, COMPLEX,
           method=False, variant="complex_where"),
    OpInfo("addcmul", lambda a, b, c, value=1: (a + value * b * c).astype(a.dtype), _three_samples, COMPLEX,
           inplace="addcmul_", variant="complex_addcmul"),
    OpInfo("addcdiv", lambda a, b, c, value=1: (a + value * b / c).astype(a.dtype), _three_samples, COMPLEX,
           inplace="addcdiv_", variant="complex_addcdiv"),
]
