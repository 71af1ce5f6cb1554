"""torch.distributions.poisson: the Poisson distribution."""
from __future__ import annotations

import torch
from torch import Tensor
from torch.distributions import _samplers, constraints
from torch.distributions.exp_family import ExponentialFamily
from torch.distributions.utils import ShapeLike, _is_number, broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson(rate): P(k) = rate^k exp(-rate) / k!. Samples come from torch.distributions._samplers
    and differ from PyTorch's."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(torch.Size() if _is_number(rate) else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape: ShapeLike, _instance: Poisson | None = None) -> Poisson:
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = torch.Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return self._finish_expand(new, batch_shape)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: ShapeLike = torch.Size()) -> Tensor:
        with torch.no_grad():
            return _samplers.poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (torch.log(self.rate),)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        return torch.exp(natural_params[0])
