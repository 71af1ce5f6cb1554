"""aten::threshold_backward, the op relu's and threshold's gradients use: upstream's
`self <= threshold ? 0 : grad_output`, one kernel on each device, checked against NumPy."""
import numpy as np
import pytest

import torch

DEVICES = ["cpu", pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")])]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("threshold", [0.0, 1.5, -2])
def test_threshold_backward_selects_as_upstream(device, threshold):
    rng = np.random.default_rng(0)
    self = rng.standard_normal(64).astype(np.float32) * 3
    self[:4] = [np.nan, threshold, np.inf, -np.inf]
    grad = rng.standard_normal(64).astype(np.float32)
    grad[4] = np.inf
    got = torch.ops.aten.threshold_backward(torch.from_numpy(grad).to(device), torch.from_numpy(self).to(device),
                                            threshold)
    expected = np.where(self <= threshold, np.float32(0), grad)        # NaN is not <= : its gradient passes
    np.testing.assert_array_equal(got.cpu().numpy(), expected)


@pytest.mark.parametrize("device", DEVICES)
def test_relu_passes_the_gradient_of_nan_as_upstream(device):
    values = np.array([-1.0, 0.0, 2.0, np.nan], dtype=np.float32)
    x = torch.tensor(values, device=device, requires_grad=True)
    torch.relu(x).sum().backward()
    result = np.maximum(values, 0)                       # relu keeps NaN; its gradient is taken at the result
    np.testing.assert_array_equal(x.grad.cpu().numpy(), np.where(result <= 0, 0, 1).astype(np.float32))


def test_threshold_backward_promotes_its_operands():
    got = torch.ops.aten.threshold_backward(torch.ones(3, dtype=torch.int64), torch.tensor([1.0, -1.0, 2.0]), 0)
    assert got.dtype == torch.float32 and got.tolist() == [1.0, 0.0, 1.0]
