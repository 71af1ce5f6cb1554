"""Indexing: index_select, gather, scatter (src, value, reduce), scatter_add, scatter_reduce,
index_add, index_copy, index_fill, masked_fill, masked_select, masked_scatter, take, take_along_dim, put,
nonzero, argwhere, index.Tensor (tensor[indices]) and index_put.

References are NumPy fancy indexing or explicit loops over np.ndindex (the samples are small).
Index arrays are int64 numpy arrays, so the runner also passes them non-contiguous.
"""
from __future__ import annotations

import numpy as np

import torch
from dtype_cases import random_values
from opinfo.core import ALL, ALL_AND_BOOL, FLOATING, OpInfo, SampleInput

I64 = np.int64


def idx(values: object) -> np.ndarray:
    return np.asarray(values, dtype=I64)


def _random_index(rng: np.random.Generator, shape: tuple[int, ...], high: int) -> np.ndarray:
    return rng.integers(0, high, size=shape).astype(I64) if high > 0 else np.zeros(shape, I64)


def _scalar_of(dtype: torch.dtype) -> object:
    return True if dtype is torch.bool else (3 if not dtype.is_floating_point else 2.5)


def _cast_value(value: object, np_dtype: np.dtype) -> np.ndarray:
    """A Python number converted to np_dtype as C (and PyTorch) converts it."""
    if np_dtype == np.bool_:
        return np.asarray(bool(value))
    if np_dtype.kind in "iu" and isinstance(value, float):
        value = int(value)
    return np.asarray(value).astype(np_dtype)


# ---------------------------------------------------------------------------------------------
# index_select, index_add, index_copy, index_fill

def index_select_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (4, 5), rng)
    b = random_values(dtype, (2, 3, 4), rng)
    return [
        SampleInput((a, 0, idx([3, 0, 3, 1])), name="dim0 repeated"),
        SampleInput((a, 1, idx([4, 0])), name="dim1"),
        SampleInput((a, -1, idx(2)), name="0-dim index, negative dim"),
        SampleInput((b, 1, idx([2, 2, 0])), name="middle dim"),
        SampleInput((b, 2, idx(np.zeros(0))), name="empty index"),
        SampleInput((random_values(dtype, (), rng), 0, idx([0])), name="0-dim self"),
        SampleInput((random_values(dtype, (0, 3), rng), 1, idx([1, 2])), name="empty self"),
    ]


def ref_index_select(a: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    if a.ndim == 0:
        return a.copy()
    return np.take(a, index.reshape(-1), axis=dim)


def _moved(a: np.ndarray, dim: int) -> np.ndarray:
    """a with `dim` first (a view); 0-dim arrays as one element."""
    return np.moveaxis(a.reshape(a.shape or (1,)), dim, 0)


def index_add_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (4, 3), rng)
    out = [
        SampleInput((a, 0, idx([1, 3, 1]), random_values(dtype, (3, 3), rng)), name="duplicates"),
        SampleInput((a, -1, idx([2, 0]), random_values(dtype, (4, 2), rng)), name="dim -1"),
        SampleInput((random_values(dtype, (2, 3, 2), rng), 1, idx([0]), random_values(dtype, (2, 1, 2), rng)),
                    name="3-d"),
        SampleInput((random_values(dtype, (), rng), 0, idx(0), random_values(dtype, (), rng)), name="0-dim"),
        SampleInput((a, 0, idx(np.zeros(0)), random_values(dtype, (0, 3), rng)), name="empty index"),
    ]
    if dtype is not torch.bool:
        out.append(SampleInput((a, 0, idx([0, 0]), random_values(dtype, (2, 3), rng)), {"alpha": 2}, name="alpha"))
    return out


def ref_index_add(a: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray, alpha: object = 1) -> np.ndarray:
    out = a.copy()
    view = _moved(out, dim % max(a.ndim, 1))
    src = _moved(source, dim % max(a.ndim, 1))
    for k, i in enumerate(index.reshape(-1)):
        if a.dtype == np.bool_:
            view[i] = np.logical_or(view[i], src[k])
        else:
            view[i] = (view[i] + src[k] * np.asarray(alpha).astype(a.dtype)).astype(a.dtype)
    return out


def index_copy_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (4, 3), rng)
    return [
        SampleInput((a, 0, idx([3, 0]), random_values(dtype, (2, 3), rng)), name="dim0"),
        SampleInput((a, -1, idx([1]), random_values(dtype, (4, 1), rng)), name="dim -1"),
        SampleInput((random_values(dtype, (3,), rng), 0, idx([2]), random_values(dtype, (), rng)),
                    name="0-dim source"),
        SampleInput((random_values(dtype, (), rng), 0, idx(0), random_values(dtype, (), rng)), name="0-dim"),
        SampleInput((a, 0, idx(np.zeros(0)), random_values(dtype, (0, 3), rng)), name="empty index"),
    ]


def ref_index_copy(a: np.ndarray, dim: int, index: np.ndarray, source: np.ndarray) -> np.ndarray:
    out = a.copy()
    view = _moved(out, dim % max(a.ndim, 1))
    src = _moved(source, dim % max(source.ndim, 1)) if source.ndim else source.reshape(1)
    for k, i in enumerate(index.reshape(-1)):
        view[i] = src[k]
    return out


def index_fill_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (4, 3), rng)
    value = _scalar_of(dtype)
    return [
        SampleInput((a, 0, idx([3, -4]), value), name="negative index"),
        SampleInput((a, -1, idx(1), value), name="0-dim index"),
        SampleInput((random_values(dtype, (2, 3, 2), rng), 1, idx([2, 2]), value), name="3-d repeated"),
        SampleInput((random_values(dtype, (), rng), 0, idx([0]), value), name="0-dim self"),
        SampleInput((a, 0, idx([1]), random_values(dtype, (), rng)), name="0-dim value tensor"),
        SampleInput((a, 1, idx(np.zeros(0)), value), name="empty index"),
    ]


def ref_index_fill(a: np.ndarray, dim: int, index: np.ndarray, value: object) -> np.ndarray:
    out = a.copy()
    view = _moved(out, dim % max(a.ndim, 1))
    v = value.astype(a.dtype) if isinstance(value, np.ndarray) else _cast_value(value, a.dtype)
    for i in index.reshape(-1):
        view[i] = v
    return out


# ---------------------------------------------------------------------------------------------
# gather, scatter, scatter_add, scatter_reduce

def _positions(index: np.ndarray, dim: int):
    """(position in index, position in self) pairs, row-major over index (0-dim as one element)."""
    shape = index.shape or (1,)
    flat = index.reshape(shape)
    for pos in np.ndindex(*shape):
        target = list(pos)
        target[dim] = int(flat[pos])
        yield pos, tuple(target)


def gather_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (4, 5), rng)
    return [
        SampleInput((a, 0, _random_index(rng, (3, 5), 4)), name="dim0"),
        SampleInput((a, 1, _random_index(rng, (2, 7), 5)), name="smaller index, more along dim"),
        SampleInput((random_values(dtype, (2, 3, 4), rng), -2, _random_index(rng, (2, 2, 3), 3)), name="3-d"),
        SampleInput((a, 1, idx(np.zeros((0, 2)))), name="empty index"),
        SampleInput((random_values(dtype, (), rng), 0, idx([0, 0])), name="0-dim self"),
        SampleInput((a, 1, idx([[1]])), {"sparse_grad": False}, name="keyword"),
    ]


def ref_gather(a: np.ndarray, dim: int, index: np.ndarray, sparse_grad: bool = False) -> np.ndarray:
    dim = dim % max(a.ndim, 1)
    src = a.reshape(a.shape or (1,))
    out = np.empty(index.shape, a.dtype)
    view = out.reshape(index.shape or (1,))
    for pos, target in _positions(index, dim):
        view[pos] = src[target]
    return out


def scatter_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (4, 5), rng)
    return [
        SampleInput((a, 0, _random_index(rng, (3, 5), 4), random_values(dtype, (3, 5), rng)), name="dim0"),
        SampleInput((a, 1, _random_index(rng, (2, 3), 5), random_values(dtype, (3, 4), rng)), name="smaller index"),
        SampleInput((random_values(dtype, (2, 3, 4), rng), -1, _random_index(rng, (2, 2, 6), 4),
                     random_values(dtype, (2, 2, 6), rng)), name="3-d, negative dim"),
        SampleInput((a, 1, idx(np.zeros((0, 2))), random_values(dtype, (1, 2), rng)), name="empty index"),
        SampleInput((random_values(dtype, (), rng), 0, idx(0), random_values(dtype, (), rng)), name="0-dim"),
    ]


def _scatter(a: np.ndarray, dim: int, index: np.ndarray, src: object, combine) -> np.ndarray:
    dim = dim % max(a.ndim, 1)
    out = a.copy()
    view = out.reshape(a.shape or (1,))
    values = src.reshape(src.shape or (1,)) if isinstance(src, np.ndarray) else None
    for pos, target in _positions(index, dim):
        v = values[pos] if values is not None else _cast_value(src, a.dtype)
        view[target] = combine(view[target], v)
    return out


def _add(x, y):
    return np.logical_or(x, y) if x.dtype == np.bool_ else (x + y).astype(x.dtype)


def _mul(x, y):
    return np.logical_and(x, y) if x.dtype == np.bool_ else (x * y).astype(x.dtype)


def ref_scatter(a, dim, index, src, reduce=None):
    combine = {None: lambda x, y: y, "add": _add, "multiply": _mul}[reduce]
    return _scatter(a, dim, index, src, combine)


def scatter_value_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (4, 5), rng)
    v = _scalar_of(dtype)
    return [
        SampleInput((a, 0, _random_index(rng, (3, 5), 4), v), name="dim0"),
        SampleInput((a, -1, _random_index(rng, (2, 3), 5), v), name="dim -1"),
        SampleInput((random_values(dtype, (), rng), 0, idx(0), v), name="0-dim"),
    ]


def scatter_reduce_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = []
    for reduce in ("add", "multiply"):
        a = random_values(dtype, (3, 4), rng, int_range=(-3, 3))
        out.append(SampleInput((a, 1, _random_index(rng, (3, 6), 4), random_values(dtype, (3, 6), rng,
                                                                                   int_range=(-3, 3))),
                               {"reduce": reduce}, name=reduce))
        out.append(SampleInput((a, 0, _random_index(rng, (4, 2), 3), _scalar_of(dtype)), {"reduce": reduce},
                               name=f"value {reduce}"))
    return out


def scatter_add_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (4, 5), rng)
    return [
        SampleInput((a, 0, _random_index(rng, (6, 5), 4), random_values(dtype, (6, 5), rng)), name="duplicates"),
        SampleInput((a, -1, _random_index(rng, (2, 9), 5), random_values(dtype, (3, 9), rng)), name="dim -1"),
        SampleInput((random_values(dtype, (), rng), 0, idx([0, 0]), random_values(dtype, (2,), rng)), name="0-dim"),
        SampleInput((a, 1, idx(np.zeros((0, 2))), random_values(dtype, (1, 2), rng)), name="empty index"),
    ]


def ref_scatter_add(a, dim, index, src):
    return _scatter(a, dim, index, src, _add)


def scatter_reduce_two_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    out = []
    reduces = ["sum", "prod", "amax", "amin"] + (["mean"] if dtype is not torch.bool else [])
    for reduce in reduces:
        for include_self in (True, False):
            a = random_values(dtype, (3, 4), rng, int_range=(-3, 3))
            out.append(SampleInput((a, 1, _random_index(rng, (3, 6), 4),
                                    random_values(dtype, (3, 6), rng, int_range=(-3, 3)), reduce),
                                   {"include_self": include_self}, name=f"{reduce} include_self={include_self}"))
    out.append(SampleInput((random_values(dtype, (), rng), 0, idx(0), random_values(dtype, (), rng), "sum"),
                           name="0-dim"))
    return out


def ref_scatter_reduce(a, dim, index, src, reduce, include_self=True):
    dim = dim % max(a.ndim, 1)
    out = a.copy()
    view = out.reshape(a.shape or (1,))
    values = src.reshape(src.shape or (1,))
    groups: dict[tuple, list] = {}
    for pos, target in _positions(index, dim):
        groups.setdefault(target, []).append(values[pos])
    for target, items in groups.items():
        items = ([view[target]] if include_self else []) + items
        arr = np.array(items, dtype=a.dtype)
        if reduce == "sum":
            r = np.any(arr) if a.dtype == np.bool_ else arr.sum(dtype=a.dtype)
        elif reduce == "prod":
            r = np.all(arr) if a.dtype == np.bool_ else arr.prod(dtype=a.dtype)
        elif reduce == "amax":
            r = arr.max()
        elif reduce == "amin":
            r = arr.min()
        else:
            total = arr.sum(dtype=a.dtype)
            r = total / len(items) if a.dtype.kind == "f" else np.floor_divide(total, len(items))
        view[target] = np.asarray(r).astype(a.dtype)
    return out


def take_along_dim_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (4, 5), rng)
    return [
        SampleInput((a, _random_index(rng, (4, 3), 5), 1), name="same other dims"),
        SampleInput((a, _random_index(rng, (1, 7), 5), -1), name="index broadcast"),
        SampleInput((a, _random_index(rng, (2, 1), 4), 0), name="self broadcast along the other dim"),
        SampleInput((random_values(dtype, (2, 1, 3), rng), _random_index(rng, (2, 4, 1), 1)), {"dim": 1},
                    name="both broadcast"),
        SampleInput((a, _random_index(rng, (6,), 20)), name="no dim: flattened"),
    ]


def ref_take_along_dim(a, indices, dim=None):
    if dim is None:
        return a.reshape(-1)[indices.reshape(-1)]
    return np.take_along_axis(a, indices, dim)


# ---------------------------------------------------------------------------------------------
# masks, take, put, nonzero

def _mask(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.random(shape) < 0.5


def masked_fill_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (3, 4), rng)
    v = _scalar_of(dtype)
    return [
        SampleInput((a, _mask(rng, (3, 4)), v), name="same shape"),
        SampleInput((a, _mask(rng, (4,)), v), name="mask broadcast"),
        SampleInput((random_values(dtype, (4,), rng), _mask(rng, (3, 4)), v), name="self broadcast"),
        SampleInput((a, _mask(rng, (3, 1)), random_values(dtype, (), rng)), name="0-dim value tensor"),
        SampleInput((random_values(dtype, (), rng), np.asarray(True), v), name="0-dim"),
        SampleInput((random_values(dtype, (0, 4), rng), _mask(rng, (0, 4)), v), name="empty"),
    ]


def ref_masked_fill(a, mask, value):
    v = value.astype(a.dtype) if isinstance(value, np.ndarray) else _cast_value(value, a.dtype)
    return np.where(mask, v, a).astype(a.dtype)


def masked_select_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [
        SampleInput((random_values(dtype, (3, 4), rng), _mask(rng, (3, 4))), name="same shape"),
        SampleInput((random_values(dtype, (3, 4), rng), _mask(rng, (2, 1, 4))), name="broadcast"),
        SampleInput((random_values(dtype, (), rng), np.asarray(True)), name="0-dim"),
        SampleInput((random_values(dtype, (0, 2), rng), _mask(rng, (2,))), name="empty"),
    ]


def ref_masked_select(a, mask):
    x, m = np.broadcast_arrays(a, mask)
    return x[m]


def masked_scatter_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    return [
        SampleInput((random_values(dtype, (3, 4), rng), _mask(rng, (3, 4)), random_values(dtype, (3, 5), rng)),
                    name="same shape"),
        SampleInput((random_values(dtype, (3, 4), rng), _mask(rng, (4,)), random_values(dtype, (12,), rng)),
                    name="mask broadcast"),
        SampleInput((random_values(dtype, (), rng), np.asarray(True), random_values(dtype, (2,), rng)), name="0-dim"),
    ]


def ref_masked_scatter(a, mask, source):
    x, m = np.broadcast_arrays(a, mask)
    out = x.copy()
    out[m] = source.reshape(-1)[:int(m.sum())]
    return out


def take_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (3, 4), rng)
    return [
        SampleInput((a, idx([[0, 11], [-1, -12]])), name="2-d index, negative"),
        SampleInput((a, idx(5)), name="0-dim index"),
        SampleInput((random_values(dtype, (), rng), idx([0, -1])), name="0-dim self"),
        SampleInput((a, idx(np.zeros(0))), name="empty index"),
    ]


def ref_take(a, index):
    return a.reshape(-1)[index]


def put_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (3, 4), rng)
    return [
        SampleInput((a, idx([0, 11, -1]), random_values(dtype, (3,), rng)), name="no duplicates"),
        SampleInput((a, idx([[1, 1], [5, 1]]), random_values(dtype, (2, 2), rng)), {"accumulate": True},
                    name="accumulate duplicates"),
        SampleInput((random_values(dtype, (), rng), idx(0), random_values(dtype, (), rng)), name="0-dim"),
    ]


def ref_put(a, index, source, accumulate=False):
    out = a.copy()
    flat = out.reshape(-1)
    for i, v in zip(index.reshape(-1), source.reshape(-1)):
        flat[i] = _add(flat[i], v) if accumulate else v
    return out


def nonzero_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    def sparse(shape):
        v = random_values(dtype, shape, rng)
        return np.where(rng.random(shape) < 0.5, np.zeros((), v.dtype), v)
    return [SampleInput((sparse(s),), name=str(s)) for s in [(3, 4), (2, 3, 2), (5,), (), (0, 3)]] + \
        [SampleInput((np.zeros((), dtype=random_values(dtype, (), rng).dtype),), name="0-dim zero")]


def ref_nonzero(a):
    return np.argwhere(a).astype(I64)


# ---------------------------------------------------------------------------------------------
# index.Tensor and index_put

def index_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (3, 4, 5), rng)
    return [
        SampleInput((a, [idx([2, 0, 2])]), name="first dim"),
        SampleInput((a, [None, idx([[3, 0], [1, 1]])]), name="2-d index after a slice"),
        SampleInput((a, [idx([0, 2]), None, idx([4, -5])]), name="separated: block first"),
        SampleInput((a, [None, idx([1, 0]), idx([[4], [0]])]), name="adjacent, broadcast"),
        SampleInput((a, [_mask(rng, (3, 4))]), name="2-d mask"),
        SampleInput((a, [None, _mask(rng, (4,)), idx([1])]), name="mask and index"),
        SampleInput((a, [idx(1), None, idx(-1)]), name="0-dim indices"),
        SampleInput((a, [idx(np.zeros(0))]), name="empty index"),
        SampleInput((random_values(dtype, (0, 3), rng), [None, idx([2])]), name="empty self"),
    ]


def _np_index(indices):
    return tuple(slice(None) if i is None else i for i in indices)


def ref_index(a, indices):
    return np.asarray(a[_np_index(indices)])


def index_put_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    a = random_values(dtype, (3, 4, 5), rng)
    return [
        SampleInput((a, [idx([2, 0])], random_values(dtype, (2, 4, 5), rng)), name="rows"),
        SampleInput((a, [None, idx([3, 1]), idx([0, 4])], random_values(dtype, (5,), rng)[:2]),
                    name="values broadcast"),
        SampleInput((a, [idx([0, 2]), None, idx([1, 1])], random_values(dtype, (2, 4), rng)),
                    name="separated"),
        SampleInput((a, [_mask(rng, (3, 4, 5))], random_values(dtype, (), rng)), name="mask, 0-dim value"),
        SampleInput((a, [idx([1, 1, 1]), idx([0, 0, 2])], random_values(dtype, (3, 5), rng), True),
                    name="accumulate duplicates"),
        SampleInput((a, [None, None, idx([-1])], random_values(dtype, (1,), rng)), {"accumulate": True},
                    name="accumulate keyword"),
        SampleInput((random_values(dtype, (2,), rng), [idx(np.zeros(0))], random_values(dtype, (0,), rng)),
                    name="empty index"),
    ]


def ref_index_put(a, indices, values, accumulate=False):
    out = a.copy()
    key = _np_index(indices)
    if accumulate:
        np.add.at(out, key, values)
    else:
        out[key] = values
    return out


OPS = [
    OpInfo("index_select", ref_index_select, index_select_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("gather", ref_gather, gather_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("scatter", ref_scatter, scatter_samples, ALL_AND_BOOL, inplace="scatter_", supports_out=False),
    OpInfo("scatter", ref_scatter, scatter_value_samples, ALL_AND_BOOL, inplace="scatter_", supports_out=False,
           variant="scatter_value"),
    OpInfo("scatter", ref_scatter, scatter_reduce_samples, ALL, inplace="scatter_", supports_out=False,
           variant="scatter_reduce_arg"),
    OpInfo("scatter_add", ref_scatter_add, scatter_add_samples, ALL_AND_BOOL, inplace="scatter_add_",
           supports_out=False),
    OpInfo("scatter_reduce", ref_scatter_reduce, scatter_reduce_two_samples, ALL_AND_BOOL, inplace="scatter_reduce_",
           supports_out=False),
    OpInfo("index_add", ref_index_add, index_add_samples, ALL_AND_BOOL, inplace="index_add_", supports_out=False),
    OpInfo("index_copy", ref_index_copy, index_copy_samples, ALL_AND_BOOL, inplace="index_copy_", supports_out=False),
    OpInfo("index_fill", ref_index_fill, index_fill_samples, ALL_AND_BOOL, inplace="index_fill_",
           supports_out=False),
    OpInfo("masked_fill", ref_masked_fill, masked_fill_samples, ALL_AND_BOOL, inplace="masked_fill_",
           supports_out=False),
    OpInfo("masked_select", ref_masked_select, masked_select_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("masked_scatter", ref_masked_scatter, masked_scatter_samples, ALL_AND_BOOL, inplace="masked_scatter_",
           supports_out=False),
    OpInfo("take", ref_take, take_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("take_along_dim", ref_take_along_dim, take_along_dim_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("put", ref_put, put_samples, ALL_AND_BOOL, inplace="put_", supports_out=False),
    OpInfo("nonzero", ref_nonzero, nonzero_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("argwhere", ref_nonzero, nonzero_samples, ALL_AND_BOOL, supports_out=False),
    OpInfo("ops.aten.index.Tensor", ref_index, index_samples, ALL_AND_BOOL, method=False, supports_out=False,
           variant="index.Tensor"),
    OpInfo("index_put", ref_index_put, index_put_samples, ALL_AND_BOOL, inplace="index_put_", supports_out=False),
]

__all__ = ["OPS", "FLOATING"]
