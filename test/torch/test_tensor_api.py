"""The Tensor class surface PyTorch users type daily: legacy constructors, as_tensor, the
metadata properties (T, mT, H, mH, data, itemsize, nbytes, untyped_storage), detach, new and
new_tensor, numpy() on tensors that require grad, and torch.tensor's dtype inference over
nested sequences holding tensors and numpy values. Errors and results were checked against
PyTorch 2.13."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import torch


# -- legacy constructors ---------------------------------------------------------------------

def test_tensor_constructor_with_sizes_makes_an_uninitialised_default_dtype_tensor():
    t = torch.Tensor(2, 3)
    assert t.shape == (2, 3) and t.dtype == torch.float32 and t.stride() == (3, 1)
    assert torch.Tensor(torch.Size([4, 1])).shape == (4, 1)
    assert torch.Tensor().shape == (0,) and torch.Tensor(device="cpu").shape == (0,)
    assert type(t) is torch.Tensor


def test_tensor_constructor_with_data_copies_it_in_the_default_dtype():
    assert torch.Tensor([1, 2]).tolist() == [1.0, 2.0] and torch.Tensor([1, 2]).dtype == torch.float32
    assert torch.Tensor((2, 3)).tolist() == [2.0, 3.0]              # a tuple is data, a Size is sizes
    a = np.array([1, 2], dtype=np.int64)
    t = torch.Tensor(a)
    assert t.dtype == torch.float32 and t.tolist() == [1.0, 2.0]
    t[0] = 5
    assert a[0] == 1
    assert torch.Tensor(()).shape == (0,) and torch.Tensor(np.array(3.)).shape == ()


def test_tensor_constructor_of_a_tensor_is_an_alias():
    x = torch.ones(2, dtype=torch.int64)
    y = torch.Tensor(x)
    assert y.dtype == torch.int64 and y.data_ptr() == x.data_ptr()
    y[0] = 7
    assert x[0].item() == 7


@pytest.mark.parametrize("args, kwargs, error, message", [
    ((3.5,), {}, TypeError, "new(): data must be a sequence (got float)"),
    (("a",), {}, TypeError, "new(): invalid data type 'str'"),
    ((2, 3.0), {}, TypeError, "new(): argument 'size' failed to unpack the object at pos 2 with error "
                              "\"type must be tuple of ints,but got float\""),
    ((-1,), {}, RuntimeError, "Trying to create tensor with negative dimension -1: [-1]"),
    (([[1], [2, 3]],), {}, ValueError, "expected sequence of length 1 at dim 1 (got 2)"),
    (([1, 2],), {"dtype": torch.int64}, TypeError, "new() received an invalid combination of arguments - got "
                                                   "(list, dtype=torch.dtype), but expected one of:"),
])
def test_tensor_constructor_rejects_bad_arguments_as_pytorch(args, kwargs, error, message):
    with pytest.raises(error) as info:
        torch.Tensor(*args, **kwargs)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("name, dtype", [("FloatTensor", torch.float32), ("DoubleTensor", torch.float64),
                                         ("HalfTensor", torch.float16), ("LongTensor", torch.int64),
                                         ("IntTensor", torch.int32), ("ShortTensor", torch.int16),
                                         ("CharTensor", torch.int8), ("ByteTensor", torch.uint8),
                                         ("BoolTensor", torch.bool)])
def test_typed_constructors_make_their_dtype_and_match_isinstance(name, dtype):
    cls = getattr(torch, name)
    assert cls.dtype is dtype and repr(cls) == f"<class 'torch.{name}'>"
    t = cls([1, 0])
    assert t.dtype is dtype and t.tolist() == [v if dtype != torch.bool else bool(v) for v in
                                               ([1.0, 0.0] if dtype.is_floating_point else [1, 0])]
    assert cls(3).shape == (3,) and cls(3).dtype is dtype
    assert isinstance(t, cls) and isinstance(t, torch.Tensor)
    other = torch.float64 if dtype != torch.float64 else torch.float32
    assert not isinstance(torch.ones(1, dtype=other), cls)
    assert t.type() == f"torch.{name}"


def test_typed_constructor_of_a_tensor_of_another_dtype_raises():
    with pytest.raises(TypeError, match=r"expected TensorOptions\(dtype=long int.*\(got TensorOptions\(dtype=float"):
        torch.LongTensor(torch.ones(2))
    assert torch.LongTensor([1.5]).tolist() == [1]


def test_new_builds_in_the_tensors_dtype():
    base = torch.ones(2, dtype=torch.int32)
    assert base.new(2, 3).dtype == torch.int32 and base.new(2, 3).shape == (2, 3)
    assert base.new([1, 2]).tolist() == [1, 2] and base.new([1, 2]).dtype == torch.int32
    assert base.new().shape == (0,)
    with pytest.raises(TypeError, match=r"new\(\): data must be a sequence \(got float\)"):
        base.new(3.5)


def test_new_tensor_copies_data_in_the_tensors_dtype():
    base = torch.ones(2, dtype=torch.float64)
    t = base.new_tensor([1, 2])
    assert t.dtype == torch.float64 and t.tolist() == [1.0, 2.0]
    assert base.new_tensor([1, 2], dtype=torch.int32).dtype == torch.int32
    src = torch.arange(2)
    with pytest.warns(UserWarning, match="To copy construct from a tensor"):
        copy = torch.ones(2).new_tensor(src)
    assert copy.dtype == torch.float32 and copy.data_ptr() != src.data_ptr()
    assert torch.ones(1).new_tensor([1.0], requires_grad=True).requires_grad


# -- as_tensor and torch.tensor ----------------------------------------------------------------

def test_as_tensor_shares_numpy_memory_when_the_dtype_matches():
    a = np.arange(3.0)
    t = torch.as_tensor(a)
    t[0] = 7
    assert a[0] == 7 and t.dtype == torch.float64
    converted = torch.as_tensor(a, dtype=torch.float32)
    converted[1] = 9
    assert a[1] == 1 and converted.dtype == torch.float32
    strided = np.arange(6)[::2]
    assert torch.as_tensor(strided).tolist() == [0, 2, 4]
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        torch.as_tensor(np.arange(3)[::-1])


def test_as_tensor_returns_a_tensor_itself_when_nothing_changes():
    x = torch.ones(2)
    assert torch.as_tensor(x) is x
    assert torch.as_tensor(x, dtype=torch.float64).dtype == torch.float64
    assert torch.as_tensor([1, 2]).dtype == torch.int64 and torch.as_tensor(3).shape == ()


@pytest.mark.parametrize("make, dtype", [
    (lambda: [torch.tensor(1, dtype=torch.int32), 2], torch.int64),
    (lambda: [torch.tensor(1, dtype=torch.int32)], torch.int32),
    (lambda: [np.float64(1.5)], torch.float64),
    (lambda: [np.int32(1)], torch.int32),
    (lambda: [np.float32(1.5), 2], torch.float32),
    (lambda: [[1, 2], np.array([1, 2], dtype=np.int16)], torch.int64),
    (lambda: [np.array([1, 2], dtype=np.int32)] * 2, torch.int32),
    (lambda: [torch.tensor(1., dtype=torch.float16), 1.5], torch.float32),
    (lambda: [torch.tensor(1., dtype=torch.float64), 1], torch.float64),
    (lambda: [torch.tensor(True), 2.5], torch.float32),
    (lambda: [[], []], torch.float32),
])
def test_tensor_infers_the_promoted_dtype_of_nested_elements(make, dtype):
    assert torch.tensor(make()).dtype == dtype


def test_tensor_reads_one_element_tensors_in_a_list_as_numbers():
    assert torch.tensor([torch.tensor([1.]), torch.tensor([2.])]).tolist() == [1.0, 2.0]
    assert torch.tensor([[torch.tensor(1.)], [torch.tensor(2.)]]).shape == (2, 1)
    assert torch.tensor([torch.tensor(1, dtype=torch.uint8), -1]).tolist() == [1, -1]
    with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
        torch.tensor([torch.ones(2), torch.zeros(2)])
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        torch.tensor([np.arange(2), np.arange(3)])


def test_tensor_of_a_tensor_copies_it_keeping_its_dtype_and_warns():
    src = torch.ones(2, dtype=torch.int32)
    with pytest.warns(UserWarning, match=r"sourceTensor.detach\(\).clone\(\)"):
        copy = torch.tensor(src)
    assert copy.dtype == torch.int32 and copy.data_ptr() != src.data_ptr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.tensor(src, dtype=torch.float64).dtype == torch.float64


# -- properties --------------------------------------------------------------------------------

def test_T_reverses_dims_and_warns_outside_matrices():
    x = torch.arange(24.).reshape(2, 3, 4)
    with pytest.warns(UserWarning, match="The use of `x.T` on tensors of dimension other than 2"):
        assert x.T.shape == (4, 3, 2)
    np.testing.assert_array_equal(torch.arange(6.).reshape(2, 3).T.numpy(), np.arange(6.).reshape(2, 3).T)
    assert torch.ones(3).T.shape == (3,)
    with pytest.warns(UserWarning, match="Tensor.T is deprecated on 0-D tensors"):
        assert torch.tensor(1.).T.item() == 1.0


def test_mT_mH_and_H_transpose_matrices_and_reject_vectors():
    x = torch.arange(24.).reshape(2, 3, 4)
    np.testing.assert_array_equal(x.mT.numpy(), np.swapaxes(x.numpy(), -1, -2))
    np.testing.assert_array_equal(x.mH.numpy(), np.swapaxes(x.numpy(), -1, -2))
    m = torch.arange(6.).reshape(2, 3)
    assert m.H.shape == (3, 2) and m.H.data_ptr() == m.data_ptr()
    with pytest.raises(RuntimeError, match="tensor.mT is only supported on matrices or batches of matrices. Got 1-D tensor."):
        torch.ones(3).mT
    with pytest.raises(RuntimeError, match="tensor.mH is only supported on matrices or batches of matrices. Got 1-D"):
        torch.ones(3).mH
    with pytest.raises(RuntimeError, match="tensor.H is only supported on matrices \\(2-D tensors\\). Got 3-D tensor. "
                                           "For batches of matrices, consider using tensor.mH"):
        x.H
    with pytest.raises(RuntimeError, match="Got 1-D tensor.$"):
        torch.ones(3).H


def test_data_is_an_alias_without_grad_and_assigning_it_swaps_the_contents():
    x = torch.ones(2, requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    d[0] = 3
    assert x[0].item() == 3
    y = torch.zeros(3, dtype=torch.float64)
    version = x._version
    x.data = y
    assert x.dtype == torch.float64 and x.shape == (3,) and x.data_ptr() == y.data_ptr()
    assert x._version == version and x.requires_grad
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got int"):
        x.data = 3


def test_detach_shares_storage_and_version_and_drops_requires_grad():
    x = torch.ones(2, 3, requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    d.add_(1)
    assert x._version == d._version == 1 and x[0, 0].item() == 2
    assert torch.detach(x).shape == (2, 3)
    assert x.detach_() is x and not x.requires_grad


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                                   torch.float16, torch.float32, torch.float64])
def test_itemsize_and_nbytes_count_elements_not_storage(dtype):
    x = torch.zeros(2, 3, dtype=dtype)
    size = np.dtype(dtype.numpy_dtype).itemsize
    assert x.itemsize == x.element_size() == size
    assert x.nbytes == 6 * size and x[:, :2].nbytes == 4 * size
    assert x.expand(4, 2, 3).nbytes == 24 * size


def test_untyped_storage_is_the_shared_bytes():
    x = torch.ones(2)
    s = x.untyped_storage()
    assert s.nbytes() == s.size() == len(s) == 8 and s.element_size() == 1
    assert s.tolist() == list(np.ones(2, dtype=np.float32).view(np.uint8))
    assert x[1:].untyped_storage().data_ptr() == s.data_ptr() and x[1:].untyped_storage()._cdata == s._cdata
    assert torch.ones(2).untyped_storage()._cdata != s._cdata
    assert s.device == torch.device("cpu") and s[2] == 128
    assert repr(s).endswith("[torch.storage.UntypedStorage(device=cpu) of size 8]")
    assert torch.UntypedStorage(5).nbytes() == 5
    with pytest.raises(IndexError):
        s[8]


def test_numpy_of_a_tensor_that_requires_grad_raises_unless_forced():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad. "
                                           r"Use tensor.detach\(\).numpy\(\) instead."):
        x.numpy()
    forced = x.numpy(force=True)
    assert forced.tolist() == [1.0, 1.0]


def test_device_metadata_of_a_cpu_tensor():
    x = torch.ones(2)
    assert x.is_cpu and not x.is_cuda and x.get_device() == -1 and x.layout == torch.strided
    assert torch._C.TensorBase in type(x).__mro__


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=4),
       dtype=st.sampled_from([torch.float32, torch.float64, torch.int64, torch.int16, torch.uint8, torch.bool]))
def test_legacy_and_as_tensor_constructors_agree_with_numpy(shape, dtype):
    data = (np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(dtype.numpy_dtype)
    assert torch.as_tensor(data).tolist() == data.tolist()
    assert torch.Tensor(*shape).shape == tuple(shape) if shape else torch.Tensor().shape == (0,)
    typed = {torch.float32: torch.FloatTensor, torch.float64: torch.DoubleTensor, torch.int64: torch.LongTensor,
             torch.int16: torch.ShortTensor, torch.uint8: torch.ByteTensor, torch.bool: torch.BoolTensor}[dtype]
    made = typed(data.tolist()) if data.ndim else typed([data.item()])
    assert made.dtype == dtype
    assert made.tolist() == (data.tolist() if data.ndim else [data.item()])


def test_size_indexing_gives_ints_and_slices_give_sizes():
    import pickle
    s = torch.ones(2, 3, 4).shape
    assert type(s) is torch.Size and s == (2, 3, 4) and s[0] == 2 and s[-1] == 4
    assert type(s[1:]) is torch.Size and s[1:] == (3, 4) and s[::-1] == (4, 3, 2)
    assert type(s + (5,)) is torch.Size and s.numel() == 24 and torch.ones(()).shape.numel() == 1
    assert pickle.loads(pickle.dumps(s)) == s and type(pickle.loads(pickle.dumps(s))) is torch.Size
    assert repr(s[:0]) == "torch.Size([])" and torch.ones(2).size(-1) == 2 and torch.ones(2, 5).size() == (2, 5)
    with pytest.raises(IndexError, match="tuple index out of range"):
        s[3]
    with pytest.raises(TypeError, match="tuple indices must be integers or slices, not str"):
        s["a"]


def test_conversions_to_python_numbers_raise_pytorchs_errors():
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with no values is ambiguous"):
        bool(torch.tensor([]))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(torch.ones(2))
    for convert in (int, float):
        with pytest.raises(ValueError, match="only one element tensors can be converted to Python scalars"):
            convert(torch.ones(2))
    assert int(torch.tensor(2.7)) == 2 and float(torch.tensor([2.5])) == 2.5
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        torch.ones(2).item()


def test_hash_is_identity():
    x = torch.ones(2)
    assert hash(x) == id(x) and len({x, torch.ones(2)}) == 2


def test_numpy_ufuncs_on_tensors_give_tensors():
    out = np.exp(torch.zeros(2))
    assert isinstance(out, torch.Tensor) and out.tolist() == [1.0, 1.0]
    compared = np.greater(torch.ones(2), 0)
    assert compared.dtype == torch.uint8 and compared.tolist() == [1, 1]      # as PyTorch: bool comes back as uint8
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        np.asarray(torch.ones(2, requires_grad=True))


def test_is_contiguous_answers_for_each_memory_format():
    x = torch.ones(2, 3, 4, 5)
    cl = x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    assert x.is_contiguous() and x.is_contiguous(memory_format=torch.contiguous_format)
    assert not x.is_contiguous(memory_format=torch.channels_last)
    assert cl.is_contiguous(memory_format=torch.channels_last) and not cl.is_contiguous()
    assert not cl.is_contiguous(memory_format=torch.preserve_format)
    assert torch.ones(1, 1, 1, 1).is_contiguous(memory_format=torch.channels_last)
    assert not torch.ones(2).is_contiguous(memory_format=torch.channels_last)


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(0, 3), min_size=0, max_size=4),
       dtype=st.sampled_from([torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                              torch.float16, torch.float32, torch.float64]),
       transpose=st.booleans())
def test_tolist_and_item_read_every_dtype_and_layout_as_numpy(shape, dtype, transpose):
    rng = np.random.default_rng(len(shape))
    if dtype == torch.bool:
        a = rng.random(shape) > 0.5
    elif dtype.is_floating_point:
        a = (rng.standard_normal(shape) * 1e3).astype(dtype.numpy_dtype)
    else:
        info = np.iinfo(dtype.numpy_dtype)
        a = rng.integers(info.min, info.max, size=shape, dtype=dtype.numpy_dtype, endpoint=True)
    a = np.array(a)   # a fresh C-contiguous array, 0-dim included
    t = torch.from_numpy(a)
    if transpose and t.dim() >= 2:
        t, a = t.transpose(0, -1), np.swapaxes(a, 0, -1)
    assert t.tolist() == a.tolist()
    if a.size == 1:
        value = t.item()
        assert value == a.item() and type(value) is type(a.item())


_DTYPES = [None, torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
           torch.float32, torch.float64]


@settings(max_examples=80, deadline=None)
@given(shape=st.lists(st.integers(0, 3), min_size=0, max_size=3), kind=st.sampled_from(["bool", "int", "float", "mixed"]),
       dtype=st.sampled_from(_DTYPES), as_tuple=st.booleans())
def test_tensor_from_python_numbers_matches_numpys_conversion(shape, kind, dtype, as_tuple):
    rng = np.random.default_rng(len(shape) * 7 + len(kind))
    values = rng.integers(-100, 100, size=shape)
    if kind == "bool":
        data = (values > 0).tolist()
    elif kind == "float":
        data = (values / 8).tolist()
    elif kind == "mixed":       # ints and floats together: the default float dtype, as PyTorch
        data = np.where(values > 0, values / 8, 0).tolist()
        if values.size:
            flat = data
            while isinstance(flat, list) and isinstance(flat[0], list):
                flat = flat[0]
            if isinstance(flat, list):
                flat[0] = int(values.flat[0])
    else:
        data = values.tolist()
    if as_tuple and isinstance(data, list):
        data = tuple(data)
    if dtype is not None and kind in ("float", "mixed") and not dtype.is_floating_point:
        return    # floats into integer dtypes go through the general path (tested elsewhere)
    t = torch.tensor(data, dtype=dtype)
    def leaves(v):
        return [x for item in v for x in leaves(item)] if isinstance(v, (list, tuple)) else [v]

    kinds = {type(v) for v in leaves(data)}
    inferred = torch.float32 if float in kinds else torch.int64 if int in kinds else torch.bool
    expected_dtype = dtype or inferred
    if not values.size and dtype is None:
        expected_dtype = torch.float32
    assert t.dtype == expected_dtype and t.shape == np.asarray(data).shape
    reference = np.asarray(data, dtype=np.float64 if expected_dtype.is_floating_point else None)
    reference = reference.astype(np.float32).astype(expected_dtype.numpy_dtype) if expected_dtype == torch.float16 \
        else reference.astype(expected_dtype.numpy_dtype)
    assert t.tolist() == reference.tolist()
