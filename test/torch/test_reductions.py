"""torch.sum against NumPy: all elements, one or several (negative) dims, keepdim, dtype=,
empty and non-contiguous inputs, result dtypes, and errors (messages verified with PyTorch 2.13)."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch
from dtype_cases import ALL_DTYPES, NUMPY_OF, TORCH_OF, dtype_id, random_values


def sample(dtype: torch.dtype, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Values up to +-1000 (the dtype's range when smaller), so sums stay exact in int64."""
    return random_values(dtype, shape, np.random.default_rng(seed), int_range=(-1000, 1000), float_scale=10.0)


def result_dtype(dtype: torch.dtype) -> torch.dtype:
    return dtype if dtype.is_floating_point else torch.int64


def reference_sum(a: np.ndarray, axis: object = None, keepdims: bool = False, dtype: torch.dtype | None = None
                  ) -> np.ndarray:
    """np.sum accumulated exactly (int64 or float64), then converted to the result dtype."""
    out_dtype = NUMPY_OF[dtype] if dtype is not None else NUMPY_OF[result_dtype(TORCH_OF[a.dtype])]
    if dtype is not None:
        a = a.astype(out_dtype)  # PyTorch converts the input to dtype= first
    acc = np.float64 if a.dtype.kind == "f" else np.int64
    return np.asarray(np.sum(a, axis=axis, keepdims=keepdims, dtype=acc)).astype(out_dtype)


def assert_matches(actual: torch.Tensor, expected: np.ndarray) -> None:
    assert actual.dtype == TORCH_OF[expected.dtype]
    assert tuple(actual.shape) == expected.shape
    got = actual.numpy()
    if expected.dtype == np.float32:
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)
    elif expected.dtype == np.float64:
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-10)
    else:
        np.testing.assert_array_equal(got, expected)


# ---------------------------------------------------------------------------------------------
# All elements


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_sum_of_all_elements_matches_numpy_for_every_dtype(dtype):
    a = sample(dtype, (4, 5, 3))
    assert_matches(torch.sum(torch.from_numpy(a)), reference_sum(a))
    assert_matches(torch.from_numpy(a).sum(), reference_sum(a))


@pytest.mark.parametrize("dtype, expected", [
    (torch.bool, torch.int64), (torch.uint8, torch.int64), (torch.int8, torch.int64), (torch.int16, torch.int64),
    (torch.int32, torch.int64), (torch.int64, torch.int64), (torch.float32, torch.float32),
    (torch.float64, torch.float64),
], ids=dtype_id)
def test_sum_of_integers_and_bools_is_int64_and_floats_keep_their_dtype(dtype, expected):
    t = torch.ones(2, 3, dtype=dtype)
    assert torch.sum(t).dtype == expected
    assert torch.sum(t, 0).dtype == expected
    assert torch.sum(t, (0, 1), keepdim=True).dtype == expected


def test_sum_of_all_elements_is_a_zero_dim_tensor():
    out = torch.sum(torch.tensor([[1, 2], [3, 4]]))
    assert out.shape == torch.Size([])
    assert out.dim() == 0
    assert out.item() == 10


def test_sum_of_bools_counts_the_true_values():
    assert torch.sum(torch.tensor([True, True, False, True])).item() == 3


def test_sum_of_small_integers_does_not_overflow_their_own_dtype():
    # int8 100 + 100 overflows int8 but sum accumulates and returns int64 (as PyTorch).
    assert torch.sum(torch.tensor([100, 100], dtype=torch.int8)).item() == 200
    assert torch.sum(torch.tensor([255] * 4, dtype=torch.uint8)).item() == 1020
    assert torch.sum(torch.full((70_000,), True)).item() == 70_000


def test_int64_sum_wraps_on_overflow_like_pytorch():
    # Verified with PyTorch 2.13: 3 * 2**62 wraps to -2**62.
    assert torch.sum(torch.tensor([2**62, 2**62, 2**62])).item() == -(2**62)


def test_float32_sum_is_accurate_for_many_elements():
    a = np.random.default_rng(1).random(100_000).astype(np.float32)
    got = torch.sum(torch.from_numpy(a)).item()
    assert got == pytest.approx(float(np.sum(a, dtype=np.float64)), rel=1e-6)


def test_sum_of_a_zero_dim_tensor_is_itself():
    assert torch.sum(torch.tensor(5)).item() == 5
    assert torch.sum(torch.tensor(2.5, dtype=torch.float64)).dtype == torch.float64


def test_sum_propagates_nan_and_inf():
    assert np.isnan(torch.sum(torch.tensor([1.0, float("nan")])).item())
    assert torch.sum(torch.tensor([1.0, float("inf")])).item() == float("inf")
    assert np.isnan(torch.sum(torch.tensor([float("-inf"), float("inf")])).item())


# ---------------------------------------------------------------------------------------------
# dims and keepdim


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int16, torch.int64, torch.float32,
                                   torch.float64], ids=dtype_id)
def test_sum_over_each_dim_matches_numpy(dtype, dim, keepdim):
    a = sample(dtype, (3, 4, 5), seed=2)
    out = torch.sum(torch.from_numpy(a), dim, keepdim=keepdim)
    assert_matches(out, reference_sum(a, axis=dim, keepdims=keepdim))


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dims", [(0, 1), (1, 2), (0, 2), (0, 1, 2), (-1, 0), (2, -3), (-1, -2, -3), (3, 1),
                                  (0, 1, 3), (-4,)])
def test_sum_over_several_dims_matches_numpy(dims, keepdim):
    a = sample(torch.float64, (2, 3, 4, 5), seed=3)
    out = torch.sum(torch.from_numpy(a), dims, keepdim=keepdim)
    assert_matches(out, reference_sum(a, axis=dims, keepdims=keepdim))


def test_dim_may_be_a_list_a_tuple_or_a_keyword():
    t = torch.tensor([[1, 2, 3], [4, 5, 6]])
    assert torch.sum(t, [0]).tolist() == [5, 7, 9]
    assert torch.sum(t, (1,)).tolist() == [6, 15]
    assert torch.sum(t, dim=1).tolist() == [6, 15]
    assert torch.sum(t, dim=[0, 1]).item() == 21
    assert t.sum(1, True).tolist() == [[6], [15]]
    assert t.sum(dim=(0, 1), keepdim=True).tolist() == [[21]]


def test_keepdim_keeps_reduced_dims_with_size_one():
    t = torch.ones(2, 3, 4)
    assert torch.sum(t, 1, keepdim=True).shape == (2, 1, 4)
    assert torch.sum(t, (0, 2), keepdim=True).shape == (1, 3, 1)
    assert torch.sum(t, (0, 1, 2), keepdim=True).shape == (1, 1, 1)
    assert torch.sum(t, 1).shape == (2, 4)


def test_an_empty_dim_list_or_none_reduces_every_dim():
    t = torch.ones(2, 3)
    for dim in ((), [], None):
        out = torch.sum(t, dim)
        assert out.shape == () and out.item() == 6.0
    assert torch.sum(t, (), keepdim=True).shape == (1, 1)
    assert torch.sum(t, dim=None, keepdim=True).tolist() == [[6.0]]


def test_dims_0_and_minus_1_are_valid_for_a_zero_dim_tensor():
    t = torch.tensor(5)
    assert torch.sum(t, 0).item() == 5
    assert torch.sum(t, -1).item() == 5
    out = torch.sum(t, (0,), keepdim=True)
    assert out.shape == () and out.item() == 5


@settings(max_examples=50, deadline=None)
@given(data=st.data(),
       shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=5),
       dtype=st.sampled_from(ALL_DTYPES),
       keepdim=st.booleans())
def test_sum_over_random_dim_subsets_matches_numpy(data, shape, dtype, keepdim):
    ndim = len(shape)
    dims = data.draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim), label="dims")
    dims = [d - ndim if data.draw(st.booleans(), label="negative") else d for d in dims]
    a = sample(dtype, shape, seed=data.draw(st.integers(0, 1000), label="seed"))
    out = torch.sum(torch.from_numpy(a), tuple(dims), keepdim=keepdim)
    axis = tuple(dims) if dims else None
    assert_matches(out, reference_sum(a, axis=axis, keepdims=keepdim))


# ---------------------------------------------------------------------------------------------
# dtype=


@pytest.mark.parametrize("src, dst", [
    (torch.int32, torch.float64), (torch.int64, torch.float32), (torch.bool, torch.int32),
    (torch.uint8, torch.int16), (torch.float32, torch.float64), (torch.float64, torch.float32),
    (torch.int16, torch.int64), (torch.int8, torch.int8), (torch.float64, torch.int64),
], ids=lambda d: dtype_id(d))
def test_dtype_argument_sets_the_result_dtype(src, dst):
    a = sample(src, (3, 4), seed=4)
    if NUMPY_OF[dst].kind in "iu" and a.dtype.kind == "f":
        a = np.round(a)  # whole numbers: float -> int conversion truncation does not matter
    t = torch.from_numpy(a)
    assert_matches(torch.sum(t, dtype=dst), reference_sum(a, dtype=dst))
    assert_matches(torch.sum(t, 1, dtype=dst), reference_sum(a, axis=1, dtype=dst))
    assert_matches(t.sum(0, keepdim=True, dtype=dst), reference_sum(a, axis=0, keepdims=True, dtype=dst))


def test_dtype_argument_converts_the_input_before_summing():
    # Verified with PyTorch 2.13: the fractions are dropped before the sum (1 + 2 == 3, not 4).
    assert torch.sum(torch.tensor([1.5, 2.5]), dtype=torch.int64).item() == 3
    # Summing in int8 wraps: 100 + 100 == -56.
    out = torch.sum(torch.tensor([100, 100], dtype=torch.int8), dtype=torch.int8)
    assert out.dtype == torch.int8 and out.item() == -56
    out = torch.sum(torch.tensor([100, 100], dtype=torch.uint8), dtype=torch.uint8)
    assert out.dtype == torch.uint8 and out.item() == 200


def test_dtype_float64_sums_a_float32_input_in_double():
    a = np.array([1e8, 1.0, -1e8, 0.25], dtype=np.float32)
    out = torch.sum(torch.from_numpy(a), dtype=torch.float64)
    assert out.dtype == torch.float64
    assert out.item() == 1.25


# ---------------------------------------------------------------------------------------------
# Empty and non-contiguous inputs


@pytest.mark.parametrize("dtype", [torch.bool, torch.int32, torch.float32, torch.float64], ids=dtype_id)
def test_sum_of_an_empty_tensor_is_zero(dtype):
    t = torch.ones(0, 3, dtype=dtype)
    out = torch.sum(t)
    assert out.shape == () and out.item() == 0
    assert out.dtype == result_dtype(dtype)
    assert torch.sum(t, 0).tolist() == [0, 0, 0]
    assert torch.sum(t, 0, keepdim=True).shape == (1, 3)


def test_sum_of_an_empty_tensor_over_a_non_empty_dim_is_empty():
    out = torch.sum(torch.ones(0, 3, dtype=torch.int32), 1)
    assert out.shape == (0,)
    assert out.dtype == torch.int64
    assert torch.sum(torch.ones(2, 0, 4), (0, 2)).shape == (0,)
    assert torch.sum(torch.ones(2, 0, 4), 1).tolist() == [[0.0] * 4] * 2


@pytest.mark.parametrize("view", ["transposed", "row_step", "column_step", "both_steps", "column_slice",
                                  "stride_zero"])
@pytest.mark.parametrize("dtype", [torch.int16, torch.int64, torch.float32, torch.float64], ids=dtype_id)
def test_sum_of_non_contiguous_inputs_matches_numpy(dtype, view):
    base = sample(dtype, (8, 12), seed=5)
    a = {"transposed": base.T,
         "row_step": base[::3],
         "column_step": base[:, ::4],
         "both_steps": base[1::2, 2::3],
         "column_slice": base[2:6, 5:9],
         "stride_zero": np.lib.stride_tricks.as_strided(base[0], shape=(4, 12), strides=(0, base.itemsize))}[view]
    t = torch.from_numpy(a)
    assert not t.is_contiguous()
    assert_matches(torch.sum(t), reference_sum(a))
    for dim in (0, 1, -1, (0, 1)):
        for keepdim in (False, True):
            assert_matches(torch.sum(t, dim, keepdim=keepdim), reference_sum(a, axis=dim, keepdims=keepdim))


def test_sum_of_a_non_contiguous_bool_view_counts_true_values():
    base = np.zeros((4, 6), dtype=bool)
    base[::2, ::2] = True
    t = torch.from_numpy(base[::2, ::2])
    assert torch.sum(t).item() == 6
    assert torch.sum(torch.from_numpy(base.T), 0).tolist() == [3, 0, 3, 0]


def test_sum_does_not_modify_its_input():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    torch.sum(torch.from_numpy(a), 1)
    torch.sum(torch.from_numpy(a.T), dtype=torch.float64)
    np.testing.assert_array_equal(a, np.arange(12, dtype=np.float32).reshape(3, 4))


# ---------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize("dims, message", [
    ((0, 0), "dim 0 appears multiple times in the list of dims"),
    ((0, -2), "dim 0 appears multiple times in the list of dims"),
    ((1, -1), "dim 1 appears multiple times in the list of dims"),
    ((0, 1, 1), "dim 1 appears multiple times in the list of dims"),
])
def test_a_dim_given_twice_is_a_runtime_error(dims, message):
    with pytest.raises(RuntimeError) as info:
        torch.sum(torch.ones(2, 2), dims)
    assert str(info.value) == message


@pytest.mark.parametrize("shape, dim, message", [
    ((2, 2), 2, "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    ((2, 2), -3, "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    ((2, 3, 4), (0, 3), "Dimension out of range (expected to be in range of [-3, 2], but got 3)"),
    ((5,), 1, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ((), 1, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ((), -2, "Dimension out of range (expected to be in range of [-1, 0], but got -2)"),
])
def test_a_dim_out_of_range_is_an_index_error_with_the_valid_range(shape, dim, message):
    with pytest.raises(IndexError) as info:
        torch.sum(torch.ones(shape), dim)
    assert str(info.value) == message


@pytest.mark.parametrize("args, kwargs", [
    (([1, 2],), {}),
    ((torch.ones(2), 0.5), {}),
    ((torch.ones(2), "a"), {}),
    ((torch.ones(2),), {"dim": True}),
    ((torch.ones(2),), {"dtype": "float32"}),
])
def test_wrong_argument_types_are_type_errors(args, kwargs):
    with pytest.raises(TypeError, match="sum"):
        torch.sum(*args, **kwargs)


def test_sum_via_aten_overloads_matches_the_function():
    t = torch.tensor([[1, 2], [3, 4]])
    assert torch.ops.aten.sum.default(t).item() == 10
    assert torch.ops.aten.sum.dim_IntList(t, [1]).tolist() == [3, 7]
    assert torch.ops.aten.sum.dim_IntList(t, [0], True).tolist() == [[4, 6]]


def test_every_subset_of_dims_of_a_3d_tensor_matches_numpy():
    a = sample(torch.int32, (2, 3, 4), seed=6)
    t = torch.from_numpy(a)
    for r in range(4):
        for dims in itertools.combinations(range(3), r):
            expected = reference_sum(a, axis=dims if dims else None)
            assert_matches(torch.sum(t, dims), expected)
