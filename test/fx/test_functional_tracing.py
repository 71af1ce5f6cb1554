"""What tracing records for torch.nn.functional calls and for sizes taken from traced tensors: PyTorch's
Python-level functional functions are recorded as themselves (their required arguments by position, the
rest by name with defaults, as PyTorch 2.13 records them), and a Proxy standing for a size reaches
factory functions' __torch_function__ instead of failing in the argument parser."""
from __future__ import annotations

import pytest

import torch
import torch.nn.functional as F
from torch.fx import symbolic_trace


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = F.dropout(F.softmax(F.relu(self.linear(x)), dim=-1), 0.1, training=False)
        return hidden + F.layer_norm(x, (4,))


def test_functional_calls_are_recorded_as_themselves_with_pytorchs_arguments():
    block = Block()
    gm = symbolic_trace(block)
    calls = [(n.target, n.args[1:], n.kwargs) for n in gm.graph.nodes if n.op == "call_function"][:4]
    # the same targets, positional and keyword arguments as PyTorch 2.13's trace of this module
    assert calls == [
        (F.relu, (), {"inplace": False}),
        (F.softmax, (), {"dim": -1, "_stacklevel": 3, "dtype": None}),
        (F.dropout, (), {"p": 0.1, "training": False, "inplace": False}),
        (F.layer_norm, ((4,),), {"weight": None, "bias": None, "eps": 1e-05}),
    ]
    assert "torch.nn.functional.relu(linear, inplace = False)" in gm.code
    x = torch.randn(3, 4)
    assert torch.equal(gm(x), block(x))


@pytest.mark.parametrize("fn", [
    lambda x: torch.arange(x.size(1)) * x,
    lambda x: torch.zeros(x.shape) + x,
    lambda x: torch.full((x.size(0), 2), 3.0) + x[:, :2],
    lambda x: torch.ones(x.size(0), 3) + x,
])
def test_a_size_taken_from_a_traced_tensor_can_size_a_factory(fn):
    gm = symbolic_trace(fn)
    for shape in ((2, 3), (5, 3)):
        x = torch.randn(shape)
        assert torch.equal(gm(x), fn(x))
