"""CyclicLR and CosineAnnealingWarmRestarts against PyTorch 2.13's schedules, bit for bit
(tools/record_lr_scheduler_reference.py), and CyclicLR's state_dict with a custom scale function."""
import json
from pathlib import Path

import pytest

import torch
from tools import record_lr_scheduler_reference as record
from torch.optim import lr_scheduler as L

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "optim" / "cyclic_lr.json")
                       .read_text())["cases"]


@pytest.mark.parametrize("case", record.CASES)
def test_cyclic_schedule_is_pytorchs(case):
    assert record.run_case(torch, case) == REFERENCE[case]


class _Halving:
    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base ** x


def test_cyclic_lr_state_dict_keeps_a_callable_objects_state():
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    fn = _Halving()
    scheduler = L.CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=fn)
    fn.base = 0.25
    state = scheduler.state_dict()
    assert state["_scale_fn_custom"] == {"base": 0.25} and "_scale_fn_ref" not in state
    other_fn = _Halving()
    other = L.CyclicLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9), 0.01, 0.1,
                       step_size_up=2, scale_fn=other_fn)
    other.load_state_dict(state)
    assert other_fn.base == 0.25
    assert L.CyclicLR.__module__ == L.CosineAnnealingWarmRestarts.__module__ == "torch.optim.lr_scheduler"
