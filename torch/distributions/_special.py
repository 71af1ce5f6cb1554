"""The regularised lower incomplete gamma function P(a, x) and its derivative in a, by their
power series, for Gamma.cdf and the implicit reparameterisation gradient of gamma samples
(Ember has no torch.special.gammainc)."""
from __future__ import annotations

import math

import torch
from torch import Tensor

_CHUNK = 2048  # elements per series grid, to bound memory at chunk * terms doubles


def gammainc_series(a: Tensor, x: Tensor, with_grad_a: bool = False) -> Tensor:
    """P(a, x) (or dP/da when with_grad_a) elementwise for 1-D float64 a > 0 and x >= 0."""
    parts = [_series(a[i:i + _CHUNK], x[i:i + _CHUNK], with_grad_a) for i in range(0, a.numel(), _CHUNK)]
    return torch.cat(parts) if parts else a.new_zeros(0)


def _series(a: Tensor, x: Tensor, with_grad_a: bool) -> Tensor:
    # P(a, x) = sum_n exp((a + n) log x - x - lgamma(a + n + 1)); each term's a-derivative brings
    # down log x - digamma(a + n + 1). Enough terms to pass the peak at n ~ x - a and its tail.
    n_terms = int(float((x - a).clamp(min=0).max()) + 12 * math.sqrt(float(x.max()) + 1) + 40)
    n = torch.arange(n_terms, dtype=a.dtype, device=a.device)
    an = a.unsqueeze(-1) + n
    log_x = x.clamp(min=torch.finfo(x.dtype).tiny).log().unsqueeze(-1)
    terms = torch.exp(an * log_x - x.unsqueeze(-1) - torch.lgamma(an + 1))
    if with_grad_a:
        terms = terms * (log_x - torch.digamma(an + 1))
    return terms.sum(-1)


def gammainc(a: Tensor, x: Tensor) -> Tensor:
    """P(a, x) for broadcastable a > 0 and x (0 for x <= 0), differentiable in both."""
    a, x = torch.broadcast_tensors(a, x)
    flat_x = x.reshape(-1).to(torch.float64)
    flat = gammainc_series(a.reshape(-1).to(torch.float64), flat_x.clamp(min=0))
    # the series clamps x to the smallest normal, where P is tiny but not 0
    flat = torch.where(flat_x > 0, flat, torch.zeros_like(flat))
    return flat.reshape(a.shape).to(a.dtype)
