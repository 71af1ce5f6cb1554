"""torch.nn.init: PyTorch's bounds and statistics, and Linear's default initialisation. Ember's
random stream differs from PyTorch's, so the checks are on distributions, not values."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import torch
from torch import nn
from torch.nn import init
from tools import record_init_reference as init_record


def test_calculate_gain_is_pytorchs():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("conv2d") == 1 and init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01**2))
    assert init.calculate_gain("leaky_relu", math.sqrt(5)) == math.sqrt(2.0 / 6)
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


def test_fan_in_and_fan_out_include_the_receptive_field():
    assert init._calculate_fan_in_and_fan_out(torch.empty(8, 3)) == (3, 8)
    assert init._calculate_fan_in_and_fan_out(torch.empty(8, 3, 5, 5)) == (75, 200)
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2 "
                                         "dimensions"):
        init._calculate_fan_in_and_fan_out(torch.empty(3))


def _stats(t):
    a = t.detach().numpy().astype(np.float64)
    return a.min(), a.max(), a.mean(), a.std()


def test_uniform_families_stay_within_their_bounds_and_fill_them():
    t = torch.empty(200, 300)
    for fn, bound in [(lambda: init.uniform_(t, -0.3, 0.5), None),
                      (lambda: init.xavier_uniform_(t, gain=2.0), 2.0 * math.sqrt(6.0 / 500)),
                      (lambda: init.kaiming_uniform_(t, a=math.sqrt(5)), 1 / math.sqrt(300)),
                      (lambda: init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"), math.sqrt(6.0 / 200))]:
        assert fn() is t
        lo, hi, mean, std = _stats(t)
        if bound is None:
            assert -0.3 <= lo < -0.29 and 0.49 < hi <= 0.5
        else:
            assert -bound <= lo < -0.99 * bound and 0.99 * bound < hi <= bound
            assert abs(std - bound / math.sqrt(3)) < 0.02 * bound


def test_normal_families_have_their_standard_deviation():
    t = torch.empty(300, 400)
    cases = [(lambda: init.normal_(t, 1.0, 0.2), 1.0, 0.2),
             (lambda: init.xavier_normal_(t), 0.0, math.sqrt(2.0 / 700)),
             (lambda: init.kaiming_normal_(t, nonlinearity="relu"), 0.0, math.sqrt(2.0 / 400))]
    for fn, mean_expected, std_expected in cases:
        assert fn() is t
        _, _, mean, std = _stats(t)
        assert abs(mean - mean_expected) < 0.01 * max(std_expected, 1) and abs(std - std_expected) < 0.02 * std_expected


def test_trunc_normal_stays_in_its_interval():
    t = init.trunc_normal_(torch.empty(100000), mean=0.5, std=1.0, a=-1.0, b=1.5)
    lo, hi, mean, _ = _stats(t)
    assert -1.0 <= lo < -0.99 and 1.49 < hi <= 1.5
    assert abs(mean - 0.3548) < 0.01   # the mean of N(0.5, 1) truncated to [-1, 1.5]


@pytest.mark.parametrize("kwargs, expected", [
    # PyTorch 2.13, torch.manual_seed(0); nn.init.trunc_normal_(torch.empty(6), **kwargs)
    ({}, [1.541, -0.29343, -0.71926, 0.56843, -1.08452, -1.3986]),                       # normal draws redrawn
    ({"a": 1.5, "b": 3.0}, [1.53349, 1.75329, 1.63272, 1.69805, 1.96113, 2.06013]),      # uniform candidates
    ({"mean": 0.0, "std": 0.02, "a": -0.04, "b": 0.04}, [0.03082, -0.00587, -0.01439, 0.01137, -0.02169, -0.02797]),
])
def test_trunc_normal_draws_pytorchs_values_for_a_seed(kwargs, expected):
    torch.manual_seed(0)
    t = init.trunc_normal_(torch.empty(6), **kwargs)
    np.testing.assert_allclose(t.numpy(), expected, atol=6e-6)


def test_constant_zeros_ones_eye_and_dirac():
    t = torch.empty(3, 4)
    assert torch.equal(init.constant_(t, 2.5), torch.full((3, 4), 2.5))
    assert torch.equal(init.zeros_(t), torch.zeros(3, 4)) and torch.equal(init.ones_(t), torch.ones(3, 4))
    assert torch.equal(init.eye_(t), torch.eye(3, 4))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(torch.empty(2, 2, 2))
    w = init.dirac_(torch.empty(2, 2, 3))
    assert w[:, :, 1].tolist() == [[1.0, 0.0], [0.0, 1.0]] and w.sum().item() == 2


def test_orthogonal_gives_orthonormal_rows_or_columns_times_gain():
    for shape in [(6, 4), (4, 6), (3, 2, 2)]:
        t = init.orthogonal_(torch.empty(shape, dtype=torch.float64), gain=2.0)
        m = t.reshape(shape[0], -1).numpy()
        gram = m.T @ m if shape[0] >= m.shape[1] else m @ m.T
        np.testing.assert_allclose(gram, 4.0 * np.eye(gram.shape[0]), atol=1e-10)


def test_initialisers_run_without_recording_history():
    p = nn.Parameter(torch.empty(3, 3))
    init.kaiming_uniform_(p)
    init.trunc_normal_(p)
    assert p.is_leaf and p.grad_fn is None


def test_linear_and_bilinear_default_initialisation_bounds():
    lin = nn.Linear(50, 400)
    bound = 1 / math.sqrt(50)
    for t in (lin.weight, lin.bias):
        lo, hi, _, _ = _stats(t)
        assert -bound <= lo and hi <= bound
    assert _stats(lin.weight)[1] > 0.95 * bound
    bil = nn.Bilinear(20, 5, 30)
    bound = 1 / math.sqrt(20)
    lo, hi, _, _ = _stats(bil.weight)
    assert -bound <= lo < -0.95 * bound and 0.95 * bound < hi <= bound
    assert lin(torch.randn(2, 50)).shape == (2, 400) and bil(torch.randn(7, 20), torch.randn(7, 5)).shape == (7, 30)
    assert nn.Linear(3, 2, dtype=torch.float64).weight.dtype == torch.float64


@pytest.mark.parametrize("case", init_record.CASES)
def test_orthogonal_draws_what_pytorch_draws_for_the_same_seed(case):
    # the same normal draws; the QR runs on each library's LAPACK, so a few roundings apart
    reference = json.loads((Path(__file__).resolve().parents[1] / "data" / "init" / "init.json").read_text())
    np.testing.assert_allclose(np.array(init_record.run_case(torch, case)), np.array(reference["cases"][case]),
                               rtol=1e-5, atol=1e-6)
