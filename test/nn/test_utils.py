"""torch.nn.utils: gradient clipping against NumPy and the vector conversions."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters


def _params_with_grads(scale=1.0):
    params = [nn.Parameter(torch.zeros(3, 2)), nn.Parameter(torch.zeros(4)), nn.Parameter(torch.zeros(1))]
    rng = np.random.default_rng(1)
    grads = [rng.standard_normal(tuple(p.shape)).astype(np.float32) * scale for p in params[:2]]
    for p, g in zip(params, grads):
        p.grad = torch.from_numpy(g.copy())
    return params, grads      # the last parameter has no gradient


@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.5, float("inf")])
def test_clip_grad_norm_scales_to_max_norm_and_returns_the_total_norm(norm_type):
    params, grads = _params_with_grads(5.0)
    flat = np.concatenate([g.ravel() for g in grads]).astype(np.float64)
    total = np.abs(flat).max() if norm_type == float("inf") else (np.abs(flat) ** norm_type).sum() ** (1 / norm_type)
    got = clip_grad_norm_(params, max_norm=1.0, norm_type=norm_type)
    np.testing.assert_allclose(got.item(), total, rtol=1e-5)
    coef = 1.0 / (total + 1e-6)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.numpy(), g * coef, rtol=1e-5)


def test_clip_grad_norm_leaves_small_gradients_and_accepts_one_tensor():
    params, grads = _params_with_grads(1e-3)
    clip_grad_norm_(params, max_norm=10.0)
    np.testing.assert_allclose(params[0].grad.numpy(), grads[0], rtol=1e-6)
    p = nn.Parameter(torch.ones(2))
    p.grad = torch.tensor([3.0, 4.0])
    assert clip_grad_norm_(p, 1.0).item() == pytest.approx(5.0)
    assert clip_grad_norm_([nn.Parameter(torch.ones(1))], 1.0).item() == 0.0


def test_clip_grad_norm_error_if_nonfinite():
    p = nn.Parameter(torch.ones(2))
    p.grad = torch.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is "
                                           "non-finite, so it cannot be clipped."):
        clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def test_clip_grad_value_clamps_every_gradient():
    params, grads = _params_with_grads(3.0)
    assert clip_grad_value_(params, 0.5) is None
    for p, g in zip(params, grads):
        np.testing.assert_allclose(p.grad.numpy(), np.clip(g, -0.5, 0.5))


def test_parameters_to_vector_and_back():
    net = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = parameters_to_vector(net.parameters())
    assert vec.shape == (11,) and torch.equal(vec[:6], net[0].weight.reshape(-1))
    vector_to_parameters(torch.arange(11.0), net.parameters())
    assert net[0].weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and net[1].bias.tolist() == [10.0]
    assert isinstance(net[0].weight, nn.Parameter)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        vector_to_parameters([1.0], net.parameters())
