"""BatchNorm1d/2d/3d, LayerNorm, GroupNorm: NumPy float64 references, running statistics, gradcheck, and
PyTorch 2.13's reprs, state_dict keys and error messages (literals generated once with PyTorch 2.13)."""
from __future__ import annotations

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import gradcheck

RNG = np.random.default_rng(0)


def _bn_ref(x, w, b, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mean, var = x.mean(axes, keepdims=True), x.var(axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps)
    if w is not None:
        y = y * w.reshape(shape) + b.reshape(shape)
    return y, mean.reshape(-1), x.var(axes, ddof=1)


@pytest.mark.parametrize("cls,shape", [(nn.BatchNorm1d, (6, 4)), (nn.BatchNorm1d, (6, 4, 5)),
                                       (nn.BatchNorm2d, (4, 4, 3, 5)), (nn.BatchNorm3d, (2, 4, 3, 2, 3))])
def test_batch_norm_training_matches_numpy_and_updates_running_stats(cls, shape):
    m = cls(4, eps=1e-3, momentum=0.3).double()
    with torch.no_grad():
        m.weight.copy_(torch.tensor(RNG.standard_normal(4)))
        m.bias.copy_(torch.tensor(RNG.standard_normal(4)))
    x = RNG.standard_normal(shape) * 2 + 1
    y = m(torch.tensor(x))
    ref, mean, unbiased = _bn_ref(x, m.weight.detach().numpy(), m.bias.detach().numpy(), 1e-3)
    np.testing.assert_allclose(y.detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.running_mean.numpy(), 0.3 * mean, rtol=1e-12)
    np.testing.assert_allclose(m.running_var.numpy(), 0.7 + 0.3 * unbiased, rtol=1e-12)
    assert m.num_batches_tracked.item() == 1 and m.num_batches_tracked.dtype == torch.int64


def test_batch_norm_eval_uses_running_stats():
    m = nn.BatchNorm2d(3).double()
    for _ in range(3):
        m(torch.randn(4, 3, 2, 2, dtype=torch.float64))
    m.eval()
    x = torch.randn(2, 3, 2, 2, dtype=torch.float64)
    rm, rv = m.running_mean.numpy().copy(), m.running_var.numpy().copy()
    ref = (x.numpy() - rm.reshape(1, 3, 1, 1)) / np.sqrt(rv.reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(m(x).detach().numpy(), ref, rtol=1e-12)
    assert m.num_batches_tracked.item() == 3
    np.testing.assert_array_equal(m.running_mean.numpy(), rm)  # eval leaves the running stats alone


def test_batch_norm_momentum_none_is_cumulative_average():
    m = nn.BatchNorm1d(3, momentum=None).double()
    batches = [RNG.standard_normal((5, 3)) for _ in range(4)]
    for b in batches:
        m(torch.tensor(b))
    np.testing.assert_allclose(m.running_mean.numpy(), np.mean([b.mean(0) for b in batches], 0), rtol=1e-12)
    np.testing.assert_allclose(m.running_var.numpy(), np.mean([b.var(0, ddof=1) for b in batches], 0), rtol=1e-12)
    assert m.num_batches_tracked.item() == 4


def test_batch_norm_without_running_stats_uses_batch_stats_in_eval():
    m = nn.BatchNorm2d(3, track_running_stats=False, affine=False).eval()
    assert m.running_mean is None and m.num_batches_tracked is None
    x = RNG.standard_normal((4, 3, 2, 2))
    np.testing.assert_allclose(m(torch.tensor(x)).numpy(), _bn_ref(x, None, None, 1e-5)[0], rtol=1e-10)
    assert list(m.state_dict().keys()) == []


def test_batch_norm_functional_without_buffers():
    x = RNG.standard_normal((5, 3, 4))
    np.testing.assert_allclose(F.batch_norm(torch.tensor(x), None, None, training=True).numpy(),
                               _bn_ref(x, None, None, 1e-5)[0], rtol=1e-10)


def test_layer_norm_matches_numpy():
    x = RNG.standard_normal((3, 4, 5))
    m = nn.LayerNorm((4, 5), eps=1e-3).double()
    with torch.no_grad():
        m.weight.copy_(torch.tensor(RNG.standard_normal((4, 5))))
        m.bias.copy_(torch.tensor(RNG.standard_normal((4, 5))))
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    ref = (x - mean) / np.sqrt(var + 1e-3) * m.weight.detach().numpy() + m.bias.detach().numpy()
    np.testing.assert_allclose(m(torch.tensor(x)).detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    plain = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(nn.LayerNorm(5, elementwise_affine=False)(torch.tensor(x)).numpy(), plain, rtol=1e-10)
    no_bias = nn.LayerNorm(5, bias=False).double()
    assert no_bias.bias is None and list(no_bias.state_dict().keys()) == ["weight"]
    np.testing.assert_allclose(no_bias(torch.tensor(x)).detach().numpy(), plain, rtol=1e-10)


def test_group_norm_matches_numpy():
    x = RNG.standard_normal((3, 6, 4, 5))
    m = nn.GroupNorm(2, 6).double()
    with torch.no_grad():
        m.weight.copy_(torch.tensor(RNG.standard_normal(6)))
        m.bias.copy_(torch.tensor(RNG.standard_normal(6)))
    g = x.reshape(3, 2, -1)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    ref = ref * m.weight.detach().numpy().reshape(1, 6, 1, 1) + m.bias.detach().numpy().reshape(1, 6, 1, 1)
    np.testing.assert_allclose(m(torch.tensor(x)).detach().numpy(), ref, rtol=1e-10, atol=1e-12)
    x3 = RNG.standard_normal((2, 6, 5))
    g = x3.reshape(2, 3, -1)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(x3.shape)
    np.testing.assert_allclose(nn.GroupNorm(3, 6, affine=False)(torch.tensor(x3)).numpy(), ref, rtol=1e-10)


def test_norm_gradcheck_float64():
    x = torch.randn(4, 3, 2, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b))
    rm, rv = torch.randn(3, dtype=torch.float64), torch.rand(3, dtype=torch.float64) + 0.5
    assert gradcheck(lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False), (x, w, b))
    lw = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    lb = torch.randn(2, 3, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.layer_norm(x, (2, 3), w, b), (x, lw, lb))
    x6 = torch.randn(2, 6, 3, dtype=torch.float64, requires_grad=True)
    gw = torch.randn(6, dtype=torch.float64, requires_grad=True)
    gb = torch.randn(6, dtype=torch.float64, requires_grad=True)
    assert gradcheck(lambda x, w, b: F.group_norm(x, 3, w, b), (x6, gw, gb))


def test_norm_reprs_and_state_dict_keys_match_pytorch():
    # Literals from PyTorch 2.13.
    bn_keys = ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    cases = [
        (nn.BatchNorm1d(4), "BatchNorm1d(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)",
         bn_keys),
        (nn.BatchNorm2d(3, eps=1e-3, momentum=None, affine=False, track_running_stats=False),
         "BatchNorm2d(3, eps=0.001, momentum=None, affine=False, bias=False, track_running_stats=False)", []),
        (nn.BatchNorm2d(3, bias=False),
         "BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=False, track_running_stats=True)",
         ["weight", "running_mean", "running_var", "num_batches_tracked"]),
        (nn.LayerNorm(5), "LayerNorm((5,), eps=1e-05, elementwise_affine=True, bias=True)", ["weight", "bias"]),
        (nn.LayerNorm([4, 5], eps=1e-6, elementwise_affine=False),
         "LayerNorm((4, 5), eps=1e-06, elementwise_affine=False, bias=False)", []),
        (nn.GroupNorm(2, 6), "GroupNorm(2, 6, eps=1e-05, affine=True, bias=True)", ["weight", "bias"]),
        (nn.GroupNorm(3, 6, eps=1e-3, affine=False), "GroupNorm(3, 6, eps=0.001, affine=False, bias=False)", []),
    ]
    for m, text, keys in cases:
        assert repr(m) == text
        assert list(m.state_dict().keys()) == keys


def test_batch_norm_defaults_and_state_dict_round_trip():
    m = nn.BatchNorm2d(3)
    np.testing.assert_array_equal(m.weight.detach().numpy(), np.ones(3))
    np.testing.assert_array_equal(m.bias.detach().numpy(), np.zeros(3))
    np.testing.assert_array_equal(m.running_var.numpy(), np.ones(3))
    m(torch.randn(4, 3, 2, 2))
    m2 = nn.BatchNorm2d(3)
    m2.load_state_dict(m.state_dict())
    assert m2.num_batches_tracked.item() == 1
    np.testing.assert_array_equal(m2.running_mean.numpy(), m.running_mean.numpy())
    # A state_dict from before num_batches_tracked existed (metadata version 1) still loads.
    sd = m.state_dict()
    del sd["num_batches_tracked"]
    sd._metadata[""]["version"] = 1
    nn.BatchNorm2d(3).load_state_dict(sd)
    m.reset_running_stats()
    assert m.num_batches_tracked.item() == 0 and m.running_mean.abs().sum().item() == 0


def test_norm_errors_match_pytorch():
    with pytest.raises(ValueError, match=r"^expected 2D or 3D input \(got 4D input\)$"):
        nn.BatchNorm1d(3)(torch.zeros(2, 3, 4, 5))
    with pytest.raises(ValueError, match=r"^expected 4D input \(got 3D input\)$"):
        nn.BatchNorm2d(3)(torch.zeros(2, 3, 4))
    with pytest.raises(ValueError, match=r"^Expected more than 1 value per channel when training, got input size "
                                         r"torch.Size\(\[1, 3\]\)$"):
        nn.BatchNorm1d(3)(torch.zeros(1, 3))
    with pytest.raises(RuntimeError, match="^running_mean should contain 4 elements not 3$"):
        nn.BatchNorm1d(3)(torch.zeros(2, 4))
    with pytest.raises(ValueError, match=r"^batch_norm eps must be positive during training, but got 0.0$"):
        F.batch_norm(torch.zeros(2, 3), None, None, training=True, eps=0.0)
    with pytest.raises(ValueError, match=r"^num_channels \(6\) must be divisible by num_groups \(4\)$"):
        nn.GroupNorm(4, 6)
    with pytest.raises(ValueError, match=r"^Expected more than 1 value per channel when training, got input size "
                                         r"\[1, 2\]$"):
        F.group_norm(torch.zeros(1, 2), 2)
    with pytest.raises(RuntimeError, match="^Expected at least 2 dimensions for input tensor but received 1$"):
        F.group_norm(torch.zeros(4), 2)
    with pytest.raises(RuntimeError, match=r"^Given normalized_shape=\[4\], expected input with shape \[\*, 4\], but "
                                           r"got input of size\[2, 5\]$"):
        nn.LayerNorm(4)(torch.zeros(2, 5))


def _shared_and_copies(device: str, dtype: torch.dtype) -> None:
    torch.manual_seed(0)
    shared, linear = nn.BatchNorm1d(4), nn.Linear(4, 4)
    first, second = nn.BatchNorm1d(4), nn.BatchNorm1d(4)
    for module in (shared, linear, first, second):
        module.to(device=device, dtype=dtype)
    x = torch.randn(6, 4, device=device, dtype=dtype, requires_grad=True)
    version = shared.running_mean._version
    y = shared(linear(shared(linear(x))))
    (grad,) = torch.autograd.grad(y.float().square().sum(), x)
    y_copies = second(linear(first(linear(x))))
    (grad_copies,) = torch.autograd.grad(y_copies.float().square().sum(), x)
    torch.testing.assert_close(y, y_copies)
    torch.testing.assert_close(grad, grad_copies)
    # from 0: first = 0.1 m1, second = 0.1 m2; shared = 0.9 (0.1 m1) + 0.1 m2
    expected = 0.9 * first.running_mean.double() + second.running_mean.double()
    tolerance = {} if dtype in (torch.float32, torch.float64) else {"atol": 2e-3, "rtol": 1e-2}
    torch.testing.assert_close(shared.running_mean.double(), expected, **tolerance)
    # written in place without a version bump, as PyTorch's native_batch_norm
    assert shared.running_mean._version == version and shared.running_var._version == version


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
def test_a_batch_norm_applied_twice_in_one_forward_trains_as_two_copies_of_it(dtype):
    _shared_and_copies("cpu", dtype)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_a_batch_norm_applied_twice_on_the_device_trains_as_two_copies_of_it(dtype):
    _shared_and_copies("cuda", dtype)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_reduced_float_running_statistics_update_in_training_only_however_they_are_passed(dtype):
    x = torch.randn(5, 3).to(dtype)
    mean = x.float().mean(0)
    for by_keyword in (False, True):
        rm, rv = torch.zeros(3, dtype=dtype), torch.ones(3, dtype=dtype)
        stats = {"running_mean": rm, "running_var": rv} if by_keyword else {}
        args = (x, None, None) + (() if by_keyword else (rm, rv))
        torch.ops.aten.native_batch_norm.default(*args, training=True, momentum=0.5, eps=1e-5, **stats)
        torch.testing.assert_close(rm.float(), 0.5 * mean, atol=1e-2, rtol=1e-2)
        assert rm._version == 0
    # in evaluation they are only read: expanded (overlapping) statistics are fine
    rm, rv = torch.zeros(1, dtype=dtype).expand(3), torch.ones(1, dtype=dtype).expand(3)
    out = F.batch_norm(x, rm, rv, training=False)
    torch.testing.assert_close(out.float(), x.float() / (1 + 1e-5) ** 0.5, atol=1e-2, rtol=1e-2)
