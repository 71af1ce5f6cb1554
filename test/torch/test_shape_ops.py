"""The copying shape ops: cat's type promotion and legacy empty inputs, output layouts, large and
threaded copies, float16 moved without arithmetic, and every op's errors (types and
messages recorded from PyTorch 2.13)."""
from __future__ import annotations

import itertools
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from dtype_cases import ALL_DTYPES, NUMPY_OF, dtype_id, random_values


def _t(*shape: int, dtype: type = np.float32) -> torch.Tensor:
    return torch.from_numpy(np.arange(math.prod(shape), dtype=dtype).reshape(shape))


@pytest.mark.parametrize("a, b", list(itertools.product(ALL_DTYPES, repeat=2)),
                         ids=[f"{dtype_id(a)}-{dtype_id(b)}" for a, b in itertools.product(ALL_DTYPES, repeat=2)])
def test_cat_promotes_like_promote_types(a, b):
    rng = np.random.default_rng(0)
    x, y = random_values(a, (2, 3), rng), random_values(b, (1, 3), rng)
    out = torch.cat([torch.from_numpy(x), torch.from_numpy(y)])
    expected = torch.promote_types(a, b)
    assert out.dtype is expected
    np.testing.assert_array_equal(out.numpy(), np.concatenate([x.astype(NUMPY_OF[expected]),
                                                               y.astype(NUMPY_OF[expected])]))


def test_cat_skips_legacy_empty_1d_inputs_but_promotes_with_them():
    out = torch.cat([torch.zeros(0, dtype=torch.float64), _t(2, 3, dtype=np.int32), torch.zeros(0)], 1)
    assert (tuple(out.shape), out.dtype) == ((2, 3), torch.float64)
    only_empty = torch.cat([torch.zeros(0, dtype=torch.int32), torch.zeros(0, dtype=torch.int32)], 5)
    assert (tuple(only_empty.shape), only_empty.dtype) == ((0,), torch.int32)
    assert tuple(torch.cat([torch.ones(2, 0), torch.ones(2, 0)], 0).shape) == (4, 0)


def test_cat_output_layout():
    assert torch.cat([_t(2, 3).t(), _t(2, 3).t()]).stride() == (2, 1)
    cl = _t(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
    assert torch.cat([cl, cl]).stride() == (60, 1, 15, 3)
    assert torch.cat([cl, _t(2, 3, 4, 5)]).stride() == (60, 20, 5, 1)
    np.testing.assert_array_equal(torch.cat([cl, cl], 1).numpy(), np.concatenate([cl.numpy(), cl.numpy()], 1))


def test_flip_keeps_the_layout_and_roll_repeat_tril_are_contiguous():
    t = _t(2, 3, 4).transpose(0, 2)
    assert t.flip(1).stride() == (1, 4, 12)
    assert _t(2, 3, 4).narrow(1, 0, 2).flip(1).stride() == (8, 4, 1)
    assert t.roll(1, 0).stride() == (6, 2, 1)
    assert t.repeat(1, 1, 1).stride() == (6, 2, 1)
    assert t.tril().stride() == (6, 2, 1)
    assert t.repeat_interleave(2, 1).stride() == (12, 2, 1)


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("nthreads", [1, 2])
def test_large_copies_are_right_with_and_without_threads(nthreads):
    torch.set_num_threads(nthreads)
    from aten.native.cpu import loops
    loops.set_grain_size(1024)
    a = np.random.default_rng(0).standard_normal((300, 200)).astype(np.float32)
    t = torch.from_numpy(a)
    np.testing.assert_array_equal(t.t().clone().numpy(), a.T)
    np.testing.assert_array_equal(t.t().contiguous().numpy(), a.T)
    np.testing.assert_array_equal(t.flip(1).numpy(), a[:, ::-1])
    np.testing.assert_array_equal(t.flip((0, 1)).numpy(), a[::-1, ::-1])
    np.testing.assert_array_equal(torch.cat([t, t.t().t()], 1).numpy(), np.concatenate([a, a], 1))
    np.testing.assert_array_equal(t.roll((7, -3), (0, 1)).numpy(), np.roll(a, (7, -3), (0, 1)))
    np.testing.assert_array_equal(t.repeat(2, 3).numpy(), np.tile(a, (2, 3)))
    np.testing.assert_array_equal(t.repeat_interleave(3, 1).numpy(), np.repeat(a, 3, 1))
    np.testing.assert_array_equal(t.tril(5).numpy(), np.tril(a, 5))
    np.testing.assert_array_equal(t.triu(-5).numpy(), np.triu(a, -5))


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4), data=st.data())
def test_flip_roll_and_repeat_of_permuted_inputs_match_numpy(shape, data):
    a = np.arange(math.prod(shape), dtype=np.int64).reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    t = torch.from_numpy(a).permute(perm)
    p = a.transpose(perm)
    dims = data.draw(st.lists(st.integers(0, len(shape) - 1), unique=True))
    np.testing.assert_array_equal(t.flip(dims).numpy(), np.flip(p, dims) if dims else p)
    shifts = [data.draw(st.integers(-9, 9)) for _ in dims]
    if dims:
        np.testing.assert_array_equal(t.roll(shifts, dims).numpy(), np.roll(p, shifts, dims))
    reps = data.draw(st.lists(st.integers(0, 3), min_size=len(shape), max_size=len(shape) + 1))
    np.testing.assert_array_equal(t.repeat(reps).numpy(), np.tile(p, reps))


def test_repeat_with_more_than_eight_repeated_dims():
    a = np.arange(2 ** 9, dtype=np.int16).reshape((2,) * 9)
    reps = (2,) * 9
    np.testing.assert_array_equal(torch.from_numpy(a).repeat(reps).numpy(), np.tile(a, reps))


def test_float16_moves_without_arithmetic_kernels():
    h = np.arange(24, dtype=np.float16).reshape(2, 3, 4)
    t = torch.from_numpy(h)
    np.testing.assert_array_equal(t.flip(2).numpy(), h[..., ::-1])
    np.testing.assert_array_equal(t.roll(1, 1).numpy(), np.roll(h, 1, 1))
    np.testing.assert_array_equal(t.repeat(1, 2, 1).numpy(), np.tile(h, (1, 2, 1)))
    np.testing.assert_array_equal(torch.cat([t, t], 2).numpy(), np.concatenate([h, h], 2))
    np.testing.assert_array_equal(torch.stack([t, t], 1).numpy(), np.stack([h, h], 1))
    np.testing.assert_array_equal(t.tril().numpy(), np.tril(h))
    np.testing.assert_array_equal(t.transpose(0, 2).reshape(-1).numpy(), h.swapaxes(0, 2).reshape(-1))


def test_repeat_interleave_tensor_gives_indices_in_repeats_dtype():
    reps = torch.from_numpy(np.array([1, 2, 0, 3], dtype=np.int32))
    out = torch.repeat_interleave(reps)
    assert out.dtype is torch.int32 and out.tolist() == [0, 1, 1, 3, 3, 3]
    assert torch.repeat_interleave(torch.from_numpy(np.array([2, 1]))).tolist() == [0, 0, 1]
    assert torch.repeat_interleave(torch.from_numpy(np.array([1, 2])), output_size=3).tolist() == [0, 1, 1]


# ---------------------------------------------------------------------------------------------
# Errors

x = _t(2, 3, 4)
i64 = np.int64
ERRORS = [
    (lambda: torch.cat([_t(2, 3), _t(2, 1)]), RuntimeError,
     "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 1 for tensor number 1 in the "
     "list."),
    (lambda: torch.cat([_t(2, 3), _t(2)]), RuntimeError, "Tensors must have same number of dimensions: got 2 and 1"),
    (lambda: torch.cat([torch.tensor(1.0), _t(2)]), RuntimeError,
     "zero-dimensional tensor (at position 0) cannot be concatenated"),
    (lambda: torch.cat([_t(2), torch.tensor(1.0)]), RuntimeError,
     "zero-dimensional tensor (at position 1) cannot be concatenated"),
    (lambda: torch.cat([_t(2, 3)], 2), IndexError, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: torch.cat([torch.zeros(0), _t(2, 3)], 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    (lambda: torch.stack([_t(2, 3), _t(3, 2)]), RuntimeError,
     "stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1"),
    (lambda: torch.stack([_t(2, 3), _t(3, 2)], 5), IndexError,
     "Dimension out of range (expected to be in range of [-3, 2], but got 5)"),
    (lambda: x.flip(0, 0), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: x.flip(0, -3), RuntimeError, "dim 0 appears multiple times in the list of dims"),
    (lambda: x.flip(3), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda: x.roll((1, 2), 0), RuntimeError, "shifts and dimensions must align. shifts: 2, dims:1"),
    (lambda: x.roll((1,), (0, 1)), RuntimeError, "shifts and dimensions must align. shifts: 1, dims:2"),
    (lambda: x.roll(()), RuntimeError, "`shifts` required"),
    (lambda: x.roll(1, 3), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda: torch.tensor(1.0).roll(1, 0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda: x.repeat(2, 1), RuntimeError,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"),
    (lambda: x.repeat(2, -1, 1), RuntimeError, "Trying to create tensor with negative dimension -3: [4, -3, 4]"),
    (lambda: x.tile(-1), RuntimeError, "Trying to create tensor with negative dimension -4: [2, 3, -4]"),
    (lambda: x.repeat_interleave(-1, 1), RuntimeError, "Repeats must be non-negative"),
    (lambda: x.repeat_interleave(2, 3), IndexError, "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    (lambda: torch.tensor(1.0).repeat_interleave(3, 0), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: x.repeat_interleave(2, 1, output_size=5), RuntimeError,
     "repeat_interleave: Invalid output_size, expected 6 but got 5"),
    (lambda: x.repeat_interleave(torch.from_numpy(np.array([1, 0], dtype=i64)), 1), RuntimeError,
     "repeats must have the same size as input along dim, but got repeats.size(0) = 2 and input.size(1) = 3"),
    (lambda: x.repeat_interleave(torch.from_numpy(np.array([[2]], dtype=i64)), 1), RuntimeError,
     "repeats must be 0-dim or 1-dim tensor"),
    (lambda: x.repeat_interleave(torch.from_numpy(np.array([1, -1, 2], dtype=i64)), 1), RuntimeError,
     "repeats can not be negative"),
    (lambda: x.repeat_interleave(torch.from_numpy(np.array([1.0, 1, 2], dtype=np.float32)), 1), NotImplementedError,
     "\"repeat_interleave_cpu\" not implemented for 'Float'"),
    (lambda: x.repeat_interleave(torch.from_numpy(np.array([1, 1, 2], dtype=np.int16)), 1), NotImplementedError,
     "\"repeat_interleave_cpu\" not implemented for 'Short'"),
    (lambda: x.repeat_interleave(torch.from_numpy(np.array([1, 1, 2], dtype=i64)), 1, output_size=5), RuntimeError,
     "allocated size does not match required size"),
    (lambda: torch.repeat_interleave(torch.tensor(2)), RuntimeError, "repeat_interleave only accept 1D vector as repeat"),
    (lambda: torch.repeat_interleave(torch.from_numpy(np.array([1, 2], dtype=np.uint8))), NotImplementedError,
     "\"repeat_interleave_cpu\" not implemented for 'Byte'"),
    (lambda: torch.diag(x), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 3D"),
    (lambda: torch.diag(torch.tensor(1.0)), RuntimeError, "diag(): Supports 1D or 2D tensors. Got 0D"),
    (lambda: torch.diag_embed(x, 0, 0, 0), RuntimeError, "diagonal dimensions cannot be identical 0, 0"),
    (lambda: torch.diag_embed(x, 0, 0, 4), IndexError,
     "Dimension out of range (expected to be in range of [-4, 3], but got 4)"),
    (lambda: torch.diag_embed(torch.tensor(1.0)), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
    (lambda: _t(3).tril(), RuntimeError, "tril: input tensor must have at least 2 dimensions"),
    (lambda: _t(3).triu(), RuntimeError, "triu: input tensor must have at least 2 dimensions"),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[f"{i}-{e[2][:40]}" for i, e in enumerate(ERRORS)])
def test_errors_match_pytorch(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


@pytest.mark.parametrize("shapes, expected", [
    (((3, 2), (2,)), (3, 2)), ((), ()), ((5, (3, 1)), (3, 5)), (((1,), torch.Size([0])), (0,)),
    (([2, 1], None, (4, 1, 3)), (4, 2, 3)),
])
def test_broadcast_shapes_gives_the_broadcast_tensors_shape(shapes, expected):
    result = torch.broadcast_shapes(*shapes)
    assert type(result) is torch.Size and result == expected


def test_broadcast_shapes_errors_as_pytorch():
    with pytest.raises(RuntimeError, match=r"Attempting to broadcast a dimension of length 4 at -1! Mismatching "
                                           r"argument at index 1 had \(4,\); but expected shape should be "
                                           r"broadcastable to \[3, 2\]"):
        torch.broadcast_shapes((3, 2), (4,))
    with pytest.raises(ValueError, match="Attempting to broadcast a dimension with negative length!"):
        torch.broadcast_shapes((1,), (-2,))
    with pytest.raises(TypeError, match=r"torch.Size\(\) takes an iterable of 'int' \(item 0 is 'float'\)"):
        torch.broadcast_shapes((2.5,))
    with pytest.raises(RuntimeError, match="Input shapes should be of type ints, a tuple of ints, or a list of ints"):
        torch.broadcast_shapes(3.5)


def test_roll_of_a_dim_named_twice_rolls_by_the_sum():
    grid = torch.arange(12).reshape(3, 4)
    assert torch.equal(torch.roll(grid, (1, 1), (1, 1)), torch.roll(grid, 2, 1))
    assert torch.equal(torch.roll(grid, (1, -1, 2), (0, 1, 1)), torch.roll(torch.roll(grid, 1, 0), 1, 1))
