"""InstanceNorm1d/2d/3d and F.instance_norm against PyTorch 2.13 (tools/record_instance_norm_reference.py):
outputs and gradients over two training passes and an evaluation pass, and the running statistics;
PyTorch's errors and warning."""
import json
from pathlib import Path

import numpy as np
import pytest

import torch
from torch import nn
from tools import record_instance_norm_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "norms" / "instance_norm.json")
                       .read_text())["cases"]


@pytest.mark.parametrize("entry", REFERENCE, ids=[f"{c['name']}-{i}" for i, c in enumerate(REFERENCE)])
def test_instance_norm_is_pytorchs(entry):
    got, want = record.run_case(torch, entry["name"], entry["shape"], entry["options"]), entry["result"]
    assert sorted(got["state"]) == sorted(want["state"])
    for key in ("outs", "grads", "param_grads"):
        assert len(got[key]) == len(want[key])
        for mine, theirs in zip(got[key], want[key]):
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5, err_msg=key)
    for key in want["state"]:
        np.testing.assert_allclose(got["state"][key], want["state"][key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_instance_norm_errors_and_warning_are_pytorchs():
    with pytest.raises(ValueError, match=r"^Expected more than 1 spatial element when training, got input size "
                                         r"torch.Size\(\[2, 3, 1, 1\]\)$"):
        nn.InstanceNorm2d(3)(torch.ones(2, 3, 1, 1))
    with pytest.raises(ValueError, match=r"^expected 3D or 4D input \(got 2D input\)$"):
        nn.InstanceNorm2d(3)(torch.ones(2, 3))
    with pytest.raises(ValueError, match=r"^expected input's size at dim=1 to match num_features \(3\), but got: 4.$"):
        nn.InstanceNorm2d(3, affine=True)(torch.ones(2, 4, 2, 2))
    with pytest.warns(UserWarning, match="^input's size at dim=1 does not match num_features"):
        nn.InstanceNorm1d(3)(torch.randn(2, 4, 5))
    with pytest.raises(RuntimeError, match="^Expected running_mean and running_var to be defined when "
                                           "use_input_stats is false$"):
        torch.instance_norm(torch.ones(2, 3, 4), None, None, None, None, False, 0.1, 1e-5, False)
    assert repr(nn.InstanceNorm2d(3)) == ("InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
                                          "track_running_stats=False)")


def test_running_statistics_of_another_dtype_are_cast_to_the_inputs():
    mean, var = torch.zeros(3), torch.ones(3)
    x = torch.randn(2, 3, 6, dtype=torch.float64)
    out = torch.nn.functional.instance_norm(x, mean, var)
    assert out.dtype == torch.float64 and mean.dtype == torch.float32
    per_sample = x.mean(-1).mean(0).float() * 0.1
    np.testing.assert_allclose(mean.numpy(), per_sample.numpy(), rtol=1e-6)
