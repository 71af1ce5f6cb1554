"""dtype objects and promote_types (PyTorch's c10/core/ScalarType.cpp table)."""
import pickle

import numpy as np
import pytest

import torch


def test_dtype_objects_carry_pytorchs_attributes():
    assert repr(torch.float32) == "torch.float32"
    assert torch.float is torch.float32 and torch.double is torch.float64 and torch.long is torch.int64
    assert torch.int is torch.int32 and torch.short is torch.int16 and torch.half is torch.float16
    assert torch.float64.itemsize == 8 and torch.bool.itemsize == 1
    assert torch.float32.is_floating_point and not torch.int64.is_floating_point
    assert torch.int8.is_signed and not torch.uint8.is_signed


def test_dtypes_pickle_to_the_same_object():
    assert pickle.loads(pickle.dumps(torch.int16)) is torch.int16


@pytest.mark.parametrize("a, b, expected", [
    ("uint8", "int8", "int16"), ("bool", "uint8", "uint8"), ("int32", "int64", "int64"),
    ("int64", "float32", "float32"), ("float16", "float32", "float32"), ("bool", "bool", "bool"),
    ("int8", "float64", "float64"), ("uint8", "int64", "int64"), ("bool", "float16", "float16"),
])
def test_promote_types_matches_pytorchs_table(a, b, expected):
    da, db = getattr(torch, a), getattr(torch, b)
    assert torch.promote_types(da, db) is getattr(torch, expected)
    assert torch.promote_types(db, da) is getattr(torch, expected)


def test_promotion_never_loses_category_and_agrees_with_numpy_where_numpy_is_pytorchs_rule():
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"]
    for a in names:
        for b in names:
            got = torch.promote_types(getattr(torch, a), getattr(torch, b))
            if "float" in a or "float" in b:
                assert got.is_floating_point
            if not (a == "int64" and "float" in b or b == "int64" and "float" in a) and \
                    not ({a, b} & {"int32"} and {a, b} & {"float32"}):
                # numpy widens int64+float32 to float64; PyTorch keeps float32. Elsewhere they agree.
                assert np.dtype(got.numpy_dtype) == np.promote_types(getattr(np, a if a != "bool" else "bool_"),
                                                                     getattr(np, b if b != "bool" else "bool_")), (a, b)


def test_default_dtype_can_be_switched_to_double_and_back():
    assert torch.get_default_dtype() is torch.float32
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.tensor([1.5]).dtype is torch.float64
        assert torch.zeros(2).dtype is torch.float64
    finally:
        torch.set_default_dtype(torch.float32)
    with pytest.raises(TypeError, match="only floating-point types"):
        torch.set_default_dtype(torch.int64)
