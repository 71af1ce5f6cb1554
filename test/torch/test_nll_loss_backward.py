"""aten::nll_loss_backward, the gradient of nll_loss and cross_entropy: upstream's schema, one
kernel on CUDA and the composite elsewhere, against NumPy for every reduction, class weights,
ignore_index and an unbatched input."""
import numpy as np
import pytest

import torch

DEVICES = ["cpu", pytest.param("cuda", marks=[pytest.mark.cuda, pytest.mark.skipif(
    not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")])]
REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _expected(grad, target, weight, reduction, ignore_index, n, c):
    """-w[t] * grad at (i, t), grad divided by the summed weights for the mean, 0 elsewhere."""
    w = np.ones(c) if weight is None else weight
    valid = target != ignore_index
    total = w[np.where(valid, target, 0)][valid].sum()
    out = np.zeros((n, c))
    for i in np.flatnonzero(valid):
        g = grad[i] if reduction == "none" else grad
        if reduction == "mean":
            g = g / (total if total != 0 else 1)
        out[i, target[i]] = -(w[target[i]] * g)
    return out


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("reduction", list(REDUCTIONS))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_nll_loss_backward_matches_numpy(device, reduction, weighted, dtype):
    rng = np.random.default_rng(0)
    n, c = 7, 5
    target = rng.integers(0, c, n)
    target[2] = -100                                         # ignored
    weight = rng.random(c) + 0.5 if weighted else None
    grad = rng.standard_normal(n) if reduction == "none" else np.float64(rng.standard_normal())
    logits = torch.randn(n, c, dtype=dtype, device=device)
    t = torch.from_numpy(target).to(device)
    w = torch.from_numpy(weight).to(dtype).to(device) if weighted else None
    _, total_weight = torch.ops.aten.nll_loss_forward(logits, t, w, REDUCTIONS[reduction], -100)
    got = torch.ops.aten.nll_loss_backward(torch.tensor(grad, dtype=dtype, device=device), logits, t, w,
                                           REDUCTIONS[reduction], -100, total_weight)
    expected = _expected(grad, target, weight, reduction, -100, n, c)
    tolerance = 1e-6 if dtype == torch.float32 else 1e-12
    np.testing.assert_allclose(got.cpu().numpy(), expected, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("device", DEVICES)
def test_an_unbatched_input_and_an_all_ignored_mean(device):
    logits = torch.randn(4, dtype=torch.float64, device=device)
    target = torch.tensor(2, device=device)
    _, total = torch.ops.aten.nll_loss_forward(logits, target, None, 1, -100)
    got = torch.ops.aten.nll_loss_backward(torch.tensor(1.5, dtype=torch.float64, device=device), logits, target, None,
                                           1, -100, total)
    np.testing.assert_array_equal(got.cpu().numpy(), _expected(1.5, np.array([2]), None, "mean", -100, 1, 4)[0])
    batch = torch.randn(3, 4, dtype=torch.float64, device=device)
    ignored = torch.full((3,), -100, device=device)
    _, zero = torch.ops.aten.nll_loss_forward(batch, ignored, None, 1, -100)
    got = torch.ops.aten.nll_loss_backward(torch.tensor(1.0, dtype=torch.float64, device=device), batch, ignored, None,
                                           1, -100, zero)
    assert not got.cpu().numpy().any()


@pytest.mark.parametrize("device", DEVICES)
def test_cross_entropy_gradients_flow_through_the_op(device):
    torch.manual_seed(0)
    logits = torch.randn(6, 4, dtype=torch.float64, device=device, requires_grad=True)
    target = torch.tensor([0, 3, 1, 1, 2, 0], device=device)
    torch.nn.functional.cross_entropy(logits, target).backward()
    probabilities = torch.softmax(logits.detach(), 1).cpu().numpy()
    expected = (probabilities - np.eye(4)[target.cpu().numpy()]) / 6
    np.testing.assert_allclose(logits.grad.cpu().numpy(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_the_cuda_kernel_refuses_mismatched_sizes():
    device = "cuda"
    logits = torch.randn(4, 3, device=device)
    target = torch.tensor([0, 1, 2, 1], device=device)
    _, total = torch.ops.aten.nll_loss_forward(logits, target, None, 1, -100)
    one = torch.tensor(1.0, device=device)
    with pytest.raises(RuntimeError, match="size mismatch"):
        torch.ops.aten.nll_loss_backward(one, logits, target[:2], None, 1, -100, total)
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all or no classes"):
        torch.ops.aten.nll_loss_backward(one, logits, target, torch.ones(2, device=device), 1, -100, total)
    with pytest.raises(RuntimeError, match="Expected a single element grad_output tensor"):
        torch.ops.aten.nll_loss_backward(torch.ones(4, device=device), logits, target, None, 1, -100, total)
