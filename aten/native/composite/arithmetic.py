"""Scalar overloads of arithmetic ops: wrap the number, call the Tensor overload (as PyTorch does)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.pointwise import check_fits
from c10.tensor_impl import scalar_to_tensor

_add = find_operator("add.Tensor")
_pow = find_operator("pow.Tensor_Tensor")
_mul = find_operator("mul.Tensor")
_sqrt = find_operator("sqrt")
_rsqrt = find_operator("rsqrt")
_reciprocal = find_operator("reciprocal")
_clone = find_operator("clone")

# PyTorch's pow_tensor_scalar kernels answer these exponents of a floating tensor without pow():
# square and cube by products (so x ** 2 is exactly x * x), roots and inverses by their kernels
_BY_KERNEL = {0.5: lambda x: _sqrt(x), -0.5: lambda x: _rsqrt(x), -1.0: lambda x: _reciprocal(x)}
_BY_PRODUCT = {2.0: lambda x: _mul(x, x), 3.0: lambda x: _mul(_mul(x, x), x),
               -2.0: lambda x: _reciprocal(_mul(x, x))}
_PRODUCT_DTYPES = ("float32", "float64", "bfloat16")


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
    if self.dtype.is_floating_point and isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
        if exponent == 1:
            return _clone(self)
        if exponent in _BY_KERNEL and self.dtype.name != "float16":
            return _BY_KERNEL[float(exponent)](self)
        if exponent in _BY_PRODUCT and self.dtype.name in _PRODUCT_DTYPES:
            return _BY_PRODUCT[float(exponent)](self)
    return _pow(self, scalar_to_tensor(exponent))
