"""torch.finfo and torch.iinfo: the numerical properties of a dtype, with PyTorch's fields, errors
and repr (torch/csrc/TypeInfo.cpp). A floating dtype's numbers follow from its bit layout in the
dtype table (c10.scalar_type.float_limits); `resolution` is PyTorch's 10 ** -digits10. An integral
dtype's are those of its NumPy twin."""
from __future__ import annotations

from typing import Any

import numpy as np

from c10.scalar_type import dtype, float_limits, get_default_dtype


def _check_dtype(value: Any, function: str) -> None:
    if not isinstance(value, dtype):
        raise TypeError(f"{function}(): argument 'type' (position 1) must be torch.dtype, not {type(value).__name__}")


class finfo:
    """Machine limits of a floating dtype (the default dtype when none is given)."""

    __hash__ = None   # type: ignore[assignment]  # PyTorch's finfo objects are unhashable

    def __init__(self, type: Any = None) -> None:   # noqa: A002 - PyTorch's parameter name
        if type is None:
            type = get_default_dtype()
        _check_dtype(type, "finfo")
        if type.is_complex:
            type = type.to_real()       # a complex dtype's limits are its components'
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        bits, eps, largest, smallest_normal, digits10 = float_limits(type)
        self.bits: int = bits
        self.eps: float = eps
        self.max: float = largest
        self.min: float = -largest
        self.smallest_normal: float = smallest_normal
        self.tiny: float = self.smallest_normal
        self.resolution: float = 10.0 ** -digits10
        self.dtype: str = type.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Machine limits of an integral dtype."""

    __hash__ = None   # type: ignore[assignment]

    def __init__(self, type: Any) -> None:   # noqa: A002
        _check_dtype(type, "iinfo")
        if type.name == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        limits = np.iinfo(type.numpy_dtype)
        self.bits: int = int(limits.bits)
        self.max: int = int(limits.max)
        self.min: int = int(limits.min)
        self.dtype: str = type.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and vars(self) == vars(other)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


finfo.__module__ = iinfo.__module__ = "torch"
