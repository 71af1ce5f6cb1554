"""Tensor.to / .type / .float() ... and equal, isclose, allclose: PyTorch's results, aliasing
rules and errors (recorded from PyTorch 2.13)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from dtype_cases import ALL_DTYPES, random_values

DTYPES = ALL_DTYPES + [torch.float16]


def test_to_returns_self_when_nothing_changes_and_copy_is_false():
    t = torch.ones(2)
    assert t.to(torch.float32) is t
    assert t.to("cpu") is t
    assert t.to(torch.device("cpu")) is t
    assert t.to(t) is t
    assert t.float() is t and t.cpu() is t
    x = torch.ones(2, 3).t()
    assert x.to(memory_format=torch.contiguous_format) is x   # suggest_memory_format() is contiguous


def test_to_copies_when_asked_or_when_the_dtype_changes():
    t = torch.ones(2)
    c = t.to(torch.float32, copy=True)
    assert c is not t and c.dtype is torch.float32
    assert t.to("cpu", torch.int64).dtype is torch.int64
    assert t.to(device="cpu", dtype=torch.float64).dtype is torch.float64
    assert t.to(torch.zeros(1, dtype=torch.int8)).dtype is torch.int8
    assert t.to(torch.int32, True, True).dtype is torch.int32


def test_to_keeps_the_stride_order_of_a_dense_tensor():
    x = torch.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3)).t()
    y = x.to(torch.float64)
    assert y.stride() == x.stride()
    np.testing.assert_array_equal(y.numpy(), x.numpy().astype(np.float64))


def test_to_rejects_bad_arguments_with_pytorchs_type_error():
    with pytest.raises(TypeError, match=r"to\(\) received an invalid combination of arguments - got \(str, str\)"):
        torch.ones(2).to("cpu", "x")


@pytest.mark.parametrize("name, dtype", [("float", torch.float32), ("double", torch.float64), ("half", torch.float16),
                                         ("long", torch.int64), ("int", torch.int32), ("short", torch.int16),
                                         ("char", torch.int8), ("byte", torch.uint8), ("bool", torch.bool)])
def test_dtype_shorthands_convert(name, dtype):
    a = np.array([0.0, 1.0, 2.0, 3.0])
    got = getattr(torch.from_numpy(a), name)()
    assert got.dtype is dtype
    np.testing.assert_array_equal(got.numpy(), a.astype(dtype.numpy_dtype))


def test_type_names_and_converts():
    assert torch.ones(2).type() == "torch.FloatTensor"
    assert torch.ones(2, dtype=torch.int64).type() == "torch.LongTensor"
    assert torch.ones(2).type(torch.float64).dtype is torch.float64
    assert torch.ones(2).type("torch.IntTensor").dtype is torch.int32
    assert torch.ones(2).type(torch.DoubleTensor).dtype is torch.float64       # a legacy type, as einops' tests use
    assert torch.ones(2, dtype=torch.int64).type(torch.FloatTensor).type() == "torch.FloatTensor"
    with pytest.raises(ValueError, match="invalid type: 'torch.NopeTensor'"):
        torch.ones(2).type("torch.NopeTensor")


def test_type_of_torch_tensor_is_the_default_type_and_python_types_are_refused():
    x = torch.ones(2)
    assert x.type(torch.Tensor) is x and x.type("torch.Tensor") is x       # already the default type
    assert torch.ones(2, dtype=torch.float64).type(torch.Tensor).dtype is torch.get_default_dtype()
    for refused, name in ((float, "float"), (int, "int"), (torch.nn.Parameter, "Parameter")):
        with pytest.raises(ValueError, match=f"invalid type: '{name}'"):
            x.type(refused)
    with pytest.raises(TypeError, match="dtype must be a type, str, or dtype object"):
        x.type(5)


@settings(max_examples=60, deadline=None)
@given(src=st.sampled_from(DTYPES), dst=st.sampled_from(DTYPES), shape=st.lists(st.integers(0, 4), max_size=3),
       seed=st.integers(0, 2**16))
def test_to_dtype_matches_numpy_astype(src, dst, shape, seed):
    a = random_values(src, tuple(shape), np.random.default_rng(seed)) if src is not torch.float16 else \
        random_values(torch.float32, tuple(shape), np.random.default_rng(seed)).astype(np.float16)
    got = torch.from_numpy(a).to(dst)
    expected = a.astype(np.float32).astype(dst.numpy_dtype) if dst is torch.float16 and a.dtype.kind == "f" \
        else a.astype(dst.numpy_dtype)
    assert got.dtype is dst and tuple(got.shape) == a.shape
    np.testing.assert_array_equal(got.numpy(), expected)


def test_equal_compares_shape_and_values_after_promotion():
    assert torch.equal(torch.ones(2), torch.ones(2, dtype=torch.int64))
    assert not torch.equal(torch.tensor([1.5]), torch.tensor([1]))
    assert not torch.equal(torch.ones(2), torch.ones(3))
    assert not torch.equal(torch.ones(2, 1), torch.ones(2))
    nan = torch.tensor([float("nan"), 1.0])
    assert not torch.equal(nan, nan) and not nan.equal(nan.clone())
    assert torch.equal(torch.ones(0, 3), torch.ones(0, 3))


def test_isclose_follows_pytorchs_formula():
    a = np.array([1.0, 2.0, np.inf, -np.inf, np.nan, 0.0, 1e-9])
    b = np.array([1.0 + 1e-6, 2.1, np.inf, np.inf, np.nan, 1e-9, 0.0])
    got = torch.isclose(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    np.testing.assert_array_equal(got, np.isclose(a, b))
    np.testing.assert_array_equal(torch.isclose(torch.from_numpy(a), torch.from_numpy(b), equal_nan=True).numpy(),
                                  np.isclose(a, b, equal_nan=True))
    assert torch.isclose(torch.tensor([1, 2]), torch.tensor([1, 3])).tolist() == [True, False]
    assert torch.isclose(torch.tensor([True, False]), torch.tensor([True, True])).tolist() == [True, False]
    assert torch.isclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.1]), atol=0.2).tolist() == [True, True]


def test_isclose_and_allclose_errors_match_pytorch():
    with pytest.raises(RuntimeError, match="Float did not match Long"):
        torch.allclose(torch.ones(2), torch.ones(2, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero, but got -1"):
        torch.isclose(torch.ones(2), torch.ones(2), rtol=-1)
    with pytest.raises(RuntimeError, match="The size of tensor a"):
        torch.allclose(torch.ones(2), torch.ones(3))


def test_allclose_is_a_python_bool():
    assert torch.allclose(torch.ones(2), torch.ones(2) + 1e-6) is True
    assert torch.ones(2).allclose(torch.zeros(2)) is False


def test_isclose_measures_integer_errors_without_wrapping():
    u8 = torch.tensor([0, 250], dtype=torch.uint8), torch.tensor([255, 0], dtype=torch.uint8)
    assert torch.isclose(*u8, rtol=0, atol=1).tolist() == [False, False]
    i8 = torch.tensor([100], dtype=torch.int8), torch.tensor([-100], dtype=torch.int8)
    assert torch.isclose(*i8, rtol=0, atol=300).tolist() == [True]
    assert torch.isclose(torch.tensor([5]), torch.tensor([3]), rtol=0.5, atol=0).tolist() == [False]
