"""The ranking, embedding and likelihood losses (MarginRankingLoss, HingeEmbeddingLoss,
CosineEmbeddingLoss, SoftMarginLoss, MultiLabelSoftMarginLoss, TripletMarginLoss,
TripletMarginWithDistanceLoss, PoissonNLLLoss, GaussianNLLLoss) against PyTorch 2.13: every
reduction, the gradients of the summed loss, and the errors (tools/record_loss_reference.py)."""
import json
from pathlib import Path

import numpy as np
import pytest

import torch
from torch import nn
from tools import record_loss_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "losses" / "losses.json")
                       .read_text())["cases"]


@pytest.mark.parametrize("case", record.CASES)
def test_loss_is_pytorchs(case):
    got, want = record.run_case(torch, case), REFERENCE[case]
    if "error" in want:
        assert got == want
        return
    assert sorted(got) == sorted(want)
    for key in want:
        mine = np.concatenate(got[key]) if key == "grads" else np.array(got[key])
        theirs = np.concatenate(want[key]) if key == "grads" else np.array(want[key])
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-7, err_msg=key)


def test_loss_modules_hold_their_options():
    x, y, z = torch.randn(3, 4), torch.randn(3, 4), torch.randn(3, 4)
    sign = torch.tensor([1.0, -1.0, 1.0])
    pairs = [(nn.MarginRankingLoss(0.2, reduction="sum"), (x[:, 0], y[:, 0], sign),
              torch.nn.functional.margin_ranking_loss(x[:, 0], y[:, 0], sign, 0.2, reduction="sum")),
             (nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True), (x, y, z),
              torch.nn.functional.triplet_margin_loss(x, y, z, 0.5, 1.0, swap=True)),
             (nn.GaussianNLLLoss(full=True), (x, y, z.abs()),
              torch.nn.functional.gaussian_nll_loss(x, y, z.abs(), full=True))]
    for module, args, expected in pairs:
        assert torch.equal(module(*args), expected), type(module).__name__
    with pytest.raises(ValueError, match="^TripletMarginLoss: expected margin to be greater than 0, got 0 instead$"):
        nn.TripletMarginLoss(margin=0)
    assert repr(nn.TripletMarginWithDistanceLoss()) == \
        "TripletMarginWithDistanceLoss(\n  (distance_function): PairwiseDistance()\n)"
    custom = nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: (a - b).abs().sum(-1), margin=2.0)
    expected = torch.clamp_min(2.0 + (x - y).abs().sum(-1) - (x - z).abs().sum(-1), 0).mean()
    assert torch.allclose(custom(x, y, z), expected)
