"""The CTC loss (F.ctc_loss, torch.ctc_loss, nn.CTCLoss): against PyTorch 2.13's recorded losses,
gradients and errors (tools/record_ctc_loss_reference.py wrote test/data/ctc_loss/ctc_loss.json),
against a brute-force sum over every alignment computed with NumPy, by gradcheck through
log_softmax, and the device-neutral kernels CUDA runs against the CPU kernel."""
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import torch
import torch.nn.functional as F
from aten.native.composite.ctc_loss import ctc_loss_backward_portable, ctc_loss_portable
import tools.record_ctc_loss_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "ctc_loss" / "ctc_loss.json").read_text())
CUDA = [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def _close(actual, expected, tol):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("name", [n for n in record.CASES if n in record.SPECS])
def test_losses_and_gradients_match_pytorch(name):
    expected = REFERENCE["cases"][name]
    actual = record.run_case(torch, name)
    tol = 1e-12 if name == "float64" else 1e-6
    for key in ("none", "mean", "sum", "grad_log_probs"):
        _close(actual[key], expected[key], tol)
    # through log_softmax, whose float32 results differ from PyTorch's in the last bit now and then,
    # which long inputs amplify (the gradient holds exp(... + nll), nll ~ 80 here)
    _close(actual["grad_logits"], expected["grad_logits"], tol * (100 if name == "long" else 2))


@pytest.mark.parametrize("name", [n for n in record.CASES if n not in record.SPECS])
def test_errors_reprs_and_defaults_match_pytorch(name):
    expected = REFERENCE["cases"][name]
    actual = record.run_case(torch, name)
    if "result" in expected:
        _close(actual["result"], expected["result"], 2e-6) if name.startswith(("torch_", "unbatched")) else \
            (actual == expected or pytest.fail(f"{actual} != {expected}"))
    else:
        assert actual == expected


def _brute_force_nll(log_probs, target, blank):
    """-log of the sum over every path of length T whose collapse (merge repeats, drop blanks) is
    the target: the CTC definition itself."""
    T, C = log_probs.shape
    total = -np.inf
    for path in itertools.product(range(C), repeat=T):
        collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or path[i - 1] != k)]
        if collapsed == list(target):
            total = np.logaddexp(total, sum(log_probs[t, k] for t, k in enumerate(path)))
    return -total


@settings(max_examples=25, deadline=None)
@given(T=st.integers(1, 5), C=st.integers(2, 4), data=st.data())
def test_loss_is_the_negative_log_of_the_sum_over_alignments(T, C, data):
    blank = data.draw(st.integers(0, C - 1))
    labels = [k for k in range(C) if k != blank]
    target = data.draw(st.lists(st.sampled_from(labels), max_size=3))
    length = data.draw(st.integers(0, T))
    rng = np.random.default_rng(T * 100 + C * 10 + len(target))
    logits = rng.standard_normal((T, 1, C))
    lp = torch.from_numpy(logits).log_softmax(2)
    loss = F.ctc_loss(lp, torch.tensor([target], dtype=torch.int64).reshape(1, len(target)), [length],
                      [len(target)], blank=blank, reduction="none")
    expected = _brute_force_nll(lp[:length, 0].numpy(), target, blank) if length else (0.0 if not target else np.inf)
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-10)


def test_gradient_through_log_softmax_passes_gradcheck():
    rng = np.random.default_rng(3)
    logits = torch.from_numpy(rng.standard_normal((6, 3, 5))).requires_grad_()
    targets = torch.tensor([[1, 1, 2], [3, 4, 4], [2, 0, 0]])
    for reduction in ("none", "mean", "sum"):
        assert torch.autograd.gradcheck(
            lambda x: F.ctc_loss(x.log_softmax(2), targets, [6, 5, 4], [3, 3, 1], reduction=reduction), (logits,))


def test_module_equals_the_functional():
    lp = torch.randn(8, 2, 6).log_softmax(2)
    targets, il, tl = torch.tensor([[1, 2, 3], [4, 5, 5]]), torch.tensor([8, 7]), torch.tensor([3, 2])
    for kwargs in ({}, {"blank": 0, "reduction": "sum"}, {"zero_infinity": True, "reduction": "none"}):
        assert torch.equal(torch.nn.CTCLoss(**kwargs)(lp, targets, il, tl), F.ctc_loss(lp, targets, il, tl, **kwargs))


def test_out_of_range_label_raises_instead_of_reading_past_log_probs():
    lp = torch.randn(5, 1, 4).log_softmax(2)
    with pytest.raises(IndexError, match="target label 7 is out of bounds for 4 labels"):
        F.ctc_loss(lp, torch.tensor([[1, 7]]), [5], [2])
    # labels past a sample's target length are padding and never read
    F.ctc_loss(lp, torch.tensor([[1, 7]]), [5], [1])


def test_second_derivative_raises_as_pytorch():
    lp = torch.randn(5, 1, 4, dtype=torch.float64).log_softmax(2).detach().requires_grad_()
    loss = F.ctc_loss(lp, torch.tensor([[1, 2]]), [5], [2])
    (g,) = torch.autograd.grad(loss, lp, create_graph=True)
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not implemented"):
        g.sum().backward()


@pytest.mark.parametrize("name", ["padded", "concat", "int32", "blank_last", "impossible", "empty_inputs", "long"])
def test_device_neutral_kernels_match_the_cpu_kernel(name):
    logits, targets, il, tl, B, kwargs = record._inputs(torch, name)
    lp = logits.log_softmax(-1).double()
    blank = kwargs.get("blank", 0)
    nll, alpha = torch._ctc_loss(lp, targets, il, tl, blank)
    nll_p, alpha_p = ctc_loss_portable(lp, targets, il, tl, blank)
    _close(nll_p, nll, 1e-12)
    _close(alpha_p.masked_fill(alpha_p == -np.inf, 0), alpha.masked_fill(alpha == -np.inf, 0), 1e-12)
    grad = torch.linspace(0.5, 1.5, B, dtype=torch.float64)
    for zero_infinity in (False, True):
        g = torch.ops.aten._ctc_loss_backward(grad, lp, targets, il, tl, nll, alpha, blank, zero_infinity)
        g_p = ctc_loss_backward_portable(grad, lp, targets, il, tl, nll, alpha, blank, zero_infinity)
        _close(g_p, g, 1e-10)


@pytest.mark.parametrize("name", ["padded", "concat", "long"], ids=str)
@pytest.mark.parametrize("case", [pytest.param(0, marks=CUDA)], ids=["cuda"])
def test_cuda_loss_and_gradient_match_the_cpu(name, case):
    logits, targets, il, tl, B, kwargs = record._inputs(torch, name)
    cpu = logits.clone().requires_grad_()
    dev = logits.cuda().requires_grad_()
    loss_cpu = F.ctc_loss(cpu.log_softmax(-1), targets, il, tl, **kwargs)
    loss_dev = F.ctc_loss(dev.log_softmax(-1), targets.cuda(), il, tl, **kwargs)
    loss_cpu.backward()
    loss_dev.backward()
    _close(loss_dev.detach().cpu(), loss_cpu.detach(), 1e-5)
    _close(dev.grad.cpu(), cpu.grad, 1e-5)
