"""Views: they address the base's memory (the same addresses NumPy's equivalent view does), writes
go both ways, the version counter is shared, PyTorch's geometry (strides, storage offset) where
NumPy has no opinion, and every view op's errors (types and messages recorded from PyTorch 2.13).
Hypothesis checks view/reshape/permute/transpose/expand/narrow/select/slice over random shapes."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numpy.lib.stride_tricks import as_strided, sliding_window_view

import torch

SLICE = torch.ops.aten.slice.Tensor


def base(shape: tuple[int, ...] = (2, 3, 4), dtype: type = np.float64) -> tuple[torch.Tensor, np.ndarray]:
    """A tensor and the numpy array it shares memory with (distinct values)."""
    a = np.arange(math.prod(shape), dtype=dtype).reshape(shape)
    return torch.from_numpy(a), a


def address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


def assert_same_view(view: torch.Tensor, expected: np.ndarray, t: torch.Tensor) -> None:
    """view has expected's shape and values, starts at the same address, steps by the same
    strides (dims of size 1 excepted: any stride works there) and reports the offset in t."""
    assert tuple(view.shape) == expected.shape
    np.testing.assert_array_equal(view.numpy(), expected)
    item = view.element_size()
    if expected.size:
        assert view.data_ptr() == address(expected)
        assert view.storage_offset() == (address(expected) - t.data_ptr()) // item + t.storage_offset()
    for i, n in enumerate(expected.shape):
        if n > 1:
            assert view.stride(i) * item == expected.strides[i], f"dim {i}: {view.stride()} vs {expected.strides}"


# (id, torch view of a (2, 3, 4) tensor, the same view in NumPy)
VIEWS = [
    ("view", lambda t: t.view(6, 4), lambda a: a.reshape(6, 4)),
    ("view-infer", lambda t: t.view(2, -1, 2), lambda a: a.reshape(2, -1, 2)),
    ("view-dtype", lambda t: t.view(torch.int64), lambda a: a.view(np.int64)),
    ("reshape", lambda t: t.reshape(4, 6), lambda a: a.reshape(4, 6)),
    ("reshape-of-transpose-split", lambda t: t.transpose(0, 2).reshape(2, 2, 3, 2),
     lambda a: a.swapaxes(0, 2).reshape(2, 2, 3, 2)),
    ("flatten", lambda t: t.flatten(), lambda a: a.reshape(-1)),
    ("flatten-range", lambda t: t.flatten(1, 2), lambda a: a.reshape(2, 12)),
    ("unflatten", lambda t: t.unflatten(2, (2, 2)), lambda a: a.reshape(2, 3, 2, 2)),
    ("squeeze", lambda t: t.narrow(1, 0, 1).squeeze(), lambda a: a[:, 0, :]),
    ("squeeze-dim", lambda t: t.narrow(1, 1, 1).squeeze(1), lambda a: a[:, 1, :]),
    ("squeeze-dims", lambda t: t.narrow(0, 1, 1).narrow(1, 2, 1).squeeze((0, 1)), lambda a: a[1, 2, :]),
    ("unsqueeze", lambda t: t.unsqueeze(1), lambda a: a[:, None]),
    ("permute", lambda t: t.permute(2, 0, 1), lambda a: a.transpose(2, 0, 1)),
    ("transpose", lambda t: t.transpose(0, 2), lambda a: a.swapaxes(0, 2)),
    ("t", lambda t: t.select(0, 1).t(), lambda a: a[1].T),
    ("movedim", lambda t: t.movedim(0, -1), lambda a: np.moveaxis(a, 0, -1)),
    ("moveaxis", lambda t: torch.moveaxis(t, (0, 1), (2, 0)), lambda a: np.moveaxis(a, (0, 1), (2, 0))),
    ("expand", lambda t: t.narrow(1, 2, 1).expand(5, 2, 3, 4), lambda a: np.broadcast_to(a[:, 2:3], (5, 2, 3, 4))),
    ("expand_as", lambda t: t.narrow(2, 1, 1).expand_as(t), lambda a: np.broadcast_to(a[:, :, 1:2], a.shape)),
    ("broadcast_to", lambda t: torch.broadcast_to(t.narrow(0, 1, 1), (3, 2, 3, 4)),
     lambda a: np.broadcast_to(a[1:2], (3, 2, 3, 4))),
    ("narrow", lambda t: t.narrow(1, 1, 2), lambda a: a[:, 1:3]),
    ("narrow-negative-start", lambda t: t.narrow(-1, -3, 2), lambda a: a[..., 1:3]),
    ("narrow-tensor-start", lambda t: t.narrow(2, torch.tensor(2), 2), lambda a: a[:, :, 2:4]),
    ("select", lambda t: t.select(1, 2), lambda a: a[:, 2]),
    ("select-negative", lambda t: torch.select(t, -1, -1), lambda a: a[..., -1]),
    ("slice", lambda t: SLICE(t, 2, 1, None, 2), lambda a: a[:, :, 1::2]),
    ("slice-clamped", lambda t: SLICE(t, 1, -10, 100, 2), lambda a: a[:, -10:100:2]),
    ("unbind", lambda t: t.unbind(1)[2], lambda a: a[:, 2]),
    ("split", lambda t: t.split(3, 2)[1], lambda a: a[:, :, 3:]),
    ("split-sizes", lambda t: t.split([1, 2], 1)[1], lambda a: a[:, 1:]),
    ("split_with_sizes", lambda t: torch.split_with_sizes(t, [3, 1], -1)[0], lambda a: a[..., :3]),
    ("chunk", lambda t: t.chunk(2, 2)[1], lambda a: a[:, :, 2:]),
    ("as_strided", lambda t: t.as_strided((3, 3), (4, 1), 2),
     lambda a: as_strided(a.reshape(-1)[2:], (3, 3), (4 * a.itemsize, a.itemsize))),
    ("diagonal", lambda t: t.diagonal(), lambda a: np.diagonal(a)),
    ("diagonal-offset", lambda t: t.diagonal(1, 1, 2), lambda a: np.diagonal(a, 1, 1, 2)),
    ("diagonal-below", lambda t: torch.diagonal(t, -1, -1, 1), lambda a: np.diagonal(a, -1, -1, 1)),
    ("unfold", lambda t: t.unfold(2, 2, 1), lambda a: sliding_window_view(a, 2, axis=2)),
    ("unfold-step", lambda t: t.unfold(-1, 2, 2), lambda a: sliding_window_view(a, 2, axis=2)[:, :, ::2]),
    ("view-of-view", lambda t: t.transpose(1, 2).narrow(0, 1, 1).select(2, 1).unsqueeze(0),
     lambda a: a.swapaxes(1, 2)[1:2, :, 1][None]),
]
VIEW_IDS = [v[0] for v in VIEWS]


@pytest.mark.parametrize("name, op, np_op", VIEWS, ids=VIEW_IDS)
def test_view_addresses_the_memory_numpy_view_does(name, op, np_op):
    t, a = base()
    assert_same_view(op(t), np_op(a), t)


@pytest.mark.parametrize("name, op, np_op", VIEWS, ids=VIEW_IDS)
def test_write_through_view_shows_in_base(name, op, np_op):
    t, a = base()
    before = a.copy()
    reached = np.unique(np_op(np.arange(a.size).reshape(a.shape)))  # flat indices the view covers
    view = op(t)
    view.fill_(-1)
    expected = before.copy()
    target = np_op(expected)
    if target.flags.writeable:
        target[...] = -1      # the same write through NumPy's view (bit-exact for view(dtype))
    else:
        expected.flat[reached] = -1
    np.testing.assert_array_equal(t.numpy(), expected)


@pytest.mark.parametrize("name, op, np_op", VIEWS, ids=VIEW_IDS)
def test_write_to_base_shows_in_view(name, op, np_op):
    t, a = base()
    view = op(t)
    t.numpy()[...] = -7 * np.arange(a.size).reshape(a.shape)
    np.testing.assert_array_equal(view.numpy(), np_op(t.numpy()))


@pytest.mark.parametrize("name, op, np_op", VIEWS, ids=VIEW_IDS)
def test_view_shares_the_version_counter(name, op, np_op):
    t, _ = base()
    view = op(t)
    start = t._version
    assert view._version == start
    view.zero_()
    assert t._version == view._version == start + 1
    t.fill_(2.0)
    assert t._version == view._version == start + 2


def test_views_of_views_share_one_counter_and_storage():
    t, _ = base()
    v1 = t.transpose(0, 1)
    v2 = v1.select(0, 1)
    v2.fill_(5)
    assert t._version == v1._version == v2._version == 1
    assert v2._untyped_storage is t._untyped_storage


def test_views_are_new_tensor_objects():
    t, _ = base()
    for view in (t.view(2, 3, 4), t.transpose(0, 0), t.view(torch.float64), t.expand(2, 3, 4), t.squeeze(),
                 t.movedim(0, 0), t.permute(0, 1, 2)):
        assert view is not t
        assert view.data_ptr() == t.data_ptr()


def test_contiguous_and_flatten_return_self_when_nothing_changes():
    t, _ = base()
    assert t.contiguous() is t
    assert t.flatten(1, 1) is t
    c = t.transpose(0, 1).contiguous()
    assert c is not t and c.is_contiguous()
    assert c.data_ptr() != t.data_ptr()


def test_reshape_copies_only_when_no_view_exists():
    t, _ = base()
    assert t.reshape(24).data_ptr() == t.data_ptr()
    assert t.transpose(0, 2).reshape(4, 3, 2).data_ptr() == t.data_ptr()  # merges nothing: a view
    copied = t.transpose(0, 1).reshape(24)
    assert copied.data_ptr() != t.data_ptr()
    np.testing.assert_array_equal(copied.numpy(), t.numpy().swapaxes(0, 1).reshape(24))
    assert copied._untyped_storage is not t._untyped_storage


# ---------------------------------------------------------------------------------------------
# PyTorch's geometry where NumPy's differs (size-1 dims, empty tensors); recorded from 2.13.

@pytest.mark.parametrize("op, shape, stride, offset", [
    (lambda t: t.unsqueeze(3), (2, 3, 4, 1), (12, 4, 1, 1), 0),
    (lambda t: t.unsqueeze(0), (1, 2, 3, 4), (24, 12, 4, 1), 0),
    (lambda t: t.transpose(0, 2).unsqueeze(1), (4, 1, 3, 2), (1, 12, 4, 12), 0),
    (lambda t: t.view(2, 1, 12, 1), (2, 1, 12, 1), (12, 12, 1, 1), 0),
    (lambda t: t.expand(1, -1, -1, -1), (1, 2, 3, 4), (24, 12, 4, 1), 0),
    (lambda t: t.expand(2, 2, 3, 4), (2, 2, 3, 4), (0, 12, 4, 1), 0),
    (lambda t: t.narrow(1, 0, 1).expand(1, 2, 3, 4), (1, 2, 3, 4), (24, 12, 0, 1), 0),
    (lambda t: t.select(0, 1).select(0, 2).view(1, 4, 1), (1, 4, 1), (4, 1, 1), 20),
    (lambda t: t.transpose(1, 2).unflatten(1, (2, 2)), (2, 2, 2, 3), (12, 2, 1, 4), 0),
    (lambda t: t.diagonal(0, 0, 1), (4, 2), (1, 16), 0),
    (lambda t: t.diagonal(10, 1, 2), (2, 0), (12, 5), 0),
    (lambda t: t.unfold(2, 0, 1), (2, 3, 5, 0), (12, 4, 1, 1), 0),
    (lambda t: t.narrow(1, 3, 0), (2, 0, 4), (12, 4, 1), 12),
    (lambda t: SLICE(t, 1, 2, 1), (2, 0, 4), (12, 4, 1), 8),
    (lambda t: t.view(torch.float32), (2, 3, 8), (24, 8, 1), 0),
    (lambda t: t.view(torch.int16), (2, 3, 16), (48, 16, 1), 0),
    (lambda t: t.narrow(2, 2, 2).view(torch.int32), (2, 3, 4), (24, 8, 1), 4),
    (lambda t: torch.tensor(5.0).view(1, 1), (1, 1), (1, 1), 0),
    (lambda t: torch.tensor(5.0).expand(2, 3), (2, 3), (0, 0), 0),
    (lambda t: torch.tensor(5.0).unfold(0, 1, 1), (1,), (1,), 0),
    (lambda t: torch.zeros(0, 3).view(2, -1), (2, 0), (1, 1), 0),
    (lambda t: torch.zeros(0, 3).view(0, 3), (0, 3), (3, 1), 0),
    (lambda t: torch.ones(2, 0).split(0, 1)[0], (2, 0), (1, 1), 0),
])
def test_geometry_matches_pytorch(op, shape, stride, offset):
    t, _ = base()
    view = op(t)
    assert (tuple(view.shape), view.stride(), view.storage_offset()) == (shape, stride, offset)


def test_view_dtype_reinterprets_the_bytes():
    t, a = base(dtype=np.float32)
    np.testing.assert_array_equal(t.view(torch.int32).numpy(), a.view(np.int32))
    np.testing.assert_array_equal(t.view(torch.uint8).numpy(), a.view(np.uint8))
    np.testing.assert_array_equal(t.narrow(2, 0, 2).view(torch.float64).numpy(), a[:, :, :2].copy().view(np.float64))
    small = torch.ones(4, dtype=torch.int8).view(torch.int32)
    assert small.tolist() == [0x01010101]


def test_expand_of_scalar_and_empty_split_pieces():
    t, _ = base()
    assert t.narrow(0, 0, 0).unbind(0) == ()
    pieces = torch.zeros(2, 0).chunk(3, 1)
    assert [tuple(p.shape) for p in pieces] == [(2, 0)] * 3
    assert [tuple(p.shape) for p in t.split(5, 2)] == [(2, 3, 4)]


# ---------------------------------------------------------------------------------------------
# Property tests over random shapes

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def permuted(draw, min_dims: int = 0):
    """A tensor over a fresh array, seen through a random permutation (often non-contiguous)."""
    shape = draw(st.lists(st.integers(0, 4), min_size=min_dims, max_size=4).map(tuple))
    perm = draw(st.permutations(range(len(shape))))
    t, a = base(shape)
    return t.permute(*perm) if perm else t, a.transpose(perm) if perm else a, t


@st.composite
def factorization(draw, n: int):
    """A random shape with n elements (a -1 in place of one size, sometimes)."""
    if n == 0:
        dims = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
        if 0 not in dims:
            dims[draw(st.integers(0, len(dims) - 1))] = 0
        return tuple(dims)
    dims = []
    rest = n
    for p in (2, 3, 5, 7):
        while rest % p == 0:
            rest //= p
            dims.append(p)
    dims = dims + ([rest] if rest > 1 else [])
    draw(st.randoms()).shuffle(dims)
    shape = []
    for d in dims:
        if shape and draw(st.booleans()):
            shape[-1] *= d
        else:
            shape.append(d)
    for _ in range(draw(st.integers(0, 2))):
        shape.insert(draw(st.integers(0, len(shape))), 1)
    if shape and draw(st.booleans()):
        shape[draw(st.integers(0, len(shape) - 1))] = -1
    return tuple(shape)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_view_works_exactly_when_numpy_reshapes_without_copying(data):
    t, a, _ = data.draw(permuted())
    shape = data.draw(factorization(a.size))
    try:
        expected = a.reshape(shape, copy=False)
    except ValueError:
        expected = None
    if expected is None:
        with pytest.raises(RuntimeError, match="view size is not compatible with input tensor's size and stride"):
            t.view(shape)
        return
    v = t.view(shape)
    assert tuple(v.shape) == expected.shape
    np.testing.assert_array_equal(v.numpy(), expected)
    if expected.size:
        assert v.data_ptr() == t.data_ptr()
        for i, n in enumerate(expected.shape):
            if n > 1:
                assert v.stride(i) * v.element_size() == expected.strides[i]


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_reshape_gives_numpys_values_and_a_view_when_one_exists(data):
    t, a, _ = data.draw(permuted())
    shape = data.draw(factorization(a.size))
    r = t.reshape(shape)
    np.testing.assert_array_equal(r.numpy(), a.reshape(shape))
    try:
        a.reshape(shape, copy=False)
        viewable = True
    except ValueError:
        viewable = False
    if a.size:
        assert (r.data_ptr() == t.data_ptr()) == viewable
        assert np.shares_memory(r.numpy(), a) == viewable


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_permute_and_transpose_permute_the_strides(data):
    t, a, _ = data.draw(permuted(min_dims=1))
    perm = data.draw(st.permutations(range(t.dim())))
    p = t.permute(perm)
    assert p.stride() == tuple(t.stride(i) for i in perm)
    assert tuple(p.shape) == tuple(t.shape[i] for i in perm)
    np.testing.assert_array_equal(p.numpy(), a.transpose(perm))
    d0 = data.draw(st.integers(-t.dim(), t.dim() - 1))
    d1 = data.draw(st.integers(-t.dim(), t.dim() - 1))
    tr = t.transpose(d0, d1)
    np.testing.assert_array_equal(tr.numpy(), np.swapaxes(a, d0, d1))
    assert tr.data_ptr() == t.data_ptr() and tr.storage_offset() == t.storage_offset()


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_expand_matches_numpy_broadcast_to(data):
    shape = data.draw(st.lists(st.sampled_from([1, 1, 2, 3]), min_size=0, max_size=3).map(tuple))
    t, a = base(shape)
    lead = data.draw(st.lists(st.integers(0, 3), min_size=0, max_size=2))
    target = tuple(lead) + tuple(data.draw(st.sampled_from([0, 1, 4])) if n == 1 else n for n in shape)
    sizes = list(target)
    for i in range(len(lead), len(sizes)):
        if data.draw(st.booleans()):
            sizes[i] = -1                          # keep the size
            target = target[:i] + (shape[i - len(lead)],) + target[i + 1:]
    e = t.expand(tuple(sizes))
    expected = np.broadcast_to(a, target)
    assert tuple(e.shape) == target
    np.testing.assert_array_equal(e.numpy(), expected)
    for i, n in enumerate(target):
        if n > 1:
            assert e.stride(i) * e.element_size() == expected.strides[i]


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_narrow_select_and_slice_address_what_numpy_slicing_does(data):
    t, a, root = data.draw(permuted(min_dims=1))
    dim = data.draw(st.integers(0, t.dim() - 1))
    n = t.shape[dim]
    neg = data.draw(st.booleans())
    index = [slice(None)] * t.dim()
    # narrow
    start = data.draw(st.integers(0, n))
    length = data.draw(st.integers(0, n - start))
    index[dim] = slice(start, start + length)
    assert_same_view(t.narrow(dim - t.dim() if neg else dim, start - n if neg and start < n else start, length),
                     a[tuple(index)], root)
    # slice, with clamping of out-of-range bounds
    lo = data.draw(st.integers(-2 * n - 1, 2 * n + 1))
    hi = data.draw(st.integers(-2 * n - 1, 2 * n + 1))
    step = data.draw(st.integers(1, 3))
    index[dim] = slice(lo, hi, step)
    assert_same_view(SLICE(t, dim, lo, hi, step), a[tuple(index)], root)
    # select
    if n:
        i = data.draw(st.integers(-n, n - 1))
        index[dim] = i
        assert_same_view(t.select(dim, i), a[(*index, Ellipsis)], root)


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_split_pieces_tile_the_dim_and_share_memory(data):
    t, a, root = data.draw(permuted(min_dims=1))
    dim = data.draw(st.integers(0, t.dim() - 1))
    n = t.shape[dim]
    size = data.draw(st.integers(1, 5))
    pieces = t.split(size, dim)
    assert sum(p.shape[dim] for p in pieces) == n
    cuts = list(range(size, n, size))
    for p, e in zip(pieces, np.split(a, cuts, axis=dim)):
        assert_same_view(p, e, root)


# ---------------------------------------------------------------------------------------------
# Errors: PyTorch's exception types and messages

def _t(*shape: int) -> torch.Tensor:
    return torch.from_numpy(np.arange(math.prod(shape), dtype=np.float32).reshape(shape))


x = _t(2, 3, 4)
ERRORS = [
    (lambda: x.view(-1, -1), RuntimeError, "only one dimension can be inferred"),
    (lambda: x.view(5, -1), RuntimeError, "shape '[5, -1]' is invalid for input of size 24"),
    (lambda: x.view(25), RuntimeError, "shape '[25]' is invalid for input of size 24"),
    (lambda: x.view(-2, 12), RuntimeError, "invalid shape dimension -2 at index 0 of shape [-2, 12]"),
    (lambda: torch.zeros(0, 3).view(0, -1), RuntimeError,
     "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size -1 can be any "
     "value and is ambiguous"),
    (lambda: x.transpose(0, 1).view(24), RuntimeError,
     "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
     "contiguous subspaces). Use .reshape(...) instead."),
    (lambda: x.reshape(5, 5), RuntimeError, "shape '[5, 5]' is invalid for input of size 24"),
    (lambda: x.transpose(1, 2).view(torch.int16), RuntimeError,
     "self.stride(-1) must be 1 to view Float as Short (different element sizes), but got 4"),
    (lambda: x.narrow(2, 1, 3).view(torch.float64), RuntimeError,
     "self.size(-1) must be divisible by 2 to view Float as Double (different element sizes), but got 3"),
    (lambda: x.narrow(2, 1, 2).view(torch.float64), RuntimeError,
     "self.storage_offset() must be divisible by 2 to view Float as Double (different element sizes), but got 1"),
    (lambda: torch.tensor(1.0).view(torch.int16), RuntimeError,
     "self.dim() cannot be 0 to view Float as Short (different element sizes)"),
    (lambda: x.flatten(2, 1), RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim"),
    (lambda: x.flatten(0, 3), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda: x.unflatten(1, (2, 2)), RuntimeError,
     "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor"),
    (lambda: x.unflatten(-2, (2, 2)), RuntimeError,
     "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) in the input tensor"),
    (lambda: x.unflatten(1, ()), RuntimeError, "unflatten: sizes must be non-empty"),
    (lambda: x.unflatten(1, (-1, -1)), RuntimeError,
     "unflatten got an unexpected error:\nonly one dimension can be inferred"),
    (lambda: torch.tensor(1.0).unflatten(0, (1,)), RuntimeError,
     "unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions"),
    (lambda: torch.ones(1, 3, 1).squeeze((0, -3)), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: torch.ones(1, 3, 1).squeeze(3), IndexError,
     "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda: torch.tensor(1.0).squeeze(1), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: x.unsqueeze(4), IndexError, "Dimension out of range (expected to be in range of [-4, 3], but got 4)"),
    (lambda: x.unsqueeze(-5), IndexError, "Dimension out of range (expected to be in range of [-4, 3], but got -5)"),
    (lambda: x.permute(2, 0), RuntimeError,
     "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering "
     "of dimensions i.e. input.dim() = 3 is not equal to len(dims) = 2"),
    (lambda: x.permute(2, 0, 0), RuntimeError, "permute(): duplicate dims are not allowed."),
    (lambda: x.permute(2, 0, 3), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda: x.transpose(0, 5), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 5)"),
    (lambda: x.t(), RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is 3D"),
    (lambda: x.movedim((0, 1), (2,)), RuntimeError,
     "movedim: Invalid source or destination dims: source ([0, 1] dims) should contain the same number of dims as "
     "destination ([2] dims)"),
    (lambda: x.movedim((0, 0), (2, 1)), RuntimeError, "movedim: repeated dim in `source` ([0, 0])"),
    (lambda: x.movedim((0, 1), (2, 2)), RuntimeError, "movedim: repeated dim in `destination` ([2, 2])"),
    (lambda: x.movedim(0, 3), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda: x.expand(3, 4), RuntimeError,
     "expand(torch.FloatTensor{[2, 3, 4]}, size=[3, 4]): the number of sizes provided (2) must be greater or equal "
     "to the number of dimensions in the tensor (3)"),
    (lambda: x.expand(2, 3, 5), RuntimeError,
     "The expanded size of the tensor (5) must match the existing size (4) at non-singleton dimension 2.  Target "
     "sizes: [2, 3, 5].  Tensor sizes: [2, 3, 4]"),
    (lambda: x.expand(-1, 2, 3, 4), RuntimeError,
     "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    (lambda: torch.broadcast_to(x, (3, 4)), RuntimeError,
     "expand(torch.FloatTensor{[2, 3, 4]}, size=[3, 4]): the number of sizes provided (2)"),
    (lambda: x.narrow(1, -4, 1), IndexError, "start out of range (expected to be in range of [-3, 3], but got -4)"),
    (lambda: x.narrow(1, 2, 2), RuntimeError, "start (2) + length (2) exceeds dimension size (3)."),
    (lambda: x.narrow(1, 0, -1), RuntimeError, "narrow(): length must be non-negative."),
    (lambda: torch.tensor(1.0).narrow(0, 0, 1), RuntimeError, "narrow() cannot be applied to a 0-dim tensor."),
    (lambda: x.narrow(1, torch.tensor(1.0), 1), RuntimeError, "start must be an 0-dim integral Tensor."),
    (lambda: x.select(1, 3), IndexError, "select(): index 3 out of range for tensor of size [2, 3, 4] at dimension 1"),
    (lambda: x.select(1, -4), IndexError,
     "select(): index -4 out of range for tensor of size [2, 3, 4] at dimension 1"),
    (lambda: torch.tensor(1.0).select(0, 0), IndexError, "select() cannot be applied to a 0-dim tensor."),
    (lambda: SLICE(x, 1, 2, 1, 0), RuntimeError, "slice step must be positive"),
    (lambda: SLICE(x, 1, 2, 1, -1), RuntimeError, "slice step must be positive"),
    (lambda: SLICE(torch.tensor(1.0), 0, 0, 1, 1), IndexError, "slice() cannot be applied to a 0-dim tensor."),
    (lambda: torch.tensor(1.0).unbind(), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda: x.split(0, 2), RuntimeError,
     "split_size can only be 0 if dimension size is 0, but got dimension size of 4"),
    (lambda: x.split(-1, 2), RuntimeError, "split expects split_size be non-negative, but got split_size=-1"),
    (lambda: x.split([1, 2], 2), RuntimeError,
     "split_with_sizes expects split_sizes to sum exactly to 4 (input tensor's size at dimension 2), but got "
     "split_sizes=[1, 2]"),
    (lambda: x.split([5, -1], 2), RuntimeError,
     "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[5, -1]"),
    (lambda: torch.tensor(1.0).split(1), RuntimeError, "split expects at least a 1-dimensional tensor"),
    (lambda: x.chunk(0, 1), RuntimeError, "chunk expects `chunks` to be greater than 0, got: 0"),
    (lambda: torch.tensor(1.0).chunk(1), RuntimeError, "chunk expects at least a 1-dimensional tensor"),
    (lambda: x.as_strided((2, 2), (1, 2), 23), RuntimeError,
     "setStorage: sizes [2, 2], strides [1, 2], storage offset 23, and itemsize 4 requiring a storage size of 108 "
     "are out of bounds for storage of size 96"),
    (lambda: x.as_strided((2, 2), (1, -2)), RuntimeError,
     "as_strided: Negative strides are not supported at the moment, got strides: [1, -2]"),
    (lambda: x.as_strided((2, 2), (1,)), RuntimeError, "mismatch in length of strides and shape"),
    (lambda: x.as_strided((2, -2), (1, 1)), RuntimeError,
     "Storage size calculation overflowed with sizes=[2, -2] and strides=[1, 1]"),
    (lambda: x.as_strided((2, 2), (1, 1), -1), RuntimeError, "Tensor: invalid storage offset -1"),
    (lambda: x.diagonal(0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical 1, 1"),
    (lambda: x.diagonal(0, 1, -2), RuntimeError, "diagonal dimensions cannot be identical 1, -2"),
    (lambda: torch.ones(3).diagonal(), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: x.unfold(2, 5, 1), RuntimeError, "maximum size for tensor at dimension 2 is 4 but size is 5"),
    (lambda: x.unfold(2, -1, 1), RuntimeError, "size is -1 but must be >= 0"),
    (lambda: x.unfold(2, 2, 0), RuntimeError, "step is 0 but must be > 0"),
    (lambda: x.transpose(0, 1).contiguous(memory_format=torch.preserve_format), RuntimeError,
     "preserve memory format is unsupported by the contiguous operator"),
    (lambda: x.clone(memory_format=torch.channels_last), RuntimeError,
     "required rank 4 tensor to use channels_last format"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[f"{i}-{e[2][:40]}" for i, e in enumerate(ERRORS)])
def test_errors_match_pytorch(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()
