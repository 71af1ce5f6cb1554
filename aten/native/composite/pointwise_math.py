"""Pointwise composites written with existing operators, following upstream's kernels (same steps,
hence the same result dtypes and error messages): nansum/nanmean, xlogy, copysign, angle
conversions, sign functions, heaviside, float_power, polygamma, elementwise max/min."""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.composite.aliases import positive
from aten.native.meta.errors import output_cast_error
from c10.scalar_type import can_cast, dtype_from_name, get_default_dtype
from c10.tensor_impl import TensorImpl, scalar_to_tensor

_op = find_operator
_div = _op("div.Tensor")
_mul = _op("mul.Tensor")
_gt = _op("gt.Tensor")
_lt = _op("lt.Tensor")
_eq = _op("eq.Tensor")
_to_dtype = _op("to.dtype")
_sum = _op("sum.dim_IntList")
_nansum = _op("nansum")
_isnan = _op("isnan")
_where = _op("where.self")
_sign = _op("sign")
_copysign = _op("copysign.Tensor")
_xlogy = _op("xlogy.Tensor")
_pow = _op("pow.Tensor_Tensor")
_pow_ = _op("pow_.Tensor")
_maximum = _op("maximum")
_minimum = _op("minimum")
_zeros_like = _op("zeros_like")
_full_like = _op("full_like")
_copy = _op("copy_")
_logical_not = _op("logical_not")
_polygamma = _op("polygamma")
_FLOAT64 = dtype_from_name("float64")
_COMPLEX128 = dtype_from_name("complex128")
_BOOL = dtype_from_name("bool")


def nansum(self: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    if self.dtype.is_complex:
        raise RuntimeError("nansum does not support complex inputs")
    if self.dtype.is_floating_point:
        self = _where(_isnan(self), scalar_to_tensor(0.0), self)
    return _sum(self, dim, keepdim, dtype=dtype)


def nanmean(self: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{self.dtype.type_name}")
    count = _sum(_logical_not(_isnan(self)), dim, keepdim)
    # The op (not the kernel above): autograd then records nansum's formula, whose product
    # with the mask gives NaN gradients for all-NaN slices, as PyTorch's.
    return _div(_nansum(self, dim, keepdim, dtype=dtype), count)


def xlogy(self: Any, other: Any) -> Any:
    """xlogy.Scalar_Self and xlogy.Scalar_Other: the number becomes a wrapped 0-dim tensor."""
    if not hasattr(self, "dtype"):
        self = scalar_to_tensor(self)
    if not hasattr(other, "dtype"):
        other = scalar_to_tensor(other)
    return _xlogy(self, other)


def copysign(self: Any, other: Any) -> Any:
    return _copysign(self, scalar_to_tensor(other))


def rad2deg(self: Any) -> Any:
    if self.dtype.is_complex:
        raise RuntimeError("rad2deg is not supported for complex tensors.")
    if not self.dtype.is_floating_point:
        self = _to_dtype(self, get_default_dtype())
    return _mul(self, scalar_to_tensor(180.0 / math.pi))


def deg2rad(self: Any) -> Any:
    if self.dtype.is_complex:
        raise RuntimeError("deg2rad is not supported for complex tensors.")
    if not self.dtype.is_floating_point:
        self = _to_dtype(self, get_default_dtype())
    return _mul(self, scalar_to_tensor(math.pi / 180.0))


def sgn(self: Any) -> Any:
    """sign for real tensors; z / |z| (0 at 0) for complex ones, as PyTorch's sgn."""
    if not self.dtype.is_complex:
        return _sign(self)
    magnitude = self.abs()
    return _where(magnitude == 0, _zeros_like(self), _div(self, magnitude))


def signbit(self: Any) -> Any:
    if self.dtype.is_floating_point:
        return _lt(_copysign(_full_like(self, 1), self), 0)
    if not self.dtype.is_signed:
        return _zeros_like(self, dtype=_BOOL)
    return _lt(self, 0)


def heaviside(self: Any, values: Any) -> Any:
    if self.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    positive = _to_dtype(_gt(self, 0), self.dtype)
    return _where(_eq(self, 0), values, positive)


def _as_tensor(value: Any) -> Any:
    return value if isinstance(value, TensorImpl) else scalar_to_tensor(value)     # a number: NumPy's too


def float_power(self: Any, exponent: Any) -> Any:
    """float_power.Tensor_Tensor, .Scalar and .Tensor_Scalar: pow in float64 (complex128 when
    either operand is complex)."""
    base, exp = _as_tensor(self), _as_tensor(exponent)
    wide = _COMPLEX128 if base.dtype.is_complex or exp.dtype.is_complex else _FLOAT64
    return _pow(_to_dtype(base, wide), _to_dtype(exp, wide))


def float_power_inplace(self: Any, exponent: Any) -> Any:
    """float_power_ (both overloads), implicit autograd: the pow_ it runs is what autograd records."""
    wide = _COMPLEX128 if self.dtype.is_complex or _as_tensor(exponent).dtype.is_complex else _FLOAT64
    if self.dtype is not wide:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.type_name} but the operation's "
                           f"result requires dtype {wide.type_name}")
    # pow_ in place (as PyTorch's decomposition): under autograd it is recorded as PowBackward.
    return _pow_(self, _to_dtype(_as_tensor(exponent), wide))


def polygamma_(self: Any, n: int) -> Any:
    result = _polygamma(n, self)
    if not can_cast(result.dtype, self.dtype):
        raise output_cast_error(result.dtype.type_name, self.dtype.type_name)
    return _copy(self, result)


def special_polygamma(n: int, self: Any) -> Any:
    return _polygamma(n, self)


def max_other(self: Any, other: Any) -> Any:
    return _maximum(self, other)


def min_other(self: Any, other: Any) -> Any:
    return _minimum(self, other)
