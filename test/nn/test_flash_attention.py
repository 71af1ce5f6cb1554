"""The CPU flash kernel (_scaled_dot_product_flash_attention_for_cpu and its backward) against NumPy's
float64 attention, scaled_dot_product_attention's choice between it and the math path (PyTorch's rules),
thread-count independence, and a double backward through it."""
from __future__ import annotations

import numpy as np
import pytest

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

flash = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
flash_backward = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward


def _reference(q, k, v, causal, scale=None):
    """(out, logsumexp, probabilities) of softmax(q k^T * scale) v in float64."""
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = np.einsum("bhle,bhse->bhls", q, k) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    total = e.sum(-1, keepdims=True)
    p = e / total
    return np.einsum("bhls,bhsv->bhlv", p, v), (m + np.log(total))[..., 0], p


def _reference_grads(g, q, k, v, p, scale):
    dv = np.einsum("bhls,bhlv->bhsv", p, g)
    dp = np.einsum("bhlv,bhsv->bhls", g, v)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    return np.einsum("bhls,bhse->bhle", ds, k) * scale, np.einsum("bhls,bhle->bhse", ds, q) * scale, dv


SHAPES = [(2, 3, 70, 70, 8), (1, 2, 130, 600, 16), (1, 1, 5, 9, 3), (2, 1, 200, 130, 4)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_forward_and_backward_match_numpy(shape, causal, dtype):
    b, h, length, source, e = shape
    rng = np.random.default_rng(0)
    q, k, v, g = (rng.standard_normal(s) for s in ((b, h, length, e), (b, h, source, e), (b, h, source, e),
                                                    (b, h, length, e)))
    t = [torch.from_numpy(a).to(dtype) for a in (q, k, v, g)]
    out, lse = flash(t[0], t[1], t[2], 0.0, causal, scale=0.3)
    want, want_lse, p = _reference(q, k, v, causal, 0.3)
    tol = 2e-5 if dtype == torch.float32 else 1e-12
    np.testing.assert_allclose(out.numpy(), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(lse.numpy(), want_lse, rtol=tol, atol=tol)
    grads = flash_backward(t[3], t[0], t[1], t[2], out, lse, 0.0, causal, scale=0.3)
    for got, ref in zip(grads, _reference_grads(g, q, k, v, p, 0.3)):
        np.testing.assert_allclose(got.numpy(), ref, rtol=10 * tol, atol=10 * tol)


def test_sdpa_takes_the_flash_kernel_where_pytorch_does_and_the_math_path_elsewhere():
    q, k, v = torch.randn(1, 2, 5, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8)

    def ran_flash(**kwargs):
        with torch.profiler.profile() as prof:
            F.scaled_dot_product_attention(q, k, kwargs.pop("value", v), **kwargs)
        return any(e.key == "aten::_scaled_dot_product_flash_attention_for_cpu" for e in prof.key_averages())

    assert ran_flash() and ran_flash(is_causal=True)
    assert not ran_flash(attn_mask=torch.ones(5, 6, dtype=torch.bool))
    assert not ran_flash(value=torch.randn(1, 2, 6, 4))          # value's head dim differs (PyTorch's rule)
    with sdpa_kernel(SDPBackend.MATH):
        assert not ran_flash()
    want, _, _ = _reference(q.double().numpy(), k.double().numpy(), v.double().numpy(), True)
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy(), want,
                               rtol=2e-5, atol=2e-6)


def test_the_same_bits_on_any_thread_count():
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 150, 16, requires_grad=True) for _ in range(3))
    before = torch.get_num_threads()
    results = []
    try:
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            results.append((out.detach(),) + torch.autograd.grad(out, (q, k, v), torch.ones_like(out)))
    finally:
        torch.set_num_threads(before)
    for other in results[1:]:
        assert all(torch.equal(a, b) for a, b in zip(results[0], other))


def test_create_graph_keeps_a_double_backward():
    q, k, v = (torch.randn(1, 2, 4, 3, dtype=torch.float64, requires_grad=True) for _ in range(3))
    assert torch.autograd.gradgradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True),
                                        (q, k, v))


def test_bad_operands_raise():
    x = torch.randn(2, 5, 8)
    with pytest.raises(RuntimeError, match="must be 4-D"):
        flash(x, x, x)
    q = torch.randn(1, 1, 3, 4)
    with pytest.raises(RuntimeError, match="one dtype"):
        flash(q, q.double(), q)
    with pytest.raises(RuntimeError, match="shapes do not match"):
        flash(q, torch.randn(1, 2, 3, 4), torch.randn(1, 2, 3, 4))
    with pytest.raises(RuntimeError, match="dropout"):
        flash(q, q, q, 0.5)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_reduced_floats_attend_in_float32_and_keep_a_float32_logsumexp(dtype):
    rng = np.random.default_rng(4)
    q, k, v, g = (rng.standard_normal((1, 2, 100, 16)) for _ in range(4))
    q, k = 3 * q, 3 * k
    t = [torch.from_numpy(a).to(dtype) for a in (q, k, v, g)]
    out, lse = flash(t[0], t[1], t[2], 0.0, True)
    assert out.dtype == dtype and lse.dtype == torch.float32
    wide = [x.double().numpy() for x in t]          # the rounded operands, exactly
    want, want_lse, p = _reference(wide[0], wide[1], wide[2], True)
    np.testing.assert_allclose(lse.numpy(), want_lse, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.double().numpy(), want, rtol=2e-2, atol=2e-2)
    grads = flash_backward(t[3], t[0], t[1], t[2], out, lse, 0.0, True)
    scale = 1 / np.sqrt(16)
    for got, ref in zip(grads, _reference_grads(wide[3], wide[0], wide[1], wide[2], p, scale)):
        assert got.dtype == dtype
        assert np.abs(got.double().numpy() - ref).max() <= 0.02 * np.abs(ref).max()
