"""Scalar overloads of arithmetic ops: wrap the number, call the Tensor overload (as PyTorch does)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10.tensor_impl import scalar_to_tensor

_add = find_operator("add.Tensor")


def add_Scalar(self: Any, other: Any, alpha: Any = 1) -> Any:
    return _add(self, scalar_to_tensor(other), alpha=alpha)
