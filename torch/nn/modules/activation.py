"""Activation modules: each calls its torch.nn.functional function; reprs as PyTorch's."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor
from torch.nn import functional as F
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter

__all__ = ["Threshold", "ReLU", "Hardtanh", "ReLU6", "Sigmoid", "Tanh", "SiLU", "Mish", "Hardsigmoid", "Hardswish",
           "ELU", "CELU", "SELU", "GLU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid", "Softplus", "Softshrink",
           "PReLU", "Softsign", "Tanhshrink", "Softmin", "Softmax", "LogSoftmax"]


def _inplace_suffix(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class _InplaceActivation(Module):
    """An activation whose only option is inplace (repr: `inplace=True` when set)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Threshold(Module):
    """value where input <= threshold, input elsewhere."""

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class ReLU(_InplaceActivation):
    """max(0, x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)


class Hardtanh(Module):
    """x clamped to [min_val, max_val] (min_value/max_value: deprecated names)."""

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None) -> None:
        super().__init__()
        if min_value is not None:
            import warnings
            warnings.warn("keyword argument `min_value` is deprecated and rename to `min_val`",
                          FutureWarning, stacklevel=2)
            min_val = min_value
        if max_value is not None:
            import warnings
            warnings.warn("keyword argument `max_value` is deprecated and rename to `max_val`",
                          FutureWarning, stacklevel=2)
            max_val = max_value
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self.inplace)}"


class ReLU6(Hardtanh):
    """min(max(0, x), 6)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """1 / (1 + exp(-x))."""

    def forward(self, input: Tensor) -> Tensor:
        return torch.sigmoid(input)


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return torch.tanh(input)


class SiLU(_InplaceActivation):
    """x * sigmoid(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)


class Mish(_InplaceActivation):
    """x * tanh(softplus(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)


class Hardsigmoid(Module):
    """relu6(x + 3) / 6."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Hardswish(Hardsigmoid):
    """x * relu6(x + 3) / 6."""

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class ELU(Module):
    """x if x > 0 else alpha * (exp(x) - 1)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class CELU(ELU):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class SELU(_InplaceActivation):
    """scale * elu(x, alpha) with SELU's constants."""

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class GLU(Module):
    """a * sigmoid(b), the halves of the input along dim."""

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class GELU(Module):
    """x * Phi(x); approximate='tanh' uses the tanh approximation."""

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Hardshrink(Module):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class LeakyReLU(Module):
    """x if x >= 0 else negative_slope * x."""

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class LogSigmoid(Module):
    """log(sigmoid(x))."""

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softplus(Module):
    """log(1 + exp(beta * x)) / beta, linear above threshold."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class PReLU(Module):
    """max(0, x) + a * min(0, x) with a learnt (per channel when num_parameters > 1)."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(torch.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        with torch.no_grad():
            self.weight.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


class Softsign(Module):
    """x / (1 + |x|)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """x - tanh(x)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class _SoftmaxBase(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmin(_SoftmaxBase):
    """softmax(-x) along dim."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax(_SoftmaxBase):
    """exp(x) / sum(exp(x)) along dim."""

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)


class LogSoftmax(_SoftmaxBase):
    """log(softmax(x)) along dim."""

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)
