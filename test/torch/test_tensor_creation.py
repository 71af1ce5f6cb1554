"""Making tensors: torch.tensor (dtype inference, nesting, errors), the factories, from_numpy and
numpy() memory sharing, tolist/item, metadata of views, and repr (verified with PyTorch 2.13)."""
from __future__ import annotations

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import torch
from dtype_cases import ALL_DTYPES, NUMPY_OF, dtype_id



# ---------------------------------------------------------------------------------------------
# dtypes


def test_dtype_aliases_are_the_same_objects_as_the_sized_names():
    assert torch.float is torch.float32
    assert torch.double is torch.float64
    assert torch.long is torch.int64
    assert torch.int is torch.int32
    assert torch.short is torch.int16
    assert torch.half is torch.float16


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_dtypes_print_as_torch_attributes(dtype):
    assert repr(dtype) == f"torch.{dtype_id(dtype)}"
    assert dtype.is_floating_point == (dtype in (torch.float32, torch.float64))


def test_default_dtype_is_float32():
    assert torch.get_default_dtype() is torch.float32


# ---------------------------------------------------------------------------------------------
# torch.tensor: dtype inference and nesting


@pytest.mark.parametrize("data, dtype", [
    ([1, 2, 3], torch.int64),
    ([1.0, 2.0], torch.float32),
    ([True, False], torch.bool),
    ([1, 2.5], torch.float32),
    ([True, 1], torch.int64),
    ([1, 2.5, True], torch.float32),
    ([True, 2.5], torch.float32),
    (3, torch.int64),
    (3.5, torch.float32),
    (True, torch.bool),
    ([], torch.float32),
    ([[], []], torch.float32),
    ([[True]], torch.bool),
    (((1, 2), (3, 4)), torch.int64),
    ([(1, 2), [3, 4.0]], torch.float32),
])
def test_tensor_infers_the_dtype_from_the_python_values(data, dtype):
    assert torch.tensor(data).dtype == dtype


@pytest.mark.parametrize("data, shape", [
    (5, ()),
    ([5], (1,)),
    ([], (0,)),
    ([[]], (1, 0)),
    ([[], []], (2, 0)),
    ([[1, 2, 3], [4, 5, 6]], (2, 3)),
    ([[[1], [2]], [[3], [4]]], (2, 2, 1)),
    ((1, 2), (2,)),
    ([(1, 2), (3, 4), (5, 6)], (3, 2)),
])
def test_tensor_takes_its_shape_from_the_nesting(data, shape):
    t = torch.tensor(data)
    assert t.shape == shape
    assert t.dim() == len(shape)
    assert t.numel() == int(np.prod(shape))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_tensor_with_a_dtype_converts_the_values(dtype):
    t = torch.tensor([[0, 1], [2, 3]], dtype=dtype)
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.array([[0, 1], [2, 3]]).astype(NUMPY_OF[dtype]))


def test_tensor_with_an_integer_dtype_truncates_floats():
    assert torch.tensor([1.7, -1.7], dtype=torch.int32).tolist() == [1, -1]
    assert torch.tensor(1.5, dtype=torch.int32).item() == 1


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(dtype=st.sampled_from([np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                         np.float32, np.float64]),
                  shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)))
def test_tensor_of_a_numpy_array_copies_values_dtype_and_shape(array):
    t = torch.tensor(array)
    assert t.dtype == {v: k for k, v in NUMPY_OF.items()}[array.dtype]
    assert t.shape == array.shape
    assert t.is_contiguous()
    np.testing.assert_array_equal(t.numpy(), array)


@settings(max_examples=50, deadline=None)
@given(st.recursive(st.integers(-(2**31), 2**31) | st.floats(allow_nan=False, width=32) | st.booleans(),
                    lambda inner: st.lists(inner, min_size=1, max_size=3), max_leaves=20))
def test_tensor_round_trips_regular_nested_lists_through_tolist(data):
    try:
        expected = np.array(data)
    except ValueError:
        return  # ragged: covered by the error tests
    if expected.dtype == object:
        return
    t = torch.tensor(data)
    assert t.shape == expected.shape
    if t.dtype == torch.float32:
        np.testing.assert_array_equal(np.asarray(t.tolist(), dtype=np.float32), expected.astype(np.float32))
    else:
        assert t.tolist() == expected.astype(NUMPY_OF[t.dtype]).tolist()


def test_tensor_of_a_numpy_array_does_not_share_memory():
    a = np.array([1.0, 2.0])
    t = torch.tensor(a)
    a[0] = 100.0
    assert t.tolist() == [1.0, 2.0]


def test_tensor_of_a_strided_numpy_view_copies_the_viewed_values():
    a = np.arange(12).reshape(3, 4)
    t = torch.tensor(a[::2, 1::2])
    assert t.tolist() == [[1, 3], [9, 11]]
    assert t.is_contiguous()


def test_tensor_on_the_cpu_device():
    assert torch.tensor([1, 2], device="cpu").device == torch.device("cpu")
    assert torch.tensor([1, 2], device=torch.device("cpu")).device.type == "cpu"
    assert str(torch.tensor([1.0]).device) == "cpu"


def test_tensor_of_a_tensor_copies_with_a_warning():
    src = torch.tensor([1, 2])
    with pytest.warns(UserWarning, match="clone"):
        t = torch.tensor(src)
    assert t.tolist() == [1, 2]
    assert t.data_ptr() != src.data_ptr()


# ---------------------------------------------------------------------------------------------
# torch.tensor: errors


@pytest.mark.parametrize("data, message", [
    ([[1, 2], [3]], "expected sequence of length 2 at dim 1 (got 1)"),
    ([[1, 2], [3, 4, 5]], "expected sequence of length 2 at dim 1 (got 3)"),
    ([[1, 2], []], "expected sequence of length 2 at dim 1 (got 0)"),
    ([[[1], [2]], [[3], [4, 5]]], "expected sequence of length 1 at dim 2 (got 2)"),
])
def test_ragged_nesting_is_a_value_error_naming_the_expected_length(data, message):
    with pytest.raises(ValueError) as info:
        torch.tensor(data)
    assert str(info.value) == message


def test_a_scalar_where_a_sequence_is_expected_is_a_type_error():
    with pytest.raises(TypeError, match="not a sequence"):
        torch.tensor([[1], 2])


@pytest.mark.parametrize("data", [[1, [2]], [[1, 2], [3, [4, 5]]]])
def test_a_sequence_where_a_scalar_is_expected_is_reported_by_the_nesting_check(data):
    with pytest.raises((ValueError, TypeError)) as info:
        torch.tensor(data)
    assert "inhomogeneous" not in str(info.value)  # Ember's own check, not numpy's


def test_a_string_is_a_type_error():
    with pytest.raises(TypeError) as info:
        torch.tensor("a")
    assert str(info.value) == "new(): invalid data type 'str'"
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        torch.tensor([1, "a"])


def test_a_non_dtype_dtype_argument_is_a_type_error():
    with pytest.raises(TypeError, match="argument 'dtype' must be torch.dtype, not str"):
        torch.tensor([1, 2], dtype="float32")


def test_a_bad_device_string_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="device string: bogus"):
        torch.tensor([1, 2], device="bogus")


# ---------------------------------------------------------------------------------------------
# Factories


@pytest.mark.parametrize("factory, value", [(torch.zeros, 0), (torch.ones, 1)])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_zeros_and_ones_fill_every_dtype(factory, value, dtype):
    t = factory(2, 3, dtype=dtype)
    assert t.dtype == dtype
    assert t.shape == (2, 3)
    np.testing.assert_array_equal(t.numpy(), np.full((2, 3), value, dtype=NUMPY_OF[dtype]))


@pytest.mark.parametrize("factory", [torch.empty, torch.zeros, torch.ones])
def test_factories_take_the_size_as_varargs_a_tuple_a_list_or_a_size(factory):
    for size in [(2, 3), [2, 3], torch.Size([2, 3])]:
        assert factory(size).shape == (2, 3)
    assert factory(2, 3).shape == (2, 3)
    assert factory(4).shape == (4,)
    assert factory(()).shape == ()
    assert factory(0, 2).shape == (0, 2)


@pytest.mark.parametrize("factory", [torch.empty, torch.zeros, torch.ones])
def test_factories_default_to_float32_on_the_cpu_and_are_contiguous(factory):
    t = factory(2, 3, 4)
    assert t.dtype == torch.float32
    assert t.device == torch.device("cpu")
    assert t.is_contiguous()
    assert t.stride() == (12, 4, 1)


@pytest.mark.parametrize("value, dtype", [(3, torch.int64), (3.5, torch.float32), (True, torch.bool),
                                          (False, torch.bool), (-2, torch.int64)])
def test_full_infers_the_dtype_from_the_fill_value(value, dtype):
    t = torch.full((2, 2), value)
    assert t.dtype == dtype
    assert t.tolist() == [[value, value], [value, value]]


@pytest.mark.parametrize("value, dtype, expected", [
    (3, torch.float64, 3.0), (1.5, torch.int32, 1), (False, torch.float64, 0.0), (3, torch.bool, True),
    (-1.5, torch.float64, -1.5), (0.0, torch.bool, False),
])
def test_full_with_a_dtype_converts_the_fill_value(value, dtype, expected):
    t = torch.full((3,), value, dtype=dtype)
    assert t.dtype == dtype
    assert t.tolist() == [expected] * 3


def test_full_with_an_empty_size_is_zero_dim():
    assert torch.full((), 7).item() == 7
    assert torch.full([], 2.5).shape == ()


def test_full_with_a_value_that_overflows_the_dtype_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="overflow"):
        torch.full((3,), 300, dtype=torch.uint8)


def test_factories_accept_the_cpu_device():
    assert torch.zeros(2, device="cpu").device == torch.device("cpu")
    assert torch.empty(2, device=torch.device("cpu")).device.type == "cpu"
    assert torch.ones(2, device="cpu:0").tolist() == [1.0, 1.0]


@pytest.mark.parametrize("device, message", [
    ("foo", "device type at start of device string: foo"),
    ("cuda:x", "Invalid device string: 'cuda:x'"),
    ("cuda:0:1", "Invalid device string: 'cuda:0:1'"),
])
@pytest.mark.parametrize("factory", [torch.empty, torch.zeros, torch.ones])
def test_factories_reject_a_bad_device_string_with_a_runtime_error(factory, device, message):
    with pytest.raises(RuntimeError, match=message.replace("(", "\\(")):
        factory(2, device=device)


def test_factory_argument_errors():
    with pytest.raises(TypeError, match="argument 'size' \\(position 1\\) must be tuple of ints, not str"):
        torch.zeros("a")
    with pytest.raises(TypeError, match="argument 'dtype' must be torch.dtype, not str"):
        torch.zeros(2, dtype="float32")
    with pytest.raises(TypeError):
        torch.zeros((2, 3.5))
    with pytest.raises(TypeError, match="argument 'fill_value' \\(position 2\\) must be Number, not str"):
        torch.full((2,), "a")
    with pytest.raises(TypeError, match="argument 'size' \\(position 1\\) must be tuple of ints, not int"):
        torch.full(2, 1.0)
    with pytest.raises(RuntimeError):
        torch.zeros(-1)


# ---------------------------------------------------------------------------------------------
# fill_ and copy_


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_fill_writes_the_value_in_place_and_returns_self(dtype):
    t = torch.zeros(2, 3, dtype=dtype)
    ptr = t.data_ptr()
    out = t.fill_(1)
    assert out is t
    assert t.data_ptr() == ptr
    np.testing.assert_array_equal(t.numpy(), np.ones((2, 3), dtype=NUMPY_OF[dtype]))


def test_fill_converts_the_value_to_the_tensor_dtype():
    assert torch.zeros(2, dtype=torch.int32).fill_(3.7).tolist() == [3, 3]
    assert torch.zeros(2, dtype=torch.bool).fill_(3).tolist() == [True, True]
    assert torch.zeros(2, dtype=torch.uint8).fill_(-1).tolist() == [255, 255]
    assert torch.zeros(2).fill_(True).tolist() == [1.0, 1.0]


def test_fill_rejects_a_non_number():
    with pytest.raises(TypeError, match="fill_"):
        torch.zeros(2).fill_("a")


def test_fill_with_a_value_that_overflows_the_dtype_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="overflow"):
        torch.zeros(2, dtype=torch.int8).fill_(300)


def test_copy_broadcasts_and_converts_the_source_in_place():
    dst = torch.zeros(2, 3)
    out = dst.copy_(torch.tensor([1, 2, 3]))
    assert out is dst
    assert dst.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    assert torch.zeros(3, dtype=torch.int32).copy_(torch.tensor([1.7, -1.7, 2.5])).tolist() == [1, -1, 2]
    assert torch.zeros(3, dtype=torch.bool).copy_(torch.tensor([0.5, 0.0, -2.0])).tolist() == [True, False, True]


def test_copy_from_a_source_that_does_not_broadcast_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="The size of tensor a \\(3\\) must match the size of tensor b \\(2\\)"):
        torch.zeros(2, 3).copy_(torch.tensor([1, 2]))
    with pytest.raises(RuntimeError, match="output with shape \\[3\\] doesn't match the broadcast shape \\[2, 3\\]"):
        torch.zeros(3).copy_(torch.ones(2, 3))


# ---------------------------------------------------------------------------------------------
# from_numpy and numpy(): memory sharing


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_from_numpy_keeps_the_dtype_shape_and_values(dtype):
    a = np.arange(6).reshape(2, 3).astype(NUMPY_OF[dtype])
    t = torch.from_numpy(a)
    assert t.dtype == dtype
    assert t.shape == (2, 3)
    assert t.tolist() == a.tolist()


def test_writes_to_the_numpy_array_are_visible_in_the_tensor():
    a = np.zeros(4, dtype=np.int32)
    t = torch.from_numpy(a)
    a[2] = 7
    assert t.tolist() == [0, 0, 7, 0]


def test_writes_to_the_tensor_are_visible_in_the_numpy_array():
    a = np.zeros((2, 3))
    t = torch.from_numpy(a)
    t.fill_(2.5)
    np.testing.assert_array_equal(a, np.full((2, 3), 2.5))
    t.copy_(torch.tensor([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(a, [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])


def test_numpy_of_a_tensor_shares_memory_both_ways():
    t = torch.zeros(2, 2, dtype=torch.int64)
    view = t.numpy()
    view[0, 1] = 5
    assert t.tolist() == [[0, 5], [0, 0]]
    t.fill_(1)
    np.testing.assert_array_equal(view, np.ones((2, 2), dtype=np.int64))
    assert np.shares_memory(view, t.numpy())


def test_from_numpy_then_numpy_gives_back_the_same_memory():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    back = torch.from_numpy(a).numpy()
    assert np.shares_memory(a, back)
    assert back.dtype == np.float32 and back.shape == (3, 4)


def test_writes_through_a_strided_view_touch_only_the_viewed_elements():
    base = np.zeros((4, 6), dtype=np.int16)
    t = torch.from_numpy(base[1::2, ::3])
    t.fill_(9)
    expected = np.zeros((4, 6), dtype=np.int16)
    expected[1::2, ::3] = 9
    np.testing.assert_array_equal(base, expected)
    np.testing.assert_array_equal(t.numpy(), np.full((2, 2), 9, dtype=np.int16))


def test_the_tensor_keeps_the_numpy_memory_alive():
    t = torch.from_numpy(np.arange(5, dtype=np.int64) * 3)
    gc.collect()
    assert t.tolist() == [0, 3, 6, 9, 12]


@pytest.mark.parametrize("array", [np.zeros((2, 3))[:, ::-1], np.zeros((2, 3))[::-1], np.arange(5)[::-2]],
                         ids=["columns-reversed", "rows-reversed", "reversed-step"])
def test_from_numpy_of_a_negative_stride_array_is_a_value_error(array):
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        torch.from_numpy(array)


def test_from_numpy_rejects_non_arrays_and_unsupported_dtypes():
    with pytest.raises(TypeError, match="expected np.ndarray \\(got list\\)"):
        torch.from_numpy([1, 2])
    with pytest.raises(TypeError, match="can't convert np.ndarray of type numpy.float128"):
        torch.from_numpy(np.zeros(3, dtype=np.longdouble))


def test_from_numpy_of_a_read_only_array_warns():
    a = np.arange(3.0)
    a.flags.writeable = False
    with pytest.warns(UserWarning, match="not writable"):
        t = torch.from_numpy(a)
    assert t.tolist() == [0.0, 1.0, 2.0]


def test_from_numpy_of_a_zero_dim_array_is_a_zero_dim_tensor():
    t = torch.from_numpy(np.array(5.0))
    assert t.shape == () and t.dtype == torch.float64 and t.item() == 5.0


# ---------------------------------------------------------------------------------------------
# tolist, item, len and metadata


@pytest.mark.parametrize("dtype, values, kind", [
    (torch.bool, [True, False], bool), (torch.uint8, [1, 255], int), (torch.int8, [-1, 2], int),
    (torch.int16, [-300, 3], int), (torch.int32, [7, -(2**31)], int), (torch.int64, [2**62, -5], int),
    (torch.float32, [0.5, -1.25], float), (torch.float64, [0.1, 1e300], float),
], ids=dtype_id)
def test_tolist_and_item_give_python_scalars(dtype, values, kind):
    t = torch.tensor(values, dtype=dtype)
    got = t.tolist()
    assert got == values
    assert all(type(v) is kind for v in got)
    one = torch.tensor([values[0]], dtype=dtype).item()
    assert type(one) is kind and one == values[0]


def test_tolist_nests_like_the_shape_and_a_zero_dim_tensor_gives_a_scalar():
    assert torch.tensor([[1, 2], [3, 4]], dtype=torch.int16).tolist() == [[1, 2], [3, 4]]
    assert torch.tensor(2.5).tolist() == 2.5
    assert torch.zeros(2, 0).tolist() == [[], []]


def test_float32_item_is_the_float32_value_widened():
    assert torch.tensor([0.1]).item() == float(np.float32(0.1))


def test_item_of_more_than_one_element_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        torch.tensor([1, 2]).item()
    assert torch.tensor([[[7]]]).item() == 7


def test_len_is_the_size_of_the_first_dim_and_fails_for_zero_dim():
    assert len(torch.zeros(3, 2)) == 3
    assert len(torch.zeros(0)) == 0
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(torch.tensor(1))


def test_shape_is_a_torch_size_that_behaves_like_a_tuple():
    shape = torch.zeros(2, 3).shape
    assert isinstance(shape, torch.Size)
    assert isinstance(shape, tuple)
    assert shape == (2, 3)
    assert shape[-1] == 3
    assert shape[0:1] == torch.Size([2])
    assert repr(shape) == "torch.Size([2, 3])"
    assert repr(torch.tensor(1).shape) == "torch.Size([])"


@pytest.mark.parametrize("make, stride, contiguous", [
    (lambda: np.zeros((4, 6), dtype=np.float32), (6, 1), True),
    (lambda: np.zeros((4, 6), dtype=np.float32).T, (1, 6), False),
    (lambda: np.zeros((4, 6), dtype=np.float32)[::2, 1::2], (12, 2), False),
    (lambda: np.zeros((4, 6))[:, :1], (6, 1), False),
    (lambda: np.zeros((4, 6))[1:3], (6, 1), True),
    (lambda: np.zeros((4, 1), dtype=np.float32)[:, :], (1, 1), True),
    (lambda: np.zeros((1, 6))[:, ::2], (6, 2), False),
    (lambda: np.zeros((6, 1))[::2, :], (2, 1), False),
    (lambda: np.zeros((0, 6))[:, ::2], (0, 0), True),
    (lambda: np.zeros((2, 3, 4), dtype=np.int8).transpose(2, 0, 1), (1, 12, 4), False),
    (lambda: np.zeros(5, dtype=np.int16).view(np.uint8)[1:9:2], (2,), False),
], ids=["contiguous", "transposed", "stepped", "column", "row-slice", "size-one-column", "stepped-single-row",
        "stepped-size-one-column", "empty", "3d-permuted", "byte-view"])
def test_stride_and_is_contiguous_of_numpy_views_match_pytorch(make, stride, contiguous):
    t = torch.from_numpy(make())
    assert t.stride() == stride
    assert t.is_contiguous() == contiguous


def test_stride_of_new_tensors_is_row_major():
    assert torch.empty(2, 3, 4).stride() == (12, 4, 1)
    assert torch.ones(2, 1, 4).stride() == (4, 4, 1)
    assert torch.ones(2, 0, 4).stride() == (4, 4, 1)
    assert torch.zeros(1, 1).stride() == (1, 1)
    assert torch.zeros(()).stride() == ()


def test_dim_numel_and_stride_of_one_dim():
    t = torch.zeros(2, 3, 4)
    assert t.dim() == 3 and t.numel() == 24
    assert t.stride(0) == 12 and t.stride(-1) == 1


# ---------------------------------------------------------------------------------------------
# repr, verified against PyTorch 2.13


@pytest.mark.parametrize("make, expected", [
    (lambda: torch.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    (lambda: torch.tensor([[1, -20], [300, 4]]), "tensor([[  1, -20],\n        [300,   4]])"),
    (lambda: torch.tensor(3), "tensor(3)"),
    (lambda: torch.tensor([-5]), "tensor([-5])"),
    (lambda: torch.tensor([1.0, 2.0]), "tensor([1., 2.])"),
    (lambda: torch.tensor([100.0, -3.0]), "tensor([100.,  -3.])"),
    (lambda: torch.tensor([0.0, 0.0]), "tensor([0., 0.])"),
    (lambda: torch.tensor([1.0, 2.5]), "tensor([1.0000, 2.5000])"),
    (lambda: torch.tensor([0.5, 0.25, 0.125]), "tensor([0.5000, 0.2500, 0.1250])"),
    (lambda: torch.tensor([-1.5, 2]), "tensor([-1.5000,  2.0000])"),
    (lambda: torch.tensor([0.1, 100.0]), "tensor([  0.1000, 100.0000])"),
    (lambda: torch.tensor(3.5), "tensor(3.5000)"),
    (lambda: torch.tensor([[1.5, 2], [3, 4]]), "tensor([[1.5000, 2.0000],\n        [3.0000, 4.0000]])"),
    (lambda: torch.tensor([[0.001, 1.0]]), "tensor([[0.0010, 1.0000]])"),
    (lambda: torch.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    (lambda: torch.tensor([0.1, 1000.0]), "tensor([1.0000e-01, 1.0000e+03])"),
    (lambda: torch.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: torch.tensor([123456789.0]), "tensor([1.2346e+08])"),
    (lambda: torch.tensor([float("nan"), 1.5, float("-inf")]), "tensor([   nan, 1.5000,   -inf])"),
    (lambda: torch.tensor(float("nan")), "tensor(nan)"),
    (lambda: torch.tensor([True, False]), "tensor([ True, False])"),
    (lambda: torch.tensor([[True, False], [False, True]]), "tensor([[ True, False],\n        [False,  True]])"),
    (lambda: torch.tensor(True), "tensor(True)"),
    (lambda: torch.tensor([1, 2], dtype=torch.int32), "tensor([1, 2], dtype=torch.int32)"),
    (lambda: torch.tensor([1, 2], dtype=torch.int8), "tensor([1, 2], dtype=torch.int8)"),
    (lambda: torch.tensor(-7, dtype=torch.int16), "tensor(-7, dtype=torch.int16)"),
    (lambda: torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.uint8),
     "tensor([[1, 2, 3],\n        [4, 5, 6]], dtype=torch.uint8)"),
    (lambda: torch.tensor([[1, 2], [3, 4]], dtype=torch.float64),
     "tensor([[1., 2.],\n        [3., 4.]], dtype=torch.float64)"),
    (lambda: torch.tensor([1.5, 2.25, -3], dtype=torch.float64),
     "tensor([ 1.5000,  2.2500, -3.0000], dtype=torch.float64)"),
    (lambda: torch.tensor(2.5, dtype=torch.float64), "tensor(2.5000, dtype=torch.float64)"),
    (lambda: torch.tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
     "tensor([[[1, 2],\n         [3, 4]],\n\n        [[5, 6],\n         [7, 8]]])"),
    (lambda: torch.tensor([]), "tensor([])"),
    (lambda: torch.tensor([[]]), "tensor([], size=(1, 0))"),
    (lambda: torch.tensor([], dtype=torch.int32), "tensor([], dtype=torch.int32)"),
    (lambda: torch.tensor([], dtype=torch.int64), "tensor([], dtype=torch.int64)"),
    (lambda: torch.zeros(0, 2, dtype=torch.int32), "tensor([], size=(0, 2), dtype=torch.int32)"),
    (lambda: torch.zeros(2, 0, 3), "tensor([], size=(2, 0, 3))"),
])
def test_repr_matches_pytorch(make, expected):
    assert repr(make()) == expected


def test_repr_of_a_non_contiguous_view_shows_the_viewed_values():
    t = torch.from_numpy(np.arange(12).reshape(3, 4).T[::2])
    assert repr(t) == "tensor([[ 0,  4,  8],\n        [ 2,  6, 10]])"


@pytest.mark.parametrize("make, expected", [
    pytest.param(lambda: torch.tensor([float("nan"), 1.0, float("inf")]), "tensor([nan, 1., inf])",
                 id="nan-and-inf-widen-whole-number-columns"),
    pytest.param(lambda: torch.tensor([-0.0, 1.0]), "tensor([-0., 1.])", id="negative-zero-widens-columns"),
    pytest.param(lambda: torch.tensor([1.0, -1.0, 12345.0]), "tensor([ 1.0000e+00, -1.0000e+00,  1.2345e+04])",
                 id="whole-numbers-spanning-over-1000x-use-scientific"),
    pytest.param(lambda: torch.tensor([100000000.0]), "tensor([100000000.])", id="1e8-is-still-a-whole-number"),
    pytest.param(lambda: torch.tensor(list(range(1001))),
                 "tensor([   0,    1,    2,  ...,  998,  999, 1000])", id="summary-ellipsis-spacing"),
])
def test_repr_edge_cases_match_pytorch(make, expected):
    assert repr(make()) == expected


def test_numpy_scalars_keep_their_dtype():
    assert torch.tensor(np.int32(2)).dtype is torch.int32
    assert torch.tensor(np.float64(2.0)).dtype is torch.float64
    assert torch.tensor(np.bool_(True)).dtype is torch.bool


def test_explicit_dtype_converts_like_a_cast():
    assert torch.tensor([-1], dtype=torch.uint8).tolist() == [255]
    assert torch.tensor([1.7, -2.7], dtype=torch.int64).tolist() == [1, -2]


def test_python_int_beyond_int64_is_a_value_error():
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        torch.tensor([2 ** 64])


@pytest.mark.parametrize("dtype, value, c_name", [(torch.float32, 1e300, "float"), (torch.int64, 1e300, "int64_t"),
                                                  (torch.int32, -1e20, "int")])
def test_fill_with_a_huge_finite_float_is_an_overflow_error(dtype, value, c_name):
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {c_name} without overflow"):
        torch.zeros(2, dtype=dtype).fill_(value)


def test_fill_with_infinity_or_nan_is_allowed_for_floats():
    assert torch.zeros(1).fill_(float("inf")).item() == float("inf")
    assert torch.zeros(1, dtype=torch.float64).fill_(float("nan")).item() != 0
