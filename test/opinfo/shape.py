"""Shape and view operators against NumPy: views, reshapes, joins, splits and the copying
shape ops. Method-only ops are named `Tensor.<name>` (the runner then calls Tensor.<name>(x, ...)
as its function form). Samples cover empty and 0-dim inputs, negative dims and keywords; the
runner also feeds every sample non-contiguous, which for `view` checks PyTorch's stride rule:
its samples only split dims or add size-1 dims, which any strided input allows."""
from __future__ import annotations

import numpy as np

import torch
from dtype_cases import random_values
from opinfo.core import OpInfo, SampleInput


def _v(dtype: torch.dtype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return random_values(dtype, shape, rng)


def _samples(cases: list[tuple[tuple[int, ...], tuple, dict]]):
    """(input shape, further args, kwargs) triples as a sample_inputs function."""
    def make(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
        return [SampleInput((_v(dtype, shape, rng), *args), dict(kwargs), name=f"{shape} {args} {kwargs}")
                for shape, args, kwargs in cases]
    return make


# -- references -----------------------------------------------------------------------------------

def _wrap(d: int, n: int) -> int:
    n = max(n, 1)
    return d + n if d < 0 else d


def _squeeze(a: np.ndarray, dim: object = None) -> np.ndarray:
    if dim is None:
        return np.squeeze(a)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if a.ndim == 0:
        return a
    axes = tuple(d for d in {_wrap(d, a.ndim) for d in dims} if a.shape[d] == 1)
    return np.squeeze(a, axis=axes)


def _flatten(a: np.ndarray, start_dim: int = 0, end_dim: int = -1) -> np.ndarray:
    if a.ndim == 0:
        return a.reshape(1)
    s, e = _wrap(start_dim, a.ndim), _wrap(end_dim, a.ndim)
    return a.reshape(a.shape[:s] + (-1,) + a.shape[e + 1:]) if a.size else \
        a.reshape(a.shape[:s] + (int(np.prod(a.shape[s:e + 1])),) + a.shape[e + 1:])


def _unflatten(a: np.ndarray, dim: int, sizes: tuple[int, ...]) -> np.ndarray:
    d = _wrap(dim, a.ndim)
    return a.reshape(a.shape[:d] + tuple(sizes) + a.shape[d + 1:])


def _expand(a: np.ndarray, *size: int) -> np.ndarray:
    lead = len(size) - a.ndim
    return np.broadcast_to(a, tuple(a.shape[i - lead] if s == -1 else s for i, s in enumerate(size)))


def _narrow(a: np.ndarray, dim: int, start: int, length: int) -> np.ndarray:
    d = _wrap(dim, a.ndim)
    start = start + a.shape[d] if start < 0 else start
    return np.take(a, np.arange(start, start + length), axis=d)


def _split(a: np.ndarray, split_size: object, dim: int = 0) -> tuple[np.ndarray, ...]:
    d = _wrap(dim, a.ndim)
    if isinstance(split_size, int):
        n = a.shape[d]
        cuts = list(range(split_size, n, split_size)) if split_size else []
    else:
        cuts = list(np.cumsum(split_size)[:-1])
    return tuple(np.split(a, cuts, axis=d))


def _chunk(a: np.ndarray, chunks: int, dim: int = 0) -> tuple[np.ndarray, ...]:
    n = a.shape[_wrap(dim, a.ndim)]
    if n == 0:
        return _split(a, [0] * chunks, dim)
    return _split(a, -(-n // chunks), dim)


def _unfold(a: np.ndarray, dimension: int, size: int, step: int) -> np.ndarray:
    if a.ndim == 0:
        return a.reshape(1)[:size]
    d = _wrap(dimension, a.ndim)
    windows = np.lib.stride_tricks.sliding_window_view(a, size, axis=d)
    index = [slice(None)] * windows.ndim
    index[d] = slice(None, None, step)
    return windows[tuple(index)]


def _diag_embed(a: np.ndarray, offset: int = 0, dim1: int = -2, dim2: int = -1) -> np.ndarray:
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n), dtype=a.dtype)
    rows = np.arange(a.shape[-1]) + max(-offset, 0)
    out[..., rows, rows + offset] = a
    nd = a.ndim + 1
    d1, d2 = _wrap(dim1, nd), _wrap(dim2, nd)
    # out has the diagonal dims last; move them to d1 and d2.
    rest = [i for i in range(nd) if i not in (d1, d2)]
    order = [0] * nd
    for src, dst in enumerate(rest + [d1, d2]):
        order[dst] = src
    return np.transpose(out, order)


def _repeat_interleave(a: np.ndarray, repeats: object, dim: object = None) -> np.ndarray:
    if isinstance(repeats, np.ndarray) and repeats.size == 1:
        repeats = int(repeats.reshape(()))
    return np.repeat(a, repeats, axis=dim)


def _cat(tensors: list[np.ndarray], dim: int = 0) -> np.ndarray:
    kept = [t for t in tensors if not (t.ndim == 1 and t.size == 0)]
    if not kept:
        return tensors[0]
    return np.concatenate(kept, axis=_wrap(dim, kept[0].ndim))


# -- samples --------------------------------------------------------------------------------------

def _list_samples(dtype: torch.dtype, rng: np.random.Generator, cases) -> list[SampleInput]:
    return [SampleInput(([_v(dtype, s, rng) for s in shapes], *args), dict(kwargs), name=f"{shapes} {args} {kwargs}")
            for shapes, args, kwargs in cases]


def _repeat_interleave_samples(dtype: torch.dtype, rng: np.random.Generator) -> list[SampleInput]:
    reps = np.array([1, 0, 3], dtype=np.int64)
    return [
        SampleInput((_v(dtype, (2, 3), rng), 2), name="int, flattened"),
        SampleInput((_v(dtype, (2, 3), rng), 2), {"dim": -1}, name="int, dim=-1"),
        SampleInput((_v(dtype, (2, 3), rng), 0, 0), name="zero repeats"),
        SampleInput((_v(dtype, (), rng), 3), name="0-dim"),
        SampleInput((_v(dtype, (0, 3), rng), 2, 1), name="empty"),
        SampleInput((_v(dtype, (2, 3), rng), reps, 1), name="tensor repeats"),
        SampleInput((_v(dtype, (4, 3), rng), np.array([2], dtype=np.int64), 0), name="one-element tensor repeats"),
        SampleInput((_v(dtype, (3,), rng), np.array([2, 1, 0], dtype=np.int32)), name="int32 repeats"),
    ]


VIEW = [((2, 6), ((2, 2, 3),), {}), ((2, 6), ((2, -1, 3, 1),), {}), ((6,), ((1, 6, 1),), {}), ((), ((1,),), {}),
        ((1, 1), ((),), {}), ((0, 4), ((0, 2, 2),), {}), ((3, 4), ((-1, 4),), {})]
RESHAPE = [((2, 6), ((12,),), {}), ((2, 6), ((3, -1),), {}), ((2, 3, 4), ((4, 6),), {}), ((), ((1, 1),), {}),
           ((0, 3), ((3, 0),), {}), ((5,), ((5,),), {}), ((2, 3), ((-1,),), {})]

OPS = [
    OpInfo("Tensor.view", lambda a, shape: a.reshape(shape), _samples(VIEW), supports_out=False, variant="view"),
    OpInfo("reshape", lambda a, shape: a.reshape(shape), _samples(RESHAPE), supports_out=False),
    OpInfo("flatten", _flatten, _samples([((2, 3, 4), (), {}), ((2, 3, 4), (1,), {}), ((2, 3, 4), (0, -2), {}),
                                          ((2, 3, 4), (), {"start_dim": -2, "end_dim": -1}), ((), (), {}),
                                          ((0, 3), (), {}), ((2, 3), (1, 1), {})]), supports_out=False),
    OpInfo("unflatten", _unflatten, _samples([((2, 6), (1, (2, 3)), {}), ((2, 6), (-1, (3, -1)), {}),
                                              ((6,), (0, (1, 6, 1)), {}), ((0, 4), (1, (2, 2)), {})]),
           supports_out=False),
    OpInfo("squeeze", _squeeze, _samples([((1, 3, 1), (), {}), ((1, 3, 1), (0,), {}), ((1, 3, 1), (1,), {}),
                                          ((1, 3, 1), (-1,), {}), ((1, 3, 1), ((0, 2),), {}), ((), (), {}),
                                          ((), (0,), {}), ((1, 0, 1), (), {}), ((1, 3, 1), (), {"dim": 2})]),
           supports_out=False),
    OpInfo("unsqueeze", lambda a, dim: np.expand_dims(a, dim), _samples([((2, 3), (0,), {}), ((2, 3), (2,), {}), ((2, 3), (-1,), {}),
                                                  ((), (0,), {}), ((0, 3), (1,), {}), ((2, 3), (), {"dim": -3})]),
           supports_out=False),
    OpInfo("permute", lambda a, dims: np.transpose(a, dims),
           _samples([((2, 3, 4), ((2, 0, 1),), {}), ((2, 3, 4), ((-1, 0, -2),), {}), ((), ((),), {}),
                     ((0, 3), ((1, 0),), {})]), supports_out=False),
    OpInfo("transpose", lambda a, d0, d1: np.swapaxes(a, d0, d1) if a.ndim else a,
           _samples([((2, 3, 4), (0, 2), {}), ((2, 3, 4), (-1, 1), {}), ((2, 3), (1, 1), {}), ((), (0, -1), {}),
                     ((0, 3), (0, 1), {})]), supports_out=False),
    OpInfo("t", lambda a: a.T, _samples([((2, 3), (), {}), ((3,), (), {}), ((), (), {}), ((0, 2), (), {})]),
           supports_out=False),
    OpInfo("movedim", lambda a, src, dst: np.moveaxis(a, src, dst) if a.ndim else a, _samples([((2, 3, 4), (0, 2), {}), ((2, 3, 4), ((0, 1), (2, 0)), {}),
                                             ((2, 3, 4), (-1, 0), {}), ((), (0, 0), {})]), supports_out=False),
    OpInfo("moveaxis", np.moveaxis, _samples([((2, 3, 4), (0, -1), {}), ((2, 3, 4), ((2,), (0,)), {})]),
           supports_out=False),
    OpInfo("Tensor.expand", _expand, _samples([((3, 1), (3, 4), {}), ((3, 1), (2, 3, -1), {}), ((), (2, 3), {}),
                                               ((1,), (0,), {}), ((2, 1, 3), (-1, 4, -1), {})]),
           supports_out=False, variant="expand"),
    OpInfo("Tensor.expand_as", lambda a, b: np.broadcast_to(a, b.shape),
           _samples([((3, 1), (np.zeros((2, 3, 4)),), {}), ((), (np.zeros((2,)),), {})]), supports_out=False,
           variant="expand_as"),
    OpInfo("broadcast_to", lambda a, size: np.broadcast_to(a, size),
           _samples([((3, 1), ((2, 3, 4),), {}), ((), ((2,),), {}), ((1, 3), ((0, 3),), {})]), supports_out=False),
    OpInfo("narrow", _narrow, _samples([((4, 5), (0, 1, 2), {}), ((4, 5), (-1, -3, 3), {}), ((4, 5), (1, 5, 0), {}),
                                        ((0, 5), (1, 0, 5), {})]), supports_out=False),
    OpInfo("select", lambda a, dim, index: np.take(a, index, axis=dim),
           _samples([((4, 5), (0, 1), {}), ((4, 5), (-1, -2), {}), ((3,), (0, 2), {}), ((2, 0), (0, 1), {})]),
           supports_out=False),
    OpInfo("unbind", lambda a, dim=0: tuple(np.moveaxis(a, dim, 0)),
           _samples([((3, 4), (), {}), ((3, 4), (1,), {}), ((2, 3, 4), (-1,), {}), ((0, 3), (1,), {})]),
           supports_out=False),
    OpInfo("split", _split, _samples([((5, 4), (2,), {}), ((5, 4), (3, 1), {}), ((5, 4), ((1, 3), -1), {}),
                                      ((5, 4), ([2, 0, 3],), {}), ((0, 4), (0,), {}), ((5,), (10,), {}),
                                      ((5, 4), (2,), {"dim": -2})]), supports_out=False),
    OpInfo("split_with_sizes", _split, _samples([((5, 4), ((1, 4),), {}), ((5, 4), ((2, 2), 1), {})]),
           supports_out=False),
    OpInfo("chunk", _chunk, _samples([((5, 4), (2,), {}), ((5, 4), (3, 1), {}), ((5,), (5,), {}), ((5,), (10,), {}),
                                      ((0, 2), (3,), {})]), supports_out=False),
    OpInfo("diagonal", np.diagonal, _samples([((3, 4), (), {}), ((3, 4), (1,), {}), ((3, 4), (-2,), {}),
                                              ((2, 3, 4), (0, 0, 2), {}), ((2, 3, 4), (1, -1, 0), {}),
                                              ((3, 4), (10,), {}), ((0, 3), (), {})]), supports_out=False),
    OpInfo("Tensor.unfold", _unfold, _samples([((2, 7), (1, 3, 2), {}), ((7,), (0, 2, 1), {}), ((2, 7), (-1, 7, 1), {}),
                                               ((), (0, 1, 1), {}), ((2, 5), (1, 0, 1), {})]),
           supports_out=False, variant="unfold"),
    OpInfo("Tensor.contiguous", lambda a: a, _samples([((2, 3), (), {}), ((), (), {}), ((0, 3), (), {})]),
           supports_out=False, variant="contiguous"),
    OpInfo("clone", lambda a, **kw: a.copy(), _samples([((2, 3), (), {}), ((), (), {}), ((0, 3), (), {}),
                                                        ((2, 3), (), {"memory_format": torch.contiguous_format})]),
           supports_out=False),
    OpInfo("flip", lambda a, dims: np.flip(a, dims) if a.ndim else a, _samples([((2, 3, 4), ((0,),), {}), ((2, 3, 4), ((0, -1),), {}), ((2, 3), ((),), {}),
                                      ((), ((0,),), {}), ((0, 3), ((1,),), {})]), supports_out=False),
    OpInfo("roll", lambda a, shifts, dims=None: np.roll(a, shifts, dims),
           _samples([((2, 3, 4), (1,), {}), ((2, 3, 4), (-5, 1), {}), ((2, 3, 4), ((1, 2), (0, -1)), {}),
                     ((4,), (6, 0), {}), ((), (1,), {}), ((0, 3), (1, 1), {})]), supports_out=False),
    OpInfo("Tensor.repeat", lambda a, *reps: np.tile(a, reps),
           _samples([((2, 3), (2, 1), {}), ((2, 3), (1, 2, 3), {}), ((), (3,), {}), ((2, 3), (0, 2), {}),
                     ((0, 3), (2, 2), {})]), supports_out=False, variant="repeat"),
    OpInfo("tile", np.tile, _samples([((2, 3), ((2,),), {}), ((2, 3), ((2, 1, 2),), {}), ((), ((2,),), {}),
                                      ((2, 3), ((),), {})]), supports_out=False),
    OpInfo("repeat_interleave", _repeat_interleave, _repeat_interleave_samples, supports_out=False),
    OpInfo("cat", _cat, lambda dt, rng: _list_samples(dt, rng, [
        ([(2, 3), (4, 3)], (), {}), ([(2, 3), (2, 1)], (1,), {}), ([(2, 3), (2, 2)], (), {"dim": -1}),
        ([(3,)], (), {}), ([(0,), (2, 3)], (), {}), ([(0, 3), (2, 3)], (), {}), ([(2, 0), (2, 0)], (1,), {})]),
        method=False, supports_out=False),
    OpInfo("stack", np.stack, lambda dt, rng: _list_samples(dt, rng, [
        ([(2, 3), (2, 3)], (), {}), ([(2, 3), (2, 3), (2, 3)], (2,), {}), ([(2, 3)], (-1,), {}), ([(), ()], (), {}),
        ([(0, 3), (0, 3)], (1,), {})]), method=False, supports_out=False),
    OpInfo("hstack", np.hstack, lambda dt, rng: _list_samples(dt, rng, [
        ([(2,), (3,)], (), {}), ([(2, 1), (2, 3)], (), {}), ([(), (2,)], (), {})]), method=False, supports_out=False),
    OpInfo("vstack", np.vstack, lambda dt, rng: _list_samples(dt, rng, [
        ([(3,), (3,)], (), {}), ([(2, 3), (1, 3)], (), {}), ([(), ()], (), {}), ([(1, 2, 3), (2, 2, 3)], (), {})]),
        method=False, supports_out=False),
    OpInfo("diag", np.diag, _samples([((3,), (), {}), ((3,), (1,), {}), ((3,), (-2,), {}), ((3, 4), (), {}),
                                      ((3, 4), (1,), {}), ((3, 4), (-5,), {}), ((0,), (), {})]), supports_out=False),
    OpInfo("diag_embed", _diag_embed, _samples([((3,), (), {}), ((2, 3), (1,), {}), ((2, 3), (-1, 0, 2), {}),
                                                ((2, 3), (0, -1, 0), {}), ((0,), (), {})]), supports_out=False),
    OpInfo("tril", lambda a, k=0: np.tril(a, k), _samples([((3, 4), (), {}), ((3, 4), (1,), {}), ((2, 3, 4), (-1,), {}),
                                                           ((3, 4), (-10,), {}), ((0, 4), (), {})]),
           supports_out=False),
    OpInfo("triu", lambda a, k=0: np.triu(a, k), _samples([((3, 4), (), {}), ((3, 4), (2,), {}), ((2, 3, 4), (-1,), {}),
                                                           ((3, 4), (10,), {}), ((3, 0), (), {})]),
           supports_out=False),
    OpInfo("zero_", np.zeros_like, _samples([((2, 3), (), {}), ((), (), {}), ((0, 3), (), {})]), supports_out=False),
]
