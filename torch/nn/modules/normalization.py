"""LayerNorm and GroupNorm (PyTorch's parameters and reprs)."""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor
from torch.nn import functional as F
from torch.nn import init
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm"]


def _affine_parameters(module: Module, affine: bool, bias: bool, shape: Any, device: Any, dtype: Any) -> None:
    """weight (and bias unless bias=False) of shape when affine, else both registered as None; then
    their initial values (PyTorch's: ones and zeros)."""
    module.register_parameter("weight", Parameter(torch.empty(shape, device=device, dtype=dtype)) if affine else None)
    module.register_parameter("bias", Parameter(torch.empty(shape, device=device, dtype=dtype))
                              if affine and bias else None)
    _reset_affine(module)


def _reset_affine(module: Any) -> None:
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """Normalise over the trailing normalized_shape dimensions of each sample.

    Args:
        normalized_shape: an int or the trailing shape. eps: added to the variance. Default: 1e-5.
        elementwise_affine: learnable weight (ones) of normalized_shape. bias: with it a learnable bias (zeros).
    """

    normalized_shape: tuple[int, ...]
    weight: Tensor | None
    bias: Tensor | None

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5, elementwise_affine: bool = True,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            self.normalized_shape = (int(normalized_shape),)
        else:
            assert not isinstance(normalized_shape, int)
            self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, bias, self.normalized_shape, device, dtype)

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalise each of num_groups groups of channels per sample; per-channel affine weight and bias.

    Args:
        num_groups: groups to split the num_channels channels into (must divide it).
        eps: added to the variance. Default: 1e-5. affine: learnable weight (ones) and bias (zeros).
    """

    weight: Tensor | None
    bias: Tensor | None

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: Any = None, dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, affine, bias, num_channels, device, dtype)

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Divide by the root mean square over the trailing normalized_shape dimensions of each sample.

    Args:
        normalized_shape: an int or the trailing shape. eps: added to the mean square (default: the
            machine epsilon of the computation's dtype). elementwise_affine: learnable weight (ones).
    """

    normalized_shape: tuple[int, ...]
    weight: Tensor | None

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            self.normalized_shape = (int(normalized_shape),)
        else:
            assert not isinstance(normalized_shape, int)
            self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, False, self.normalized_shape, device, dtype)

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, x: Tensor) -> Tensor:
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
