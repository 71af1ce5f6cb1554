"""NumPy scalars are Python numbers to PyTorch's argument parsing and type promotion: every op that
takes a number gives with np.int64(2) what it gives with 2, and with np.float32(0.5) or np.bool_(True)
what it gives with the float (PyTorch unpacks a NumPy bool as a double: np.bool_(True) is 1.0),
whichever side of an operator the scalar is on."""
from __future__ import annotations

import operator

import numpy as np
import pytest

import torch

NUMPY_SCALARS = [np.int8(3), np.int64(3), np.uint8(3), np.float32(0.5), np.float64(2.5), np.bool_(True)]
DTYPES = [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.float32, torch.float64]


def _python(value):
    return int(value) if value.dtype.kind in "iu" else float(value)


def _outcome(fn):
    try:
        result = fn()
    except (RuntimeError, TypeError, ZeroDivisionError, NotImplementedError) as exc:
        return type(exc)
    if isinstance(result, torch.Tensor):
        return result.dtype, str(result.tolist())      # as text: NaN equals NaN
    return result


def _tensor(dtype):
    return torch.tensor([1, 2, 0, 5], dtype=dtype) if dtype is not torch.bool else torch.tensor([True, False, True, True])


OPERATORS = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
             operator.pow, operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
             operator.and_, operator.or_, operator.xor]


@pytest.mark.parametrize("op", OPERATORS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_an_operator_with_a_numpy_scalar_on_either_side_is_the_operator_with_the_number(op, dtype):
    for scalar in NUMPY_SCALARS:
        number = _python(scalar)
        t = _tensor(dtype)
        assert _outcome(lambda: op(t, scalar)) == _outcome(lambda: op(t, number)), (scalar, "right")
        assert _outcome(lambda: op(scalar, t)) == _outcome(lambda: op(number, t)), (scalar, "left")


METHODS = [
    ("add", lambda t, s: t.add(s)), ("sub", lambda t, s: torch.sub(t, s)), ("mul", lambda t, s: t.mul(s)),
    ("div", lambda t, s: torch.div(t, s)), ("remainder", lambda t, s: t.remainder(s)),
    ("fmod", lambda t, s: torch.fmod(t, s)), ("pow", lambda t, s: t.pow(s)),
    ("float_power", lambda t, s: torch.float_power(t, s)), ("clamp", lambda t, s: t.clamp(min=s)),
    ("clamp_max", lambda t, s: torch.clamp(t, max=s)), ("lerp", lambda t, s: torch.lerp(t.double(), t.double(), s)),
    ("where", lambda t, s: torch.where(t > 1, s, t)), ("masked_fill", lambda t, s: t.masked_fill(t > 1, s)),
    ("index_fill", lambda t, s: t.index_fill(0, torch.tensor([1]), s)), ("full", lambda t, s: torch.full((2,), s)),
    ("full_like", lambda t, s: torch.full_like(t, s)), ("fill_", lambda t, s: t.clone().fill_(s)),
    ("add_", lambda t, s: t.clone().add_(s)), ("mul_", lambda t, s: t.clone().mul_(s)),
    ("eq", lambda t, s: torch.eq(t, s)),
    ("isclose", lambda t, s: torch.isclose(t.double(), torch.tensor(1.0, dtype=torch.float64), rtol=s)),
    ("add_alpha", lambda t, s: torch.add(t.double(), t.double(), alpha=s)),
    ("arange", lambda t, s: torch.arange(s, 10)),
]


@pytest.mark.parametrize("name, call", METHODS, ids=[m[0] for m in METHODS])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_a_function_or_method_with_a_numpy_scalar_is_the_call_with_the_number(name, call, dtype):
    for scalar in NUMPY_SCALARS:
        number = _python(scalar)
        t = _tensor(dtype)
        assert _outcome(lambda: call(t, scalar)) == _outcome(lambda: call(t, number)), scalar


def test_pytorchs_results_for_the_cases_its_users_meet():
    # recorded from PyTorch 2.13: the scalar never widens a tensor of its own kind
    int32 = torch.tensor([1, 2], dtype=torch.int32)
    assert (int32 + np.int64(1)).dtype is torch.int32
    assert (np.int64(1) + int32).tolist() == [2, 3]
    assert (torch.tensor([1, 2], dtype=torch.uint8) * np.float32(1.5)).dtype is torch.float32
    assert (np.bool_(True) + torch.tensor([1, 2], dtype=torch.int16)).dtype is torch.float32
    assert (torch.tensor([1.0], dtype=torch.float16) + np.float64(2)).dtype is torch.float16
    assert (np.float32(1.5) < torch.tensor([1, 2])).tolist() == [False, True]
    assert isinstance(torch.tensor([1, 2], dtype=torch.int32) + np.int64(1), torch.Tensor)
    # torch.tensor is the exception: it keeps a NumPy scalar's own dtype
    assert torch.tensor(np.int8(3)).dtype is torch.int8 and torch.tensor(np.bool_(True)).dtype is torch.bool


def test_numpy_arrays_and_bools_where_pytorch_refuses_them():
    x = torch.ones(2)
    with pytest.raises(TypeError, match=r"add\(\): argument 'other' \(position 2\) must be Tensor, not numpy.ndarray"):
        torch.add(x, np.array(5))
    with pytest.raises(TypeError, match="argument 'keepdim' must be bool, not numpy.bool"):
        x.argmax(keepdim=np.bool_(True))
    assert torch.isclose(x, x, rtol=np.bool_(True)).tolist() == [True, True]   # a float parameter takes it
