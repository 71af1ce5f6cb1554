"""torch.utils.flop_counter.FlopCounterMode against PyTorch 2.13's counts
(tools/record_flop_counter_reference.py): totals, and counts per module and operator, forward and
backward. One difference is by design and checked as such: a convolution's backward runs as
convolutions here (the same FLOPs, listed under aten.convolution where PyTorch lists
aten.convolution_backward). Attention runs where PyTorch's does: in the uncounted CPU flash kernel
when it can (transformer_layer), as counted bmm's otherwise (attention_and_einsum: value's head dim
differs)."""
import json
from pathlib import Path

import pytest

import torch
from tools import record_flop_counter_reference as record
from torch.utils.flop_counter import FlopCounterMode

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "profiler" / "flop_counter.json")
                       .read_text())["cases"]


@pytest.mark.parametrize("case", [c for c in record.CASES if c != "conv_backward"])
def test_flop_counts_are_pytorchs(case):
    assert record.run_case(torch, case) == REFERENCE[case]


def test_a_convolutions_backward_counts_the_same_flops_under_convolution():
    mine, ref = record.run_case(torch, "conv_backward"), REFERENCE["conv_backward"]
    assert mine["total"] == ref["total"]
    assert {m: sum(ops.values()) for m, ops in mine["counts"].items()} == \
        {m: sum(ops.values()) for m, ops in ref["counts"].items()}
    assert set(mine["counts"]["Global"]) == {"aten.convolution"}


def test_counter_nests_with_the_profiler_and_keys_are_operator_packets():
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    with torch.profiler.profile() as prof, FlopCounterMode(display=False) as counter:
        torch.mm(a, b)
    assert counter.get_flop_counts() == {"Global": {torch.ops.aten.mm: 120}}
    assert any(e.key == "aten::mm" for e in prof.key_averages())
    with FlopCounterMode(display=False) as counter:     # a second run starts from zero
        torch.mm(a, b)
    assert counter.get_total_flops() == 120


def test_custom_mapping_counts_a_custom_operator():
    from torch import Tensor

    @torch.library.custom_op("ember_flops::twice", mutates_args=())
    def twice(x: Tensor) -> Tensor:
        return x * 2

    def formula(x_shape, out_shape=None, **kwargs):
        return x_shape[0]
    with FlopCounterMode(display=False, custom_mapping={torch.ops.ember_flops.twice: formula}) as counter:
        twice(torch.ones(7))
    assert counter.get_total_flops() == 7


def test_a_module_that_raises_leaves_the_module_stack():
    class Failing(torch.nn.Module):
        def forward(self, x):
            raise ValueError("no")
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    with FlopCounterMode(display=False) as counter:
        with pytest.raises(ValueError):
            Failing()(a)
        torch.mm(a, b)
    assert counter.get_flop_counts() == {"Global": {torch.ops.aten.mm: 120}}


def test_entering_an_active_counter_again_raises():
    counter = FlopCounterMode(display=False)
    with counter:
        with pytest.raises(RuntimeError, match="already active"):
            counter.__enter__()
        torch.mm(torch.randn(3, 4), torch.randn(4, 5))
    assert counter.get_total_flops() == 120


def test_the_profiler_started_inside_a_counter_keeps_it_counting():
    a, b = torch.randn(3, 4), torch.randn(4, 5)
    with FlopCounterMode(display=False) as counter:
        with torch.profiler.profile() as prof:
            torch.mm(a, b)
        torch.mm(a, b)          # after the profiler stops, the counter still counts
    assert counter.get_total_flops() == 240
    assert any(e.key == "aten::mm" for e in prof.key_averages())
