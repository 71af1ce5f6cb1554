"""3-d max/average pooling, adaptive max pooling, adaptive average 3-d pooling, max unpooling and
LP pooling against PyTorch 2.13 (tools/record_pooling_reference.py): outputs, indices, input
gradients and errors; the modules' reprs; gradcheck of the composites."""
import json
from pathlib import Path

import numpy as np
import pytest

import torch
import torch.nn.functional as F
from tools import record_pooling_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "pooling" / "pooling.json").read_text())["cases"]


@pytest.mark.parametrize("case", record.CASES)
def test_pooling_does_what_it_does_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    if "error" in ref:
        assert mine == ref
        return
    for key in ("output", "grad"):
        np.testing.assert_allclose(np.array(mine[key]), np.array(ref[key]), rtol=1e-12, atol=1e-12, equal_nan=True,
                                   err_msg=key)
    assert mine["indices"] == ref["indices"]


@pytest.mark.parametrize("fn", [
    lambda x: F.max_pool3d(x, 2, stride=1, padding=1),
    lambda x: F.avg_pool3d(x, 2, stride=1, padding=1, count_include_pad=False),
    lambda x: F.adaptive_max_pool3d(x, (2, 2, 3)),
    lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)),
    lambda x: F.lp_pool3d(x.abs() + 0.5, 2.0, 2),
])
def test_volumetric_pool_gradients_pass_gradcheck(fn):
    x = torch.randn(1, 2, 3, 4, 5, dtype=torch.float64, generator=torch.Generator().manual_seed(4)).requires_grad_()
    assert torch.autograd.gradcheck(fn, (x,))


def test_modules_forward_and_repr_as_pytorch():
    x = torch.randn(1, 2, 4, 4, 4)
    pool = torch.nn.MaxPool3d(2, return_indices=True)
    out, idx = pool(x)
    assert repr(pool) == "MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)"
    assert torch.equal(torch.nn.MaxUnpool3d(2)(out, idx).amax(), x.amax())
    assert repr(torch.nn.AvgPool3d(3, stride=2)) == "AvgPool3d(kernel_size=3, stride=2, padding=0)"
    assert repr(torch.nn.AdaptiveMaxPool2d((5, 7))) == "AdaptiveMaxPool2d(output_size=(5, 7))"
    assert repr(torch.nn.MaxUnpool2d(2)) == "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))"
    assert repr(torch.nn.LPPool2d(2, 3)) == "LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)"
    assert torch.nn.AdaptiveAvgPool3d(1)(x).shape == (1, 2, 1, 1, 1)
    assert torch.nn.functional.interpolate(x, size=(2, 2, 2), mode="area").shape == (1, 2, 2, 2, 2)


def test_adaptive_max_pool_to_size_zero_is_empty():
    out, indices = F.adaptive_max_pool2d(torch.randn(1, 2, 4, 4), 0, return_indices=True)
    assert out.shape == indices.shape == (1, 2, 0, 0)
