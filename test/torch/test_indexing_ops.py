"""Indexing, sorting and selection ops: behaviour the OpInfo database cannot express.

Errors (types and messages, verified with PyTorch 2.13), in-place writes through views and
version counters, accumulation of duplicate indices, tie orders of PyTorch's unstable sorts
(recorded from PyTorch 2.13 CPU for inputs given by formulas), and hypothesis property tests of
advanced indexing and gather/scatter against NumPy fancy indexing.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch
from dtype_cases import ALL_DTYPES, NUMPY_OF, TORCH_OF, dtype_id, random_values

aten = torch.ops.aten
NAN = float("nan")


def t(values, dtype=None) -> torch.Tensor:
    return torch.from_numpy(np.array(values, dtype=dtype))


def x23() -> torch.Tensor:
    return torch.from_numpy(np.arange(6.0, dtype=np.float32).reshape(2, 3))


def transposed(a: np.ndarray) -> torch.Tensor:
    """A non-contiguous tensor viewing a's transpose."""
    return torch.from_numpy(a.T)


def assert_equal(actual: torch.Tensor, expected: np.ndarray) -> None:
    expected = np.asarray(expected)
    assert actual.dtype == TORCH_OF[expected.dtype]
    assert tuple(actual.shape) == expected.shape
    np.testing.assert_array_equal(actual.numpy(), expected)


# ---------------------------------------------------------------------------------------------
# Errors: out-of-range indices never crash or write; PyTorch's exception types and messages

L = np.int64
I32 = np.int32


@pytest.mark.parametrize("call, error, message", [
    (lambda: x23().index_select(0, t([5])), IndexError, "index out of range in self"),
    (lambda: x23().index_select(1, t([3])), RuntimeError, "INDICES element is out of DATA bounds, id=3 axis_dim=3"),
    (lambda: x23().index_select(1, t([-1])), RuntimeError, "INDICES element is out of DATA bounds, id=-1 axis_dim=3"),
    (lambda: x23().index_select(1, t([1.0])), RuntimeError, "index_select(): Expected dtype int32 or int64 for index"),
    (lambda: x23().index_select(1, t([[1]])), IndexError, "index_select(): Index is supposed to be a vector"),
    (lambda: t(5.0).index_select(0, t([0, 0])), RuntimeError,
     "index_select(): Index to scalar can have only 1 value, got 2 value(s)"),
    (lambda: x23().gather(1, t([[3]])), RuntimeError, "index 3 is out of bounds for dimension 1 with size 3"),
    (lambda: x23().gather(1, t([[-1]])), RuntimeError, "index -1 is out of bounds for dimension 1 with size 3"),
    (lambda: x23().gather(1, t([[1.0]])), RuntimeError, "gather(): Expected dtype int32/int64 for index"),
    (lambda: x23().gather(1, t([1])), RuntimeError,
     "Index tensor must have the same number of dimensions as input tensor"),
    (lambda: x23().gather(1, t([[1], [1], [1]])), RuntimeError,
     "Size does not match at dimension 0 expected index [3, 1] to be no larger than self [2, 3] apart from "
     "dimension 1"),
    (lambda: x23().scatter(1, t([[5]]), 1.0), RuntimeError, "index 5 is out of bounds for dimension 1 with size 3"),
    (lambda: x23().scatter(1, t([[1]]), t([[1.0]])), RuntimeError,
     "scatter(): Expected self.dtype to be equal to src.dtype"),
    (lambda: x23().scatter(1, t([[1, 2, 0, 1]]), torch.ones(1, 3)), RuntimeError,
     "Expected index [1, 4] to be no larger than self [2, 3] apart from dimension 1 and to be no larger size "
     "than src [1, 3]"),
    (lambda: x23().scatter(1, t([[1]]), 1.0, reduce="mean"), RuntimeError,
     "reduce argument must be either add or multiply."),
    (lambda: x23().scatter_reduce(1, t([[1]]), torch.ones(1, 1), "mul"), RuntimeError,
     "reduce argument must be either sum, prod, mean, amax or amin, got mul"),
    (lambda: t([True]).scatter_reduce(0, t([0]), t([True]), "mean"), NotImplementedError,
     "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'"),
    (lambda: x23().scatter_add(0, t([[2]]), torch.ones(1, 1)), RuntimeError,
     "index 2 is out of bounds for dimension 0 with size 2"),
    (lambda: x23().index_add(1, t([5]), torch.ones(2, 1)), RuntimeError,
     "index 5 is out of bounds for dimension 1 with size 3"),
    (lambda: x23().index_add(1, t([1.0]), torch.ones(2, 1)), RuntimeError,
     "index_add_(): Expected dtype int32/int64 for index but got: Double"),
    (lambda: x23().index_add(1, t([1]), torch.ones(2, 1, dtype=torch.float64)), RuntimeError,
     "index_add_(): self (Float) and source (Double) must have the same scalar type"),
    (lambda: x23().index_add(1, t([1]), torch.ones(2, 2)), RuntimeError,
     "index_add_(): Number of indices (1) should be equal to source.size(dim): (2), for dim: 1"),
    (lambda: x23().index_add(1, t([[1]]), torch.ones(2, 1)), IndexError,
     "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: [1, 1]"),
    (lambda: x23().index_copy(1, t([5]), torch.ones(2, 1)), IndexError,
     "index_copy_(): index 5 is out of bounds for dimension 1 with size 3"),
    (lambda: x23().index_copy(1, t([1], I32), torch.ones(2, 1)), RuntimeError,
     "index_copy_(): Expected a long tensor for index, but got Int"),
    (lambda: x23().index_fill(1, t([-4]), 0), IndexError, "index -4 is out of bounds for dimension 1 with size 3"),
    (lambda: x23().index_fill(1, t([1], I32), 0), IndexError, "index_fill_(): Expected dtype int64 for index."),
    (lambda: x23().index_fill(1, t(1), t([7.0])), RuntimeError,
     "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s)."),
    (lambda: x23().masked_fill(t([1, 0, 1], np.uint8), 0), RuntimeError,
     "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"),
    (lambda: t(1.0).masked_fill_(t([True, False]), 0), RuntimeError,
     "output with shape [] doesn't match the broadcast shape [2]"),
    (lambda: torch.ones(3, dtype=torch.uint8).masked_fill(t([True, False, True]), 300), RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    (lambda: x23().masked_select(t([1, 0, 1], np.uint8)), RuntimeError, "masked_select: expected BoolTensor for mask"),
    (lambda: x23().masked_scatter(t([True, True, True]), torch.ones(5)), RuntimeError,
     "Number of elements of source < number of ones in mask"),
    (lambda: x23().take(t([6])), IndexError, "out of range: tried to access index 6 on a tensor of 6 elements."),
    (lambda: x23().take(t([-7])), IndexError, "out of range: tried to access index -7 on a tensor of 6 elements."),
    (lambda: x23().take(t([1], I32)), RuntimeError, "take(): Expected a long tensor for index, but got Int"),
    (lambda: torch.ones(0).take(t([0])), IndexError, "take(): tried to take from an empty tensor"),
    (lambda: x23().put(t([6]), t([1.0], np.float32)), IndexError,
     "out of range: tried to access index 6 on a tensor of 6 elements."),
    (lambda: x23().put(t([1]), t([1.0, 2.0], np.float32)), IndexError,
     "put_(): Expected source and index to have the same number of elements, but got source.numel() = 2, "
     "index.numel() = 1"),
    (lambda: aten.index.Tensor(x23(), [t([2])]), IndexError, "index 2 is out of bounds for dimension 0 with size 2"),
    (lambda: aten.index.Tensor(x23(), [None, t([-4])]), IndexError,
     "index -4 is out of bounds for dimension 0 with size 3"),
    (lambda: aten.index.Tensor(x23(), [t([0]), t([9])]), IndexError,
     "index 9 is out of bounds for dimension 1 with size 3"),
    (lambda: aten.index.Tensor(x23(), [t([1.0])]), IndexError,
     "tensors used as indices must be long, int, byte or bool tensors"),
    (lambda: aten.index.Tensor(x23(), [t([True, False, True])]), IndexError,
     "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [2, 3] at index 0"),
    (lambda: aten.index.Tensor(x23(), [None, None, None]), IndexError,
     "too many indices for tensor of dimension 2 (got 3)"),
    (lambda: aten.index.Tensor(x23(), [t([0, 1]), t([0, 1, 2])]), IndexError,
     "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]"),
    (lambda: aten.index.Tensor(torch.ones(0, 3), [t([0])]), IndexError,
     "index is out of bounds for dimension with size 0"),
    (lambda: aten.index_put_(x23(), [t([2])], t(1.0, np.float32)), IndexError,
     "index 2 is out of bounds for dimension 0 with size 2"),
    (lambda: aten.index_put_(x23(), [t([1])], t(1.0)), RuntimeError,
     "Index put requires the source and destination dtypes match, got Float for the destination and Double for "
     "the source."),
    (lambda: aten.index_put_(x23(), [t([1])], torch.ones(2)), RuntimeError,
     "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [1, 3]"),
])
def test_bad_indices_and_arguments_raise_pytorchs_error(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("call, error, message", [
    (lambda: torch.sort(t(3.0), dim=1), IndexError, "Dimension out of range (expected to be in range of [-1, 0], "
                                                    "but got 1)"),
    (lambda: torch.topk(t([1.0, 2.0]), 3), RuntimeError, "selected index k out of range"),
    (lambda: torch.topk(t([1.0, 2.0]), -1), RuntimeError, "selected index k out of range"),
    (lambda: torch.topk(t([True]), 1), RuntimeError, "topk does not support bool dtypes on CPU"),
    (lambda: torch.kthvalue(t([1.0, 2.0]), 3), RuntimeError,
     "kthvalue(): selected number k out of range for dimension 0"),
    (lambda: torch.kthvalue(torch.ones(2, 0), 1), IndexError,
     "kthvalue(): Expected reduction dim 1 to have non-zero size."),
    (lambda: torch.kthvalue(t([True]), 1), NotImplementedError, "\"kthvalue_cpu\" not implemented for 'Bool'"),
    (lambda: torch.median(torch.ones(0), 0), IndexError, "median(): Expected reduction dim 0 to have non-zero size."),
    (lambda: torch.median(t([True])), NotImplementedError, "\"median_cpu\" not implemented for 'Bool'"),
    (lambda: torch.mode(torch.ones(2, 0)), IndexError, "mode(): Expected reduction dim 1 to have non-zero size."),
    (lambda: aten.unique_dim(t(3), 0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
    (lambda: aten.unique_dim(torch.ones(0, 2), 1), RuntimeError,
     "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"),
    (lambda: torch.searchsorted(t([1.0]), t([1.0]), side="middle"), RuntimeError,
     "torch.searchsorted(): side can only be 'left' or 'right' but got middle"),
    (lambda: torch.searchsorted(t([1.0]), t([1.0]), side="left", right=True), RuntimeError,
     "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True"),
    (lambda: torch.searchsorted(t([5.0, 1, 3]), t([2.0]), sorter=t([1, 2, 5])), RuntimeError,
     "torch.searchsorted(): sorter index out of range"),
    (lambda: torch.searchsorted(t([5.0, 1, 3]), t([2.0]), sorter=t([1, 2, 0], I32)), RuntimeError,
     "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype Int"),
    (lambda: torch.searchsorted(torch.ones(3, 5), torch.ones(2, 3)), RuntimeError,
     "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
     "tensor and input value tensor must match, but we got boundaries tensor [3, 5] and input value tensor [2, 3]"),
    (lambda: torch.bucketize(t([1.0]), torch.ones(2, 2)), RuntimeError,
     "boundaries tensor must be 1 dimension, but got dim(2)"),
    (lambda: torch.histc(t([1, 2])), NotImplementedError, "\"histogram_cpu\" not implemented for 'Long'"),
    (lambda: torch.histc(t([1.0, 2.0]), bins=3, min=3, max=1), RuntimeError,
     "torch.histc: max must be larger than min"),
    (lambda: torch.histc(t([1.0, math.inf]), bins=3), RuntimeError, "torch.histc: range of [1, inf] is not finite"),
    (lambda: torch.bincount(t([1, -1])), RuntimeError, "bincount only supports 1-d non-negative integral inputs."),
    (lambda: torch.bincount(t([1.0], np.float32)), NotImplementedError, "\"bincount_cpu\" not implemented for 'Float'"),
    (lambda: torch.bincount(t([1, 2]), t([1.0])), RuntimeError,
     "weights should be 1-d and have the same length as input"),
])
def test_bad_sorting_arguments_raise_pytorchs_error(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("call", [
    lambda s: s.scatter_(1, t([[0, 5]]), 7.0),
    lambda s: s.index_add_(1, t([0, 3]), torch.ones(2, 2)),
    lambda s: s.index_copy_(1, t([0, 3]), torch.ones(2, 2)),
    lambda s: s.index_fill_(1, t([0, 3]), 7.0),
    lambda s: s.put_(t([0, 6]), t([1.0, 2.0], np.float32)),
    lambda s: aten.index_put_(s, [None, t([0, 3])], t(1.0, np.float32)),
])
def test_an_out_of_range_index_leaves_self_untouched(call):
    # The first index is valid: a kernel that wrote before validating would change self.
    s = x23()
    with pytest.raises((IndexError, RuntimeError)):
        call(s)
    np.testing.assert_array_equal(s.numpy(), np.arange(6.0).reshape(2, 3))
    assert s._version == 0


@pytest.mark.parametrize("dtype", [np.int64, np.int32], ids=["int64", "int32"])
def test_int32_and_int64_indices_give_the_same_result_where_pytorch_takes_both(dtype):
    a = np.arange(24.0).reshape(2, 3, 4)
    s = torch.from_numpy(a)
    assert_equal(s.index_select(2, t([3, 0], dtype)), a[:, :, [3, 0]])
    assert_equal(s.gather(1, t([[[2]], [[0]]], dtype)), np.take_along_axis(a[:, :, :1], np.array([[[2]], [[0]]]), 1))
    assert_equal(aten.index.Tensor(s, [None, t([2, 0], dtype)]), a[:, [2, 0]])
    assert_equal(s.index_add(0, t([1], dtype), torch.ones(1, 3, 4, dtype=torch.float64)),
                 a + np.array([0, 1.0])[:, None, None])
    expected = a.copy()
    expected[1, 0, 0] = -1
    assert_equal(s.scatter(0, t([[[1]]], dtype), -1.0), expected)


# ---------------------------------------------------------------------------------------------
# In place: self is written (through views), returned, and its version bumped


@pytest.mark.parametrize("name, args", [
    ("scatter_", (1, t([[2, 0]]), t([[7.0, 8.0]], np.float32))),
    ("scatter_", (1, t([[2, 0]]), 7.0)),
    ("scatter_add_", (1, t([[2, 2]]), t([[7.0, 8.0]], np.float32))),
    ("scatter_reduce_", (1, t([[2, 2]]), t([[7.0, 8.0]], np.float32), "amax")),
    ("index_add_", (0, t([1]), torch.ones(1, 3))),
    ("index_copy_", (0, t([1]), torch.ones(1, 3))),
    ("index_fill_", (1, t([2]), -1.0)),
    ("masked_fill_", (t([True, False, True]), -1.0)),
    ("masked_scatter_", (t([True, False, True]), torch.ones(4))),
    ("put_", (t([5]), t([9.0], np.float32))),
    ("index_put_", ([t([1])], t(9.0, np.float32))),
])
def test_in_place_ops_write_self_return_it_and_bump_its_version(name, args):
    s = x23()
    before = s.numpy().copy()
    result = getattr(s, name)(*args)
    assert result is s
    assert s._version == 1
    assert not np.array_equal(s.numpy(), before)


def test_in_place_writes_reach_the_base_through_a_non_contiguous_view():
    base = np.zeros((4, 3), dtype=np.float32)
    view = torch.from_numpy(base.T)              # shares memory, strides (1, 3)
    view.scatter_(1, t([[3], [0], [1]]), 5.0)
    view.index_fill_(0, t([2]), 1.0)
    aten.index_put_(view, [t([0]), t([2])], t(7.0, np.float32))
    expected = np.zeros((4, 3), dtype=np.float32)
    expected[3, 0] = expected[0, 1] = 5
    expected[:, 2] = 1
    expected[2, 0] = 7
    np.testing.assert_array_equal(base, expected)


@pytest.mark.parametrize("call", [
    lambda s: s.scatter(1, t([[0]]), 1.0),
    lambda s: s.index_add(0, t([0]), torch.ones(1, 3)),
    lambda s: s.index_fill(0, t([0]), 1.0),
    lambda s: s.masked_fill(t([True, True, True]), 1.0),
    lambda s: s.put(t([0]), t([1.0], np.float32)),
    lambda s: torch.index_put(s, [t([0])], t(1.0, np.float32)),
])
def test_out_of_place_ops_leave_self_alone(call):
    s = x23()
    out = call(s)
    assert out is not s and s._version == 0 and out._version == 0
    np.testing.assert_array_equal(s.numpy(), np.arange(6.0).reshape(2, 3))


def test_masked_fill_accepts_python_numbers_and_zero_dim_tensors():
    m = t([True, False, True])
    assert_equal(x23().masked_fill(m, 9), np.where([True, False, True], 9, np.arange(6.0).reshape(2, 3)).astype(
        np.float32))
    assert_equal(torch.masked_fill(t([1, 2, 3]), m, 2.7), np.array([2, 2, 2]))   # C conversion: 2.7 -> 2
    assert_equal(t([1, 2, 3]).masked_fill(m, t(-1.0)), np.array([-1, 2, -1]))


# ---------------------------------------------------------------------------------------------
# Duplicates


def test_index_put_accumulates_duplicates_and_otherwise_the_last_write_wins():
    idx = [t([0, 2, 0, 0])]
    values = t([1.0, 2.0, 3.0, 4.0], np.float32)
    assert_equal(aten.index_put(torch.zeros(3), idx, values, True), np.array([8.0, 0, 2], np.float32))
    assert_equal(aten.index_put(torch.zeros(3), idx, values, False), np.array([4.0, 0, 2], np.float32))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_accumulating_ops_add_every_duplicate_in_each_dtype(dtype):
    rng = np.random.default_rng(3)
    src = random_values(dtype, (6,), rng, int_range=(0, 3))
    index = np.array([1, 1, 0, 1, 3, 0])
    expected = np.zeros(4, NUMPY_OF[dtype])
    np.add.at(expected, index, src)
    if dtype is torch.bool:
        expected = np.zeros(4, bool)
        np.logical_or.at(expected, index, src)
    zeros = lambda: torch.from_numpy(np.zeros(4, NUMPY_OF[dtype]))  # noqa: E731
    assert_equal(aten.index_put_(zeros(), [t(index)], torch.from_numpy(src), True), expected)
    assert_equal(zeros().put_(t(index), torch.from_numpy(src), accumulate=True), expected)
    assert_equal(zeros().index_add_(0, t(index), torch.from_numpy(src)), expected)
    assert_equal(zeros().scatter_add_(0, t(index), torch.from_numpy(src)), expected)
    assert_equal(zeros().scatter_reduce_(0, t(index), torch.from_numpy(src), "sum"), expected)


# ---------------------------------------------------------------------------------------------
# Advanced indexing (index.Tensor) semantics


def test_adjacent_index_tensors_keep_their_place_and_separated_ones_go_first():
    a = np.arange(120).reshape(2, 3, 4, 5)
    s = torch.from_numpy(a)
    i = np.array([[0, 1]])
    assert aten.index.Tensor(s, [None, t(i), t(i)]).shape == (2, 1, 2, 5)
    assert aten.index.Tensor(s, [t(i), None, t(i)]).shape == (1, 2, 3, 5)
    assert_equal(aten.index.Tensor(s, [None, t(i), None, t(i)]), a[:, i, :, i])


def test_a_bool_mask_selects_like_its_nonzero_coordinates():
    a = np.arange(24).reshape(2, 3, 4)
    mask = a[..., 0] % 2 == 0                        # (2, 3)
    s = torch.from_numpy(a)
    assert_equal(aten.index.Tensor(s, [t(mask)]), a[mask])
    rows, cols = np.nonzero(mask)
    assert_equal(aten.index.Tensor(s, [t(rows), t(cols)]), a[mask])


def test_index_of_a_non_contiguous_tensor_with_non_contiguous_indices():
    a = np.arange(60.0).reshape(3, 4, 5)
    idx = np.array([[0, 2], [1, 1], [3, 0]])
    s = transposed(a)                                  # (5, 4, 3)
    assert_equal(aten.index.Tensor(s, [None, transposed(idx)]), a.T[:, idx.T])


@settings(max_examples=120, deadline=None)
@given(data=st.data(),
       shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5),
       dtype=st.sampled_from(ALL_DTYPES))
def test_index_and_index_put_match_numpy_fancy_indexing(data, shape, dtype):
    ndim = len(shape)
    n_index = data.draw(st.integers(1, ndim), label="number of index entries")
    bshape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3), label="index shape")
    indices = []
    for d in range(n_index):
        kind = data.draw(st.sampled_from(["none", "int", "bool"]), label=f"kind {d}")
        if kind == "none":
            indices.append(None)
        elif kind == "int":
            indices.append(data.draw(hnp.arrays(np.int64, bshape, elements=st.integers(-shape[d], shape[d] - 1)),
                                     label=f"index {d}"))
        else:
            indices.append(data.draw(hnp.arrays(np.bool_, (shape[d],)), label=f"mask {d}"))
    a = random_values(dtype, shape, np.random.default_rng(data.draw(st.integers(0, 99), label="seed")))
    key = tuple(slice(None) if i is None else i for i in indices)
    try:
        expected = a[key]
    except IndexError:                                  # index shapes that do not broadcast
        with pytest.raises(IndexError, match="shape mismatch"):
            aten.index.Tensor(torch.from_numpy(a), [None if i is None else torch.from_numpy(i) for i in indices])
        return
    tindices = [None if i is None else torch.from_numpy(i) for i in indices]
    assert_equal(aten.index.Tensor(torch.from_numpy(a), tindices), expected)
    values = random_values(dtype, expected.shape, np.random.default_rng(1))
    accumulate = data.draw(st.booleans(), label="accumulate")
    out = a.copy()
    if accumulate:
        if dtype is torch.bool:
            np.logical_or.at(out, key, values)
        else:
            np.add.at(out, key, values)
    else:
        # Duplicate positions: PyTorch's CPU kernel writes in order, so the last value wins, as NumPy.
        out[key] = values
    result = aten.index_put_(torch.from_numpy(a.copy()), tindices, torch.from_numpy(values), accumulate)
    assert_equal(result, out)


@settings(max_examples=100, deadline=None)
@given(data=st.data(),
       shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=5),
       dtype=st.sampled_from(ALL_DTYPES))
def test_gather_and_scatter_match_numpy_take_and_put_along_axis(data, shape, dtype):
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim, ndim - 1), label="dim")
    ishape = tuple(data.draw(st.integers(1, s), label=f"size {d}") if d != dim % ndim
                   else data.draw(st.integers(0, 6), label="size along dim") for d, s in enumerate(shape))
    index = data.draw(hnp.arrays(np.int64, ishape, elements=st.integers(0, shape[dim] - 1)), label="index")
    rng = np.random.default_rng(data.draw(st.integers(0, 99), label="seed"))
    a = random_values(dtype, shape, rng)
    sub = a[tuple(slice(0, s) if d != dim % ndim else slice(None) for d, s in enumerate(ishape))]
    assert_equal(torch.from_numpy(a).gather(dim, torch.from_numpy(index)), np.take_along_axis(sub, index, dim))
    # scatter: unique positions along dim per lane, so the result does not depend on write order
    src = random_values(dtype, ishape, rng)
    lanes = np.moveaxis(index, dim, -1).reshape(-1, ishape[dim]) if index.size else []
    if all(len(set(lane)) == len(lane) for lane in lanes):
        expected = a.copy()
        np.put_along_axis(expected[tuple(slice(0, s) if d != dim % ndim else slice(None)
                                         for d, s in enumerate(ishape))], index, src, dim)
        assert_equal(torch.from_numpy(a).scatter(dim, torch.from_numpy(index), torch.from_numpy(src)), expected)


# ---------------------------------------------------------------------------------------------
# Sorting: NaN placement, stability, and PyTorch's tie orders

A40 = [float((i * 7) % 3) for i in range(40)]      # many ties
A70 = [float((i * 5) % 4) for i in range(70)]


def test_nan_sorts_last_ascending_and_first_descending():
    v = t([3.0, NAN, 1.0, -math.inf, NAN, 0.0], np.float32)
    values, indices = torch.sort(v)
    assert indices.tolist() == [3, 5, 2, 0, 1, 4]
    assert math.isnan(values.tolist()[-1])
    assert torch.sort(v, descending=True)[1].tolist() == [1, 4, 0, 2, 5, 3]
    assert torch.topk(v, 2)[1].tolist() == [1, 4]


@pytest.mark.parametrize("descending", [False, True])
def test_a_stable_sort_keeps_equal_values_in_their_original_order(descending):
    a = np.array(A40 * 3, np.float32)
    _, indices = torch.sort(torch.from_numpy(a), stable=True, descending=descending)
    key = -a if descending else a
    np.testing.assert_array_equal(indices.numpy(), np.argsort(key, kind="stable"))
    assert torch.argsort(torch.from_numpy(a), stable=True, descending=descending).tolist() == indices.tolist()


def test_unstable_sort_orders_ties_as_pytorchs_introsort():
    # Recorded from PyTorch 2.13 (CPU): std::sort's tie order for slices longer than 16.
    a = torch.tensor(A40)
    assert torch.sort(a)[1].tolist() == [
        0, 21, 18, 24, 15, 27, 12, 30, 9, 33, 6, 36, 3, 39, 31, 34, 28, 37, 25, 22, 1, 19, 16, 4, 13, 7, 10, 2, 20,
        38, 5, 35, 8, 32, 11, 29, 14, 26, 17, 23]
    assert torch.sort(a, descending=True)[1].tolist() == [
        29, 20, 17, 23, 14, 26, 11, 8, 32, 5, 35, 2, 38, 31, 1, 34, 28, 25, 37, 22, 16, 13, 4, 10, 19, 7, 30, 39, 0,
        3, 36, 6, 33, 9, 12, 27, 15, 24, 18, 21]
    assert torch.argsort(a).tolist() == torch.sort(a)[1].tolist()


def test_selection_ops_resolve_ties_as_pytorch():
    # Recorded from PyTorch 2.13 (CPU): partial_sort, nth_element and quickselect tie orders.
    a40, a70 = torch.tensor(A40), torch.tensor(A70)
    assert torch.topk(a70, 5)[1].tolist() == [19, 51, 23, 55, 27]
    assert torch.topk(a40, 3, largest=False)[1].tolist() == [30, 27, 12]
    assert torch.kthvalue(a40, 7)[1].item() == 33
    assert torch.kthvalue(a40, 20)[1].item() == 25
    assert torch.mode(a40)[1].item() == 39
    assert torch.mode(a70)[1].item() == 60
    assert torch.median(a40, 0)[1].item() == 16
    assert torch.nanmedian(torch.full((50,), NAN), 0)[1].item() == 33


def test_a_large_1d_integer_sort_is_stable_like_pytorchs_radix_sort():
    a = np.arange(40000) % 5
    _, indices = torch.sort(torch.from_numpy(a))
    np.testing.assert_array_equal(indices.numpy(), np.argsort(a, kind="stable"))


def test_topk_unsorted_returns_the_same_elements():
    a = np.random.default_rng(5).permutation(50).astype(np.float32)
    values, indices = torch.topk(torch.from_numpy(a), 7, sorted=False)
    assert sorted(values.tolist(), reverse=True) == sorted(a.tolist(), reverse=True)[:7]
    np.testing.assert_array_equal(a[indices.numpy()], values.numpy())


def test_unique_puts_each_nan_in_its_own_group_in_sort_order():
    # Recorded from PyTorch 2.13 (CPU): where the unstable sort leaves the NaNs decides the inverse.
    v = torch.tensor([NAN if i % 3 == 0 else float(i % 4) for i in range(40)])
    values, inverse, counts = torch._unique2(v, True, True, True)
    recorded = [6, 1, 2, 13, 0, 1, 16, 3, 0, 9, 2, 3, 5, 1, 2, 8, 0, 1, 11, 3, 0, 15, 2, 3, 17, 1, 2, 14, 0, 1, 12, 3,
                0, 10, 2, 3, 7, 1, 2, 4]
    assert inverse.tolist() == recorded
    assert values.tolist()[:4] == [0.0, 1.0, 2.0, 3.0] and all(math.isnan(x) for x in values.tolist()[4:])
    assert counts.tolist() == np.bincount(recorded).tolist()


def test_searchsorted_with_a_sorter_searches_the_sorted_order():
    b = np.array([5.0, 1.0, 3.0, 9.0])
    sorter = np.argsort(b)
    v = np.array([0.0, 3.0, 4.0, 10.0])
    for right in (False, True):
        out = torch.searchsorted(t(b), t(v), sorter=t(sorter), right=right)
        assert_equal(out, np.searchsorted(b[sorter], v, side="right" if right else "left"))


def test_searchsorted_and_bucketize_take_a_python_number():
    b = t([1.0, 3.0, 5.0, 7.0])
    assert torch.searchsorted(b, 5).tolist() == 2
    assert torch.searchsorted(b, 5, right=True).tolist() == 3
    assert torch.bucketize(4.5, b).tolist() == 2
    assert torch.bucketize(5, b, out_int32=True).dtype == torch.int32


def test_searchsorted_compares_in_the_common_dtype():
    # int values against float boundaries, and float values against uint8 boundaries
    assert torch.searchsorted(t([1.5, 2.5]), t([2])).tolist() == [1]
    assert torch.searchsorted(t([1, 2, 3], np.uint8), t([2.5])).tolist() == [2]


def test_histc_counts_the_right_edge_in_the_last_bin_and_ignores_values_outside():
    a = t([0.0, 1.0, 2.0, 2.0, 3.0, -1.0, 7.0], np.float32)
    assert_equal(torch.histc(a, bins=4, min=0, max=2), np.array([1, 0, 1, 2], np.float32))


def test_bincount_weights_keep_float32_and_promote_the_rest_to_float64():
    x = t([0, 2, 2])
    assert torch.bincount(x, t([1, 2, 3], np.float32)).dtype == torch.float32
    assert torch.bincount(x, t([1, 2, 3])).dtype == torch.float64
    assert_equal(torch.bincount(x, t([1, 2, 3])), np.array([1.0, 0.0, 5.0]))


def _stable_order(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    order = np.argsort(np.flip(a, axis=axis), axis=axis, kind="stable")
    return np.flip(a.shape[axis] - 1 - order, axis=axis)


@settings(max_examples=100, deadline=None)
@given(data=st.data(),
       shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=70),
       dtype=st.sampled_from(ALL_DTYPES),
       descending=st.booleans())
def test_stable_sort_and_the_selection_ops_agree_with_numpy(data, shape, dtype, descending):
    ndim = len(shape)
    dim = data.draw(st.integers(-ndim, ndim - 1), label="dim")
    rng = np.random.default_rng(data.draw(st.integers(0, 99), label="seed"))
    a = random_values(dtype, shape, rng, int_range=(-4, 4))
    if a.dtype.kind == "f":
        a[rng.random(shape) < 0.1] = np.nan
    x = torch.from_numpy(a)
    order = _stable_order(a, dim, descending)
    values, indices = torch.sort(x, stable=True, dim=dim, descending=descending)
    assert_equal(indices, order.astype(np.int64))
    assert_equal(values, np.take_along_axis(a, order, dim))
    # Unstable sort and topk/kthvalue: the same values; indices that point at them.
    values, indices = torch.sort(x, dim, descending)
    assert_equal(values, np.take_along_axis(a, order, dim))
    assert_equal(torch.from_numpy(np.take_along_axis(a, indices.numpy(), dim)), values.numpy())
    n = shape[dim]
    if dtype is torch.bool or n == 0:
        return
    k = data.draw(st.integers(1, n), label="k")
    top, top_i = torch.topk(x, k, dim, largest=descending)
    expected = np.take(np.take_along_axis(a, order, dim), np.arange(k), axis=dim)
    assert_equal(top, expected)
    assert_equal(torch.from_numpy(np.take_along_axis(a, top_i.numpy(), dim)), top.numpy())
    kth, kth_i = torch.kthvalue(x, k, dim)
    ascending = np.take_along_axis(a, _stable_order(a, dim, False), dim)
    assert_equal(kth, np.take(ascending, k - 1, axis=dim))
    assert_equal(torch.from_numpy(np.take_along_axis(a, np.expand_dims(kth_i.numpy(), dim), dim)),
                 np.expand_dims(kth.numpy(), dim))


@settings(max_examples=60, deadline=None)
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=40),
       dtype=st.sampled_from(ALL_DTYPES), seed=st.integers(0, 99))
def test_unique_values_and_counts_match_numpy_and_the_inverse_rebuilds_the_input(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    a = random_values(dtype, shape, rng, int_range=(-4, 4))
    if a.dtype.kind == "f":
        a = np.asarray(np.round(a))
        a[rng.random(shape) < 0.1] = np.nan
    values, inverse, counts = torch._unique2(torch.from_numpy(a), True, True, True)
    expected, expected_counts = np.unique(a.reshape(-1), return_counts=True, equal_nan=False)
    assert_equal(values, expected)
    assert_equal(counts, expected_counts.astype(np.int64))
    assert inverse.shape == a.shape
    rebuilt = values.numpy()[inverse.numpy()]
    np.testing.assert_array_equal(rebuilt, a)       # NaN == NaN for assert_array_equal


def test_slices_sorted_on_several_threads_give_the_single_thread_result(threads):
    a = torch.from_numpy((np.arange(300 * 200) * 7 % 5).reshape(300, 200).astype(np.float32))
    runs = []
    for n in (1, 2):
        torch.set_num_threads(n)
        runs.append([r.numpy().copy() for op in (lambda: torch.sort(a, 1), lambda: torch.topk(a, 9, 1),
                                                 lambda: torch.mode(a, 1), lambda: torch.median(a, 1),
                                                 lambda: torch.sort(a, stable=True, dim=1)) for r in op()])
    for single, multi in zip(*runs):
        np.testing.assert_array_equal(single, multi)


@pytest.mark.parametrize("threads", [1, 2])
def test_index_select_of_large_rows_is_the_same_on_any_number_of_threads(threads):
    a = np.random.default_rng(3).standard_normal((300, 257)).astype(np.float32)
    idx = np.random.default_rng(4).integers(0, 300, 500)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        got = torch.index_select(torch.from_numpy(a), 0, torch.from_numpy(idx))
        got_t = torch.index_select(torch.from_numpy(a).t(), 1, torch.from_numpy(idx))
    finally:
        torch.set_num_threads(before)
    np.testing.assert_array_equal(got.numpy(), a[idx])
    np.testing.assert_array_equal(got_t.numpy(), a.T[:, idx])
