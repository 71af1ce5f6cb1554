"""torch.distributions.exp_family: ExponentialFamily, whose entropy (and same-family KL) follows
from the log normaliser by autograd (Bregman divergence)."""
from __future__ import annotations

import torch
from torch import Tensor
from torch.distributions.distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """p(x; theta) = exp(<t(x), theta> - F(theta) + k(x)): subclasses give the natural parameters
    theta, the log normaliser F and the carrier measure's mean E[k(x)]."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        # H = F(theta) - <theta, grad F(theta)> - E[k(x)]
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = torch.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = lg_normal - self._mean_carrier_measure
        for param, grad in zip(nparams, gradients):
            result = result - (param * grad).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
