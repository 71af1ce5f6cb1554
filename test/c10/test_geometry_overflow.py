"""Huge and negative shapes never crash, wrap or allocate a wrong amount: every factory, view,
reshape-like op and unpickled geometry either gives a tensor whose elements all lie inside its
storage, or raises one of PyTorch's errors (c10's overflow-checked size, stride and byte-count
arithmetic, c10/tensor_impl.pyx)."""
from __future__ import annotations

import io
import math
from collections import OrderedDict

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import torch
from torch._utils import _rebuild_tensor_v2
from torch.storage import TypedStorage

# Sizes around every boundary the arithmetic can cross: int32, the storage limit (int64 bytes),
# int64 itself and beyond it (which no int64 holds: PyTorch's TypeError at the binding).
EDGES = [0, 1, 2, 3, -1, -2, 2**31 - 1, 2**31, 2**32, 2**40, 2**61, 2**62, 2**63 - 1, 2**63, 2**64, -2**63]
dims = st.one_of(st.integers(0, 4), st.sampled_from(EDGES))
shapes = st.lists(dims, min_size=1, max_size=4)
ERRORS = (RuntimeError, TypeError, ValueError, IndexError)
LIMIT = 2**24            # bytes a test may really allocate


def _allocation(shape, itemsize=4):
    """Bytes the shape needs, or None when that is either small or certainly refused: shapes in
    between would really allocate (gigabytes) on this machine, which no test should do."""
    if any(s < 0 for s in shape) or any(s > 2**63 - 1 for s in shape):
        return None
    n = math.prod(shape) * itemsize
    return None if n <= LIMIT or n >= 2**46 else n


def _assert_inside_storage(t):
    """Every element of t lies inside its storage (the property a wrapped size would break)."""
    assert t.numel() == math.prod(t.shape)
    if t.numel() == 0:
        return
    last = t.storage_offset() + sum((s - 1) * st_ for s, st_ in zip(t.shape, t.stride()))
    assert all(s >= 0 for s in t.stride())
    assert (last + 1) * t.element_size() <= t.untyped_storage().nbytes()


def _outcome(fn):
    try:
        t = fn()
    except ERRORS as exc:
        assert str(exc), "errors say what is wrong"
        return exc
    if isinstance(t, torch.Tensor):
        _assert_inside_storage(t)
    return t


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=shapes, factory=st.sampled_from(["empty", "zeros", "ones", "full", "rand", "randn", "randint",
                                              "new_empty", "new_ones", "empty_like_expanded"]))
def test_factories_refuse_overflowing_or_negative_shapes(shape, factory):
    assume(_allocation(shape) is None)
    make = {
        "empty": lambda: torch.empty(shape),
        "zeros": lambda: torch.zeros(shape),
        "ones": lambda: torch.ones(*shape),
        "full": lambda: torch.full(shape, 2.0),
        "rand": lambda: torch.rand(shape),
        "randn": lambda: torch.randn(shape),
        "randint": lambda: torch.randint(0, 3, shape),
        "new_empty": lambda: torch.ones(2).new_empty(shape),
        "new_ones": lambda: torch.ones(2).new_ones(shape),
        "empty_like_expanded": lambda: torch.empty_like(torch.zeros([1] * len(shape)).expand(*shape)),
    }[factory]
    result = _outcome(make)
    if isinstance(result, torch.Tensor):
        keep = factory == "empty_like_expanded"          # expand's -1 keeps the size (1)
        assert list(result.shape) == [1 if keep and s == -1 else s for s in shape]
    elif any(s > 2**63 - 1 or s < -2**63 for s in shape):
        assert isinstance(result, (TypeError, ValueError))


@settings(max_examples=200, deadline=None)
@given(shape=shapes, strides=st.lists(st.one_of(st.integers(0, 4), st.sampled_from(EDGES)), min_size=4, max_size=4))
def test_empty_strided_and_as_strided_check_the_bytes_their_strides_reach(shape, strides):
    strides = strides[:len(shape)]
    reach = 1 + sum((s - 1) * t for s, t in zip(shape, strides)) if all(s > 0 for s in shape) else 0
    assume(not (LIMIT < reach * 4 < 2**46) or any(s < 0 for s in (*shape, *strides)))
    _outcome(lambda: torch.empty_strided(shape, strides))
    base = torch.zeros(16)
    _outcome(lambda: base.as_strided(shape, strides))
    _outcome(lambda: base.as_strided(shape, strides, 2**62))


@settings(max_examples=300, deadline=None)
@given(shape=shapes, op=st.sampled_from(["view", "reshape", "expand", "broadcast_to", "unflatten", "repeat", "tile",
                                         "resize_", "narrow", "unfold", "diagonal", "select", "index"]))
def test_views_and_reshapes_refuse_overflowing_or_negative_shapes(shape, op):
    small = torch.arange(16.0).reshape(2, 8)
    one = torch.zeros([1] * len(shape))
    if op in ("repeat", "tile", "resize_"):
        assume(_allocation(shape) is None and _allocation([2 * s for s in shape]) is None)
    run = {
        "view": lambda: small.view(shape),
        "reshape": lambda: small.reshape(shape),
        "expand": lambda: one.expand(shape),
        "broadcast_to": lambda: torch.broadcast_to(one, shape),
        "unflatten": lambda: small.flatten().unflatten(0, shape),
        "repeat": lambda: torch.ones([1] * len(shape)).repeat(shape),
        "tile": lambda: torch.ones(2).tile(shape),
        "resize_": lambda: torch.zeros(1).resize_(shape),
        "narrow": lambda: small.narrow(1, shape[0], shape[-1]),
        "unfold": lambda: small.unfold(1, shape[0], shape[-1]),
        "diagonal": lambda: small.diagonal(shape[0]),
        "select": lambda: small.select(1, shape[0]),
        "index": lambda: small[:, shape[0]:shape[-1]:max(1, abs(shape[0]))],
    }[op]
    _outcome(run)


def test_the_overflow_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\[4611686018427387904\]"):
        torch.empty(2**62)
    with pytest.raises(RuntimeError, match=r"sizes=\[2147483648, 2147483648\]"):
        torch.empty(2**31, 2**31)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torch.empty(2**61, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        torch.empty(0, 2**62, 2**62)
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        torch.zeros(1, 1).expand(2**62, 4)
    with pytest.raises(RuntimeError, match="Trying to create tensor with negative dimension -1: \\[-1\\]"):
        torch.empty(-1)
    with pytest.raises(TypeError, match="empty\\(\\): argument 'size' failed to unpack the object at pos 1 with "
                                        "error \"Overflow when unpacking long long\""):
        torch.empty(2**63)
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        torch.zeros(4).narrow(0, 2**64, 1)
    # an expanded tensor too large to hold is a view: fine, as in PyTorch, until it must be copied
    huge = torch.zeros(1).expand(2**62)
    assert huge.shape == (2**62,)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        huge.contiguous()


def test_an_allocation_too_large_for_the_machine_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="DefaultCPUAllocator: can't allocate memory: you tried to allocate "
                                           "4398046511104 bytes"):
        torch.empty(2**40)


def test_repeat_refuses_a_product_that_wraps():
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torch.zeros(4).repeat(2**62)
    with pytest.raises(RuntimeError, match="negative dimension -3: \\[1, -3\\]"):
        torch.zeros(3).repeat(1, -1)
    assert torch.zeros(0).repeat(2, -1).shape == (2, 0)     # 0 * -1 is 0, as PyTorch computes it


class _Geometry:
    """Saves as PyTorch's checkpoints save a tensor, `_rebuild_tensor_v2(storage, offset, size,
    stride, ...)`, over a real 8-element storage, but with the given (hostile) geometry."""

    def __init__(self, offset, size, stride):
        self.geometry = (offset, tuple(size), tuple(stride))

    def __reduce__(self):
        storage = TypedStorage._wrap(torch.arange(8.0))
        return (_rebuild_tensor_v2, (storage, *self.geometry, False, OrderedDict()))


@settings(max_examples=150, deadline=None)
@given(size=shapes, stride=st.lists(st.one_of(st.integers(0, 4), st.sampled_from(EDGES)), min_size=4, max_size=4),
       offset=st.one_of(st.integers(0, 8), st.sampled_from(EDGES)))
def test_unpickled_geometry_is_checked_against_its_storage(size, stride, offset):
    blob = io.BytesIO()
    torch.save(_Geometry(offset, size, stride[:len(size)]), blob)
    for weights_only in (True, False):
        _outcome(lambda: torch.load(io.BytesIO(blob.getvalue()), weights_only=weights_only))


def test_a_numpy_view_of_an_empty_tensor_with_huge_dims_is_not_needed_for_its_repr():
    t = torch.zeros(0).view(2**62, -1)
    assert t.shape == (2**62, 0)
    assert repr(t) == "tensor([], size=(4611686018427387904, 0))"
    assert np.asarray(torch.zeros(0, 3)).shape == (0, 3)
