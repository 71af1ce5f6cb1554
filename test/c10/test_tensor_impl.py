"""TensorImpl metadata: sizes, strides, contiguity, storage sharing and alignment."""
import numpy as np
import pytest

import torch
from c10 import tensor_impl


def test_new_tensor_is_contiguous_with_row_major_strides_and_aligned_storage():
    t = torch.empty(2, 3, 4)
    assert t.stride() == (12, 4, 1) and t.is_contiguous() and t.storage_offset() == 0
    assert t.data_ptr() % 64 == 0
    assert t._untyped_storage.nbytes() == 2 * 3 * 4 * 4


def test_from_numpy_view_keeps_strides_offset_and_shares_memory():
    a = np.arange(24, dtype=np.int64).reshape(4, 6)
    t = torch.from_numpy(a[1:, ::2])
    assert t.shape == (3, 3) and t.stride() == (6, 2) and not t.is_contiguous()
    a[1, 0] = 100
    assert t.tolist()[0][0] == 100
    del a
    assert t.tolist()[0] == [100, 8, 10]  # the storage keeps the array alive


def test_size_one_dims_and_empty_tensors_count_as_contiguous():
    assert torch.from_numpy(np.zeros((3, 1))[:, ::5]).is_contiguous()
    assert torch.empty(0, 5).is_contiguous() and torch.empty(0, 5).numel() == 0


def test_every_tensor_has_a_version_counter_starting_at_zero():
    t = torch.zeros(3)
    v = t._version
    t.fill_(2.0)
    assert t._version > v


def test_negative_size_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        torch.empty(2, -1)


def test_more_than_sixteen_dims_is_refused_with_the_limit():
    with pytest.raises(RuntimeError, match="at most 16 dimensions"):
        torch.empty([1] * 17)


def test_tensor_impl_cannot_be_constructed_directly():
    with pytest.raises(TypeError, match="cannot be constructed directly"):
        tensor_impl.TensorImpl()


def test_wrapped_numbers_are_zero_dim_and_marked():
    t = tensor_impl.scalar_to_tensor(2.5)
    assert t.dim() == 0 and t._is_wrapped_number and t.dtype is torch.float64
    assert tensor_impl.scalar_to_tensor(True).dtype is torch.bool
    with pytest.raises(OverflowError, match="int too big to convert"):      # PyTorch's, from its unpacking
        tensor_impl.scalar_to_tensor(2 ** 70)
    with pytest.raises(RuntimeError, match="without overflow"):     # PyTorch's uint64 range: Ember has no uint64
        tensor_impl.scalar_to_tensor(2 ** 63)
