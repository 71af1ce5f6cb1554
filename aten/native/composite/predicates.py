"""Tensor predicates written with metadata and other operators: is_floating_point, is_complex,
is_signed, is_same_size, is_nonzero (PyTorch's messages)."""
from __future__ import annotations

from typing import Any


def is_floating_point(self: Any) -> bool:
    return bool(self.dtype.is_floating_point)


def is_complex(self: Any) -> bool:
    return bool(self.dtype.is_complex)


def is_signed(self: Any) -> bool:
    return bool(self.dtype.is_signed)


def is_same_size(self: Any, other: Any) -> bool:
    return tuple(self._sizes()) == tuple(other._sizes())


def is_nonzero(self: Any) -> bool:
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())
