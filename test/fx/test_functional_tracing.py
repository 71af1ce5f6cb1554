"""What tracing records for torch.nn.functional calls and for sizes taken from traced tensors: PyTorch's
Python-level functional functions are recorded as themselves (their required arguments by position, the
rest by name with defaults, as PyTorch 2.13 records them: tools/record_fx_reference.py recorded its trace
of the same module in test/data/fx/fx.json), and a Proxy standing for a size reaches factory functions'
__torch_function__ instead of failing in the argument parser."""
from __future__ import annotations

import pytest

import torch
from torch.fx import symbolic_trace
from tools import record_fx_reference as record

REFERENCE = record.reference()


def test_functional_calls_are_recorded_as_themselves_with_pytorchs_arguments():
    # the same targets, positional and keyword arguments and generated code as PyTorch 2.13's trace of this module
    run = record.run_case(torch, "functional_calls")
    assert run.seen == REFERENCE["functional_calls"]
    assert record.same_objects(torch, [t for t, _, _ in REFERENCE["functional_calls"]["calls"]],
                               [t for t, _, _ in run.calls])
    x = torch.randn(3, 4)
    assert torch.equal(run.gm(x), run.block(x))


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
