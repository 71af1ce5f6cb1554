"""Tensor.fill_ / torch.fill with a 0-dim tensor value (PyTorch's fill_.Tensor overload), and the
device and layout predicates of tensors Ember cannot have."""
import numpy as np
import pytest

import torch


def test_fill_with_a_zero_dim_tensor_converts_its_value_to_the_dtype():
    t = torch.zeros(2, 3)
    assert t.fill_(torch.tensor(3.5)) is t and t.tolist() == [[3.5] * 3] * 2
    assert torch.zeros(2, dtype=torch.int64).fill_(torch.tensor(2.7)).tolist() == [2, 2]
    assert torch.fill(torch.zeros(2), torch.tensor(1.5)).tolist() == [1.5, 1.5]


def test_fill_refuses_a_value_with_dimensions():
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1"):
        torch.zeros(2).fill_(torch.ones(2))


def test_fill_gradient_flows_to_the_value_not_the_filled_tensor():
    v = torch.tensor(2.0, requires_grad=True)
    x = torch.zeros(3, requires_grad=True)
    x.clone().fill_(v).mul(torch.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert v.grad.item() == 6.0 and np.array_equal(x.grad.numpy(), np.zeros(3, np.float32))


@pytest.mark.parametrize("name", ["is_xpu", "is_mps", "is_meta", "is_ipu", "is_xla", "is_vulkan", "is_mtia",
                                  "is_maia", "is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested"])
def test_predicates_of_devices_and_layouts_ember_has_no_tensors_on_are_false(name):
    assert getattr(torch.zeros(1), name) is False
