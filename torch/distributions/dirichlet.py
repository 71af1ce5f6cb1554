"""torch.distributions.dirichlet: the Dirichlet distribution on the simplex."""
from __future__ import annotations

import torch
from torch import Tensor
from torch.distributions import constraints
from torch.distributions import _samplers
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.utils import ShapeLike
from torch.nn.functional import one_hot

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration) over the last dim of concentration. rsample normalises
    reparameterised gamma draws, so samples differ from PyTorch's."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: ShapeLike, _instance: Dirichlet | None = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = torch.Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        return self._finish_expand(new, batch_shape, self.event_shape)

    def rsample(self, sample_shape: ShapeLike = ()) -> Tensor:
        return _samplers.dirichlet(self.concentration.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (torch.xlogy(self.concentration - 1.0, value).sum(-1) + torch.lgamma(self.concentration.sum(-1))
                - torch.lgamma(self.concentration).sum(-1))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # all concentrations below 1: the density piles up at every corner and mode is 0/0 = nan;
        # PyTorch answers the corner argmax picks on that nan row (the first)
        corner = one_hot(mode.argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return torch.where((self.concentration < 1).all(dim=-1, keepdim=True), corner, mode)

    @property
    def variance(self) -> Tensor:
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> Tensor:
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (torch.lgamma(self.concentration).sum(-1) - torch.lgamma(a0) - (k - a0) * torch.digamma(a0)
                - ((self.concentration - 1.0) * torch.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.concentration,)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        x = natural_params[0]
        return x.lgamma().sum(-1) - torch.lgamma(x.sum(-1))
