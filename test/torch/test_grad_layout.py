"""PyTorch's gradient layout contract: a leaf's first gradient is stored with the leaf's strides when the
leaf is dense (whatever layout the backward formula produced, as the transposed gradient of mm), else
contiguous; so optimizer updates and their state walk parameter and gradient alike."""
from __future__ import annotations

import numpy as np
import pytest

import torch


def _dense_leaves():
    return {
        "linear weight": torch.nn.Linear(4, 3).weight,
        "transposed": torch.randn(3, 4).t().detach().requires_grad_(),
        "channels_last": torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last).requires_grad_(),
        "broadcast into": torch.randn(2, 3, requires_grad=True),
    }


@pytest.mark.parametrize("name", sorted(_dense_leaves()))
def test_a_dense_leafs_first_gradient_takes_the_leafs_strides(name):
    leaf = _dense_leaves()[name]
    if leaf.dim() == 2 and name != "broadcast into":
        loss = (torch.randn(5, leaf.shape[0]) @ leaf).sum()     # mm's gradient: a transposed product
    elif name == "broadcast into":
        loss = leaf.expand(4, 2, 3).sum()
    else:
        loss = (leaf * 2).sum()
    loss.backward()
    assert leaf.grad.stride() == leaf.stride()
    assert leaf.grad.shape == leaf.shape


def test_a_sparse_strided_leaf_gets_a_contiguous_gradient():
    leaf = torch.randn(4, 6)[:, ::2].detach().requires_grad_()
    (leaf * 3).sum().backward()
    assert leaf.grad.is_contiguous()
    np.testing.assert_array_equal(leaf.grad.numpy(), np.full((4, 3), 3, np.float32))


def test_momentum_buffers_follow_the_parameters_layout():
    model = torch.nn.Linear(64, 16)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(8, 64)).pow(2).mean().backward()
    optimizer.step()
    for p in model.parameters():
        assert p.grad.stride() == p.stride()
        assert optimizer.state[p]["momentum_buffer"].stride() == p.stride()


def test_later_gradients_add_into_the_first_in_place():
    leaf = torch.nn.Linear(4, 3).weight
    (torch.randn(5, 3) @ leaf).sum().backward()
    first = leaf.grad
    (torch.randn(5, 3) @ leaf).sum().backward()
    assert leaf.grad is first and first.stride() == leaf.stride()
