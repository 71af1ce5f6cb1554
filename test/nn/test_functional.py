"""torch.nn.functional against NumPy float64 references, and gradcheck of the losses."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import torch
import torch.nn.functional as F
from torch.autograd import gradcheck

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 5)) * 3


def _erf(x):
    return np.vectorize(math.erf)(x)


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(beta * x > threshold, x, np.log1p(np.exp(beta * x)) / beta)


ACTIVATIONS = {
    "relu": (F.relu, lambda x: np.maximum(x, 0)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6)),
    "elu": (lambda t: F.elu(t, 0.7), lambda x: np.where(x > 0, x, 0.7 * np.expm1(x))),
    "selu": (F.selu, lambda x: 1.0507009873554804934193349852946 * np.where(
        x > 0, x, 1.6732632423543772848170429916717 * np.expm1(x))),
    "celu": (lambda t: F.celu(t, 0.5), lambda x: np.maximum(x, 0) + np.minimum(0, 0.5 * np.expm1(x / 0.5))),
    "gelu": (F.gelu, lambda x: x * 0.5 * (1 + _erf(x / math.sqrt(2)))),
    "gelu_tanh": (lambda t: F.gelu(t, approximate="tanh"),
                  lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))),
    "silu": (F.silu, lambda x: x / (1 + np.exp(-x))),
    "mish": (F.mish, lambda x: x * np.tanh(np.log1p(np.exp(x)))),
    "leaky_relu": (lambda t: F.leaky_relu(t, 0.2), lambda x: np.where(x >= 0, x, 0.2 * x)),
    "hardtanh": (lambda t: F.hardtanh(t, -2.0, 1.5), lambda x: np.clip(x, -2.0, 1.5)),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "sigmoid": (F.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (F.tanh, np.tanh),
    "softplus": (lambda t: F.softplus(t, 2.0, 5.0), lambda x: _softplus(x, 2.0, 5.0)),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "threshold": (lambda t: F.threshold(t, 0.5, -7.0), lambda x: np.where(x > 0.5, x, -7.0)),
    "logsigmoid": (F.logsigmoid, lambda x: -np.log1p(np.exp(-x))),
    "hardshrink": (F.hardshrink, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    "softshrink": (F.softshrink, lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    "softmax": (lambda t: F.softmax(t, dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    "softmin": (lambda t: F.softmin(t, dim=0), lambda x: np.exp(-x) / np.exp(-x).sum(0, keepdims=True)),
    "log_softmax": (lambda t: F.log_softmax(t, dim=1),
                    lambda x: x - np.log(np.exp(x).sum(1, keepdims=True))),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_matches_numpy_in_float64(name):
    fn, ref = ACTIVATIONS[name]
    got = fn(torch.from_numpy(X.copy()))
    assert got.dtype == torch.float64
    np.testing.assert_allclose(got.numpy(), ref(X), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_gradcheck(name):
    fn, _ = ACTIVATIONS[name]
    x = torch.from_numpy(X[:2, :4].copy() + 0.0123).requires_grad_()
    assert gradcheck(fn, (x,))


def test_glu_halves_the_dim_and_rejects_odd_sizes():
    x = RNG.standard_normal((3, 4))
    got = F.glu(torch.from_numpy(x), dim=1).numpy()
    np.testing.assert_allclose(got, x[:, :2] / (1 + np.exp(-x[:, 2:])), rtol=1e-12)
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 5"):
        F.glu(torch.ones(2, 5), 1)


def test_inplace_activations_write_into_their_input():
    t = torch.tensor([-1.0, 2.0])
    assert F.relu(t, inplace=True) is t and t.tolist() == [0.0, 2.0]
    t = torch.tensor([-1.0, 2.0])
    F.leaky_relu(t, 0.5, inplace=True)
    assert t.tolist() == [-0.5, 2.0]


def test_softmax_with_dtype_and_implicit_dim_warning():
    t = torch.randn(2, 3)
    assert F.softmax(t, dim=1, dtype=torch.float64).dtype == torch.float64
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
        F.softmax(t)


def test_dropout_scales_kept_values_and_is_identity_when_not_training():
    x = torch.ones(2000)
    y = F.dropout(x, 0.25)
    kept = y[y != 0]
    assert torch.allclose(kept, torch.full_like(kept, 1 / 0.75)) and 1300 < kept.numel() < 1700
    assert torch.equal(F.dropout(x, 0.25, training=False), x)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        F.dropout(x, -0.1)


def test_linear_and_bilinear_match_numpy():
    x1, x2 = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 5))
    w, b = RNG.standard_normal((2, 4)), RNG.standard_normal(2)
    got = F.linear(torch.from_numpy(x1), torch.from_numpy(w), torch.from_numpy(b)).numpy()
    np.testing.assert_allclose(got, x1 @ w.T + b, rtol=1e-12)
    wb = RNG.standard_normal((6, 4, 5))
    got = F.bilinear(torch.from_numpy(x1), torch.from_numpy(x2), torch.from_numpy(wb), torch.from_numpy(b[:1])).numpy()
    np.testing.assert_allclose(got, np.einsum("ni,oij,nj->no", x1, wb, x2) + b[0], rtol=1e-12)
    args = [torch.from_numpy(a).requires_grad_() for a in (x1[:2], x2[:2], wb[:2], b)]
    assert gradcheck(F.bilinear, tuple(args))


# -- losses -----------------------------------------------------------------------------------
INPUT = RNG.standard_normal((4, 3))
TARGET = RNG.standard_normal((4, 3))
PROB = 1 / (1 + np.exp(-INPUT))
BIN = (RNG.random((4, 3)) > 0.5).astype(np.float64)
CLASSES = np.array([0, 2, 1, 2])


def _log_softmax(x):
    return x - np.log(np.exp(x).sum(1, keepdims=True))


def _reduce(loss, reduction):
    return {"none": loss, "mean": loss.mean(), "sum": loss.sum()}[reduction]


def _huber(d, delta):
    z = np.abs(d)
    return np.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta))


def _ce(x, y, weight=None, ignore_index=-100, smoothing=0.0, reduction="mean"):
    logp = _log_softmax(x)
    c = x.shape[1]
    w = np.ones(c) if weight is None else weight
    keep = y != ignore_index
    safe = np.where(keep, y, 0)
    nll = -logp[np.arange(len(y)), safe] * w[safe] * keep
    smooth = -(logp * w).sum(1) * keep
    if reduction == "none":
        return (1 - smoothing) * nll + smoothing / c * smooth
    if reduction == "sum":
        return (1 - smoothing) * nll.sum() + smoothing / c * smooth.sum()
    denom = (w[safe] * keep).sum()
    return (1 - smoothing) * nll.sum() / denom + smoothing / c * smooth.sum() / denom


LOSSES = {
    "mse": (lambda x, y, r: F.mse_loss(x, y, reduction=r), lambda x, y, r: _reduce((x - y) ** 2, r), TARGET),
    "l1": (lambda x, y, r: F.l1_loss(x, y, reduction=r), lambda x, y, r: _reduce(np.abs(x - y), r), TARGET),
    "smooth_l1": (lambda x, y, r: F.smooth_l1_loss(x, y, reduction=r, beta=0.5),
                  lambda x, y, r: _reduce(_huber(x - y, 0.5) / 0.5, r), TARGET),
    "huber": (lambda x, y, r: F.huber_loss(x, y, reduction=r, delta=0.7),
              lambda x, y, r: _reduce(_huber(x - y, 0.7), r), TARGET),
    "bce": (lambda x, y, r: F.binary_cross_entropy(torch.sigmoid(x), y, reduction=r),
            lambda x, y, r: _reduce(-(y * np.log(1 / (1 + np.exp(-x))) + (1 - y) * np.log(1 - 1 / (1 + np.exp(-x)))),
                                    r), BIN),
    "bce_logits": (lambda x, y, r: F.binary_cross_entropy_with_logits(x, y, reduction=r,
                                                                       pos_weight=torch.tensor([1.0, 2.0, 0.5],
                                                                                               dtype=torch.float64)),
                   lambda x, y, r: _reduce(-(np.array([1.0, 2.0, 0.5]) * y * np.log(1 / (1 + np.exp(-x)))
                                             + (1 - y) * np.log(1 - 1 / (1 + np.exp(-x)))), r), BIN),
    "kl_div": (lambda x, y, r: F.kl_div(F.log_softmax(x, 1), F.softmax(y, 1), reduction=r),
               lambda x, y, r: _reduce(np.exp(_log_softmax(y)) * (_log_softmax(y) - _log_softmax(x)), r), TARGET),
    "kl_div_log_target": (lambda x, y, r: F.kl_div(F.log_softmax(x, 1), F.log_softmax(y, 1), reduction=r,
                                                   log_target=True),
                          lambda x, y, r: _reduce(np.exp(_log_softmax(y)) * (_log_softmax(y) - _log_softmax(x)), r),
                          TARGET),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_matches_numpy_and_gradchecks(name, reduction):
    fn, ref, target = LOSSES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # kl_div's 'mean' warning
        got = fn(torch.from_numpy(INPUT.copy()), torch.from_numpy(target.copy()), reduction)
        np.testing.assert_allclose(got.numpy(), ref(INPUT, target, reduction), rtol=1e-10, atol=1e-12)
        x = torch.from_numpy(INPUT.copy()).requires_grad_()
        assert gradcheck(lambda t: fn(t, torch.from_numpy(target.copy()), reduction), (x,))


CE_CASES = {
    "plain": {},
    "weight": {"weight": np.array([0.2, 1.0, 3.0])},
    "ignore_index": {"ignore_index": 2},
    "label_smoothing": {"smoothing": 0.2},
    "all": {"weight": np.array([0.2, 1.0, 3.0]), "ignore_index": 1, "smoothing": 0.1},
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("case", sorted(CE_CASES))
def test_cross_entropy_with_class_indices_matches_numpy(case, reduction):
    kw = CE_CASES[case]
    weight = None if "weight" not in kw else torch.from_numpy(kw["weight"])

    def call(x):
        return F.cross_entropy(x, torch.from_numpy(CLASSES), weight=weight, ignore_index=kw.get("ignore_index", -100),
                               label_smoothing=kw.get("smoothing", 0.0), reduction=reduction)

    got = call(torch.from_numpy(INPUT.copy()))
    np.testing.assert_allclose(got.numpy(), _ce(INPUT, CLASSES, kw.get("weight"), kw.get("ignore_index", -100),
                                                kw.get("smoothing", 0.0), reduction), rtol=1e-10, atol=1e-12)
    assert gradcheck(call, (torch.from_numpy(INPUT.copy()).requires_grad_(),))


def test_cross_entropy_with_class_probabilities_matches_numpy():
    probs = np.exp(_log_softmax(TARGET))
    got = F.cross_entropy(torch.from_numpy(INPUT), torch.from_numpy(probs))
    np.testing.assert_allclose(got.item(), -(probs * _log_softmax(INPUT)).sum(1).mean(), rtol=1e-12)
    got = F.cross_entropy(torch.from_numpy(INPUT), torch.from_numpy(probs), label_smoothing=0.3, reduction="sum")
    smoothed = probs * 0.7 + 0.3 / 3
    np.testing.assert_allclose(got.item(), -(smoothed * _log_softmax(INPUT)).sum(), rtol=1e-12)
    x = torch.from_numpy(INPUT.copy()).requires_grad_()
    assert gradcheck(lambda t: F.cross_entropy(t, torch.from_numpy(probs)), (x,))


def test_nll_loss_matches_numpy_and_handles_extra_dims():
    logp = _log_softmax(INPUT)
    got = F.nll_loss(torch.from_numpy(logp), torch.from_numpy(CLASSES), reduction="sum")
    np.testing.assert_allclose(got.item(), -logp[np.arange(4), CLASSES].sum(), rtol=1e-12)
    x = torch.randn(2, 3, 4, dtype=torch.float64).log_softmax(1)
    y = torch.tensor([[0, 1, 2, 0], [2, 2, 1, 0]])
    expected = -x.gather(1, y.unsqueeze(1)).squeeze(1)
    assert torch.allclose(F.nll_loss(x, y, reduction="none"), expected)


def test_weighted_regression_losses_divide_by_the_weight_sum():
    x, y = torch.from_numpy(INPUT), torch.from_numpy(TARGET)
    w = torch.from_numpy(RNG.random((4, 3)))
    np.testing.assert_allclose(F.mse_loss(x, y, weight=w).item(),
                               ((INPUT - TARGET) ** 2 * w.numpy()).sum() / w.numpy().sum(), rtol=1e-12)
    np.testing.assert_allclose(F.huber_loss(x, y, weight=w).item(),
                               (_huber(INPUT - TARGET, 1.0) * w.numpy()).mean(), rtol=1e-12)


def test_loss_argument_errors_are_pytorchs():
    with pytest.raises(ValueError, match=r"Using a target size \(torch.Size\(\[3\]\)\) that is different to the input "
                                         r"size \(torch.Size\(\[2\]\)\) is deprecated"):
        F.binary_cross_entropy(torch.rand(2), torch.rand(3))
    with pytest.raises(ValueError, match=r"Target size \(torch.Size\(\[3\]\)\) must be the same as input size"):
        F.binary_cross_entropy_with_logits(torch.rand(2), torch.rand(3))
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.mse_loss(torch.rand(2), torch.rand(2), reduction="foo")
    with pytest.warns(UserWarning, match="Using a target size"):
        F.mse_loss(torch.rand(2, 1), torch.rand(2))
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the batch size"):
        F.kl_div(torch.rand(2), torch.rand(2))


def test_kl_div_batchmean_divides_by_batch_size():
    x, y = torch.randn(4, 3).log_softmax(1), torch.randn(4, 3).softmax(1)
    assert torch.allclose(F.kl_div(x, y, reduction="batchmean"), F.kl_div(x, y, reduction="sum") / 4)
