"""Padding modules: ConstantPad, ZeroPad, ReflectionPad, ReplicationPad and CircularPad for 1, 2 and 3
spatial dims (PyTorch's attributes and reprs), each F.pad with its mode."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from torch import Tensor
from torch.nn import functional as F
from torch.nn.modules.module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _pairs(padding: int | Sequence[int], dims: int) -> tuple[int, ...]:
    """An int pads every side by it; an iterable is (left, right, top, bottom, front, back) as given."""
    if isinstance(padding, Iterable) and not isinstance(padding, str):
        return tuple(padding)
    return (padding,) * (2 * dims)


class _PadNd(Module):
    mode = "constant"
    dims = 1

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__()
        self.padding = _pairs(padding, self.dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with value."""


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with value."""
    dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with value."""
    dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pads the last dim with zeros."""


class ZeroPad2d(_ZeroPadNd):
    """Pads the last two dims with zeros."""
    dims = 2


class ZeroPad3d(_ZeroPadNd):
    """Pads the last three dims with zeros."""
    dims = 3


class ReflectionPad1d(_PadNd):
    """Pads the last dim with the reflection of the input (its edge not repeated)."""
    mode = "reflect"


class ReflectionPad2d(_PadNd):
    mode, dims = "reflect", 2


class ReflectionPad3d(_PadNd):
    mode, dims = "reflect", 3


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating the input's edge."""
    mode = "replicate"


class ReplicationPad2d(_PadNd):
    mode, dims = "replicate", 2


class ReplicationPad3d(_PadNd):
    mode, dims = "replicate", 3


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (self.dims + 1, self.dims + 2):
            raise ValueError(f"expected {self.dims + 1}D or {self.dims + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pads the last dim by wrapping the input around."""


class CircularPad2d(_CircularPadNd):
    dims = 2


class CircularPad3d(_CircularPadNd):
    dims = 3
