"""Every entry of the operator test database (test/opinfo) against its NumPy reference.

For each op and dtype: every sample contiguous and non-contiguous, the Tensor method, the out=
variant (the result is the given tensor) and the in-place variant (on samples that keep the
input's shape and dtype).
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

import torch
from dtype_cases import TORCH_OF, dtype_id
from opinfo import all_ops
from opinfo.core import OpInfo, assert_same, to_torch

OPS = all_ops()
CASES = [pytest.param(op, dt, id=f"{op.id}-{dtype_id(dt)}") for op in OPS for dt in op.dtypes]


def samples(op: OpInfo, dtype: torch.dtype) -> list:
    return list(op.sample_inputs(dtype, np.random.default_rng(1234)))


def expected_of(op: OpInfo, sample) -> object:
    with np.errstate(all="ignore"):
        return op.ref(*sample.args, **sample.kwargs)


def tol(expected: object) -> tuple[float, float]:
    first = expected[0] if isinstance(expected, (tuple, list)) else expected
    return first


@pytest.mark.parametrize("op, dtype", CASES)
def test_op_matches_numpy_reference(op: OpInfo, dtype: torch.dtype) -> None:
    for sample in samples(op, dtype):
        expected = expected_of(op, sample)
        first = np.asarray(expected[0] if isinstance(expected, (tuple, list)) else expected)
        rtol, atol = op.tolerance(first.dtype)
        for noncontiguous in (False, True):
            args = to_torch(sample.args, noncontiguous)
            kwargs = to_torch(sample.kwargs, noncontiguous)
            where = f"{op.id}({sample.name or sample.args}) {'non-contiguous' if noncontiguous else ''}"
            assert_same(op.function()(*args, **kwargs), expected, rtol, atol, where)
            if op.method and isinstance(args[0], torch.Tensor):
                assert_same(getattr(args[0], op.name.split(".")[-1])(*args[1:], **kwargs), expected, rtol, atol,
                            where + " (method)")


def _empty_like_result(expected: object) -> object:
    if isinstance(expected, (tuple, list)):
        return tuple(_empty_like_result(e) for e in expected)
    e = np.asarray(expected)
    return torch.from_numpy(np.zeros(e.shape, e.dtype))


@pytest.mark.parametrize("op, dtype", [c for c in CASES if c.values[0].supports_out])
def test_out_variant_writes_given_tensor(op: OpInfo, dtype: torch.dtype) -> None:
    for sample in samples(op, dtype):
        expected = expected_of(op, sample)
        first = np.asarray(expected[0] if isinstance(expected, (tuple, list)) else expected)
        rtol, atol = op.tolerance(first.dtype)
        out = _empty_like_result(expected)
        result = op.function()(*to_torch(sample.args), **to_torch(sample.kwargs), out=out)
        if isinstance(out, tuple):
            assert all(r is o for r, o in zip(result, out))
        else:
            assert result is out
        assert_same(out, expected, rtol, atol, f"{op.id}(out=) {sample.name}")


@pytest.mark.parametrize("op, dtype", [c for c in CASES if c.values[0].inplace])
def test_inplace_variant_updates_input_or_refuses_as_pytorch(op: OpInfo, dtype: torch.dtype) -> None:
    """In place, the result is written into the input; a result of another shape, or of a dtype
    the input cannot hold (c10::canCast), raises PyTorch's error instead."""
    for sample in samples(op, dtype):
        first = sample.args[0]
        if not isinstance(first, np.ndarray):
            continue
        expected = np.asarray(expected_of(op, sample))
        args = to_torch(sample.args)
        inplace = getattr(args[0], op.inplace, None) or functools.partial(getattr(torch, op.inplace), args[0])
        if expected.shape != first.shape:
            with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
                inplace(*args[1:], **to_torch(sample.kwargs))
            continue
        if not torch.can_cast(TORCH_OF[expected.dtype], args[0].dtype):
            with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
                inplace(*args[1:], **to_torch(sample.kwargs))
            continue
        rtol, atol = op.tolerance(first.dtype)
        result = inplace(*args[1:], **to_torch(sample.kwargs))
        assert result is args[0]
        assert_same(args[0], expected.astype(first.dtype), rtol, atol, f"{op.id} in place {sample.name}")
