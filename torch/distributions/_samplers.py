"""Samplers for the distributions whose PyTorch sampler is a C++ kernel Ember does not have
(torch._standard_gamma, torch.poisson, torch.binomial, torch._sample_dirichlet), written as
vectorised tensor-op rejection loops: each round draws for every element and keeps the draws
of the elements still waiting, so the loop runs a handful of rounds however many elements.

They are statistically exact but do NOT give PyTorch's samples for the same seed (PyTorch's
kernels consume its generator in their own per-element order). They work in float64 and return
the parameter's dtype.

- gamma: Marsaglia and Tsang (2000), with the boost G(a) = G(a + 1) * U^(1/a) for a < 1;
  reparameterised by implicit differentiation, dx/da = -(dP(a, x)/da) / p(x; a), where P is the
  regularised lower incomplete gamma function (_standard_gamma_grad).
- poisson: counting unit-rate exponential arrivals for rates below 10; Hormann's transformed
  rejection with squeeze (PTRS, 1993) above.
- binomial: Devroye's waiting-time (geometric gap) method when n * min(p, 1 - p) < 10; Hormann's
  BTRS (1993) above.
"""
from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor
from torch.autograd import Function
from torch.distributions._special import gammainc_series

_F64 = torch.float64


def _rand(like: Tensor) -> Tensor:
    return torch.rand(like.shape, dtype=_F64, device=like.device)


def _gamma_sample(alpha: Tensor) -> Tensor:
    """Standard gamma draws (rate 1), one per element of alpha, clamped to the dtype's tiny."""
    a = alpha.detach().to(_F64)
    # an invalid parameter would keep its rejection loop running for ever: nan out, no loop
    bad = ~(torch.isfinite(a) & (a > 0))
    a = torch.where(bad, torch.ones_like(a), a)
    boost = a < 1
    shape_a = torch.where(boost, a + 1, a)
    d = shape_a - 1.0 / 3.0
    c = 1.0 / torch.sqrt(9.0 * d)
    out = torch.zeros_like(a)
    pending = torch.ones_like(a, dtype=torch.bool)
    while bool(pending.any()):
        x = torch.randn(a.shape, dtype=_F64, device=a.device)
        v = (1.0 + c * x) ** 3
        log_u = torch.log(_rand(a))
        ok = v > 0
        log_v = torch.log(torch.where(ok, v, torch.ones_like(v)))
        accept = pending & ok & (log_u < 0.5 * x * x + d - d * v + d * log_v)
        out = torch.where(accept, d * v, out)
        pending = pending & ~accept
    # log space: U^(1/a) underflows for tiny a long before the product does
    boosted = torch.exp(torch.log(out) + torch.log(_rand(a)) / a)
    out = torch.where(boost, boosted, out)
    out = out.clamp(min=torch.finfo(alpha.dtype).tiny).masked_fill(bad, math.nan)
    return out.to(alpha.dtype)


# Above this the Wilson-Hilferty derivative is within ~1e-5 relative and the series gets long
_SERIES_MAX_ALPHA = 1000.0


def _standard_gamma_grad(x: Tensor, alpha: Tensor) -> Tensor:
    """dx/dalpha for x ~ Gamma(alpha, 1) held at a fixed quantile: -(dP/dalpha) / pdf."""
    a, xd = alpha.to(_F64), x.to(_F64).clamp(min=torch.finfo(_F64).tiny)
    log_x = xd.log()
    small = a <= _SERIES_MAX_ALPHA
    grad = _wilson_hilferty_grad(xd, a)
    if bool(small.any()):
        a_s, x_s, log_x_s = a[small], xd[small], log_x[small]
        dp_da = gammainc_series(a_s, x_s, with_grad_a=True)
        log_pdf = (a_s - 1) * log_x_s - x_s - torch.lgamma(a_s)
        grad = grad.masked_scatter(small, -dp_da / torch.exp(log_pdf))
    return grad.to(x.dtype)


def _wilson_hilferty_grad(x: Tensor, a: Tensor) -> Tensor:
    """dx/da at fixed z under x = a (1 - 1/(9a) + z / (3 sqrt a))^3, accurate for large a."""
    sqrt_a = a.sqrt()
    t = (x / a).pow(1.0 / 3.0)
    z = (t - 1 + 1 / (9 * a)) * 3 * sqrt_a
    dt_da = 1 / (9 * a * a) - z / (6 * a * sqrt_a)
    return t ** 3 + 3 * a * t * t * dt_da


class _StandardGamma(Function):
    """A standard gamma draw whose gradient with respect to alpha is the implicit one."""

    @staticmethod
    def forward(ctx: Any, alpha: Tensor) -> Tensor:
        x = _gamma_sample(alpha)
        ctx.save_for_backward(x, alpha)
        return x

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        x, alpha = ctx.saved_tensors
        return grad_output * _standard_gamma_grad(x.detach(), alpha.detach())


def standard_gamma(alpha: Tensor) -> Tensor:
    """Gamma(alpha, 1) draws, differentiable with respect to alpha."""
    if alpha.requires_grad and torch.is_grad_enabled():
        out: Tensor = _StandardGamma.apply(alpha)
        return out
    return _gamma_sample(alpha)


def dirichlet(concentration: Tensor) -> Tensor:
    """Dirichlet draws over the last dim: normalised gamma draws (differentiable through them)."""
    gammas = standard_gamma(concentration)
    out = gammas / gammas.sum(-1, keepdim=True)
    return out.clamp(min=torch.finfo(out.dtype).tiny)


def poisson(rate: Tensor) -> Tensor:
    """Poisson draws, one per element of rate (no gradient)."""
    lam = rate.detach().to(_F64)
    bad = ~(torch.isfinite(lam) & (lam >= 0))
    lam = torch.where(bad, torch.zeros_like(lam), lam)
    small = lam < 10
    out = torch.where(small, _poisson_small(torch.where(small, lam, torch.zeros_like(lam))), torch.zeros_like(lam))
    if bool((~small).any()):
        out = torch.where(small, out, _poisson_ptrs(torch.where(small, torch.full_like(lam, 10.0), lam)))
    return out.masked_fill(bad, math.nan).to(rate.dtype)


def _poisson_small(lam: Tensor) -> Tensor:
    # the number of unit-rate exponential arrival times before lam
    count = torch.zeros_like(lam)
    elapsed = -torch.log1p(-_rand(lam))
    pending = elapsed < lam
    while bool(pending.any()):
        count = count + pending.to(_F64)
        elapsed = elapsed - torch.log1p(-_rand(lam))
        pending = pending & (elapsed < lam)
    return count


def _poisson_ptrs(lam: Tensor) -> Tensor:
    slam, log_lam = lam.sqrt(), lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    out = torch.zeros_like(lam)
    pending = torch.ones_like(lam, dtype=torch.bool)
    while bool(pending.any()):
        u = _rand(lam) - 0.5
        v = _rand(lam)
        us = 0.5 - u.abs()
        k = torch.floor((2 * a / us + b) * u + lam + 0.43)
        squeeze = (us >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((us < 0.013) & (v > us))
        log_accept = (torch.log(v) + torch.log(inv_alpha) - torch.log(a / (us * us) + b)
                      <= -lam + k * log_lam - torch.lgamma(k + 1))
        accept = pending & (squeeze | (~reject & log_accept))
        out = torch.where(accept, k, out)
        pending = pending & ~accept
    return out


def binomial(total_count: Tensor, probs: Tensor) -> Tensor:
    """Binomial draws, one per element of the broadcast (total_count, probs) (no gradient)."""
    n, p = torch.broadcast_tensors(total_count.detach().to(_F64), probs.detach().to(_F64))
    bad = ~(torch.isfinite(n) & (n >= 0) & (p >= 0) & (p <= 1))
    n, p = torch.where(bad, torch.zeros_like(n), n), torch.where(bad, torch.zeros_like(p), p)
    flip = p > 0.5
    q = torch.where(flip, 1 - p, p)  # sample the rarer outcome, then flip back
    small = n * q < 10
    out = _binomial_inversion(torch.where(small, n, torch.zeros_like(n)), q)
    if bool((~small).any()):
        # elements handled by inversion get harmless BTRS parameters; their draws are discarded
        big = _binomial_btrs(torch.where(small, torch.full_like(n, 40.0), n),
                             torch.where(small, torch.full_like(q, 0.5), q))
        out = torch.where(small, out, big)
    out = torch.where(flip, n - out, out)
    return out.masked_fill(bad, math.nan).to(probs.dtype)


def _binomial_inversion(n: Tensor, p: Tensor) -> Tensor:
    # successes are the trials at positions pos_1 < pos_2 < ... with geometric gaps; count those <= n
    log_q = torch.log1p(-p)
    count = torch.zeros_like(n)
    position = torch.zeros_like(n)
    pending = (n > 0) & (p > 0)
    while bool(pending.any()):
        gap = torch.floor(torch.log1p(-_rand(n)) / log_q) + 1
        position = position + gap
        hit = pending & (position <= n)
        count = count + hit.to(_F64)
        pending = hit
    return count


def _binomial_btrs(n: Tensor, p: Tensor) -> Tensor:
    q = 1 - p
    spq = torch.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    log_pq = torch.log(p / q)
    m = torch.floor((n + 1) * p)
    h = torch.lgamma(m + 1) + torch.lgamma(n - m + 1)
    out = torch.zeros_like(n)
    pending = torch.ones_like(n, dtype=torch.bool)
    while bool(pending.any()):
        u = _rand(n) - 0.5
        v = _rand(n)
        us = 0.5 - u.abs()
        k = torch.floor((2 * a / us + b) * u + c)
        in_range = (k >= 0) & (k <= n)
        squeeze = (us >= 0.07) & (v <= v_r)
        k_safe = k.clamp(min=0).minimum(n)
        log_v = torch.log(v * alpha / (a / (us * us) + b))
        log_accept = log_v <= h - torch.lgamma(k_safe + 1) - torch.lgamma(n - k_safe + 1) + (k_safe - m) * log_pq
        accept = pending & in_range & (squeeze | log_accept)
        out = torch.where(accept, k, out)
        pending = pending & ~accept
    return out
