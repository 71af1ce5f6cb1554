"""nn.RReLU / F.rrelu / torch.rrelu and nn.Softmax2d against literal PyTorch 2.13 output: the
slopes drawn in training for a seed (one double per non-positive element, in order, bounds
rounded to float for float32), the mean slope in evaluation, gradients, reprs and errors."""
from __future__ import annotations

import numpy as np
import pytest

import torch
import torch.nn.functional as F
from torch import nn

X = [[-1.0, 2.0, -0.5, 0.0], [3.0, -2.0, -4.0, 1.0]]


def test_rrelu_training_draws_pytorchs_slopes_for_a_seed():
    torch.manual_seed(0)
    out = F.rrelu(torch.tensor(X), training=True)
    assert out.tolist() == [[-0.3270943760871887, 2.0, -0.13623124361038208, 0.0],
                            [3.0, -0.6336448788642883, -1.037520170211792, 1.0]]


def test_rrelu_gradient_is_the_drawn_slope_and_one_above_zero():
    x = torch.tensor(X, dtype=torch.float64, requires_grad=True)
    torch.manual_seed(1)
    F.rrelu(x, training=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.13771943223325492, 1.0, 0.1717821888682605, 0.17380260707184153],
                                                [1.0, 0.16189567238494906, 0.24084751169770718, 1.0]], rtol=1e-15)


def test_rrelu_evaluation_uses_the_mean_slope():
    assert F.rrelu(torch.tensor(X)).tolist() == [[-0.2291666716337204, 2.0, -0.1145833358168602, 0.0],
                                                 [3.0, -0.4583333432674408, -0.9166666865348816, 1.0]]
    assert torch.rrelu(torch.tensor([-1.0, 1.0])).tolist() == [-0.2291666716337204, 1.0]
    assert F.rrelu(torch.tensor(X, dtype=torch.float64), 0.2, 0.2, training=True).tolist() == [
        [-0.2, 2.0, -0.1, 0.0], [3.0, -0.4, -0.8, 1.0]]


def test_rrelu_inplace_writes_its_input_and_the_module_follows_train_and_eval():
    y = torch.tensor(X)
    torch.manual_seed(0)
    assert F.rrelu(y, training=True, inplace=True) is y
    assert y.tolist()[0][2] == -0.13623124361038208
    m = nn.RReLU()
    m.eval()
    assert m(torch.tensor([-1.0])).tolist() == [-0.2291666716337204]
    m.train()
    torch.manual_seed(0)
    assert m(torch.tensor([-1.0])).tolist() == [-0.3270943760871887]


def test_rrelu_and_softmax2d_reprs_as_pytorch():
    assert repr(nn.RReLU()) == "RReLU(lower=0.125, upper=0.3333333333333333)"
    assert repr(nn.RReLU(0.1, 0.3, inplace=True)) == "RReLU(lower=0.1, upper=0.3, inplace=True)"
    assert repr(nn.Softmax2d()) == "Softmax2d()"


def test_rrelu_errors_as_pytorch():
    for training in (True, False):
        with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
            F.rrelu(torch.ones(2), 0.5, 0.2, training=training)
    with pytest.raises(NotImplementedError, match="\"rrelu_with_noise_out_cpu\" not implemented for 'Long'"):
        F.rrelu(torch.tensor([1, -2]), training=True)
    assert F.rrelu(torch.empty(0), training=True).shape == (0,)


def test_softmax2d_normalises_over_channels():
    x = torch.arange(8.0).reshape(2, 2, 2)
    np.testing.assert_allclose(nn.Softmax2d()(x).numpy(), [[[0.01798621006309986] * 2] * 2, [[0.9820137619972229] * 2] * 2],
                               rtol=1e-6)
    batch = torch.randn(3, 4, 5, 6, dtype=torch.float64)
    expected = np.exp(batch.numpy()) / np.exp(batch.numpy()).sum(1, keepdims=True)
    np.testing.assert_allclose(nn.Softmax2d()(batch).numpy(), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        nn.Softmax2d()(torch.ones(2, 2))
