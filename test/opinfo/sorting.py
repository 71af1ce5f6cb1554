"""Sorting and selection: sort, argsort, topk, kthvalue, median, nanmedian, mode, _unique2,
unique_consecutive, unique_dim, searchsorted, bucketize, histc, bincount.

PyTorch's default (unstable) sort, topk and kthvalue order equal values by libstdc++'s algorithm
steps; NumPy's stable sort predicts them only where that algorithm is stable: slices of at most
16 elements for sort (std::sort ends with an insertion sort), and data without ties for topk and
kthvalue. Longer slices with ties are covered with stable=True here and against recorded PyTorch
results in test/torch/test_indexing_ops.py.
"""
from __future__ import annotations

import numpy as np

import torch
from dtype_cases import NUMPY_OF, random_values
from opinfo.core import ALL, ALL_AND_BOOL, FLOATING, INTEGRAL, OpInfo, SampleInput

I64 = np.int64


def _with_nans(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if a.dtype.kind == "f" and a.size:
        a = a.copy()
        a[rng.random(a.shape) < 0.2] = np.nan
    return a


def _distinct(dtype: torch.dtype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Values without ties (each slice along any dim is tie-free)."""
    n = int(np.prod(shape))
    np_dtype = NUMPY_OF[dtype]
    if np_dtype.kind == "f":
        values = rng.permutation(n) * 0.5 - n / 4
    else:
        info = np.iinfo(np_dtype)
        assert n <= int(info.max) - int(info.min) + 1, f"{n} distinct values do not fit {np_dtype}"
        low = 0 if np_dtype.kind == "u" else max(int(info.min), -(n // 2))
        values = rng.permutation(n) + low
    return values.reshape(shape).astype(np_dtype)


def _stable_argsort(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """PyTorch's order: NaN above every number; equal values keep their order."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    flipped = np.flip(a, axis=axis)
    order = np.argsort(flipped, axis=axis, kind="stable")
    return np.flip(a.shape[axis] - 1 - order, axis=axis)


# ---------------------------------------------------------------------------------------------
# sort, argsort, topk, kthvalue

def sort_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    def tied(shape):
        return _with_nans(random_values(dtype, shape, rng, int_range=(-3, 3)), rng)
    return [
        SampleInput((tied((3, 16)),), name="ties, 16 per slice"),
        SampleInput((tied((5, 4)), 0), {"descending": True}, name="dim 0 descending"),
        SampleInput((tied((2, 3, 4)), -2, True), name="positional descending"),
        SampleInput((tied((4, 40)),), {"stable": True}, name="stable, long slices"),
        SampleInput((tied((4, 40)),), {"stable": True, "descending": True, "dim": 1}, name="stable descending"),
        SampleInput((_distinct(dtype, (3, 60), rng) if dtype is not torch.bool else tied((3, 5)),),
                    name="no ties, long slices"),
        SampleInput((random_values(dtype, (), rng),), name="0-dim"),
        SampleInput((random_values(dtype, (2, 0), rng),), name="empty"),
    ]


def ref_sort(a, dim=-1, descending=False, stable=None):
    if a.ndim == 0:
        return a.copy(), np.asarray(0, I64)
    order = _stable_argsort(a, dim, descending)
    return np.take_along_axis(a, order, axis=dim), order.astype(I64)


def ref_argsort(a, dim=-1, descending=False, stable=None):
    return ref_sort(a, dim, descending)[1]


def topk_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [
        SampleInput((_distinct(dtype, (3, 10), rng), 3), name="k=3"),
        SampleInput((_distinct(dtype, (2, 128), rng), 2), name="partial sort path (k*64 <= n)"),
        SampleInput((_distinct(dtype, (6, 4), rng), 2, 0, False), name="smallest, dim 0"),
        SampleInput((_distinct(dtype, (2, 3, 5), rng), 5), {"dim": -1, "largest": True, "sorted": True}, name="k=n"),
        SampleInput((_distinct(dtype, (4, 5), rng), 0), name="k=0"),
        SampleInput((random_values(dtype, (), rng), 1), name="0-dim"),
    ]


def ref_topk(a, k, dim=-1, largest=True, sorted=True):
    if a.ndim == 0:
        return a.copy(), np.asarray(0, I64)
    order = _stable_argsort(a, dim, largest)
    order = np.take(order, np.arange(k), axis=dim)
    return np.take_along_axis(a, order, axis=dim), order.astype(I64)


def kthvalue_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [
        SampleInput((_distinct(dtype, (3, 7), rng), 3), name="k=3"),
        SampleInput((_distinct(dtype, (5, 4), rng), 5, 0), name="dim 0, k=n"),
        SampleInput((_distinct(dtype, (2, 3, 4), rng), 1, -2, True), name="keepdim"),
        SampleInput((_distinct(dtype, (4, 30), rng), 11), {"keepdim": False}, name="long slices"),
        SampleInput((random_values(dtype, (), rng), 1), name="0-dim"),
    ]


def _reduced(values: np.ndarray, index: np.ndarray, a: np.ndarray, dim: int, keepdim: bool):
    pick = lambda x: np.take(x, [0], axis=dim) if keepdim else np.take(x, 0, axis=dim)  # noqa: E731
    return pick(values).astype(a.dtype), pick(index).astype(I64)


def ref_kthvalue(a, k, dim=-1, keepdim=False):
    if a.ndim == 0:
        return a.copy(), np.asarray(0, I64)
    order = np.argsort(a, axis=dim, kind="stable")
    chosen = np.take(order, [k - 1], axis=dim)
    return _reduced(np.take_along_axis(a, chosen, axis=dim), chosen, a, dim, keepdim)


# ---------------------------------------------------------------------------------------------
# median, nanmedian, mode

def median_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    def tied(shape):
        return random_values(dtype, shape, rng, int_range=(-3, 3))
    return [
        SampleInput((tied((3, 7)), 1), name="ties"),
        SampleInput((tied((4, 6)), 0, True), name="even length, keepdim"),
        SampleInput((_with_nans(tied((5, 9)), rng), -1), name="NaN"),
        SampleInput((tied((2, 3, 40)),), {"dim": 2, "keepdim": False}, name="long slices"),
        SampleInput((random_values(dtype, (), rng), 0), name="0-dim"),
        SampleInput((random_values(dtype, (0, 3), rng), 1), name="empty, non-empty dim"),
    ]


def _median_index(row: np.ndarray, ignore_nan: bool) -> int:
    nans = np.flatnonzero(np.isnan(row)) if row.dtype.kind == "f" else np.zeros(0, I64)
    if nans.size and not ignore_nan:
        return int(nans[0])
    order = np.argsort(row, kind="stable")       # NaN last, ties by index
    count = row.size - (nans.size if ignore_nan else 0)
    return int(order[max(count - 1, 0) // 2])


def _median_dim(a, dim, keepdim, ignore_nan):
    if a.ndim == 0:
        return a.copy(), np.asarray(0, I64)
    moved = np.moveaxis(a, dim, -1)
    index = np.zeros(moved.shape[:-1], I64)
    for pos in np.ndindex(*moved.shape[:-1]):
        index[pos] = _median_index(moved[pos], ignore_nan)
    values = np.take_along_axis(moved, index[..., None], axis=-1)[..., 0]
    if keepdim:
        return np.expand_dims(values, dim).astype(a.dtype), np.expand_dims(index, dim)
    return values.astype(a.dtype), index


def ref_median(a, dim=None, keepdim=False):
    if dim is None:
        flat = a.reshape(-1)
        if flat.size == 0 or (flat.dtype.kind == "f" and np.isnan(flat).any()):
            return np.asarray(np.nan).astype(a.dtype) if a.dtype.kind == "f" else None
        return np.sort(flat)[(flat.size - 1) // 2].astype(a.dtype)
    return _median_dim(a, dim, keepdim, False)


def ref_nanmedian(a, dim=None, keepdim=False):
    if dim is None:
        flat = a.reshape(-1)
        if flat.dtype.kind == "f":
            flat = flat[~np.isnan(flat)]
        if flat.size == 0:
            return np.asarray(np.nan).astype(a.dtype)
        return np.sort(flat)[(flat.size - 1) // 2].astype(a.dtype)
    return _median_dim(a, dim, keepdim, True)


def median_all_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = [SampleInput((random_values(dtype, (5, 7), rng, int_range=(-3, 3)),), name="odd count"),
           SampleInput((random_values(dtype, (4, 3), rng, int_range=(-3, 3)),), name="even count: lower median"),
           SampleInput((random_values(dtype, (), rng),), name="0-dim")]
    if dtype.is_floating_point:
        out.append(SampleInput((_with_nans(random_values(dtype, (6, 5), rng), rng),), name="NaN"))
        out.append(SampleInput((random_values(dtype, (0,), rng),), name="empty: NaN"))
    return out


def mode_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    def tied(shape):
        return random_values(dtype, shape, rng, int_range=(-2, 2))
    return [
        SampleInput((tied((4, 9)),), name="ties"),
        SampleInput((tied((16, 3)), 0, True), name="dim 0, keepdim"),
        SampleInput((tied((2, 3, 5)),), {"dim": 1}, name="3-d"),
        SampleInput((random_values(dtype, (), rng),), name="0-dim"),
        SampleInput((random_values(dtype, (0, 3), rng), 1), name="empty, non-empty dim"),
    ]


def ref_mode(a, dim=-1, keepdim=False):
    """Smallest of the most frequent values; its last position (slices of at most 16 elements)."""
    if a.ndim == 0:
        return a.copy(), np.asarray(0, I64)
    moved = np.moveaxis(a, dim, -1)
    values = np.zeros(moved.shape[:-1], a.dtype)
    index = np.zeros(moved.shape[:-1], I64)
    for pos in np.ndindex(*moved.shape[:-1]):
        row = moved[pos]
        uniq, counts = np.unique(row, return_counts=True)
        best = uniq[np.argmax(counts)]
        values[pos] = best
        index[pos] = np.flatnonzero(row == best)[-1]
    if keepdim:
        return np.expand_dims(values, dim), np.expand_dims(index, dim)
    return values, index


# ---------------------------------------------------------------------------------------------
# unique

def unique_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    # At most 16 elements: NaNs then keep their order in both PyTorch's sort and NumPy's.
    def tied(shape):
        return _with_nans(random_values(dtype, shape, rng, int_range=(-3, 3)), rng)
    return [
        SampleInput((tied((4, 4)),), name="defaults"),
        SampleInput((tied((4, 4)), True, True, True), name="inverse and counts"),
        SampleInput((tied((7,)),), {"sorted": False, "return_counts": True}, name="sorted=False still sorts"),
        SampleInput((random_values(dtype, (), rng), True, True, True), name="0-dim"),
        SampleInput((random_values(dtype, (0, 2), rng), True, True, True), name="empty"),
    ]


def ref_unique2(a, sorted=True, return_inverse=False, return_counts=False):
    values, inverse, counts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
    empty = np.zeros(0, I64)
    return (values, inverse.reshape(a.shape).astype(I64) if return_inverse else empty,
            counts.astype(I64) if return_counts else empty)


def unique_consecutive_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    def runs(shape):
        return np.repeat(random_values(dtype, shape, rng, int_range=(-2, 2)), 2, axis=-1)
    return [
        SampleInput((runs((9,)),), name="defaults"),
        SampleInput((runs((3, 4)), True, True), name="flattened, inverse and counts"),
        SampleInput((np.repeat(random_values(dtype, (3, 2), rng, int_range=(-1, 1)), 2, axis=0), False, False, 0),
                    name="dim 0"),
        SampleInput((runs((2, 3)),), {"return_counts": True, "dim": -1}, name="dim -1"),
        SampleInput((random_values(dtype, (), rng), True, True), name="0-dim"),
        SampleInput((random_values(dtype, (0,), rng), True, True), name="empty"),
    ]


def ref_unique_consecutive(a, return_inverse=False, return_counts=False, dim=None):
    if dim is None:
        flat = a.reshape(-1)
        starts = np.ones(flat.size, bool)
        starts[1:] = flat[1:] != flat[:-1]
        ids = np.cumsum(starts) - 1
        counts = np.diff(np.append(np.flatnonzero(starts), flat.size))
        empty = np.zeros(0, I64)
        return (flat[starts], ids.reshape(a.shape).astype(I64) if return_inverse else empty,
                counts.astype(I64) if return_counts else empty)
    moved = np.moveaxis(a, dim, 0)
    rows = moved.reshape(moved.shape[0], -1)
    starts = np.ones(rows.shape[0], bool)
    starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    ids = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), rows.shape[0]))
    return np.moveaxis(moved[starts], 0, dim), ids.astype(I64), counts.astype(I64)


def unique_dim_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    def rows(shape):
        base = random_values(dtype, shape, rng, int_range=(-1, 1))
        return np.concatenate([base, base[::-1]], axis=0)
    return [
        SampleInput((rows((3, 2)), 0), name="dim 0"),
        SampleInput((rows((2, 3)).T.copy(), 1, True, True, True), name="dim 1"),
        SampleInput((rows((2, 2, 2)), -3), {"return_counts": True}, name="3-d"),
        SampleInput((random_values(dtype, (0, 2), rng), 0), name="empty along dim"),
    ]


def ref_unique_dim(a, dim, sorted=True, return_inverse=False, return_counts=False):
    if a.shape[dim] == 0:
        return a.copy(), np.zeros(0, I64), np.zeros(0, I64)
    values, inverse, counts = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
    return values, inverse.reshape(-1).astype(I64), counts.astype(I64)


# ---------------------------------------------------------------------------------------------
# searchsorted, bucketize, histc, bincount

def searchsorted_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    def boundaries(shape):
        return np.sort(random_values(dtype, shape, rng, int_range=(-20, 20)), axis=-1)
    return [
        SampleInput((boundaries((8,)), random_values(dtype, (3, 4), rng, int_range=(-25, 25))), name="1-d"),
        SampleInput((boundaries((8,)), random_values(dtype, (5,), rng, int_range=(-25, 25))), {"right": True},
                    name="right"),
        SampleInput((boundaries((8,)), random_values(dtype, (5,), rng, int_range=(-25, 25))), {"side": "right"},
                    name="side"),
        SampleInput((boundaries((2, 3, 6)), random_values(dtype, (2, 3, 4), rng, int_range=(-25, 25))),
                    name="n-d boundaries"),
        SampleInput((boundaries((6,)), random_values(dtype, (4,), rng)), {"out_int32": True}, name="out_int32"),
        SampleInput((boundaries((6,)), random_values(dtype, (), rng)), name="0-dim values"),
        SampleInput((boundaries((6,)), random_values(dtype, (0, 3), rng)), name="empty values"),
    ]


def ref_searchsorted(boundaries, values, out_int32=False, right=False, side=None, sorter=None):
    side = side or ("right" if right else "left")
    if boundaries.ndim == 1:
        out = np.searchsorted(boundaries, values, side=side)
    else:
        out = np.empty(values.shape, I64)
        for pos in np.ndindex(*values.shape[:-1]):
            out[pos] = np.searchsorted(boundaries[pos], values[pos], side=side)
    return np.asarray(out).astype(np.int32 if out_int32 else I64)


def bucketize_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    b = np.unique(random_values(dtype, (8,), rng, int_range=(-20, 20)))
    return [
        SampleInput((random_values(dtype, (3, 4), rng, int_range=(-25, 25)), b), name="left"),
        SampleInput((random_values(dtype, (5,), rng, int_range=(-25, 25)), b), {"right": True}, name="right"),
        SampleInput((random_values(dtype, (), rng), b), {"out_int32": True}, name="0-dim, out_int32"),
    ]


def ref_bucketize(values, boundaries, out_int32=False, right=False):
    out = np.searchsorted(boundaries, values, side="right" if right else "left")
    return np.asarray(out).astype(np.int32 if out_int32 else I64)


def histc_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    def grid(shape):       # quarter points: never on a bin edge
        return np.asarray(rng.integers(-6, 6, size=shape) + 0.25).astype(NUMPY_OF[dtype])
    return [
        SampleInput((grid((40,)),), {"bins": 12, "min": -6, "max": 6}, name="explicit range"),
        SampleInput((grid((5, 6)), 4, -2, 2), name="values outside the range"),
        SampleInput((grid((30,)), 7), name="range from the data"),
        SampleInput((np.full((3,), 1.5, NUMPY_OF[dtype]), 4), name="one value: range widened by 1"),
        SampleInput((grid(()), 3, -1, 1), name="0-dim"),
        SampleInput((grid((0,)), 3), name="empty"),
    ]


def ref_histc(a, bins=100, min=0, max=0):
    lo, hi = float(min), float(max)
    if lo == hi and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    return np.histogram(a.reshape(-1), bins=bins, range=(lo, hi))[0].astype(a.dtype)


def bincount_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    x = random_values(dtype, (20,), rng, int_range=(0, 9))
    return [
        SampleInput((x,), name="counts"),
        SampleInput((x,), {"minlength": 15}, name="minlength"),
        SampleInput((x, rng.standard_normal(20).astype(np.float32)), name="float32 weights"),
        SampleInput((x, rng.standard_normal(20)), name="float64 weights"),
        SampleInput((x, rng.integers(-3, 3, 20).astype(I64)), name="integer weights"),
        SampleInput((np.zeros(0, x.dtype),), {"minlength": 3}, name="empty"),
    ]


def ref_bincount(a, weights=None, minlength=0):
    if a.size == 0:
        return np.zeros(minlength, I64)
    out = np.bincount(a.astype(I64), weights=weights, minlength=minlength)
    if weights is None:
        return out.astype(I64)
    return out.astype(np.float32 if weights.dtype == np.float32 else np.float64)


NO_BOOL = ALL

OPS = [
    OpInfo("sort", ref_sort, sort_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("argsort", ref_argsort, sort_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("topk", ref_topk, topk_samples, NO_BOOL, supports_out=False),
    OpInfo("kthvalue", ref_kthvalue, kthvalue_samples, NO_BOOL, supports_out=False),
    OpInfo("median", ref_median, median_samples, NO_BOOL, supports_out=False, variant="median.dim"),
    OpInfo("median", ref_median, median_all_samples, NO_BOOL, supports_out=False),
    OpInfo("nanmedian", ref_nanmedian, median_samples, NO_BOOL, supports_out=False, variant="nanmedian.dim"),
    OpInfo("nanmedian", ref_nanmedian, median_all_samples, NO_BOOL, supports_out=False),
    OpInfo("mode", ref_mode, mode_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("_unique2", ref_unique2, unique_samples, ALL_AND_BOOL, method=False, supports_out=False),
    # (the operator's three results; torch.unique_consecutive gives what was asked for, as unique does)
    OpInfo("ops.aten.unique_consecutive", ref_unique_consecutive, unique_consecutive_samples, ALL_AND_BOOL,
           method=False, supports_out=False, variant="unique_consecutive"),
    OpInfo("ops.aten.unique_dim", ref_unique_dim, unique_dim_samples, ALL_AND_BOOL, method=False,
           supports_out=False, variant="unique_dim"),
    OpInfo("searchsorted", ref_searchsorted, searchsorted_samples, NO_BOOL, method=False, supports_out=False),
    OpInfo("bucketize", ref_bucketize, bucketize_samples, NO_BOOL, method=False, supports_out=False),
    OpInfo("histc", ref_histc, histc_samples, FLOATING, supports_out=False),
    OpInfo("bincount", ref_bincount, bincount_samples, INTEGRAL, supports_out=False),
]
