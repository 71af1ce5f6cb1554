"""Pointwise arithmetic: add, sub, mul, div, neg, exp (type promotion with Python numbers included)."""
from __future__ import annotations

import numpy as np

import torch
from dtype_cases import random_values
from opinfo.core import ALL, ALL_AND_BOOL, FLOATING, NUMPY_OF, OpInfo, SampleInput

SHAPES = [((2, 3), (2, 3)), ((4, 1, 3), (5, 1)), ((), (3,)), ((0, 3), (3,)), ((3,), ())]


def unary_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((random_values(dtype, shape, rng),), name=str(shape)) for shape in [(2, 3), (), (0,), (5, 1, 4)]]


def binary_samples(dtype: torch.dtype, rng: np.random.Generator, nonzero: bool = False) -> list[SampleInput]:
    out = [SampleInput((random_values(dtype, a, rng), random_values(dtype, b, rng, nonzero=nonzero)), name=f"{a},{b}")
           for a, b in SHAPES]
    out.append(SampleInput((random_values(dtype, (2, 3), rng), 3 if dtype is not torch.bool else True),
                           name="python number"))
    return out


def promoted(a: np.ndarray, b: object) -> np.dtype:
    return a.dtype if not isinstance(b, np.ndarray) or b.ndim == 0 and a.ndim > 0 else np.result_type(a, b)


def _add(a, b, alpha=1):
    dt = promoted(a, b)
    if dt == np.bool_:
        return np.logical_or(a, np.logical_and(b, bool(alpha)))
    return (np.asarray(a).astype(dt) + np.asarray(alpha).astype(dt) * np.asarray(b).astype(dt)).astype(dt)


def _sub(a, b, alpha=1):
    dt = promoted(a, b)
    return (np.asarray(a).astype(dt) - np.asarray(alpha).astype(dt) * np.asarray(b).astype(dt)).astype(dt)


def _mul(a, b):
    dt = promoted(a, b)
    if dt == np.bool_:
        return np.logical_and(a, b)
    return (np.asarray(a).astype(dt) * np.asarray(b).astype(dt)).astype(dt)


def _div(a, b):
    dt = promoted(a, b)
    dt = dt if dt.kind == "f" else np.dtype(np.float32)
    return (np.asarray(a).astype(np.float64) / np.asarray(b).astype(np.float64)).astype(dt)


def _exp(a):
    dt = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    return np.exp(a.astype(np.float64)).astype(dt)


OPS = [
    OpInfo("add", _add, binary_samples, ALL_AND_BOOL, inplace="add_"),
    OpInfo("sub", _sub, binary_samples, ALL, inplace="sub_"),
    OpInfo("mul", _mul, binary_samples, ALL_AND_BOOL, inplace="mul_"),
    OpInfo("div", _div, lambda dt, rng: binary_samples(dt, rng, nonzero=True), ALL_AND_BOOL, inplace="div_"),
    OpInfo("neg", lambda a: np.negative(a), unary_samples, ALL, inplace="neg_"),
    OpInfo("exp", _exp, unary_samples, ALL_AND_BOOL, inplace="exp_"),
]
