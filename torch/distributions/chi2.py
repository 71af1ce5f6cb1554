"""torch.distributions.chi2: the chi-squared distribution, Gamma(df / 2, 1 / 2)."""
from __future__ import annotations

from typing import Any

from torch import Tensor
from torch.distributions import constraints
from torch.distributions.gamma import Gamma
from torch.distributions.utils import ShapeLike

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Chi2(df): the sum of df squared standard normals."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Tensor | float, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: ShapeLike, _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        result = super().expand(batch_shape, new)
        assert isinstance(result, Chi2)
        return result

    @property
    def df(self) -> Tensor:
        return self.concentration * 2
