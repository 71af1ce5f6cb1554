"""Python operators on tensors: + - * / and their reflected and unary forms, against NumPy and
against exact integer arithmetic (overflow wraps like PyTorch's; cases verified with PyTorch 2.13)."""
from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch
from dtype_cases import ALL_DTYPES, NUMPY_OF, TORCH_OF, dtype_id, random_values

INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
FUNCTION_OF = {"+": "add", "-": "sub", "*": "mul", "/": "div"}


def sample(dtype: torch.dtype, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Small values without integer zeros, so every operator (division too) is defined."""
    return random_values(dtype, shape, np.random.default_rng(seed), nonzero=True)


def numpy_op(symbol: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NumPy's answer with PyTorch's result dtype for two arrays of one dtype."""
    dtype = np.result_type(a, b)
    if symbol == "/" and dtype.kind in "biu":
        a, b = a.astype(np.float32), b.astype(np.float32)
    if dtype == np.bool_ and symbol == "+":
        return a | b
    if dtype == np.bool_ and symbol == "*":
        return a & b
    with np.errstate(all="ignore"):
        return np.asarray(OPERATORS[symbol](a, b))


def assert_matches(actual: torch.Tensor, expected: np.ndarray) -> None:
    assert actual.dtype == TORCH_OF[expected.dtype]
    assert tuple(actual.shape) == expected.shape
    if expected.dtype.kind == "f":
        rtol = 1e-6 if expected.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(actual.numpy(), expected, rtol=rtol, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(actual.numpy(), expected)


def _supported(symbol: str, dtype: torch.dtype) -> bool:
    return not (symbol == "-" and dtype == torch.bool)


BINARY_CASES = [pytest.param(s, dt, id=f"{FUNCTION_OF[s]}-{dtype_id(dt)}") for s in OPERATORS for dt in ALL_DTYPES
                if _supported(s, dt)]


# ---------------------------------------------------------------------------------------------
# tensor OP tensor


@pytest.mark.parametrize("symbol, dtype", BINARY_CASES)
def test_operator_on_two_tensors_matches_numpy(symbol, dtype):
    a, b = sample(dtype, (3, 4), 0), sample(dtype, (3, 4), 1)
    assert_matches(OPERATORS[symbol](torch.from_numpy(a), torch.from_numpy(b)), numpy_op(symbol, a, b))


@pytest.mark.parametrize("symbol, dtype", BINARY_CASES)
def test_operator_gives_the_same_result_as_the_torch_function(symbol, dtype):
    a, b = torch.from_numpy(sample(dtype, (5,), 2)), torch.from_numpy(sample(dtype, (5,), 3))
    by_operator = OPERATORS[symbol](a, b)
    by_function = getattr(torch, FUNCTION_OF[symbol])(a, b)
    assert by_operator.dtype == by_function.dtype
    np.testing.assert_array_equal(by_operator.numpy(), by_function.numpy())


@pytest.mark.parametrize("symbol", list(OPERATORS))
def test_operators_broadcast_like_numpy(symbol):
    a = sample(torch.float64, (4, 1, 3), 4)
    b = sample(torch.float64, (2, 1), 5)
    assert_matches(OPERATORS[symbol](torch.from_numpy(a), torch.from_numpy(b)), numpy_op(symbol, a, b))


def test_operators_on_mixed_dtypes_promote_like_pytorch():
    i8 = torch.tensor([1, 2], dtype=torch.int8)
    assert (i8 + torch.tensor([1, 2], dtype=torch.uint8)).dtype == torch.int16
    assert (i8 * torch.tensor([1.0, 2.0], dtype=torch.float64)).dtype == torch.float64
    assert (i8 - torch.tensor(5)).dtype == torch.int8            # 0-dim int64 does not widen int8
    assert (i8 / i8).dtype == torch.float32
    assert (torch.tensor([True]) + torch.tensor([2], dtype=torch.int16)).dtype == torch.int16


def test_a_compound_expression_matches_numpy_in_float64():
    rng = np.random.default_rng(6)
    a, b, c = (rng.standard_normal((3, 4)) for _ in range(3))
    d = rng.random((4,)) + 1.0
    ta, tb, tc, td = (torch.from_numpy(x) for x in (a, b, c, d))
    assert_matches((ta + tb) * tc - ta / td, (a + b) * c - a / d)
    assert_matches(-(ta - 2) * 3 + 1 / td, -(a - 2) * 3 + 1 / d)


def test_operators_leave_their_operands_untouched():
    a_np, b_np = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    a, b = torch.from_numpy(a_np), torch.from_numpy(b_np)
    for op in OPERATORS.values():
        op(a, b)
    -a
    np.testing.assert_array_equal(a_np, [1.0, 2.0])
    np.testing.assert_array_equal(b_np, [3.0, 4.0])


# ---------------------------------------------------------------------------------------------
# Python numbers, reflected forms and unary minus


@pytest.mark.parametrize("number", [2, -3, 2.5, True])
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.int64, torch.float32,
                                   torch.float64], ids=dtype_id)
@pytest.mark.parametrize("symbol", list(OPERATORS))
def test_number_on_either_side_of_an_operator_matches_numpy(symbol, dtype, number):
    if symbol == "-" and isinstance(number, bool):
        number = 1
    a = sample(dtype, (2, 3), 7)
    t = torch.from_numpy(a)
    result = torch.result_type(t, number)
    if symbol == "/" and not result.is_floating_point:
        result = torch.float32
    x, n = a.astype(NUMPY_OF[result]), np.asarray(number).astype(NUMPY_OF[result])
    with np.errstate(all="ignore"):
        right = np.asarray(OPERATORS[symbol](x, n)).astype(NUMPY_OF[result])
        left = np.asarray(OPERATORS[symbol](n, x)).astype(NUMPY_OF[result])
    assert_matches(OPERATORS[symbol](t, number), right)
    assert_matches(OPERATORS[symbol](number, t), left)


def test_reflected_sub_and_div_put_the_number_on_the_left():
    t = torch.tensor([1, 2, 4])
    assert (2 - t).tolist() == [1, 0, -2]
    assert (2 - t).dtype == torch.int64
    assert (2.5 - t).tolist() == [1.5, 0.5, -1.5]
    assert (2 / t).tolist() == [2.0, 1.0, 0.5]
    assert (2 / t).dtype == torch.float32
    assert (1 / torch.tensor([2.0, 4.0])).tolist() == [0.5, 0.25]
    assert (10 + t).tolist() == [11, 12, 14]
    assert (3 * t).tolist() == [3, 6, 12]


def test_a_number_with_a_bool_tensor_promotes_to_the_numbers_category():
    b = torch.tensor([True, False])
    assert (b + True).tolist() == [True, True] and (b + True).dtype == torch.bool
    assert (b * 3).tolist() == [3, 0] and (b * 3).dtype == torch.int64
    assert (1.5 * b).tolist() == [1.5, 0.0] and (1.5 * b).dtype == torch.float32
    assert (b / 2).tolist() == [0.5, 0.0]


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                                   torch.float32, torch.float64], ids=dtype_id)
def test_unary_minus_matches_numpy_negative(dtype):
    a = sample(dtype, (3, 3), 8)
    assert_matches(-torch.from_numpy(a), np.negative(a))


def test_unary_minus_on_a_bool_tensor_is_a_runtime_error():
    with pytest.raises(RuntimeError):
        -torch.tensor([True, False])


def test_minus_between_bool_tensors_is_a_runtime_error():
    with pytest.raises(RuntimeError):
        torch.tensor([True]) - torch.tensor([False])


@pytest.mark.parametrize("symbol", list(OPERATORS))
@pytest.mark.parametrize("other", [None, "a", [1, 2], object()], ids=["None", "str", "list", "object"])
def test_an_operator_with_a_non_number_is_a_type_error(symbol, other):
    t = torch.tensor([1.0, 2.0])
    with pytest.raises(TypeError):
        OPERATORS[symbol](t, other)
    with pytest.raises(TypeError):
        OPERATORS[symbol](other, t)


# ---------------------------------------------------------------------------------------------
# Integer overflow wraps (two's complement), verified with PyTorch 2.13


@pytest.mark.parametrize("expression, expected", [
    (lambda: torch.tensor([127], dtype=torch.int8) + 1, [-128]),
    (lambda: torch.tensor([127], dtype=torch.int8) + torch.tensor([1], dtype=torch.int8), [-128]),
    (lambda: 1 + torch.tensor([127], dtype=torch.int8), [-128]),
    (lambda: torch.tensor([255], dtype=torch.uint8) + 1, [0]),
    (lambda: torch.tensor([200], dtype=torch.uint8) + torch.tensor([100], dtype=torch.uint8), [44]),
    (lambda: torch.tensor([0], dtype=torch.uint8) - 1, [255]),
    (lambda: 0 - torch.tensor([1], dtype=torch.uint8), [255]),
    (lambda: torch.tensor([-128], dtype=torch.int8) - torch.tensor([1], dtype=torch.int8), [127]),
    (lambda: torch.tensor([32767], dtype=torch.int16) + 1, [-32768]),
    (lambda: torch.tensor([-32768], dtype=torch.int16) * -1, [-32768]),
    (lambda: torch.tensor([2**31 - 1], dtype=torch.int32) + 1, [-(2**31)]),
    (lambda: torch.tensor([65536], dtype=torch.int32) * 65536, [0]),
    (lambda: torch.tensor([2**63 - 1]) + 1, [-(2**63)]),
    (lambda: torch.tensor([-(2**63)]) - 1, [2**63 - 1]),
    (lambda: torch.tensor([2**62]) * 4, [0]),
    (lambda: torch.tensor([100], dtype=torch.int8) * 3, [44]),
    (lambda: 3 * torch.tensor([100], dtype=torch.int8), [44]),
    (lambda: torch.tensor([-100], dtype=torch.int8) * torch.tensor([2], dtype=torch.int8), [56]),
    (lambda: torch.tensor([16], dtype=torch.uint8) * torch.tensor([16], dtype=torch.uint8), [0]),
    (lambda: -torch.tensor([-128], dtype=torch.int8), [-128]),
    (lambda: -torch.tensor([1], dtype=torch.uint8), [255]),
])
def test_integer_overflow_wraps_like_pytorch(expression, expected):
    assert expression().tolist() == expected


def _wrap(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Exact Python-int results reduced into dtype's range modulo 2**bits."""
    bits = dtype.itemsize * 8
    lo = np.iinfo(dtype).min
    return np.array([(int(v) - lo) % (1 << bits) + lo for v in values.ravel()], dtype=dtype).reshape(values.shape)


@settings(max_examples=50, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES), symbol=st.sampled_from(["+", "-", "*"]))
def test_integer_arithmetic_on_the_full_range_wraps_modulo_two_to_the_bits(data, dtype, symbol):
    np_dtype = NUMPY_OF[dtype]
    arrays = hnp.arrays(np_dtype, st.integers(1, 8))
    a = data.draw(arrays, label="a")
    b = data.draw(hnp.arrays(np_dtype, a.shape), label="b")
    exact = np.array([OPERATORS[symbol](int(x), int(y)) for x, y in zip(a.ravel(), b.ravel(), strict=True)],
                     dtype=object).reshape(a.shape)
    out = OPERATORS[symbol](torch.from_numpy(a), torch.from_numpy(b))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy(), _wrap(exact, np_dtype))


@settings(max_examples=30, deadline=None)
@given(data=st.data(), dtype=st.sampled_from(INT_DTYPES))
def test_unary_minus_on_the_full_integer_range_wraps(data, dtype):
    np_dtype = NUMPY_OF[dtype]
    a = data.draw(hnp.arrays(np_dtype, st.integers(1, 8)), label="a")
    exact = np.array([-int(x) for x in a.ravel()], dtype=object).reshape(a.shape)
    np.testing.assert_array_equal((-torch.from_numpy(a)).numpy(), _wrap(exact, np_dtype))


def test_integer_division_by_zero_gives_ieee_infinities_not_an_error():
    out = torch.tensor([1, -1, 0], dtype=torch.int8) / torch.tensor([0, 0, 0], dtype=torch.int8)
    got = out.tolist()
    assert out.dtype == torch.float32
    assert got[:2] == [float("inf"), float("-inf")]
    assert np.isnan(got[2])


def test_number_divided_by_tensor_is_reciprocal_times_number_as_pytorch():
    x = np.linspace(0.1, 50, 5001, dtype=np.float32)
    got = (3.7 / torch.from_numpy(x)).numpy()
    np.testing.assert_array_equal(got, (np.float32(1) / x) * np.float32(3.7))
    assert (2 / torch.tensor([1, 2, 0])).tolist() == [2.0, 1.0, float("inf")]
