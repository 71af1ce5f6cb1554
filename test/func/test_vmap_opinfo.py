"""vmap over every entry of the operator test database (test/opinfo): for each sample, each of its tensor
arguments batched alone and all of them batched together, the vmapped op equals the loop over examples. The
batch dimension is in front, and, for the first samples, last (in_dims=-1) and split over two nested vmaps.

A batch is made of three examples of a sample argument: itself and two shuffles of its elements (the same
values, so domains and index ranges stay valid). Ops without a batching rule run through the per-example
fallback (its performance warning is expected here), so this also checks the fallback on every op."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import torch
from opinfo import all_ops
from opinfo.core import OpInfo, to_torch
from torch.func import vmap

OPS = [op for op in all_ops() if not op.name.startswith(("rand", "normal", "bernoulli", "multinomial"))
       and "dropout" not in op.name and op.id not in ("empty", "empty_like", "empty_strided")]
_PREFERRED = (torch.float64, torch.float32, torch.int64, torch.bool)
BATCH = 3


def _dtype(op: OpInfo) -> torch.dtype | None:
    return next((d for d in _PREFERRED if d in op.dtypes), op.dtypes[0] if op.dtypes else None)


def _examples(value: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    """BATCH examples of value stacked on dim 0: value and shuffles of its elements."""
    flat = value.reshape(-1)
    rows = [value] + [flat[torch.from_numpy(rng.permutation(flat.numel()))].reshape(value.shape)
                      for _ in range(BATCH - 1)]
    return torch.stack(rows)


def _equal(actual: object, expected: object, rtol: float, atol: float, where: str) -> None:
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected)):
            _equal(a, e, rtol, atol, f"{where}[{i}]")
        return
    if not isinstance(expected, torch.Tensor):
        assert actual == expected, where
        return
    assert isinstance(actual, torch.Tensor), where
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, \
        f"{where}: {actual.dtype}{tuple(actual.shape)} vs the loop's {expected.dtype}{tuple(expected.shape)}"
    if expected.dtype.is_floating_point or expected.dtype.is_complex:
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(actual.numpy(), expected.numpy(), err_msg=where)


def _stacked(results: list[object]) -> object:
    first = results[0]
    if isinstance(first, torch.Tensor):
        return torch.stack(results)  # type: ignore[arg-type]
    if isinstance(first, (tuple, list)):
        return tuple(_stacked([r[i] for r in results]) for i in range(len(first)))  # type: ignore[index]
    return first


def _nested_matches_flat(fn: object, kwargs: dict, batched: list, pattern: tuple[int, ...], flat: object,
                         where: str, rtol: float, atol: float) -> None:
    """The batch of BATCH * 2 examples as two nested vmaps (2 outer, BATCH inner) equals the flat vmap's result."""
    doubled = list(batched)
    for p in pattern:
        doubled[p] = torch.cat([batched[p], batched[p].flip(0)]).reshape((2, BATCH) + tuple(batched[p].shape[1:]))
    in_dims = tuple(0 if i in pattern else None for i in range(len(batched)))
    inner = vmap(lambda *xs: fn(*xs, **kwargs), in_dims=in_dims)   # type: ignore[operator]
    nested = vmap(inner, in_dims=in_dims)(*doubled)
    expected = _stacked([flat, _flipped(flat)])
    _equal(nested, expected, rtol, atol, where + " nested")


def _flipped(value: object) -> object:
    if isinstance(value, torch.Tensor):
        return value.flip(0)
    if isinstance(value, (tuple, list)):
        return tuple(_flipped(v) for v in value)
    return value


def _patterns(positions: list[int]) -> list[tuple[int, ...]]:
    singles = [(p,) for p in positions]
    return singles + ([tuple(positions)] if len(positions) > 1 else [])


@pytest.mark.parametrize("op", OPS, ids=[op.id for op in OPS])
def test_vmap_matches_loop_over_examples(op: OpInfo) -> None:
    dtype = _dtype(op)
    if dtype is None:
        pytest.skip("no dtype")
    rng = np.random.default_rng(7)
    fn = op.function()
    checked = 0
    for index, sample in enumerate(list(op.sample_inputs(dtype, np.random.default_rng(1234)))[:4]):
        args = list(to_torch(sample.args))
        kwargs = to_torch(sample.kwargs)
        positions = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.numel() > 0]
        try:
            fn(*args, **kwargs)
        except Exception:
            continue            # a sample of an error case
        for pattern in _patterns(positions):
            batched = list(args)
            for p in pattern:
                batched[p] = _examples(args[p], rng)
            in_dims = tuple(0 if i in pattern else None for i in range(len(args)))
            try:
                loop = _stacked([fn(*[batched[i][b] if i in pattern else a for i, a in enumerate(args)], **kwargs)
                                 for b in range(BATCH)])
            except Exception:
                continue        # examples the op refuses, or results of different sizes: nothing to batch

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    got = vmap(lambda *xs: fn(*xs, **kwargs), in_dims=in_dims)(*batched)
                except RuntimeError as e:
                    if "dynamic shape" in str(e):
                        return
                    raise
            first = loop[0] if isinstance(loop, tuple) else loop
            rtol, atol = op.tolerance(np.dtype(first.numpy().dtype)) if isinstance(first, torch.Tensor) else (0, 0)
            rtol, atol = max(rtol, 1e-6), max(atol, 1e-6)
            where = f"{op.id}{in_dims} ({sample.name})"
            _equal(got, loop, rtol, atol, where)
            if index < 2:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    last = [batched[i].movedim(0, -1) if i in pattern else a for i, a in enumerate(batched)]
                    last_dims = tuple(-1 if i in pattern else None for i in range(len(args)))
                    _equal(vmap(lambda *xs: fn(*xs, **kwargs), in_dims=last_dims)(*last), loop, rtol, atol,
                           where + " in_dims=-1")
                    _nested_matches_flat(fn, kwargs, batched, pattern, got, where, rtol, atol)
            checked += 1
    if not checked:
        pytest.skip("no sample of this op runs without error")
