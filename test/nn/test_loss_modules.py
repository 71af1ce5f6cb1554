"""The loss modules (not only their functional forms), with their options and every reduction,
against literal PyTorch 2.13 output (made by running CASES there and printing the values)."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from torch import nn

X = torch.tensor([[0.2, 0.7], [0.9, 0.4], [0.5, 0.5]], dtype=torch.float64)
Y = torch.tensor([[1., 0], [0, 1], [1, 1]], dtype=torch.float64)
P = torch.tensor([[0.3, -1.2], [2.5, 0.1], [-0.4, 1.7]], dtype=torch.float64)
LOGP = torch.log_softmax(torch.tensor(
    [[0.1, 0.5, -1.0], [1.2, -0.3, 0.0], [0.0, 0.0, 2.0], [0.7, 0.2, 0.1]], dtype=torch.float64), 1)
T = torch.tensor([2, 0, 1, 1])
W3 = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)
CASES = {
    "BCELoss(weight)": lambda r: nn.BCELoss(weight=torch.tensor([1., 3.], dtype=torch.float64), reduction=r)(X, Y),
    "BCELoss": lambda r: nn.BCELoss(reduction=r)(X, Y),
    "L1Loss": lambda r: nn.L1Loss(reduction=r)(P, Y),
    "MSELoss": lambda r: nn.MSELoss(reduction=r)(P, Y),
    "SmoothL1Loss(beta=0.5)": lambda r: nn.SmoothL1Loss(reduction=r, beta=0.5)(P, Y),
    "HuberLoss(delta=0.8)": lambda r: nn.HuberLoss(reduction=r, delta=0.8)(P, Y),
    "NLLLoss(weight,ignore_index=1)": lambda r: nn.NLLLoss(weight=W3, ignore_index=1, reduction=r)(LOGP, T),
    "NLLLoss": lambda r: nn.NLLLoss(reduction=r)(LOGP, T),
    "BCEWithLogitsLoss(pos_weight)": lambda r: nn.BCEWithLogitsLoss(
        pos_weight=torch.tensor([2.0, 0.5], dtype=torch.float64), reduction=r)(P, Y),
    # "mean" stands for batchmean here
    "KLDivLoss(batchmean)": lambda r: nn.KLDivLoss(reduction="batchmean" if r == "mean" else r)(
        LOGP, torch.softmax(LOGP * 2, 1)),
}

# {case: {reduction: values}} printed by PyTorch 2.13 for CASES
PYTORCH = {
    'BCELoss(weight)': {'mean': [2.174233722711], 'sum': [13.045402336268], 'none': [1.609437912434, 3.611918412978, 2.302585092994, 2.748872195622, 0.69314718056, 2.07944154168]},
    'BCELoss': {'mean': [1.236430150458], 'sum': [7.418580902748], 'none': [1.609437912434, 1.203972804326, 2.302585092994, 0.916290731874, 0.69314718056, 0.69314718056]},
    'L1Loss': {'mean': [1.233333333333], 'sum': [7.4], 'none': [0.7, 1.2, 2.5, 0.9, 1.4, 0.7]},
    'MSELoss': {'mean': [1.906666666667], 'sum': [11.44], 'none': [0.49, 1.44, 6.25, 0.81, 1.96, 0.49]},
    'SmoothL1Loss(beta=0.5)': {'mean': [0.983333333333], 'sum': [5.9], 'none': [0.45, 0.95, 2.25, 0.65, 1.15, 0.45]},
    'HuberLoss(delta=0.8)': {'mean': [0.668333333333], 'sum': [4.01], 'none': [0.245, 0.64, 1.68, 0.4, 0.8, 0.245]},
    'NLLLoss(weight,ignore_index=1)': {'mean': [0.993834408377], 'sum': [1.490751612565], 'none': [1.069200335389, 0.421551277176, 0.0, 0.0]},
    'NLLLoss': {'mean': [1.51686156577], 'sum': [6.06744626308], 'none': [2.138400670778, 0.421551277176, 2.239544766222, 1.267949548904]},
    'BCEWithLogitsLoss(pos_weight)': {'mean': [1.030500756683], 'sum': [6.183004540097], 'none': [1.108710488937, 0.263282467338, 2.578889734293, 0.322198330037, 1.8260305048, 0.083893014693]},
    'KLDivLoss(batchmean)': {'mean': [0.090765940497], 'sum': [0.363063761989], 'none': [-0.049897416935, 0.155775165497, -0.042060836955, 0.254343563512, -0.052817272234, -0.072376770275, -0.031740110454, -0.031740110454, 0.196374999325, 0.153187233324, -0.053850241867, -0.062134440496]},
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_module_gives_pytorchs_values(case, reduction):
    got = CASES[case](reduction)
    assert got.dtype == torch.float64
    np.testing.assert_allclose(got.flatten().numpy(), PYTORCH[case][reduction], rtol=1e-10, atol=1e-11)
