"""Pointwise ops (add, sub, mul, div, neg, exp) against NumPy.

Covers every supported dtype, broadcasting, non-contiguous inputs, alpha, Python numbers on
either side, the result dtypes of type promotion (tables verified against PyTorch 2.13), the
parallel path of the loop engine, and error types and messages.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch
from aten.native.cpu import loops
from dtype_cases import ALL_DTYPES, NUMPY_OF, TORCH_OF, dtype_id, random_values

SHORT = {"b": torch.bool, "u8": torch.uint8, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
         "i64": torch.int64, "f32": torch.float32, "f64": torch.float64}
BINARY_OPS = ["add", "sub", "mul", "div"]
UNARY_OPS = ["neg", "exp"]


def sample(dtype: torch.dtype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Values that keep add/sub/mul of two samples (and alpha up to 3) inside every integer dtype."""
    return random_values(dtype, shape, rng)


def compute_dtype(op: str, dtype: torch.dtype) -> np.dtype:
    """The dtype an op computes in when both inputs have `dtype` (div and exp go to float32)."""
    np_dtype = NUMPY_OF[dtype]
    if op in ("div", "exp") and np_dtype.kind in "biu":
        return np.dtype(np.float32)
    return np_dtype


def reference(op: str, *args: np.ndarray, alpha: object = 1) -> np.ndarray:
    """NumPy's answer, computed in the dtype of the (already converted) arguments."""
    with np.errstate(all="ignore"):
        if op == "neg":
            (a,) = args
            return np.negative(a)
        if op == "exp":
            (a,) = args
            if a.dtype == np.float32:  # float64 exp rounded once: within 1 ulp of any libm expf
                return np.exp(a.astype(np.float64)).astype(np.float32)
            return np.exp(a)
        a, b = args
        dtype = np.result_type(a, b)
        if dtype == np.bool_:
            if op == "add":
                return a | (bool(alpha) & b)
            if op == "mul":
                return a & b
        scaled = b if op in ("mul", "div") else np.asarray(alpha).astype(dtype) * b
        if op == "add":
            return (a + scaled).astype(dtype)
        if op == "sub":
            return (a - scaled).astype(dtype)
        if op == "mul":
            return (a * b).astype(dtype)
        return (a / b).astype(dtype)


def assert_matches(actual: torch.Tensor, expected: np.ndarray) -> None:
    """Same dtype and shape, equal values (close for floating point, NaN equal to NaN)."""
    assert actual.dtype == TORCH_OF[expected.dtype]
    assert tuple(actual.shape) == expected.shape
    got = actual.numpy()
    if expected.dtype.kind == "f":
        rtol = 1e-6 if expected.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def call(op: str, *args: object, **kwargs: object) -> torch.Tensor:
    return getattr(torch, op)(*args, **kwargs)


def supported(op: str, dtype: torch.dtype) -> bool:
    return not (dtype == torch.bool and op in ("sub", "neg"))


# ---------------------------------------------------------------------------------------------
# Every op, every dtype


def _cases(ops: list[str], dtypes: list[torch.dtype] = ALL_DTYPES) -> list:
    """(op, dtype) pairs the op has a kernel for; sub and neg on bool are errors, tested below."""
    return [pytest.param(op, dt, id=f"{op}-{dtype_id(dt)}") for op in ops for dt in dtypes if supported(op, dt)]


@pytest.mark.parametrize("op, dtype", _cases(BINARY_OPS))
def test_binary_op_matches_numpy_for_two_tensors_of_the_same_dtype(op, dtype):
    rng = np.random.default_rng(1)
    a, b = sample(dtype, (3, 4), rng), sample(dtype, (3, 4), rng)
    out = call(op, torch.from_numpy(a), torch.from_numpy(b))
    cd = compute_dtype(op, dtype)
    assert_matches(out, reference(op, a.astype(cd), b.astype(cd)))


@pytest.mark.parametrize("op, dtype", _cases(UNARY_OPS))
def test_unary_op_matches_numpy_for_every_dtype(op, dtype):
    a = sample(dtype, (2, 5), np.random.default_rng(2))
    assert_matches(call(op, torch.from_numpy(a)), reference(op, a.astype(compute_dtype(op, dtype))))


@pytest.mark.parametrize("op, dtype", _cases(BINARY_OPS + UNARY_OPS))
def test_method_form_gives_the_same_result_as_the_function(op, dtype):
    rng = np.random.default_rng(3)
    a, b = torch.from_numpy(sample(dtype, (4,), rng)), torch.from_numpy(sample(dtype, (4,), rng))
    args = (b,) if op in BINARY_OPS else ()
    method = getattr(a, op)(*args)
    function = call(op, a, *args)
    assert method.dtype == function.dtype
    np.testing.assert_array_equal(method.numpy(), function.numpy())


@pytest.mark.parametrize("op", BINARY_OPS + UNARY_OPS)
def test_ops_return_a_new_contiguous_tensor_and_leave_inputs_untouched(op):
    a_np = np.arange(6, dtype=np.float32).reshape(2, 3)
    b_np = np.full((2, 3), 2.0, dtype=np.float32)
    a, b = torch.from_numpy(a_np), torch.from_numpy(b_np)
    out = call(op, a, b) if op in BINARY_OPS else call(op, a)
    assert out.is_contiguous()
    assert out.stride() == (3, 1)
    assert out.data_ptr() not in (a.data_ptr(), b.data_ptr())
    np.testing.assert_array_equal(a_np, np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(b_np, np.full((2, 3), 2.0, dtype=np.float32))


def test_bool_add_is_logical_or_and_bool_mul_is_logical_and():
    a = torch.tensor([True, True, False, False])
    b = torch.tensor([True, False, True, False])
    assert torch.add(a, b).tolist() == [True, True, True, False]
    assert torch.mul(a, b).tolist() == [True, False, False, False]
    # The stored bytes are 0/1, not 2, so a round trip through numpy sees proper bools.
    assert torch.add(a, b).numpy().view(np.uint8).tolist() == [1, 1, 1, 0]


def test_exp_of_special_values_follows_ieee():
    out = torch.exp(torch.tensor([0.0, float("-inf"), float("inf"), float("nan"), 1000.0, -1000.0]))
    assert out.dtype == torch.float32
    got = out.tolist()
    assert got[:3] == [1.0, 0.0, float("inf")]
    assert np.isnan(got[3])
    assert got[4:] == [float("inf"), 0.0]


def test_exp_of_integers_and_bools_is_float32():
    assert torch.exp(torch.tensor([0, 1, 2])).dtype == torch.float32
    np.testing.assert_allclose(torch.exp(torch.tensor([0, 1, 2])).numpy(), np.exp([0.0, 1.0, 2.0]), rtol=1e-6)
    assert torch.exp(torch.tensor([True, False])).tolist() == pytest.approx([np.e, 1.0], rel=1e-6)


def test_integer_division_is_true_division_with_ieee_results_for_zero_divisors():
    out = torch.div(torch.tensor([7, -7, 1, 0, -3]), torch.tensor([2, 2, 0, 0, 0]))
    assert out.dtype == torch.float32
    got = out.tolist()
    assert got[:3] == [3.5, -3.5, float("inf")]
    assert np.isnan(got[3])
    assert got[4] == float("-inf")


def test_float_division_by_signed_zero_gives_signed_infinity():
    out = torch.div(torch.tensor([1.0, 1.0, -1.0], dtype=torch.float64), torch.tensor([0.0, -0.0, 0.0],
                                                                                     dtype=torch.float64))
    assert out.tolist() == [float("inf"), float("-inf"), float("-inf")]


def test_neg_of_unsigned_and_minimum_signed_values_wraps():
    assert torch.neg(torch.tensor([0, 1, 255], dtype=torch.uint8)).tolist() == [0, 255, 1]
    assert torch.neg(torch.tensor([-128, 127], dtype=torch.int8)).tolist() == [-128, -127]
    assert torch.neg(torch.tensor([-(2**63)])).tolist() == [-(2**63)]


def test_neg_of_float_zero_gives_negative_zero():
    out = torch.neg(torch.tensor([0.0, -0.0]))
    assert [np.signbit(v) for v in out.numpy()] == [True, False]


def test_zero_dim_operands_give_a_zero_dim_result():
    out = torch.add(torch.tensor(2.5), torch.tensor(1.5))
    assert out.shape == torch.Size([]) and out.dim() == 0
    assert out.item() == 4.0
    assert torch.neg(torch.tensor(3)).shape == ()


def test_empty_operands_broadcast_to_an_empty_result():
    out = torch.mul(torch.ones(0, 3), torch.ones(3))
    assert out.shape == (0, 3)
    assert out.numel() == 0
    assert torch.exp(torch.ones(2, 0, dtype=torch.int32)).shape == (2, 0)
    assert torch.add(torch.ones(0), torch.ones(1)).shape == (0,)


# ---------------------------------------------------------------------------------------------
# Broadcasting


def test_add_broadcasts_a_row_across_a_matrix_like_numpy():
    m = np.arange(12, dtype=np.int64).reshape(3, 4)
    row = np.array([10, 20, 30, 40], dtype=np.int64)
    assert_matches(torch.add(torch.from_numpy(m), torch.from_numpy(row)), m + row)


def test_mul_broadcasts_a_column_against_a_row_into_an_outer_product():
    col = np.arange(1, 4, dtype=np.float64).reshape(3, 1)
    row = np.arange(1, 5, dtype=np.float64).reshape(1, 4)
    assert_matches(torch.mul(torch.from_numpy(col), torch.from_numpy(row)), col * row)


@settings(max_examples=50, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, min_side=0, max_side=5),
       op=st.sampled_from(BINARY_OPS),
       dtype=st.sampled_from(ALL_DTYPES),
       seed=st.integers(0, 2**32 - 1))
def test_binary_ops_broadcast_random_compatible_shapes_like_numpy(shapes, op, dtype, seed):
    if not supported(op, dtype):
        dtype = torch.int32
    (shape_a, shape_b), result_shape = shapes
    rng = np.random.default_rng(seed)
    a, b = sample(dtype, shape_a, rng), sample(dtype, shape_b, rng)
    out = call(op, torch.from_numpy(a), torch.from_numpy(b))
    assert tuple(out.shape) == result_shape == np.broadcast_shapes(shape_a, shape_b)
    cd = compute_dtype(op, dtype)
    assert_matches(out, reference(op, a.astype(cd), b.astype(cd)))


@settings(max_examples=30, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, min_side=0, max_side=5))
def test_broadcasting_is_symmetric_in_its_operands(shapes):
    (shape_a, shape_b), result_shape = shapes
    rng = np.random.default_rng(0)
    a = torch.from_numpy(sample(torch.float64, shape_a, rng))
    b = torch.from_numpy(sample(torch.float64, shape_b, rng))
    ab, ba = torch.add(a, b), torch.add(b, a)
    assert tuple(ab.shape) == tuple(ba.shape) == result_shape
    np.testing.assert_array_equal(ab.numpy(), ba.numpy())


@pytest.mark.parametrize("shape_a, shape_b, message", [
    ((2, 3), (2, 4), "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    ((3,), (4,), "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0"),
    ((2, 3), (3, 3), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    ((2, 3, 1), (4, 2), "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"),
    ((0,), (2,), "The size of tensor a (0) must match the size of tensor b (2) at non-singleton dimension 0"),
])
@pytest.mark.parametrize("op", BINARY_OPS)
def test_incompatible_shapes_raise_runtime_error_naming_sizes_and_dimension(op, shape_a, shape_b, message):
    with pytest.raises(RuntimeError) as info:
        call(op, torch.ones(shape_a), torch.ones(shape_b))
    assert str(info.value) == message


# ---------------------------------------------------------------------------------------------
# Non-contiguous inputs


def _views(dtype: torch.dtype, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Strided numpy views, each of shape (3, 4)."""
    base = sample(dtype, (8, 12), rng)
    return {
        "contiguous": np.ascontiguousarray(base[:3, :4]),
        "transposed": np.ascontiguousarray(base[:4, :3]).T,
        "row_step": base[::3, :4],
        "column_step": base[:3, ::3],
        "both_steps": base[1::3, 2::3],
        "column_slice": base[2:5, 5:9],
    }


VIEW_KINDS = ["contiguous", "transposed", "row_step", "column_step", "both_steps", "column_slice"]


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int16, torch.int64, torch.float32,
                                   torch.float64], ids=dtype_id)
@pytest.mark.parametrize("kind_b", VIEW_KINDS)
@pytest.mark.parametrize("kind_a", ["transposed", "both_steps", "contiguous"])
def test_add_and_mul_of_strided_numpy_views_match_numpy(kind_a, kind_b, dtype):
    rng = np.random.default_rng(4)
    a, b = _views(dtype, rng)[kind_a], _views(dtype, rng)[kind_b]
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    assert ta.is_contiguous() == (kind_a == "contiguous")
    for op in ("add", "mul"):
        assert_matches(call(op, ta, tb), reference(op, a, b))


@pytest.mark.parametrize("op", BINARY_OPS + UNARY_OPS)
@pytest.mark.parametrize("kind", VIEW_KINDS[1:])
def test_every_op_reads_non_contiguous_int32_inputs_correctly(op, kind):
    rng = np.random.default_rng(5)
    a, b = _views(torch.int32, rng)[kind], _views(torch.int32, rng)[kind]
    b = np.where(b == 0, 1, b).astype(np.int32) if op == "div" else b
    if op == "div":
        b = np.ascontiguousarray(b)  # keep one operand strided
    cd = compute_dtype(op, torch.int32)
    if op in UNARY_OPS:
        assert_matches(call(op, torch.from_numpy(a)), reference(op, a.astype(cd)))
    else:
        assert_matches(call(op, torch.from_numpy(a), torch.from_numpy(b)), reference(op, a.astype(cd), b.astype(cd)))


def test_a_transposed_view_added_to_itself_matches_numpy():
    base = np.arange(20, dtype=np.float64).reshape(4, 5)
    t = torch.from_numpy(base.T)
    assert t.stride() == (1, 5)
    assert_matches(torch.add(t, t), base.T + base.T)


def test_a_strided_view_broadcast_against_a_row_matches_numpy():
    base = np.arange(60, dtype=np.int64).reshape(6, 10)
    view = base[::2, 1::3]  # (3, 3), strides (20, 3) elements
    row = np.array([100, 200, 300], dtype=np.int64)
    assert_matches(torch.sub(torch.from_numpy(view), torch.from_numpy(row)), view - row)


def test_a_stride_zero_numpy_view_acts_like_the_broadcast_array():
    row = np.arange(4, dtype=np.float32)
    view = np.broadcast_to(row, (3, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # read-only array warning
        t = torch.from_numpy(view)
    assert t.stride() == (0, 1)
    other = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert_matches(torch.mul(t, torch.from_numpy(other)), view * other)


def test_mixed_dtype_strided_inputs_are_converted_before_the_op():
    a = np.arange(24, dtype=np.int16).reshape(4, 6)[::2, ::2]
    b = (np.arange(24, dtype=np.float64).reshape(6, 4) / 4).T[::2, ::2]
    out = torch.add(torch.from_numpy(a), torch.from_numpy(b))
    assert_matches(out, a.astype(np.float64) + b)


# ---------------------------------------------------------------------------------------------
# alpha


@pytest.mark.parametrize("alpha", [0, 1, 2, 3, -1, -3])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                                   torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("op", ["add", "sub"])
def test_integer_alpha_scales_the_other_operand(op, dtype, alpha):
    rng = np.random.default_rng(6)
    a, b = sample(dtype, (5,), rng), sample(dtype, (5,), rng)
    out = call(op, torch.from_numpy(a), torch.from_numpy(b), alpha=alpha)
    assert_matches(out, reference(op, a, b, alpha=alpha))


@pytest.mark.parametrize("alpha", [0.5, -2.25, 1e-3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=dtype_id)
@pytest.mark.parametrize("op", ["add", "sub"])
def test_float_alpha_scales_the_other_operand_for_floating_tensors(op, dtype, alpha):
    rng = np.random.default_rng(7)
    a, b = sample(dtype, (6,), rng), sample(dtype, (6,), rng)
    out = call(op, torch.from_numpy(a), torch.from_numpy(b), alpha=alpha)
    assert_matches(out, reference(op, a, b, alpha=alpha))


def test_float_alpha_is_accepted_when_a_float_number_promotes_integer_tensors_to_float():
    out = torch.add(torch.tensor([1, 2]), 0.5, alpha=2.5)
    assert out.dtype == torch.float32
    assert out.tolist() == [2.25, 3.25]


def test_alpha_applies_to_a_python_number_other_and_a_reflected_python_number():
    assert torch.add(torch.tensor([1, 2]), 3, alpha=2).tolist() == [7, 8]
    assert torch.sub(torch.tensor([1.5, 2.5]), 1, alpha=-2).tolist() == [3.5, 4.5]
    assert torch.sub(10, torch.tensor([1, 2]), alpha=3).tolist() == [7, 4]
    assert torch.tensor([1, 2]).add(torch.tensor([1, 1]), alpha=5).tolist() == [6, 7]


def test_alpha_broadcasts_with_the_other_operand():
    a = np.zeros((2, 3), dtype=np.int32)
    b = np.array([1, 2, 3], dtype=np.int32)
    assert_matches(torch.sub(torch.from_numpy(a), torch.from_numpy(b), alpha=2), a - 2 * b)


@pytest.mark.parametrize("alpha, expected", [(True, [True, True, True, False]), (False, [True, True, False, False])])
def test_bool_alpha_selects_whether_a_bool_other_is_added(alpha, expected):
    a = torch.tensor([True, True, False, False])
    b = torch.tensor([True, False, True, False])
    assert torch.add(a, b, alpha=alpha).tolist() == expected


@pytest.mark.parametrize("op, dtype", _cases(["add", "sub"], [torch.bool, torch.uint8, torch.int8, torch.int32,
                                                                torch.int64]))
def test_float_alpha_with_integer_tensors_is_a_runtime_error(op, dtype):
    t = torch.ones(2, dtype=dtype)
    with pytest.raises(RuntimeError, match="For integral input tensors, argument alpha must not be a floating "
                                           "point number."):
        call(op, t, t, alpha=2.5)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int64, torch.float32], ids=dtype_id)
def test_bool_alpha_with_non_bool_results_is_a_runtime_error(dtype):
    t = torch.ones(2, dtype=dtype)
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results."):
        torch.add(t, t, alpha=True)


def test_non_number_alpha_is_a_type_error_naming_alpha():
    t = torch.ones(2)
    with pytest.raises(TypeError, match="argument 'alpha' must be Number, not str"):
        torch.add(t, t, alpha="x")
    with pytest.raises(TypeError, match="alpha"):
        torch.sub(t, t, alpha=t)


def test_alpha_that_overflows_the_integer_compute_dtype_is_a_runtime_error():
    t = torch.tensor([1], dtype=torch.int8)
    with pytest.raises(RuntimeError, match="overflow"):
        torch.add(t, t, alpha=300)


# ---------------------------------------------------------------------------------------------
# Python numbers on either side


@pytest.mark.parametrize("number", [3, -2, 0, 2.5, -0.75, True, False])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.int64, torch.float32,
                                   torch.float64, torch.bool], ids=dtype_id)
@pytest.mark.parametrize("op", BINARY_OPS)
def test_python_number_on_either_side_matches_numpy_in_the_promoted_dtype(op, dtype, number):
    rng = np.random.default_rng(8)
    a = sample(dtype, (2, 3), rng)
    if op == "div":
        a = np.where(a == 0, 1, a).astype(a.dtype)  # keep reflected division finite
    t = torch.from_numpy(a)
    for order in ("tensor_first", "number_first"):
        args = (t, number) if order == "tensor_first" else (number, t)
        result_dtype = _expected_for(op, torch.result_type(*args))
        if op == "sub" and (dtype == torch.bool or isinstance(number, bool)):
            continue  # subtraction involving bools: see the error tests
        out = call(op, *args)
        assert out.dtype == result_dtype
        cd = NUMPY_OF[result_dtype]
        x, y = a.astype(cd), np.asarray(number).astype(cd)
        expected = reference(op, x, y) if order == "tensor_first" else reference(op, y, x)
        assert_matches(out, np.broadcast_to(expected, a.shape))


def test_a_python_int_keeps_the_tensors_integer_dtype():
    assert torch.add(torch.tensor([1, 2], dtype=torch.int8), 5).dtype == torch.int8
    assert torch.mul(3, torch.tensor([1, 2], dtype=torch.uint8)).dtype == torch.uint8


def test_a_python_float_makes_an_integer_tensor_default_float():
    out = torch.mul(torch.tensor([1, 2], dtype=torch.int16), 0.5)
    assert out.dtype == torch.float32 == torch.get_default_dtype()
    assert out.tolist() == [0.5, 1.0]


def test_a_python_float_does_not_widen_a_float32_tensor_to_float64():
    assert torch.add(torch.tensor([1.0]), 1e-300).dtype == torch.float32


def test_reflected_sub_and_div_put_the_number_first():
    t = torch.tensor([1.0, 2.0, 4.0])
    assert torch.sub(10, t).tolist() == [9.0, 8.0, 6.0]
    assert torch.div(2, t).tolist() == [2.0, 1.0, 0.5]
    assert torch.div(2, torch.tensor([1, 2, 4])).tolist() == [2.0, 1.0, 0.5]


def test_a_python_int_too_large_for_int64_is_an_error_not_a_silent_wrap():
    # PyTorch raises OverflowError ("int too big to convert"); Ember a RuntimeError naming the overflow.
    with pytest.raises((RuntimeError, OverflowError)):
        torch.add(torch.tensor([1]), 2**70)
    with pytest.raises((RuntimeError, OverflowError)):
        torch.mul(2**64, torch.tensor([1.0]))


def test_a_python_int_outside_a_small_dtype_wraps_like_pytorch():
    # Verified with PyTorch 2.13: int8 tensor + 300 == 1 + (300 mod 256) == 45.
    assert torch.add(torch.tensor([1], dtype=torch.int8), 300).tolist() == [45]
    assert torch.add(torch.tensor([1], dtype=torch.uint8), -1).tolist() == [0]
    assert torch.add(torch.tensor([1], dtype=torch.int32), 2**40).tolist() == [1]


# ---------------------------------------------------------------------------------------------
# Result dtypes of type promotion, verified against PyTorch 2.13.
# Rows: the first operand's dtype; columns: the second's. Same for add and mul; sub too except
# that bools are errors; div gives float32 wherever these give an integral or bool dtype.

COLUMNS = ["b", "u8", "i8", "i16", "i32", "i64", "f32", "f64"]

DIM_WITH_DIM = """
  b    b   u8   i8  i16  i32  i64  f32  f64
 u8   u8   u8  i16  i16  i32  i64  f32  f64
 i8   i8  i16   i8  i16  i32  i64  f32  f64
i16  i16  i16  i16  i16  i32  i64  f32  f64
i32  i32  i32  i32  i32  i32  i64  f32  f64
i64  i64  i64  i64  i64  i64  i64  f32  f64
f32  f32  f32  f32  f32  f32  f32  f32  f64
f64  f64  f64  f64  f64  f64  f64  f64  f64
"""

DIM_WITH_ZERO_DIM = """
  b    b   u8   i8  i16  i32  i64  f32  f64
 u8   u8   u8   u8   u8   u8   u8  f32  f64
 i8   i8   i8   i8   i8   i8   i8  f32  f64
i16  i16  i16  i16  i16  i16  i16  f32  f64
i32  i32  i32  i32  i32  i32  i32  f32  f64
i64  i64  i64  i64  i64  i64  i64  f32  f64
f32  f32  f32  f32  f32  f32  f32  f32  f32
f64  f64  f64  f64  f64  f64  f64  f64  f64
"""

ZERO_DIM_WITH_DIM = """
  b    b   u8   i8  i16  i32  i64  f32  f64
 u8   u8   u8   i8  i16  i32  i64  f32  f64
 i8   i8   u8   i8  i16  i32  i64  f32  f64
i16  i16   u8   i8  i16  i32  i64  f32  f64
i32  i32   u8   i8  i16  i32  i64  f32  f64
i64  i64   u8   i8  i16  i32  i64  f32  f64
f32  f32  f32  f32  f32  f32  f32  f32  f64
f64  f64  f64  f64  f64  f64  f64  f32  f64
"""

# Two 0-dim tensors promote like two dimensioned ones.
ZERO_DIM_WITH_ZERO_DIM = DIM_WITH_DIM

# Columns: Python bool, int, float; the same whichever side the number is on, and the same for
# a 0-dim tensor as for a dimensioned one.
TENSOR_WITH_NUMBER = """
  b    b  i64  f32
 u8   u8   u8  f32
 i8   i8   i8  f32
i16  i16  i16  f32
i32  i32  i32  f32
i64  i64  i64  f32
f32  f32  f32  f32
f64  f64  f64  f64
"""
NUMBERS = {"bool": True, "int": 2, "float": 2.5}


def _table(text: str, columns: list[str]) -> list[tuple[torch.dtype, str, torch.dtype]]:
    cases = []
    for line in text.strip().splitlines():
        row, *cells = line.split()
        for column, cell in zip(columns, cells, strict=True):
            cases.append((SHORT[row], column, SHORT[cell]))
    return cases


def _make(kind: str, dtype: torch.dtype) -> torch.Tensor:
    return torch.ones(2, dtype=dtype) if kind == "dim" else torch.ones((), dtype=dtype)


def _expected_for(op: str, add_result: torch.dtype) -> torch.dtype:
    return add_result if op != "div" or add_result.is_floating_point else torch.float32


TENSOR_TABLE_CASES = [
    pytest.param(kind_a, a, kind_b, SHORT[b], expected, id=f"{kind_a}-{dtype_id(a)}-{kind_b}-{b}")
    for (kind_a, kind_b), text in [(("dim", "dim"), DIM_WITH_DIM), (("dim", "zero"), DIM_WITH_ZERO_DIM),
                                   (("zero", "dim"), ZERO_DIM_WITH_DIM), (("zero", "zero"), ZERO_DIM_WITH_ZERO_DIM)]
    for a, b, expected in _table(text, COLUMNS)
]


@pytest.mark.parametrize("kind_a, dtype_a, kind_b, dtype_b, expected", TENSOR_TABLE_CASES)
def test_result_dtype_of_two_tensors_follows_pytorch_promotion(kind_a, dtype_a, kind_b, dtype_b, expected):
    a, b = _make(kind_a, dtype_a), _make(kind_b, dtype_b)
    assert torch.result_type(a, b) == expected
    for op in BINARY_OPS:
        if op == "sub" and torch.bool in (dtype_a, dtype_b):
            continue
        out = call(op, a, b)
        assert out.dtype == _expected_for(op, expected), op
        value = {"add": 1 if out.dtype == torch.bool else 2, "sub": 0, "mul": 1, "div": 1}[op]
        np.testing.assert_array_equal(np.asarray(out.tolist(), dtype=np.float64), np.full(out.shape, value))


NUMBER_TABLE_CASES = [
    pytest.param(kind, a, NUMBERS[number], expected, id=f"{kind}-{dtype_id(a)}-{number}")
    for kind in ("dim", "zero")
    for a, number, expected in _table(TENSOR_WITH_NUMBER, list(NUMBERS))
]


@pytest.mark.parametrize("kind, dtype, number, expected", NUMBER_TABLE_CASES)
def test_result_dtype_of_a_tensor_and_a_python_number_follows_pytorch_promotion(kind, dtype, number, expected):
    t = _make(kind, dtype)
    for op in BINARY_OPS:
        if op == "sub" and (dtype == torch.bool or isinstance(number, bool)):
            continue
        assert call(op, t, number).dtype == _expected_for(op, expected), op
        assert call(op, number, t).dtype == _expected_for(op, expected), op


@pytest.mark.parametrize("dtype, expected", [
    (torch.uint8, torch.uint8), (torch.int8, torch.int8), (torch.int16, torch.int16), (torch.int32, torch.int32),
    (torch.int64, torch.int64), (torch.float32, torch.float32), (torch.float64, torch.float64),
], ids=dtype_id)
def test_neg_keeps_the_dtype(dtype, expected):
    assert torch.neg(torch.ones(2, dtype=dtype)).dtype == expected


@pytest.mark.parametrize("dtype, expected", [
    (torch.bool, torch.float32), (torch.uint8, torch.float32), (torch.int8, torch.float32),
    (torch.int16, torch.float32), (torch.int32, torch.float32), (torch.int64, torch.float32),
    (torch.float32, torch.float32), (torch.float64, torch.float64),
], ids=dtype_id)
def test_exp_gives_default_float_for_integers_and_bools_and_keeps_float_dtypes(dtype, expected):
    assert torch.exp(torch.ones(2, dtype=dtype)).dtype == expected


def test_values_are_converted_to_the_result_dtype_before_the_op():
    # uint8 dim + int8 0-dim -> uint8: the -1 becomes 255 before the addition (PyTorch 2.13 gives [4, 5]).
    out = torch.add(torch.tensor([5, 6], dtype=torch.uint8), torch.tensor(-1, dtype=torch.int8))
    assert out.dtype == torch.uint8
    assert out.tolist() == [4, 5]
    # int8 dim + float64 0-dim -> float64 computed in double.
    out = torch.add(torch.tensor([1, 2], dtype=torch.int8), torch.tensor(0.1, dtype=torch.float64))
    assert out.dtype == torch.float64
    assert out.tolist() == [1.1, 2.1]


# ---------------------------------------------------------------------------------------------
# The parallel path: more than 4096 elements and above the grain size split across threads.


def _parallel_cases() -> list:
    rng = np.random.default_rng(9)
    long_row = rng.standard_normal(20_000).astype(np.float32)   # one coalesced row: split within the row
    many_rows = rng.standard_normal((90, 70))                    # broadcast: 90 rows of 70
    col = rng.standard_normal((90, 1))
    transposed = np.ascontiguousarray(rng.standard_normal((70, 90))).T
    few_rows = rng.integers(-100, 100, size=(3, 3000)).astype(np.int32)[:, ::2]  # 3 strided rows of 1500
    few_b = rng.integers(1, 100, size=(3, 1500)).astype(np.int32)
    return [
        pytest.param(long_row, long_row[::-1].copy(), id="one-long-row"),
        pytest.param(many_rows, col, id="many-broadcast-rows"),
        pytest.param(transposed, many_rows, id="transposed"),
        pytest.param(few_rows, few_b, id="fewer-rows-than-threads"),
    ]


@pytest.mark.parametrize("a, b", _parallel_cases())
@pytest.mark.parametrize("nthreads", [2, 4])
def test_parallel_path_gives_the_same_results_as_serial(threads, a, b, nthreads):
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    torch.set_num_threads(1)
    serial = {op: call(op, ta, tb).numpy().copy() for op in BINARY_OPS}
    serial.update({op: call(op, ta).numpy().copy() for op in UNARY_OPS})
    torch.set_num_threads(nthreads)
    loops.set_grain_size(64)
    for op in BINARY_OPS:
        out = call(op, ta, tb)
        np.testing.assert_array_equal(out.numpy(), serial[op])
        cd = compute_dtype(op, TORCH_OF[np.result_type(a, b)])
        assert_matches(out, reference(op, a.astype(cd), b.astype(cd)))
    for op in UNARY_OPS:
        np.testing.assert_array_equal(call(op, ta).numpy(), serial[op])


def test_parallel_path_handles_every_dtype(threads):
    torch.set_num_threads(2)
    loops.set_grain_size(128)
    rng = np.random.default_rng(10)
    for dtype in ALL_DTYPES:
        a, b = sample(dtype, (5000,), rng), sample(dtype, (5000,), rng)
        for op in BINARY_OPS:
            if supported(op, dtype):
                cd = compute_dtype(op, dtype)
                assert_matches(call(op, torch.from_numpy(a), torch.from_numpy(b)),
                               reference(op, a.astype(cd), b.astype(cd)))


def test_parallel_path_with_a_scalar_operand_and_alpha(threads):
    torch.set_num_threads(2)
    loops.set_grain_size(100)
    a = np.arange(10_000, dtype=np.int64).reshape(100, 100)
    assert_matches(torch.sub(torch.from_numpy(a), 7, alpha=3), a - 21)
    assert_matches(torch.add(torch.from_numpy(a.T), torch.tensor(1), alpha=-2), a.T - 2)


def test_thread_count_round_trips_and_rejects_non_positive_values(threads):
    torch.set_num_threads(3)
    assert torch.get_num_threads() == 3
    with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
        torch.set_num_threads(0)
    assert torch.get_num_threads() == 3


def test_grain_size_defaults_to_32768_round_trips_and_rejects_non_positive_values(threads):
    assert loops.get_grain_size() == 32768
    loops.set_grain_size(10)
    assert loops.get_grain_size() == 10
    with pytest.raises(ValueError):
        loops.set_grain_size(0)
    assert loops.get_grain_size() == 10


# ---------------------------------------------------------------------------------------------
# Errors


def test_sub_of_two_bool_tensors_is_a_runtime_error():
    t = torch.tensor([True, False])
    with pytest.raises(RuntimeError):
        torch.sub(t, t)
    with pytest.raises(RuntimeError):
        torch.sub(t, True)


def test_neg_of_a_bool_tensor_is_a_runtime_error():
    with pytest.raises(RuntimeError):
        torch.neg(torch.tensor([True, False]))


@pytest.mark.parametrize("a, b", [
    (lambda: torch.tensor([1, 2]), lambda: torch.tensor([True, False])),
    (lambda: torch.tensor([True, False]), lambda: torch.tensor([1.5, 2.5])),
    (lambda: torch.tensor([1, 2]), lambda: True),
], ids=["int-minus-bool", "bool-minus-float", "int-minus-python-bool"])
def test_sub_with_any_bool_operand_is_a_runtime_error(a, b):
    with pytest.raises(RuntimeError):
        torch.sub(a(), b())


def test_bad_argument_to_an_op_with_overloads_lists_the_signatures():
    # div has a rounding_mode overload, so (as PyTorch) the error lists both signatures.
    with pytest.raises(TypeError, match=r"div\(\) received an invalid combination of arguments - got \(Tensor, str\)"
                                        r"(.|\n)*rounding_mode"):
        torch.div(torch.ones(2), "a")


@pytest.mark.parametrize("op", [op for op in BINARY_OPS if op != "div"])
def test_non_tensor_non_number_argument_is_a_type_error_naming_the_argument(op):
    t = torch.ones(2)
    with pytest.raises(TypeError, match=f"{op}\\(\\): argument 'other' \\(position 2\\) must be Tensor, not str"):
        call(op, t, "a")
    with pytest.raises(TypeError, match=f"{op}\\(\\): argument 'input' \\(position 1\\) must be Tensor, not str"):
        call(op, "a", t)
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not NoneType"):
        call(op, t, None)
    with pytest.raises(TypeError, match="argument 'other' \\(position 1\\) must be Tensor, not list"):
        getattr(t, op)([1, 2])


@pytest.mark.parametrize("op", UNARY_OPS)
def test_unary_op_of_a_non_tensor_is_a_type_error_naming_input(op):
    with pytest.raises(TypeError, match=f"{op}\\(\\): argument 'input' \\(position 1\\) must be Tensor, not list"):
        call(op, [1, 2])


def test_too_many_positional_arguments_is_a_type_error():
    t = torch.ones(2)
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        torch.add(t, t, 2)
    with pytest.raises(TypeError):
        torch.neg(t, t)


def test_unknown_keyword_argument_is_a_type_error():
    with pytest.raises(TypeError):
        torch.mul(torch.ones(2), torch.ones(2), alpha=2)


# ---------------------------------------------------------------------------------------------
# torch.ops.aten


def test_aten_ops_by_overload_match_the_torch_functions():
    a = torch.tensor([[1, 2, 3], [4, 5, 6]])
    b = torch.tensor([10, 20, 30])
    aten = torch.ops.aten
    assert aten.add.Tensor(a, b).tolist() == torch.add(a, b).tolist()
    assert aten.add.Tensor(a, b, alpha=3).tolist() == [[31, 62, 93], [34, 65, 96]]
    assert aten.add.Scalar(a, 2).tolist() == [[3, 4, 5], [6, 7, 8]]
    assert aten.add.Scalar(a, 2, 3).tolist() == [[7, 8, 9], [10, 11, 12]]
    assert aten.add.Scalar(a, 2.5).dtype == torch.float32
    assert aten.sub.Tensor(a, b).tolist() == torch.sub(a, b).tolist()
    assert aten.mul.Tensor(a, b).tolist() == torch.mul(a, b).tolist()
    assert aten.div.Tensor(a, b).tolist() == torch.div(a, b).tolist()
    assert aten.neg.default(a).tolist() == [[-1, -2, -3], [-4, -5, -6]]
    assert aten.exp.default(a).dtype == torch.float32


def test_unknown_aten_op_or_overload_is_an_attribute_error():
    with pytest.raises(AttributeError):
        torch.ops.aten.nonexistent_op  # noqa: B018
    with pytest.raises(AttributeError, match="no overload name 'nonexistent'"):
        torch.ops.aten.add.nonexistent  # noqa: B018


def test_aten_tensor_overload_accepts_a_python_number_for_a_tensor_argument():
    assert torch.ops.aten.mul.Tensor(torch.tensor([1, 2]), 3).tolist() == [3, 6]
