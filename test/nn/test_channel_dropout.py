"""Dropout1d/2d/3d, AlphaDropout and FeatureAlphaDropout (and their functional forms) against
PyTorch 2.13's outputs, gradients, warnings and errors for the same seeds
(tools/record_dropout_reference.py)."""
import json
from pathlib import Path

import numpy as np
import pytest

import torch
from torch import nn
from tools import record_dropout_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "random" / "dropout.json")
                       .read_text())["cases"]


@pytest.mark.parametrize("entry", REFERENCE, ids=[f"{c['name']}-{i}" for i, c in enumerate(REFERENCE)])
def test_dropout_variant_is_pytorchs(entry):
    got, want = record.run_case(torch, entry["name"], entry["shape"], entry["options"]), entry["result"]
    if "error" in want:
        assert got == want
        return
    assert (got["shape"], got["warnings"]) == (want["shape"], want["warnings"])
    np.testing.assert_allclose(got["out"], want["out"], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got["grad"], want["grad"], rtol=1e-6, atol=1e-6)


def test_modules_drop_whole_channels_only_in_training():
    torch.manual_seed(3)
    x = torch.ones(4, 6, 5, 5)
    m = nn.Dropout2d(0.5)
    y = m(x)
    per_channel = y.reshape(4, 6, -1)
    assert set(per_channel.amin(-1).tolist()[0]) <= {0.0, 2.0}
    assert torch.equal(per_channel.amin(-1), per_channel.amax(-1))    # a channel is all kept or all dropped
    m.eval()
    assert m(x) is x
    assert repr(nn.Dropout3d(0.2, inplace=True)) == "Dropout3d(p=0.2, inplace=True)"
    assert repr(nn.AlphaDropout(0.1)) == "AlphaDropout(p=0.1, inplace=False)"
    with pytest.raises(ValueError, match="^dropout probability has to be between 0 and 1, but got 2$"):
        nn.FeatureAlphaDropout(2)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_channel_dropout_on_the_device_keeps_or_drops_whole_channels():
    x = torch.ones(3, 8, 4, device="cuda")
    y = torch.nn.functional.dropout1d(x, 0.5).cpu().reshape(3, 8, 4)
    assert torch.equal(y.amin(-1), y.amax(-1)) and set(y.reshape(-1).tolist()) <= {0.0, 2.0}
