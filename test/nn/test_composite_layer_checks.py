"""The argument checks PyTorch makes in the layer functions and losses Ember writes as composite
operators (prelu, bilinear, smooth_l1/huber/kl_div), with its error types and messages."""
import pytest

import torch
import torch.nn.functional as F


@pytest.mark.parametrize(("call", "error", "message"), [
    (lambda: F.bilinear(torch.randn(2, 3), torch.randn(2, 4).double(), torch.randn(5, 3, 4)), RuntimeError,
     "All tensors must have the same dtype, got input1: float, input2: double, weight: float"),
    (lambda: F.prelu(torch.tensor([1, -2]), torch.tensor([0.25])), RuntimeError,
     "prelu: Type promoting not supported. Got Long and Float"),
    (lambda: F.prelu(torch.randn(2, 3), torch.randn(3, 1)), RuntimeError,
     "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"),
    (lambda: F.prelu(torch.randn(2, 3), torch.randn(2)), RuntimeError,
     "Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and channel size = 3."),
    (lambda: F.smooth_l1_loss(torch.tensor([1, 2]), torch.tensor([2, 2])), NotImplementedError,
     "\"smooth_l1_cpu\" not implemented for 'Long'"),
    (lambda: F.huber_loss(torch.tensor([1, 2]), torch.tensor([2, 2])), NotImplementedError,
     "\"huber_cpu\" not implemented for 'Long'"),
    (lambda: F.kl_div(torch.tensor([1, 2]), torch.tensor([2, 2]), reduction="sum"), RuntimeError,
     "kl_div: Integral inputs not supported."),
])  # fmt: skip
def test_composite_layers_refuse_what_pytorch_refuses(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_prelu_keeps_a_zero_dim_input_zero_dim():
    out = F.prelu(torch.tensor(-2.0), torch.tensor([0.5]))
    assert out.shape == () and out.item() == -1.0
