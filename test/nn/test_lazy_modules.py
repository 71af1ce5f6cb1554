"""Lazy modules and uninitialized parameters against PyTorch 2.13's results
(tools/record_lazy_modules_reference.py): the module before and after its first call (class swap,
inferred sizes, seeded initial weights, outputs, reprs, state_dict), state_dict loading into and out
of lazy modules, optimizers and deepcopy before initialisation, and errors."""
import json
from pathlib import Path

import pytest

import torch
from recorded import assert_matches
from torch import nn
from tools import record_lazy_modules_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "lazy_modules" / "lazy_modules.json")
                       .read_text())["cases"]



@pytest.mark.parametrize("case", record.CASES)
def test_lazy_modules_do_what_they_do_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    if "error" in ref:
        assert mine == ref
    else:
        assert_matches(mine, ref, case, 1e-5, 1e-5, tuples=True)


def test_lazy_layers_are_exported_from_torch_nn():
    for name in ("LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d",
                 "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
                 "LazyInstanceNorm2d", "LazyInstanceNorm3d", "UninitializedParameter", "UninitializedBuffer"):
        assert name in nn.__all__ and hasattr(nn, name)
    assert issubclass(nn.LazyLinear, nn.modules.lazy.LazyModuleMixin)


def test_a_failed_first_call_leaves_the_module_lazy():
    m = nn.LazyConv2d(4, 3)
    with pytest.raises(RuntimeError, match="Expected 3D"):
        m(torch.ones(3, 3))
    assert type(m) is nn.LazyConv2d and m.has_uninitialized_params()
    assert m(torch.ones(1, 2, 4, 4)).shape == (1, 4, 2, 2) and type(m) is nn.Conv2d


def test_initialize_parameters_may_take_keyword_arguments():
    class Scaled(nn.modules.lazy.LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.parameter.UninitializedParameter()

        def initialize_parameters(self, x, *, scale):
            self.weight.materialize(x.shape)
            with torch.no_grad():
                self.weight.fill_(scale)

        def forward(self, x, *, scale):
            return x * self.weight

    m = Scaled()
    assert m(torch.ones(2), scale=3.0).tolist() == [3.0, 3.0]
    assert not hasattr(m, "_initialize_hook")


def test_a_dtype_change_before_the_first_call_keeps_lazy_buffers_uninitialized():
    m = torch.nn.Sequential(torch.nn.LazyLinear(3), torch.nn.LazyBatchNorm1d()).to(torch.float64)
    assert type(m[1].running_mean).__name__ == "UninitializedBuffer"
    assert m(torch.randn(4, 2, dtype=torch.float64)).dtype == torch.float64
    assert m[1].running_mean.dtype == torch.float64 and m[1].running_mean.shape == (3,)
    half = torch.nn.LazyBatchNorm1d().half()
    assert type(half.running_var).__name__ == "UninitializedBuffer" and half.running_var.dtype == torch.float16
