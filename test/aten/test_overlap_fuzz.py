"""A fuzz of views over one buffer (any sizes, strides and offsets: transposed, sliced, expanded,
overlapping windows) through pointwise, reduction, indexing and copy ops, checked against NumPy
on the same memory layout and against PyTorch's overlap rules:

- a write into a view with a stride of 0 on a dim of size > 1 is refused (PyTorch's
  "more than one element of the written-to tensor refers to a single memory location"), or warned
  about for the indexing writes PyTorch only warns for;
- an input sharing some but not all of a dense written view's memory is refused (PyTorch's "some
  elements of the input tensor and the written-to tensor refer to a single memory location");
- otherwise the result, and every byte of the buffer around it, is NumPy's. Layouts PyTorch calls
  too hard to decide (overlapping windows without a zero stride) must not crash; their values are
  not compared, as PyTorch does not define them.
Values are small integers held in float64, so sums are exact in any order."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import torch

BUFFER = 64
INTERNAL = "more than one element of the written-to tensor refers to a single memory location"
PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single memory location"


@st.composite
def layouts(draw, max_dims=3):
    """(size, stride, offset) of a view that stays inside a buffer of BUFFER elements."""
    ndim = draw(st.integers(1, max_dims))
    size = draw(st.lists(st.integers(1, 4), min_size=ndim, max_size=ndim))
    kind = draw(st.sampled_from(["contiguous", "permuted", "strided", "expanded", "any"]))
    if kind == "contiguous":
        stride = [int(np.prod(size[i + 1:])) for i in range(ndim)]
    elif kind == "permuted":
        order = draw(st.permutations(range(ndim)))
        stride = [0] * ndim
        step = 1
        for d in reversed(order):
            stride[d] = step
            step *= size[d]
    elif kind == "strided":
        stride = [int(np.prod(size[i + 1:])) * draw(st.integers(1, 2)) for i in range(ndim)]
    elif kind == "expanded":
        stride = [int(np.prod(size[i + 1:])) for i in range(ndim)]
        stride[draw(st.integers(0, ndim - 1))] = 0
    else:
        stride = draw(st.lists(st.integers(0, 5), min_size=ndim, max_size=ndim))
    reach = sum((s - 1) * t for s, t in zip(size, stride)) + 1
    assume(reach <= BUFFER)
    offset = draw(st.integers(0, BUFFER - reach))
    return tuple(size), tuple(stride), offset


def overlap_kind(size, stride):
    """PyTorch's has_internal_overlap: 'no' for a dense layout, 'yes' for a zero stride on a dim of
    size > 1, else 'too_hard'."""
    dims = sorted((t, s) for s, t in zip(size, stride) if s > 1)
    expected = 1
    for t, s in dims:
        if t != expected:
            break
        expected *= s
    else:
        return "no"
    return "yes" if any(t == 0 and s > 1 for s, t in zip(size, stride)) else "too_hard"


def _span(size, stride, offset):
    return offset, offset + sum((s - 1) * t for s, t in zip(size, stride)) + 1


def _same_geometry(a, b):
    """The same elements in the same places (strides of size-1 dims do not matter)."""
    return a[0] == b[0] and a[2] == b[2] and all(s == 1 or x == y for s, x, y in zip(a[0], a[1], b[1]))


def _shares_memory(a, b):
    (a0, a1), (b0, b1) = _span(*a), _span(*b)
    return a0 < b1 and b0 < a1


class Buffers:
    """The same BUFFER numbers as a NumPy array and an Ember tensor, and views of both."""

    def __init__(self, seed):
        self.numpy = np.random.default_rng(seed).integers(-9, 10, BUFFER).astype(np.float64)
        self.torch = torch.from_numpy(self.numpy.copy())

    def views(self, layout):
        size, stride, offset = layout
        n = np.lib.stride_tricks.as_strided(self.numpy[offset:], shape=size, strides=[8 * t for t in stride],
                                            writeable=True)
        return n, self.torch.as_strided(size, stride, offset)

    def assert_equal(self):
        np.testing.assert_array_equal(self.torch.numpy(), self.numpy)


def _fits(shape, target):
    """Whether shape broadcasts to target."""
    return len(shape) <= len(target) and all(s in (1, t) for s, t in zip(shape[::-1], target[::-1]))


# (name, Ember call on the written view and an input, NumPy call on the same)
BINARY_WRITES = [
    ("add_", lambda t, x: t.add_(x), lambda n, x: np.add(n, x, out=n)),
    ("mul_", lambda t, x: t.mul_(x), lambda n, x: np.multiply(n, x, out=n)),
    ("sub_", lambda t, x: t.sub_(x), lambda n, x: np.subtract(n, x, out=n)),
    ("copy_", lambda t, x: t.copy_(x), lambda n, x: np.copyto(n, np.array(np.broadcast_to(x, n.shape)))),
    ("add_out", lambda t, x: torch.add(t, x, out=t), lambda n, x: np.add(n, x, out=n)),
    ("mul_out_alpha", lambda t, x: torch.sub(x, t, alpha=2, out=t), lambda n, x: np.subtract(x, 2 * n, out=n)),
]
UNARY_WRITES = [
    ("neg_", lambda t: t.neg_(), lambda n: np.negative(n, out=n)),
    ("clamp_", lambda t: t.clamp_(-3, 3), lambda n: np.clip(n, -3, 3, out=n)),
    ("abs_", lambda t: t.abs_(), lambda n: np.abs(n, out=n)),
]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(target=layouts(), source=layouts(), op=st.sampled_from(BINARY_WRITES), seed=st.integers(0, 2**16),
       separate=st.booleans())
def test_a_binary_write_into_a_view_follows_pytorchs_rules_and_numpys_values(target, source, op, seed, separate):
    assume(_fits(source[0], target[0]))
    name, ember_op, numpy_op = op
    buffers = Buffers(seed)
    n_target, t_target = buffers.views(target)
    if separate:                        # the input lives in memory of its own
        other = Buffers(seed + 1)
        n_source, t_source = other.views(source)
        shared = False
    else:
        n_source, t_source = buffers.views(source)
        shared = _shares_memory(target, source)
    kind = overlap_kind(*target[:2])
    source_dense = overlap_kind(*source[:2]) == "no"
    same = _same_geometry(target, source)
    if kind == "yes":                   # (copy_ lets only the very same tensor through: never here)
        with pytest.raises(RuntimeError, match=INTERNAL):
            ember_op(t_target, t_source)
        buffers.assert_equal()          # refused before a byte was written
        return
    if shared and not same and kind == "no" and source_dense:
        with pytest.raises(RuntimeError, match=PARTIAL):
            ember_op(t_target, t_source)
        buffers.assert_equal()
        return
    before = n_source.copy()
    ember_op(t_target, t_source)
    if kind == "too_hard" or (shared and not same):
        return                          # undefined in PyTorch: only the absence of a crash is checked
    numpy_op(n_target, before if shared and not same else n_source)
    buffers.assert_equal()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(target=layouts(), op=st.sampled_from(UNARY_WRITES), seed=st.integers(0, 2**16))
def test_a_unary_in_place_op_on_a_view_follows_pytorchs_rules_and_numpys_values(target, op, seed):
    _, ember_op, numpy_op = op
    buffers = Buffers(seed)
    n_target, t_target = buffers.views(target)
    kind = overlap_kind(*target[:2])
    if kind == "yes":
        with pytest.raises(RuntimeError, match=INTERNAL):
            ember_op(t_target)
        buffers.assert_equal()
        return
    ember_op(t_target)
    if kind == "no":
        numpy_op(n_target)
        buffers.assert_equal()


READS = [
    ("sum", lambda t: t.sum(0), lambda n: n.sum(0)),
    ("sum_all", lambda t: t.sum(), lambda n: n.sum()),
    ("amax", lambda t: t.amax(-1), lambda n: n.max(-1)),
    ("cumsum", lambda t: t.cumsum(0), lambda n: n.cumsum(0)),
    ("mean", lambda t: t.mean(-1), lambda n: n.mean(-1)),
    ("clone", lambda t: t.clone(), lambda n: n.copy()),
    ("contiguous", lambda t: t.contiguous(), lambda n: np.ascontiguousarray(n)),
    ("add", lambda t: t + t, lambda n: n + n),
    ("index_select", lambda t: t.index_select(0, torch.tensor([0, 0])), lambda n: n[[0, 0]]),
    ("flip", lambda t: t.flip(0), lambda n: n[::-1]),
    ("where", lambda t: torch.where(t > 0, t, -t), lambda n: np.where(n > 0, n, -n)),
]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(layout=layouts(), op=st.sampled_from(READS), seed=st.integers(0, 2**16))
def test_reading_any_view_overlapping_or_not_gives_numpys_values(layout, op, seed):
    _, ember_op, numpy_op = op
    buffers = Buffers(seed)
    n_view, t_view = buffers.views(layout)
    np.testing.assert_array_equal(np.asarray(ember_op(t_view).numpy()), np.asarray(numpy_op(n_view)))
    buffers.assert_equal()


INDEX_WRITES = [
    ("index_add_", lambda t, i, s: t.index_add_(0, i, s), lambda n, i, s: np.add.at(n, i, s), False),
    ("index_copy_", lambda t, i, s: t.index_copy_(0, i, s), lambda n, i, s: n.__setitem__(i, s), False),
    ("scatter_", lambda t, i, s: t.scatter_(0, i.reshape((-1,) + (1,) * (t.dim() - 1)).expand(s.shape), s),
     lambda n, i, s: n.__setitem__(i, s), False),
    ("index_fill_", lambda t, i, s: t.index_fill_(0, i, 7.0), lambda n, i, s: n.__setitem__(i, 7.0), True),
    ("masked_fill_", lambda t, i, s: t.masked_fill_(_mask(t, i), 5.0), lambda n, i, s: n.__setitem__(i, 5.0), True),
    ("index_put_", lambda t, i, s: t.index_put_((i,), s), lambda n, i, s: n.__setitem__(i, s), True),
]


def _mask(t, rows):
    mask = torch.zeros(t.shape, dtype=torch.bool)
    mask[rows] = True
    return mask


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(target=layouts(), op=st.sampled_from(INDEX_WRITES), seed=st.integers(0, 2**16), data=st.data())
def test_an_indexing_write_into_a_view_follows_pytorchs_rules_and_numpys_values(target, op, seed, data):
    name, ember_op, numpy_op, warns = op
    buffers = Buffers(seed)
    n_target, t_target = buffers.views(target)
    rows = sorted(data.draw(st.sets(st.integers(0, target[0][0] - 1), min_size=1)))
    index = torch.tensor(rows, dtype=torch.int64)
    source = np.random.default_rng(seed + 7).integers(-9, 10, (len(rows),) + target[0][1:]).astype(np.float64)
    kind = overlap_kind(*target[:2])
    if kind == "yes":
        if warns:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                ember_op(t_target, index, torch.from_numpy(source))
            assert any("on expanded tensors is deprecated" in str(w.message) for w in caught)
        else:
            with pytest.raises(RuntimeError, match=INTERNAL):
                ember_op(t_target, index, torch.from_numpy(source))
            buffers.assert_equal()
        return
    ember_op(t_target, index, torch.from_numpy(source))
    if kind == "no":
        numpy_op(n_target, rows, source)
        buffers.assert_equal()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(target=layouts(max_dims=2), seed=st.integers(0, 2**16), dim=st.integers(0, 1))
def test_a_reduction_into_an_out_view_follows_pytorchs_rules_and_numpys_values(target, seed, dim):
    buffers = Buffers(seed)
    n_target, t_target = buffers.views(target)
    source = np.random.default_rng(seed + 3).integers(-9, 10, (3,) + target[0]).astype(np.float64)
    source = np.moveaxis(source, 0, min(dim, len(target[0])))
    axis = min(dim, len(target[0]))
    kind = overlap_kind(*target[:2])
    if kind == "yes":
        with pytest.raises(RuntimeError, match=INTERNAL):
            torch.sum(torch.from_numpy(source), axis, out=t_target)
        buffers.assert_equal()
        return
    torch.sum(torch.from_numpy(source), axis, out=t_target)
    if kind == "no":
        n_target[...] = source.sum(axis)
        buffers.assert_equal()
