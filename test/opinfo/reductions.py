"""Reductions: sum, mean, prod, max/min, amax/amin, argmax/argmin, all/any, var/std(_mean), logsumexp,
norm, linalg_vector_norm, count_nonzero, cumsum/cumprod.

References are NumPy computed in float64 (int64 for integer sums), then converted to PyTorch's
result dtype. Samples cover 0-dim and empty inputs, one and several (negative) dims, keepdim, an
empty dim list, and dtype= where the op has it.
"""
from __future__ import annotations

from typing import Any, Iterable

import numpy as np

import torch
from dtype_cases import NUMPY_OF, random_values
from opinfo.core import ALL, ALL_AND_BOOL, FLOATING, OpInfo, SampleInput

# (shape, dim) pairs; dim None means every dim. Reduced dims are never empty here: ops without an
# identity (max, argmax ...) raise on them (checked in test/torch/test_reductions.py).
DIM_CASES = [((), None), ((), 0), ((), -1), ((7,), None), ((7,), 0), ((3, 4), -1), ((3, 4), (0, 1)),
             ((2, 3, 4), 1), ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3)), ((2, 3, 4), (2, 0, 1)),
             ((2, 1, 5), (0, 1)), ((0, 3), 1), ((4, 0, 2), (0, 2))]
# Also reducing over an empty dim: for ops with an identity (sum, prod, all, count ...).
EMPTY_DIM_CASES = [((0, 3), 0), ((0, 3), None), ((2, 0), (0, 1))]
SINGLE_DIM_CASES = [((), 0), ((), -1), ((7,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4), 1), ((2, 3, 4), -1),
                    ((0, 3), 1), ((3, 1), 1)]

F32_TOL = {torch.float32: (1e-5, 1e-5)}


def _axis(dim: Any, ndim: int) -> Any:
    """NumPy's axis for a torch dim (None: all; 0-dim inputs have no axes)."""
    if ndim == 0 or dim is None:
        return None
    if isinstance(dim, int):
        return dim
    return tuple(dim) if len(dim) else None


def _sample_values(dtype: torch.dtype, shape: tuple[int, ...], rng: np.random.Generator,
                   small: bool = False) -> np.ndarray:
    return random_values(dtype, shape, rng, int_range=(-3, 3) if small else (-10, 10), float_scale=2.0 if small else 4.0)


def dim_samples(dt: torch.dtype, rng: np.random.Generator, cases: Iterable = DIM_CASES, *, small: bool = False,
                keepdim: bool = True, **kwargs: Any) -> list[SampleInput]:
    out = []
    for shape, dim in cases:
        a = _sample_values(dt, shape, rng, small)
        out.append(SampleInput((a, dim), dict(kwargs), name=f"{shape} dim={dim}"))
        if keepdim:
            out.append(SampleInput((a, dim), dict(kwargs, keepdim=True), name=f"{shape} dim={dim} keepdim"))
    return out


def _result_int64(a: np.ndarray) -> np.dtype:
    return np.dtype(np.int64) if a.dtype.kind in "biu" else a.dtype


def _widen(a: np.ndarray) -> np.ndarray:
    return a.astype(np.float64) if a.dtype.kind == "f" else a.astype(np.int64)


# --------------------------------------------------------------------------------------------- sum, mean, prod

def ref_sum(a: np.ndarray, dim: Any = None, keepdim: bool = False, dtype: torch.dtype | None = None) -> np.ndarray:
    out = NUMPY_OF[dtype] if dtype is not None else _result_int64(a)
    if dtype is not None:
        a = a.astype(out)
    return np.asarray(np.sum(_widen(a), axis=_axis(dim, a.ndim), keepdims=keepdim)).astype(out)


def sum_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = dim_samples(dtype, rng, DIM_CASES + EMPTY_DIM_CASES)
    out.append(SampleInput((_sample_values(dtype, (3, 5), rng),), name="all elements"))
    out.append(SampleInput((_sample_values(dtype, (3, 5), rng), ()), name="empty dim list reduces all"))
    out.append(SampleInput((_sample_values(dtype, (3, 5), rng), 1), {"dtype": torch.float64}, name="dtype=float64"))
    out.append(SampleInput((_sample_values(dtype, (3, 5), rng), None), {"dtype": torch.int32}, name="dtype=int32"))
    return out


def ref_mean(a: np.ndarray, dim: Any = None, keepdim: bool = False, dtype: torch.dtype | None = None) -> np.ndarray:
    out = NUMPY_OF[dtype] if dtype is not None else a.dtype
    b = a.astype(out).astype(np.float64)
    n = b.size if _axis(dim, a.ndim) is None else int(np.prod([a.shape[d] for d in np.atleast_1d(dim)]))
    return np.asarray(np.sum(b, axis=_axis(dim, a.ndim), keepdims=keepdim) / n).astype(out)


def mean_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    """Integer and bool inputs need a floating dtype= (PyTorch raises without one)."""
    kwargs = {} if dtype.is_floating_point else {"dtype": torch.float64}
    out = dim_samples(dtype, rng, DIM_CASES + EMPTY_DIM_CASES, **kwargs)
    out.append(SampleInput((_sample_values(dtype, (4, 6), rng),), dict(kwargs), name="all elements"))
    out.append(SampleInput((_sample_values(dtype, (4, 6), rng), 0), {"dtype": torch.float32}, name="dtype=float32"))
    return out


def ref_prod(a: np.ndarray, dim: Any = None, keepdim: bool = False, dtype: torch.dtype | None = None) -> np.ndarray:
    out = NUMPY_OF[dtype] if dtype is not None else _result_int64(a)
    if dtype is not None:
        a = a.astype(out)
    return np.asarray(np.prod(_widen(a), axis=_axis(dim, a.ndim), keepdims=keepdim)).astype(out)


def prod_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    cases = [c for c in DIM_CASES + EMPTY_DIM_CASES if c[1] is None or isinstance(c[1], int)]
    out = []
    for shape, dim in cases:
        a = _sample_values(dtype, shape, rng, small=True)
        out.append(SampleInput((a,), name=f"{shape} all") if dim is None else
                   SampleInput((a, dim), {"keepdim": True}, name=f"{shape} dim={dim}"))
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng, small=True), 1), {"dtype": torch.float64},
                           name="dtype=float64"))
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng, small=True),), {"dtype": torch.int32},
                           name="dtype=int32"))
    return out


# --------------------------------------------------------------------------------------------- max, min, arg*

def ref_amax(a: np.ndarray, dim: Any = (), keepdim: bool = False) -> np.ndarray:
    return np.asarray(np.max(a, axis=_axis(dim, a.ndim), keepdims=keepdim))


def ref_amin(a: np.ndarray, dim: Any = (), keepdim: bool = False) -> np.ndarray:
    return np.asarray(np.min(a, axis=_axis(dim, a.ndim), keepdims=keepdim))


def _with_nan(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A float copy with a few NaNs (PyTorch and NumPy propagate them)."""
    if a.dtype.kind != "f" or a.size < 4:
        return a
    b = a.copy()
    b.flat[rng.choice(a.size, size=2, replace=False)] = np.nan
    return b


def _reduces_empty_dim(a: np.ndarray, dim: Any) -> bool:
    if dim is None or a.ndim == 0 or (not isinstance(dim, int) and len(dim) == 0):
        return a.size == 0
    return any(a.shape[d] == 0 for d in np.atleast_1d(dim))


def amax_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    """amax's dim is int[1] (no None); reduced dims must be non-empty (PyTorch raises)."""
    out = [s for s in dim_samples(dtype, rng) if s.args[1] is not None and not _reduces_empty_dim(*s.args)]
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng),), name="default dim=[] reduces all"))
    out.append(SampleInput((_with_nan(_sample_values(dtype, (4, 5), rng), rng), 1), name="with NaN"))
    return out


def full_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((_sample_values(dtype, shape, rng),), name=str(shape)) for shape in [(), (7,), (3, 4), (2, 3, 4)]] \
        + [SampleInput((_with_nan(_sample_values(dtype, (4, 5), rng), rng),), name="with NaN")]


def ref_max_dim(a: np.ndarray, dim: int, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    if a.ndim == 0:
        return a.copy(), np.asarray(0, dtype=np.int64)
    return (np.asarray(np.max(a, axis=dim, keepdims=keepdim)),
            np.asarray(np.argmax(a, axis=dim, keepdims=keepdim)).astype(np.int64))


def ref_min_dim(a: np.ndarray, dim: int, keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    if a.ndim == 0:
        return a.copy(), np.asarray(0, dtype=np.int64)
    return (np.asarray(np.min(a, axis=dim, keepdims=keepdim)),
            np.asarray(np.argmin(a, axis=dim, keepdims=keepdim)).astype(np.int64))


def single_dim_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = dim_samples(dtype, rng, SINGLE_DIM_CASES)
    out.append(SampleInput((_with_nan(_sample_values(dtype, (4, 5), rng), rng), 1), name="with NaN"))
    out.append(SampleInput((_with_nan(_sample_values(dtype, (4, 5), rng), rng), 0), name="with NaN dim 0"))
    ties = np.tile(_sample_values(dtype, (1, 3), rng), (4, 2))
    out.append(SampleInput((ties, 1), name="ties keep the first index"))
    out.append(SampleInput((ties, 0), name="ties dim 0"))
    return out


def ref_argmax(a: np.ndarray, dim: int | None = None, keepdim: bool = False) -> np.ndarray:
    if dim is None:
        idx = np.argmax(a.reshape(-1))
        return np.asarray(idx, dtype=np.int64).reshape((1,) * a.ndim if keepdim else ())
    return ref_max_dim(a, dim, keepdim)[1]


def ref_argmin(a: np.ndarray, dim: int | None = None, keepdim: bool = False) -> np.ndarray:
    if dim is None:
        idx = np.argmin(a.reshape(-1))
        return np.asarray(idx, dtype=np.int64).reshape((1,) * a.ndim if keepdim else ())
    return ref_min_dim(a, dim, keepdim)[1]


def argmax_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = single_dim_samples(dtype, rng)
    for shape in [(), (7,), (3, 4), (2, 3, 4)]:
        a = _sample_values(dtype, shape, rng)
        out.append(SampleInput((a,), name=f"{shape} flat"))
        out.append(SampleInput((a, None, True), name=f"{shape} flat keepdim"))
    out.append(SampleInput((_with_nan(_sample_values(dtype, (4, 5), rng), rng),), name="flat with NaN"))
    return out


# --------------------------------------------------------------------------------------------- all, any, count

def _bool_result(a: np.ndarray, r: Any) -> np.ndarray:
    return np.asarray(r).astype(np.uint8 if a.dtype == np.uint8 else np.bool_)


def ref_all(a: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        return _bool_result(a, a != 0)      # an empty dim list reduces nothing
    return _bool_result(a, np.all(a != 0, axis=_axis(dim, a.ndim), keepdims=keepdim))


def ref_any(a: np.ndarray, dim: Any = None, keepdim: bool = False) -> np.ndarray:
    if dim is not None and not isinstance(dim, int) and len(dim) == 0:
        return _bool_result(a, a != 0)
    return _bool_result(a, np.any(a != 0, axis=_axis(dim, a.ndim), keepdims=keepdim))


def all_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = dim_samples(dtype, rng, DIM_CASES + EMPTY_DIM_CASES, small=True)
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng, small=True),), name="all elements"))
    out.append(SampleInput((np.ones((3, 4), dtype=NUMPY_OF[dtype]),), name="all nonzero"))
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng, small=True), ()), name="empty dim list"))
    out.append(SampleInput((_with_nan(np.zeros((4, 5), dtype=NUMPY_OF[dtype]), rng), 1), name="NaN counts as true"))
    return out


def ref_count_nonzero(a: np.ndarray, dim: Any = None) -> np.ndarray:
    return np.asarray(np.count_nonzero(a, axis=_axis(dim, a.ndim))).astype(np.int64)


def count_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = [SampleInput((_sample_values(dtype, shape, rng, small=True), dim), name=f"{shape} dim={dim}")
           for shape, dim in DIM_CASES + EMPTY_DIM_CASES if dim is not None and not isinstance(dim, int)]
    out += [SampleInput((_sample_values(dtype, shape, rng, small=True), dim), name=f"{shape} int dim={dim}")
            for shape, dim in SINGLE_DIM_CASES]
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng, small=True),), name="all elements"))
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng, small=True), ()), name="empty dim list counts all"))
    return out


# --------------------------------------------------------------------------------------------- var, std

def ref_var(a: np.ndarray, dim: Any = None, correction: float | None = None, keepdim: bool = False,
            sqrt: bool = False) -> np.ndarray:
    c = 1.0 if correction is None else float(correction)
    b = a.astype(np.float64)
    axis = _axis(dim, a.ndim)
    mean = np.mean(b, axis=axis, keepdims=True) if b.size else np.full((1,) * b.ndim, np.nan)
    n = b.size if axis is None else int(np.prod([a.shape[d] for d in np.atleast_1d(axis)]))
    v = np.sum((b - mean) ** 2, axis=axis, keepdims=keepdim) / max(0.0, n - c)
    return np.asarray(np.sqrt(v) if sqrt else v).astype(a.dtype)


def ref_std(a: np.ndarray, dim: Any = None, correction: float | None = None, keepdim: bool = False) -> np.ndarray:
    return ref_var(a, dim, correction, keepdim, sqrt=True)


def var_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    """var.correction's keywords; reductions of at least 3 elements (correction below N)."""
    out = []
    for shape, dim in [((7,), None), ((7,), 0), ((3, 4), -1), ((3, 4), (0, 1)), ((2, 3, 4), 1),
                       ((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, -3)), ((5, 1, 3), (0, 2)), ((3, 5), ())]:
        a = _sample_values(dtype, shape, rng)
        out.append(SampleInput((a, dim), name=f"{shape} dim={dim}"))
        out.append(SampleInput((a, dim), {"correction": 0, "keepdim": True}, name=f"{shape} dim={dim} correction=0"))
        out.append(SampleInput((a, dim), {"correction": 2.5}, name=f"{shape} dim={dim} correction=2.5"))
    out.append(SampleInput((_sample_values(dtype, (4, 5), rng),), name="all elements"))
    return out


def ref_var_mean(a: np.ndarray, dim: Any = None, correction: float | None = None,
                 keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    return ref_var(a, dim, correction, keepdim), ref_mean(a, dim, keepdim)


def ref_std_mean(a: np.ndarray, dim: Any = None, correction: float | None = None,
                 keepdim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    return ref_std(a, dim, correction, keepdim), ref_mean(a, dim, keepdim)


def var_unbiased_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    """var(self, unbiased) and var.dim(self, dim, unbiased, keepdim)."""
    a = _sample_values(dtype, (3, 5), rng)
    return [SampleInput((a,), name="default"), SampleInput((a, False), name="unbiased=False"),
            SampleInput((a, 1), name="dim"), SampleInput((a, 1, False, True), name="dim, biased, keepdim"),
            SampleInput((a, (0, 1), True), name="dims"), SampleInput((a,), {"unbiased": False}, name="keyword")]


def ref_var_unbiased(a: np.ndarray, dim: Any = None, unbiased: Any = True, keepdim: bool = False,
                     sqrt: bool = False) -> np.ndarray:
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return ref_var(a, dim, 1 if unbiased else 0, keepdim, sqrt)


# --------------------------------------------------------------------------------------------- logsumexp, norms

def ref_logsumexp(a: np.ndarray, dim: Any, keepdim: bool = False) -> np.ndarray:
    out = a.dtype if a.dtype.kind == "f" else np.dtype(np.float32)
    b = a.astype(np.float64)
    axis = _axis(dim, a.ndim)
    if b.size == 0:
        return np.asarray(np.log(np.sum(np.exp(b), axis=axis, keepdims=keepdim))).astype(out)
    m = np.max(b, axis=axis, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)
    r = np.log(np.sum(np.exp(b - m), axis=axis, keepdims=True)) + m
    if not keepdim:
        r = np.squeeze(r, axis=axis) if axis is not None else r.reshape(())
    return np.asarray(r).astype(out)


def logsumexp_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = [s for s in dim_samples(dtype, rng, DIM_CASES + EMPTY_DIM_CASES) if s.args[1] is not None]
    big = _sample_values(dtype, (3, 4), rng)
    if dtype.is_floating_point:
        big = big * 100                          # exp would overflow without the max shift
        inf = np.array([[1, np.inf, 2], [-np.inf, -np.inf, -np.inf]], dtype=NUMPY_OF[dtype])
        out.append(SampleInput((inf, 1), name="infinities"))
    out.append(SampleInput((big, 1), name="large values"))
    return out


def ref_vector_norm(a: np.ndarray, ord: float = 2, dim: Any = None, keepdim: bool = False,
                    dtype: torch.dtype | None = None) -> np.ndarray:
    out = NUMPY_OF[dtype] if dtype is not None else a.dtype
    b = np.abs(a.astype(out).astype(np.float64))
    axis = _axis(dim, a.ndim)
    if ord == np.inf:
        r = np.max(b, axis=axis, keepdims=keepdim)
    elif ord == -np.inf:
        r = np.min(b, axis=axis, keepdims=keepdim)
    elif ord == 0:
        r = np.sum(b != 0, axis=axis, keepdims=keepdim).astype(np.float64)
    else:
        with np.errstate(divide="ignore"):
            r = np.sum(b ** ord, axis=axis, keepdims=keepdim) ** (1.0 / ord)
    return np.asarray(r).astype(out)


def vector_norm_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = []
    for shape, dim in DIM_CASES:
        a = _sample_values(dtype, shape, rng)
        empty = _reduces_empty_dim(a, dim)
        for p in (2, 1, 0, 3.5, np.inf, -np.inf, -1.5):
            if empty and (p < 0 or p == np.inf):
                continue                         # no identity: an error (test_reductions.py)
            out.append(SampleInput((a, p, dim), name=f"{shape} ord={p} dim={dim}"))
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng),), name="default ord and dims"))
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng), 2, 1, True), name="keepdim"))
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng), 2, None, False), {"dtype": torch.float64},
                           name="dtype=float64"))
    return out


def ref_norm(a: np.ndarray, p: Any = 2, dim: Any = None, keepdim: bool = False,
             dtype: torch.dtype | None = None) -> np.ndarray:
    return ref_vector_norm(a, 2 if p is None else p, dim, keepdim, dtype)


def norm_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = _sample_values(dtype, (3, 4), rng)
    return [SampleInput((a,), name="norm.Scalar default p"), SampleInput((a, 1), name="p=1"),
            SampleInput((a, np.inf), name="p=inf"), SampleInput((a, 0.5), name="p=0.5"),
            SampleInput((a, 2, 1), name="ScalarOpt_dim"), SampleInput((a, 1, (0, 1), True), name="dims, keepdim"),
            SampleInput((a, None, -1), name="p=None"), SampleInput((a, 2), {"dtype": torch.float64}, name="dtype"),
            SampleInput((a, 3, 0, False), name="p=3 dim 0"), SampleInput((a,), {"dim": 1}, name="dim keyword"),
            SampleInput((_sample_values(dtype, (), rng), 2), name="0-dim")]


# --------------------------------------------------------------------------------------------- cumsum, cumprod

def _cum(a: np.ndarray, dim: int, dtype: torch.dtype | None, fn: Any) -> np.ndarray:
    out = NUMPY_OF[dtype] if dtype is not None else _result_int64(a)
    b = a.astype(out)
    if b.ndim == 0:
        return b.copy()
    return np.asarray(fn(_widen(b), axis=dim)).astype(out)


def ref_cumsum(a: np.ndarray, dim: int, dtype: torch.dtype | None = None) -> np.ndarray:
    return _cum(a, dim, dtype, np.cumsum)


def ref_cumprod(a: np.ndarray, dim: int, dtype: torch.dtype | None = None) -> np.ndarray:
    return _cum(a, dim, dtype, np.cumprod)


def cum_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = [SampleInput((_sample_values(dtype, shape, rng, small=True), dim), name=f"{shape} dim={dim}")
           for shape, dim in SINGLE_DIM_CASES + [((0, 3), 0), ((600, 2), 0), ((3, 700), 0), ((2, 3, 4), 0)]]
    out.append(SampleInput((_sample_values(dtype, (3, 4), rng, small=True), 1), {"dtype": torch.float64},
                           name="dtype=float64"))
    return out


def cum_inplace_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [SampleInput((_sample_values(dtype, shape, rng, small=True), dim), name=f"{shape} dim={dim}")
            for shape, dim in SINGLE_DIM_CASES]


INT64_AND_FLOATING = (torch.int64,) + FLOATING

OPS = [
    OpInfo("sum", ref_sum, sum_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("mean", ref_mean, mean_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("prod", ref_prod, prod_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("amax", ref_amax, amax_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("amin", ref_amin, amax_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("max", lambda a: np.asarray(np.max(a)), full_samples, ALL_AND_BOOL, supports_out=False, variant="max_all"),
    OpInfo("min", lambda a: np.asarray(np.min(a)), full_samples, ALL_AND_BOOL, supports_out=False, variant="min_all"),
    OpInfo("max", ref_max_dim, single_dim_samples, ALL_AND_BOOL, supports_out=False, variant="max_dim"),
    OpInfo("min", ref_min_dim, single_dim_samples, ALL_AND_BOOL, supports_out=False, variant="min_dim"),
    OpInfo("argmax", ref_argmax, argmax_samples, ALL, supports_out=False),
    OpInfo("argmin", ref_argmin, argmax_samples, ALL, supports_out=False),
    OpInfo("all", ref_all, all_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("any", ref_any, all_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("count_nonzero", ref_count_nonzero, count_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("var", ref_var, var_samples, FLOATING, supports_out=False),
    OpInfo("std", ref_std, var_samples, FLOATING, supports_out=False),
    OpInfo("var", ref_var_unbiased, var_unbiased_samples, FLOATING, supports_out=False, variant="var_unbiased"),
    OpInfo("std", lambda *a, **k: ref_var_unbiased(*a, **k, sqrt=True), var_unbiased_samples, FLOATING,
           supports_out=False, variant="std_unbiased"),
    OpInfo("var_mean", ref_var_mean, var_samples, FLOATING, method=False, supports_out=False),
    OpInfo("std_mean", ref_std_mean, var_samples, FLOATING, method=False, supports_out=False),
    OpInfo("logsumexp", ref_logsumexp, logsumexp_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("norm", ref_norm, norm_samples, FLOATING, supports_out=False, tol=F32_TOL),
    OpInfo("ops.aten.linalg_vector_norm", ref_vector_norm, vector_norm_samples, FLOATING, method=False,
           supports_out=False, variant="linalg_vector_norm", tol=F32_TOL),
    OpInfo("cumsum", ref_cumsum, cum_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("cumprod", ref_cumprod, cum_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("cumsum", ref_cumsum, cum_inplace_samples, INT64_AND_FLOATING, supports_out=False, inplace="cumsum_",
           variant="cumsum_inplace"),
    OpInfo("cumprod", ref_cumprod, cum_inplace_samples, INT64_AND_FLOATING, supports_out=False, inplace="cumprod_",
           variant="cumprod_inplace"),
]
