"""torch.sum against NumPy: all elements, one or several (negative) dims, keepdim, dtype=,
empty and non-contiguous inputs, result dtypes, and errors (messages verified with PyTorch 2.13)."""
from __future__ import annotations

import contextlib
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


# =============================================================================================
# The reduction engine (aten/native/cpu/reduce.pyx) under every reduction: property tests over
# shapes, strided views, dim sets and dtypes against the NumPy references of test/opinfo.

from aten.native.cpu import reduce as reduce_engine  # noqa: E402
from opinfo import reductions as refs  # noqa: E402

FLOAT_DTYPES = [torch.float32, torch.float64]


@pytest.fixture
def reduce_threads():
    """Two threads and a tiny grain size, so that small inputs take the threaded paths."""
    saved = torch.get_num_threads(), reduce_engine.get_reduce_grain_size()
    torch.set_num_threads(2)
    reduce_engine.set_reduce_grain_size(1)
    yield
    torch.set_num_threads(saved[0])
    reduce_engine.set_reduce_grain_size(saved[1])


@st.composite
def strided_arrays(draw, dtypes=ALL_DTYPES, max_dims=4, max_side=6):
    """A numpy array of a random dtype and shape, often a non-contiguous view: permuted dims,
    steps, an offset, or a broadcast (stride 0) dim."""
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=max_side))
    steps = tuple(draw(st.integers(1, 3)) for _ in shape)
    base_shape = tuple(s * k + 1 for s, k in zip(shape, steps))
    base = refs._sample_values(dtype, base_shape, np.random.default_rng(draw(st.integers(0, 2**16))))
    view = base[tuple(slice(1, 1 + s * k, k) for s, k in zip(shape, steps))] if shape else base
    if view.ndim > 1 and draw(st.booleans()):
        view = view.transpose(draw(st.permutations(range(view.ndim))))
    if view.ndim and view.size and draw(st.booleans()):
        d = draw(st.integers(0, view.ndim - 1))
        view = np.lib.stride_tricks.as_strided(
            view, shape=view.shape[:d] + (draw(st.integers(0, 4)),) + view.shape[d + 1:],
            strides=view.strides[:d] + (0,) + view.strides[d + 1:])
    return view


@st.composite
def dim_sets(draw, ndim, allow_none=True):
    """None, one (maybe negative) dim, or a list of distinct dims (maybe negative, maybe empty)."""
    if ndim == 0:
        return draw(st.sampled_from([None, 0, -1, (0,)] if allow_none else [0, -1, (0,)]))
    kind = draw(st.sampled_from(["none", "int", "list"] if allow_none else ["int", "list"]))
    if kind == "none":
        return None
    if kind == "int":
        d = draw(st.integers(0, ndim - 1))
        return d - ndim if draw(st.booleans()) else d
    dims = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    return tuple(d - ndim if draw(st.booleans()) else d for d in dims)


def _assert_op_matches(actual, expected, dtype_tol=None):
    first = np.asarray(expected[0] if isinstance(expected, tuple) else expected)
    rtol, atol = dtype_tol or {np.dtype(np.float32): (2e-5, 2e-5), np.dtype(np.float64): (1e-10, 1e-10)}.get(
        first.dtype, (0, 0))
    from opinfo.core import assert_same
    assert_same(actual, expected, rtol, atol)


def _reduces_empty(a, dim):
    return refs._reduces_empty_dim(a, dim)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), a=strided_arrays(), keepdim=st.booleans(),
       op=st.sampled_from(["sum", "prod", "amax", "amin", "all", "any", "count_nonzero"]))
def test_integer_and_bool_reductions_over_strided_views_match_numpy(data, a, keepdim, op):
    dim = data.draw(dim_sets(a.ndim, allow_none=op not in ("amax", "amin")), label="dim")
    t = torch.from_numpy(a)
    if op in ("amax", "amin") and _reduces_empty(a, dim if dim is not None else ()):
        with pytest.raises((IndexError, RuntimeError), match=f"{op}\\(\\): Expected reduction dim"):
            getattr(torch, op)(t, dim)
        return
    if op == "count_nonzero":
        dims = dim if dim is None or isinstance(dim, int) else tuple(dim)
        actual = torch.count_nonzero(t, dims) if dims is not None else torch.count_nonzero(t)
        expected = refs.ref_count_nonzero(a, dim)
    elif op == "prod":
        if dim is not None and not isinstance(dim, int) or a.size > 64:
            return                                 # prod takes one dim; few factors keep floats in range
        actual = torch.prod(t, dim, keepdim=keepdim) if dim is not None else torch.prod(t)
        expected = refs.ref_prod(a, dim, keepdim if dim is not None else False)
    else:
        actual = getattr(torch, op)(t, dim, keepdim=keepdim) if dim is not None or op != "amax" else None
        if op in ("amax", "amin"):
            expected = getattr(refs, f"ref_{op}")(a, dim, keepdim)
        elif op in ("all", "any"):
            expected = getattr(refs, f"ref_{op}")(a, dim, keepdim)
        else:
            expected = refs.ref_sum(a, dim, keepdim)
    _assert_op_matches(actual, expected)


@settings(max_examples=120, deadline=None)
@given(data=st.data(), a=strided_arrays(dtypes=FLOAT_DTYPES), keepdim=st.booleans(),
       op=st.sampled_from(["sum", "mean", "var", "std", "logsumexp", "norm1", "norm2", "norm3", "norminf"]))
def test_float_reductions_over_strided_views_match_float64_numpy(data, a, keepdim, op):
    dim = data.draw(dim_sets(a.ndim, allow_none=op != "logsumexp"), label="dim")
    t = torch.from_numpy(a)
    if op == "logsumexp" and (dim == () and a.ndim and not keepdim):
        return                                      # PyTorch raises for an empty dim list (tested below)
    if op.startswith("norm"):
        p = {"norm1": 1, "norm2": 2, "norm3": 3, "norminf": float("inf")}[op]
        if p == float("inf") and _reduces_empty(a, dim):
            return
        actual = torch.ops.aten.linalg_vector_norm(t, p, dim, keepdim)
        expected = refs.ref_vector_norm(a, p, dim, keepdim)
    elif op in ("var", "std"):
        n = a.size if refs._axis(dim, a.ndim) is None else int(np.prod([a.shape[d] for d in np.atleast_1d(dim)]))
        if n < 2 or 0 in a.shape:
            return                                  # degrees of freedom <= 0 (tested below)
        actual = getattr(torch, op)(t, dim, correction=1, keepdim=keepdim)
        expected = getattr(refs, f"ref_{op}")(a, dim, 1, keepdim)
    elif op == "logsumexp":
        actual = torch.logsumexp(t, dim, keepdim)
        with np.errstate(divide="ignore"):
            expected = refs.ref_logsumexp(a, dim, keepdim)
    else:
        with np.errstate(all="ignore"):
            expected = getattr(refs, f"ref_{op}")(a, dim, keepdim)
        actual = getattr(torch, op)(t, dim, keepdim=keepdim)
    _assert_op_matches(actual, expected)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), a=strided_arrays(dtypes=[torch.uint8, torch.int16, torch.int64, torch.float32,
                                                torch.float64]),
       keepdim=st.booleans(), largest=st.booleans())
def test_max_dim_and_argmax_over_strided_views_match_numpy(data, a, keepdim, largest):
    t = torch.from_numpy(a)
    name = "max" if largest else "min"
    if a.ndim and a.size and data.draw(st.booleans(), label="ties"):
        a = np.round(a / 4).astype(a.dtype)         # many equal values: the first index wins
        t = torch.from_numpy(np.ascontiguousarray(a))
    if data.draw(st.booleans(), label="flat") or a.ndim == 0:
        if a.size == 0:
            return
        expected = (refs.ref_argmax if largest else refs.ref_argmin)(a, None, keepdim)
        _assert_op_matches(getattr(torch, f"arg{name}")(t, None, keepdim), expected)
        return
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    if a.shape[dim] == 0:
        with pytest.raises(IndexError, match=f"{name}\\(\\): Expected reduction dim {dim % a.ndim} to have "
                                             "non-zero size."):
            getattr(torch, name)(t, dim)
        return
    expected = (refs.ref_max_dim if largest else refs.ref_min_dim)(a, dim, keepdim)
    values, indices = getattr(torch, name)(t, dim, keepdim)
    _assert_op_matches((values, indices), expected)
    _assert_op_matches(getattr(torch, f"arg{name}")(t, dim, keepdim), expected[1])


@contextlib.contextmanager
def threads(n, grain_size):
    saved = torch.get_num_threads(), reduce_engine.get_reduce_grain_size()
    torch.set_num_threads(n)
    reduce_engine.set_reduce_grain_size(grain_size)
    try:
        yield
    finally:
        torch.set_num_threads(saved[0])
        reduce_engine.set_reduce_grain_size(saved[1])


@settings(max_examples=60, deadline=None)
@given(data=st.data(), a=strided_arrays(dtypes=[torch.int32, torch.float32, torch.float64], max_side=40),
       op=st.sampled_from(["sum", "amax", "argmax", "var", "all", "max_dim", "cumsum"]))
def test_threaded_paths_give_the_single_thread_results(data, a, op):
    """Units split across threads, or one unit's reduced range split (combined in order)."""
    t = torch.from_numpy(a)
    if a.size == 0 or a.ndim == 0 or (op == "var" and a.dtype.kind != "f"):
        return
    dim = data.draw(st.integers(-a.ndim, a.ndim - 1), label="dim")
    call = {"sum": lambda: torch.sum(t, dim), "amax": lambda: torch.amax(t, dim),
            "argmax": lambda: torch.argmax(t), "var": lambda: torch.var(t, dim, correction=0),
            "all": lambda: torch.all(t, dim), "max_dim": lambda: torch.max(t, dim),
            "cumsum": lambda: torch.cumsum(t, dim)}[op]
    with threads(2, 1):
        threaded = call()
    with threads(1, 1):
        single = call()
    # A split float sum rounds differently: allow float32's error on the magnitude summed, since
    # a result near zero after cancellation has no meaningful relative error.
    finite = np.abs(a[np.isfinite(a)].astype(np.float64)) if a.dtype.kind == "f" else np.zeros(1)
    atol = 1e-6 * max(1.0, float(finite.max(initial=0.0)) * a.shape[dim])
    for x, y in zip(threaded if isinstance(threaded, tuple) else (threaded,),
                    single if isinstance(single, tuple) else (single,)):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6, atol=atol, equal_nan=True)


def test_full_reduction_split_across_threads_keeps_the_first_maximum(reduce_threads):
    a = np.zeros(100_001, dtype=np.float32)
    a[[5, 50_000, 99_999]] = 7.0
    assert torch.argmax(torch.from_numpy(a)).item() == 5
    assert torch.max(torch.from_numpy(a.reshape(1, -1)), 1)[1].tolist() == [5]
    a[[70_000, 80_000]] = np.nan
    assert torch.argmax(torch.from_numpy(a)).item() == 70_000
    assert np.isnan(torch.amax(torch.from_numpy(a)).item())


# ---------------------------------------------------------------------------------------------
# Accuracy


def test_float32_sum_of_millions_is_close_to_the_float64_sum():
    """Pairwise summation: a float accumulator alone would be off by ~1e-3 here."""
    a = np.random.default_rng(7).random(2**22).astype(np.float32)
    exact = float(np.sum(a, dtype=np.float64))
    assert abs(torch.sum(torch.from_numpy(a)).item() - exact) <= 1e-6 * exact
    assert abs(torch.mean(torch.from_numpy(a)).item() - exact / a.size) <= 1e-6 * exact / a.size


def test_float32_column_sums_of_many_rows_are_close_to_float64():
    a = np.random.default_rng(8).random((2**20, 4)).astype(np.float32)
    exact = np.sum(a, axis=0, dtype=np.float64)
    np.testing.assert_allclose(torch.sum(torch.from_numpy(a), 0).numpy(), exact, rtol=1e-6)
    np.testing.assert_allclose(torch.sum(torch.from_numpy(a.T), 1).numpy(), exact, rtol=1e-6)


def test_float32_sum_of_2_pow_25_ones_is_exact():
    """A running float32 sum sticks at 2**24; a broadcast (stride 0) view costs no memory."""
    one = np.ones(1, dtype=np.float32)
    ones = torch.from_numpy(np.lib.stride_tricks.as_strided(one, shape=(2**25,), strides=(0,)))
    assert torch.sum(ones).item() == 2.0**25
    rows = torch.from_numpy(np.lib.stride_tricks.as_strided(one, shape=(2, 2**24), strides=(0, 0)))
    assert torch.sum(rows, 1).tolist() == [2.0**24] * 2
    assert torch.sum(rows, 0).shape == (2**24,)


def test_float32_var_of_values_with_a_large_offset_is_accurate():
    a = (np.random.default_rng(9).random(10_000) + 1e4).astype(np.float32)
    expected = np.var(a.astype(np.float64), ddof=1)
    assert torch.var(torch.from_numpy(a)).item() == pytest.approx(expected, rel=1e-5)


def test_float32_norm_and_logsumexp_of_many_elements_are_close_to_float64():
    a = np.random.default_rng(10).standard_normal(2**20).astype(np.float32)
    b = a.astype(np.float64)
    assert torch.ops.aten.linalg_vector_norm(torch.from_numpy(a)).item() == pytest.approx(
        np.sqrt(np.sum(b * b)), rel=1e-6)
    assert torch.logsumexp(torch.from_numpy(a), 0).item() == pytest.approx(np.log(np.sum(np.exp(b))), rel=1e-6)


# ---------------------------------------------------------------------------------------------
# Result dtypes


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_result_dtypes_follow_pytorch(dtype):
    t = torch.ones(2, 3, dtype=dtype)
    integral = not dtype.is_floating_point
    assert torch.prod(t).dtype == (torch.int64 if integral else dtype)
    assert torch.prod(t, 1).dtype == (torch.int64 if integral else dtype)
    assert torch.amax(t, 1).dtype == dtype and torch.max(t).dtype == dtype
    values, indices = torch.max(t, 1)
    assert values.dtype == dtype and indices.dtype == torch.int64
    assert torch.all(t).dtype == (torch.uint8 if dtype == torch.uint8 else torch.bool)
    assert torch.any(t, 0).dtype == (torch.uint8 if dtype == torch.uint8 else torch.bool)
    assert torch.count_nonzero(t).dtype == torch.int64
    assert torch.cumsum(t, 1).dtype == (torch.int64 if integral else dtype)
    assert torch.cumprod(t, 0).dtype == (torch.int64 if integral else dtype)
    assert torch.logsumexp(t, 1).dtype == (torch.float32 if integral else dtype)
    if dtype != torch.bool:
        assert torch.argmax(t).dtype == torch.int64


def test_dtype_argument_of_mean_prod_cumsum_and_norm():
    i = torch.tensor([[1, 2], [3, 4]])
    assert torch.mean(i, dtype=torch.float64).item() == 2.5
    assert torch.mean(i, 0, dtype=torch.float32).tolist() == [2.0, 3.0]
    assert torch.prod(torch.tensor([1.5, 2.5]), dtype=torch.int64).item() == 2        # converted first
    assert torch.prod(torch.tensor([100, 3], dtype=torch.int8), 0, dtype=torch.int8).item() == 44   # wraps
    assert torch.cumsum(torch.tensor([100, 100], dtype=torch.int8), 0, dtype=torch.int8).tolist() == [100, -56]
    assert torch.cumsum(i, 1, dtype=torch.float32).dtype == torch.float32
    f = torch.tensor([3.0, 4.0])
    out = torch.norm(f, 2, dtype=torch.float64)
    assert out.dtype == torch.float64 and out.item() == 5.0
    out = torch.ops.aten.linalg_vector_norm(f, 1, None, False, dtype=torch.float64)
    assert out.dtype == torch.float64 and out.item() == 7.0


# ---------------------------------------------------------------------------------------------
# Behaviours


def test_max_dim_returns_values_and_indices_with_first_index_on_ties():
    t = torch.tensor([[1, 5, 5], [5, 1, 5]])
    values, indices = torch.max(t, 1)
    assert values.tolist() == [5, 5] and indices.tolist() == [1, 0]
    values, indices = torch.min(t, 0, keepdim=True)
    assert values.tolist() == [[1, 1, 5]] and indices.tolist() == [[0, 1, 0]]
    assert torch.argmax(t, 0).tolist() == [1, 0, 0]
    assert torch.argmax(torch.tensor([0.0, -0.0])).item() == 0


def test_nan_wins_max_and_min_and_its_first_index_is_returned():
    nan = float("nan")
    t = torch.tensor([[1.0, nan, 3.0, nan], [2.0, 5.0, 5.0, 1.0]])
    values, indices = torch.max(t, 1)
    assert np.isnan(values.numpy()[0]) and values.numpy()[1] == 5.0
    assert indices.tolist() == [1, 1]
    assert torch.argmin(t, 1).tolist() == [1, 3]
    assert torch.argmax(t).item() == 1
    assert np.isnan(torch.min(t).item())
    assert torch.amax(t, 0).numpy()[0] == 2.0 and np.isnan(torch.amax(t, 0).numpy()[1])
    assert torch.argmin(torch.tensor([float("inf"), float("-inf"), nan])).item() == 2
    first = torch.tensor([[nan, 1.0, 2.0], [3.0, nan, nan]])
    assert torch.argmax(first).item() == 0 and torch.argmin(first, 1).tolist() == [0, 1]
    values, indices = torch.max(first, 1, keepdim=True)
    assert np.isnan(values.numpy()).all() and indices.tolist() == [[0], [1]]


def test_flat_argmax_of_a_non_contiguous_view_indexes_in_logical_order():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = torch.from_numpy(a.T)                      # logical order 0, 4, 8, 1, 5, 9, ...
    assert torch.argmax(t).item() == int(np.argmax(a.T)) == 11
    b = np.array([[3.0, 1.0], [0.5, 2.0]], dtype=np.float32).T    # logical [[3, .5], [1, 2]]
    assert torch.argmin(torch.from_numpy(b)).item() == 1


def test_all_and_any_of_an_empty_dim_list_reduce_nothing_but_sum_reduces_everything():
    t = torch.tensor([[1, 0], [2, 3]])
    assert torch.all(t, ()).tolist() == [[True, False], [True, True]]
    assert torch.any(t, dim=()).shape == (2, 2)
    assert torch.all(t, None).item() is False
    assert torch.sum(t, ()).item() == 6
    assert torch.count_nonzero(t, ()).item() == 3


def test_reductions_with_an_identity_of_empty_inputs():
    e = torch.ones(0, 3)
    assert torch.sum(e).item() == 0 and torch.prod(e).item() == 1
    assert torch.prod(e, 0).tolist() == [1.0] * 3
    assert torch.all(e).item() is True and torch.any(e).item() is False
    assert torch.count_nonzero(e, 0).tolist() == [0, 0, 0]
    assert np.isnan(torch.mean(e).item())
    assert torch.logsumexp(e, 0).tolist() == [float("-inf")] * 3
    assert torch.ops.aten.linalg_vector_norm(e, 2).item() == 0.0
    assert torch.cumsum(e, 0).shape == (0, 3)
    assert torch.amax(e, 1).shape == (0,)
    values, indices = torch.max(e, 1, keepdim=True)
    assert values.shape == (0, 1) and indices.shape == (0, 1) and indices.dtype == torch.int64


def test_zero_dim_inputs_reduce_over_dim_0_and_minus_1():
    t = torch.tensor(3.0)
    values, indices = torch.max(t, 0)
    assert values.item() == 3.0 and indices.item() == 0 and indices.shape == ()
    assert torch.argmax(t, -1).item() == 0 and torch.argmax(t).item() == 0
    assert torch.amax(t, 0).item() == 3.0
    assert torch.cumsum(t, 0).item() == 3.0
    assert torch.logsumexp(t, ()).item() == 3.0
    assert torch.prod(t, -1, keepdim=True).shape == ()


def test_var_with_too_few_degrees_of_freedom_warns_and_gives_nan_or_inf():
    with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0. Correction should be strictly less "
                                         r"than the reduction factor \(input numel divided by output numel\)."):
        assert np.isnan(torch.var(torch.tensor([1.0])).item())
    with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom"):
        assert torch.std(torch.tensor([[1.0, 2, 4]]), 1, correction=3).tolist() == [float("inf")]
    with pytest.warns(UserWarning, match=r"var_mean\(\): degrees of freedom"):
        v, m = torch.var_mean(torch.ones(0, 3), 0)
        assert np.isnan(v.numpy()).all() and np.isnan(m.numpy()).all()
    assert torch.var(torch.tensor(1.0), correction=0).item() == 0.0


def test_var_and_std_overloads_select_unbiased_dim_or_correction():
    x = torch.tensor([[1.0, 2, 4], [3, 5, 9]])
    assert torch.var(x, 0).tolist() == [2.0, 4.5, 12.5]
    assert torch.var(x, False).item() == pytest.approx(6.666666507720947)
    assert torch.var(x, True).item() == 8.0
    assert torch.var(x, 1, False, True).shape == (2, 1)
    assert torch.var(x, dim=1, correction=0).tolist() == pytest.approx([1.5555555820465088, 6.222222328186035])
    assert torch.var(x, 1, correction=0.5).tolist() == pytest.approx([1.8666666746139526, 7.4666666984558105])
    std, mean = torch.std_mean(x, 1, keepdim=True)
    assert std.shape == mean.shape == (2, 1)
    assert mean.numpy().ravel().tolist() == pytest.approx([2.3333332538604736, 5.666666507720947])
    assert x.std(1, True).tolist() == pytest.approx([1.5275251865386963, 3.0550503730773926])


def test_logsumexp_handles_infinities_and_large_values():
    inf = float("inf")
    out = torch.logsumexp(torch.tensor([[1.0, inf], [-inf, -inf]]), 1)
    assert out.tolist() == [inf, -inf]
    assert torch.logsumexp(torch.tensor([1e30, 1e30]), 0).item() == pytest.approx(1e30)
    assert torch.logsumexp(torch.tensor([True, False]), 0).item() == pytest.approx(1.31326162815094)


def test_norm_orders_match_pytorch():
    f = torch.tensor([[1.0, 0], [3, 4]])
    assert torch.norm(f).item() == pytest.approx(5.099019527435303)
    assert torch.norm(f, float("inf")).item() == 4.0 and torch.norm(f, -float("inf")).item() == 0.0
    assert torch.norm(f, 0).item() == 3.0
    assert torch.norm(f, 0.5).item() == pytest.approx(22.392305374145508)
    assert torch.norm(f, -1).item() == 0.0
    assert torch.norm(f, -2, 1).tolist() == pytest.approx([0.0, 2.4000000953674316])
    assert torch.norm(f, 1, 1, True).tolist() == [[1.0], [7.0]]
    assert torch.norm(f, dim=1).tolist() == pytest.approx([1.0, 5.0])
    assert f.norm(p=1).item() == 8.0
    assert np.isnan(torch.ops.aten.linalg_vector_norm(torch.ones(3), float("nan")).item())
    assert torch.ops.aten.linalg_vector_norm(torch.tensor([1e30, 1e30])).item() == float("inf")   # no scaling


def test_cumsum_and_cumprod_in_place_update_the_tensor_and_its_version():
    t = torch.tensor([1, 2, 3], dtype=torch.int8)
    version = t._version
    assert t.cumsum_(0) is t
    assert t.tolist() == [1, 3, 6] and t.dtype == torch.int8 and t._version > version
    f = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    f.cumprod_(1)
    assert f.tolist() == [[1.0, 2.0], [3.0, 12.0]]


def test_cumsum_of_a_non_contiguous_view_matches_numpy():
    a = np.arange(24, dtype=np.int32).reshape(4, 6)[:, ::2].T
    t = torch.from_numpy(a)
    for dim in (0, 1, -1):
        assert torch.cumsum(t, dim).tolist() == np.cumsum(a, axis=dim).tolist()
        assert torch.cumprod(t, dim).tolist() == np.cumprod(a.astype(np.int64), axis=dim).tolist()


# ---------------------------------------------------------------------------------------------
# Errors (messages as PyTorch 2.13)


@pytest.mark.parametrize("call, error, message", [
    (lambda e: torch.max(e), RuntimeError, "max(): Expected reduction dim to be specified for input.numel() == 0. "
                                           "Specify the reduction dim with the 'dim' argument."),
    (lambda e: torch.min(e), RuntimeError, "min(): Expected reduction dim to be specified for input.numel() == 0. "
                                           "Specify the reduction dim with the 'dim' argument."),
    (lambda e: torch.amax(e), RuntimeError, "amax(): Expected reduction dim to be specified for input.numel() == 0. "
                                            "Specify the reduction dim with the 'dim' argument."),
    (lambda e: torch.amin(e, ()), RuntimeError, "amin(): Expected reduction dim to be specified for "
                                                "input.numel() == 0. Specify the reduction dim with the 'dim' argument."),
    (lambda e: torch.max(e, 0), IndexError, "max(): Expected reduction dim 0 to have non-zero size."),
    (lambda e: torch.min(e, -2), IndexError, "min(): Expected reduction dim 0 to have non-zero size."),
    (lambda e: torch.amax(e, (0, 1)), IndexError, "amax(): Expected reduction dim 0 to have non-zero size."),
    (lambda e: torch.argmax(e), IndexError, "argmax(): Expected reduction dim to be specified for "
                                            "input.numel() == 0."),
    (lambda e: torch.argmin(e, 0), IndexError, "argmin(): Expected reduction dim 0 to have non-zero size."),
    (lambda e: torch.ops.aten.linalg_vector_norm(e, float("inf")), RuntimeError,
     "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have an "
     "identity"),
    (lambda e: torch.ops.aten.linalg_vector_norm(e, -2.5, (1, 0)), RuntimeError,
     "linalg.vector_norm cannot compute the -2.5 norm on the dimension 0because this dimension is empty and the "
     "operation does not have an identity"),
    (lambda e: torch.norm(e, -1), RuntimeError,
     "linalg.vector_norm cannot compute the -1 norm on an empty tensor because the operation does not have an "
     "identity"),
])
def test_reductions_without_identity_reject_empty_inputs(call, error, message):
    with pytest.raises(error) as info:
        call(torch.ones(0, 3))
    assert str(info.value) == message


@pytest.mark.parametrize("call, message", [
    (lambda: torch.mean(torch.tensor([1, 2])), "mean(): could not infer output dtype. Input dtype must be either a "
                                               "floating point or complex dtype. Got: Long"),
    (lambda: torch.mean(torch.tensor([True])), "mean(): could not infer output dtype. Input dtype must be either a "
                                               "floating point or complex dtype. Got: Bool"),
    (lambda: torch.mean(torch.ones(2), dtype=torch.int64), "mean(): could not infer output dtype. Optional dtype "
                                                           "must be either a floating point or complex dtype. Got: Long"),
    (lambda: torch.var(torch.tensor([1, 2])), "std and var only support floating point and complex dtypes"),
    (lambda: torch.std(torch.tensor([1, 2], dtype=torch.uint8), 0), "std and var only support floating point and "
                                                                    "complex dtypes"),
    (lambda: torch.var_mean(torch.tensor([1, 2])), "var_mean only support floating point and complex dtypes"),
    (lambda: torch.std_mean(torch.tensor([True])), "std_mean only support floating point and complex dtypes"),
    (lambda: torch.argmax(torch.tensor([True])), "argmax(): does not support bool input"),
    (lambda: torch.argmin(torch.ones(0, dtype=torch.bool)), "argmin(): does not support bool input"),
    (lambda: torch.norm(torch.tensor([1, 2])), "linalg.vector_norm: Expected a floating point or complex tensor as "
                                               "input. Got Long"),
    (lambda: torch.norm(torch.ones(2), 2, dtype=torch.int64), "linalg.vector_norm: dtype should be floating point or "
                                                              "complex, but got Long"),
    (lambda: torch.mean(torch.ones(5, dtype=torch.bool), 1), "mean(): could not infer output dtype. Input dtype must "
                                                             "be either a floating point or complex dtype. Got: Bool"),
    (lambda: torch.ops.aten.linalg_vector_norm(torch.tensor([1, 2])),
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda: torch.ops.aten.linalg_vector_norm(torch.ones(2), 2, None, False, dtype=torch.int64),
     "linalg.vector_norm: dtype should be floating point or complex, but got Long"),
    (lambda: torch.ops.aten.linalg_vector_norm(torch.ones(2, dtype=torch.float64), 2, None, False,
                                               dtype=torch.float32),
     "linalg.vector_norm: the dtype of the input (Double) should be convertible without narrowing to the specified "
     "dtype (Float)"),
    (lambda: torch.logsumexp(torch.ones(2, 3), ()), "output with shape [] doesn't match the broadcast shape [1, 1]"),
    (lambda: torch.tensor([1, 2], dtype=torch.int8).cumsum_(0, dtype=torch.int64),
     "Bad in-place call: input tensor dtype signed char and output tensor dtype long int should match"),
    (lambda: torch.tensor([1.0]).cumprod_(0, dtype=torch.int32),
     "Bad in-place call: input tensor dtype float and output tensor dtype int should match"),
    (lambda: torch.mean(torch.ones(2, 3), (0, 0)), "dim 0 appears multiple times in the list of dims"),
    (lambda: torch.amax(torch.ones(2, 3), (1, -1)), "dim 1 appears multiple times in the list of dims"),
    (lambda: torch.var(torch.ones(2, 3), (0, -2)), "dim 0 appears multiple times in the list of dims"),
    (lambda: torch.count_nonzero(torch.ones(2, 3), (1, 1)), "dim 1 appears multiple times in the list of dims"),
])
def test_invalid_dtypes_and_dims_are_runtime_errors_with_pytorch_messages(call, message):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("call, message", [
    (lambda: torch.cumsum(torch.tensor([True]), 0, dtype=torch.bool), "\"cumsum_out_cpu\" not implemented for 'Bool'"),
    (lambda: torch.tensor([True, False]).cumprod_(0), "\"cumprod_out_cpu\" not implemented for 'Bool'"),
])
def test_bool_scans_are_not_implemented_as_in_pytorch(call, message):
    with pytest.raises(NotImplementedError) as info:
        call()
    assert str(info.value) == message


@pytest.mark.parametrize("name", ["sum", "mean", "prod", "amax", "argmax", "all", "any", "var", "std",
                                  "logsumexp", "cumsum", "cumprod", "count_nonzero", "max", "min", "argmin"])
def test_a_dim_out_of_range_is_an_index_error_for_every_reduction(name):
    with pytest.raises(IndexError) as info:
        getattr(torch, name)(torch.ones(2, 3), 5)
    assert str(info.value) == "Dimension out of range (expected to be in range of [-2, 1], but got 5)"


def test_scans_without_work_skip_the_dtype_checks_like_pytorch():
    """PyTorch's Bool check runs inside the kernel, which empty and 0-dim inputs never reach."""
    assert torch.cumsum(torch.ones(2, 0), 0, dtype=torch.bool).shape == (2, 0)
    out = torch.cumsum(torch.tensor(True), 0, dtype=torch.bool)
    assert out.dtype == torch.bool and out.item() is True
    assert torch.cumprod(torch.tensor(3), 0).dtype == torch.int64


def test_var_of_nothing_is_nan_whatever_the_correction():
    out = torch.std(torch.ones(2, 0), None, correction=-1, keepdim=True)    # 0 - (-1) > 0: no warning
    assert out.shape == (1, 1) and np.isnan(out.numpy()).all()


@pytest.mark.parametrize("ncols", [1, 2, 3, 4, 5, 7, 8, 10, 16, 31, 32, 33])
def test_sums_over_the_rows_of_a_narrow_matrix_match_float64(ncols):
    """Few contiguous columns are summed in one pass over the flat run (lanes per column)."""
    a = np.random.default_rng(ncols).standard_normal((1001, ncols)).astype(np.float32)
    t = torch.from_numpy(a)
    b = a.astype(np.float64)
    np.testing.assert_allclose(torch.sum(t, 0).numpy(), b.sum(0), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(torch.mean(t, 0, keepdim=True).numpy(), b.mean(0, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(torch.norm(t, 2, 0).numpy(), np.sqrt((b * b).sum(0)), rtol=1e-5)
    np.testing.assert_allclose(torch.norm(t, 3, 0).numpy(), (np.abs(b) ** 3).sum(0) ** (1 / 3), rtol=1e-5)
    np.testing.assert_allclose(torch.var(t, 0).numpy(), b.var(0, ddof=1), rtol=1e-5)
    f = torch.from_numpy(np.asfortranarray(a))                         # the same values, column-major
    np.testing.assert_allclose(torch.sum(f, 0).numpy(), b.sum(0), rtol=1e-5, atol=1e-4)


# ---------------------------------------------------------------------------------------------
# Column sums (a reduction over an outer dim): register-blocked leaves, broadcast inputs

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("shape", [(2048, 256), (37, 75), (300, 31), (5, 1000)], ids=str)
def test_column_sums_of_contiguous_and_expanded_inputs_match_numpy(shape, dtype):
    a = sample(dtype, shape, seed=3)
    assert_matches(torch.from_numpy(a).sum(0), reference_sum(a, axis=0))
    # stride-0 inputs, as a sum()'s gradient is: a row repeated, and one value everywhere
    expanded = torch.from_numpy(a[:1]).expand(shape)
    assert_matches(expanded.sum(0), reference_sum(np.broadcast_to(a[:1], shape), axis=0))
    scalar = torch.tensor(0.1, dtype=dtype).expand(shape)
    assert_matches(scalar.sum(0), reference_sum(np.full(shape, 0.1, dtype=NUMPY_OF[dtype]), axis=0))
    assert_matches(scalar.sum(1), reference_sum(np.full(shape, 0.1, dtype=NUMPY_OF[dtype]), axis=1))


def test_column_sums_give_the_same_bits_on_any_thread_count():
    a = torch.from_numpy(sample(torch.float32, (4096, 300), seed=4))
    before = torch.get_num_threads()
    try:
        results = []
        for threads in (1, 2):
            torch.set_num_threads(threads)
            results.append(a.sum(0))
    finally:
        torch.set_num_threads(before)
    assert torch.equal(results[0], results[1])


@settings(max_examples=80, deadline=None)
@given(data=st.data(), a=strided_arrays(dtypes=FLOAT_DTYPES, max_side=9), grain=st.sampled_from([1, 4, 64]),
       op=st.sampled_from(["sum", "mean", "nansum", "std", "norm", "logsumexp", "argmax"]))
def test_float_reductions_give_the_same_bits_on_one_two_and_three_threads(data, a, grain, op):
    # how a reduction is split into parts follows from the sizes alone, never from the thread count
    dim = data.draw(dim_sets(a.ndim, allow_none=op != "logsumexp"), label="dim")
    t = torch.from_numpy(a)
    if op == "argmax" and (not isinstance(dim, int) or _reduces_empty(a, dim)) or \
            op == "logsumexp" and (dim is None or dim == () or not a.size):
        return
    fn = {"norm": lambda: torch.linalg.vector_norm(t, dim=dim) if dim is not None else t.norm()}.get(
        op, lambda: getattr(torch, op)(t, dim) if dim is not None else getattr(torch, op)(t))
    saved = torch.get_num_threads(), reduce_engine.get_reduce_grain_size()
    results = []
    try:
        reduce_engine.set_reduce_grain_size(grain)
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            results.append(fn())
    finally:
        torch.set_num_threads(saved[0])
        reduce_engine.set_reduce_grain_size(saved[1])
    for other in results[1:]:
        assert torch.equal(other, results[0]) or (other.isnan() == results[0].isnan()).all()


def test_a_large_column_sum_gives_the_same_bits_on_one_and_two_threads():
    x, y = torch.randn(50001, 3), torch.randn(9, 5557, 3)
    saved = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = [x.sum(0), x.sum(), (x * 2).norm(dim=0), y.sum(), y.sum((0, 1))]
        torch.set_num_threads(2)
        two = [x.sum(0), x.sum(), (x * 2).norm(dim=0), y.sum(), y.sum((0, 1))]
    finally:
        torch.set_num_threads(saved)
    assert all(torch.equal(a, b) for a, b in zip(one, two))
