"""Scalar overloads of arithmetic ops: wrap the number, call the Tensor overload (as PyTorch does)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.pointwise import check_fits
from c10.tensor_impl import scalar_to_tensor

_add = find_operator("add.Tensor")
_pow = find_operator("pow.Tensor_Tensor")


def add_Scalar(self: Any, other: Any, alpha: Any = 1) -> Any:
    return _add(self, scalar_to_tensor(other), alpha=alpha)


def pow_Tensor_Scalar(self: Any, exponent: Any) -> Any:
    # PyTorch's NumPy-compatibility check (pow's Tensor_Scalar meta function): an integral base
    # raised to a negative integral number has no integral result. A tensor exponent computes.
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        if isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if isinstance(exponent, int):
            check_fits(exponent, self.dtype)  # as PyTorch's integral pow kernel reads the Scalar
    return _pow(self, scalar_to_tensor(exponent))
