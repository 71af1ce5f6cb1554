"""PyTorch's alias names, each calling the op it names (absolute -> abs, divide -> div, ...)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import dtype_from_name

_op = find_operator
_abs = _op("abs")
_acos = _op("acos")
_acosh = _op("acosh")
_asin = _op("asin")
_asinh = _op("asinh")
_atan = _op("atan")
_atanh = _op("atanh")
_atan2 = _op("atan2")
_div = _op("div.Tensor")
_div_mode = _op("div.Tensor_mode")
_mul = _op("mul.Tensor")
_sub = _op("sub.Tensor")
_neg = _op("neg")
_trunc = _op("trunc")
_ne = _op("ne.Tensor")
_ge = _op("ge.Tensor")
_le = _op("le.Tensor")
_gt = _op("gt.Tensor")
_lt = _op("lt.Tensor")
_transpose = _op("transpose.int")
_contiguous = _op("contiguous")
_view = _op("view")
_reshape = _op("reshape")
_to_other = _op("to.other")
_BOOL = dtype_from_name("bool")


def absolute(self: Any) -> Any:
    return _abs(self)


def arccos(self: Any) -> Any:
    return _acos(self)


def arccosh(self: Any) -> Any:
    return _acosh(self)


def arcsin(self: Any) -> Any:
    return _asin(self)


def arcsinh(self: Any) -> Any:
    return _asinh(self)


def arctan(self: Any) -> Any:
    return _atan(self)


def arctanh(self: Any) -> Any:
    return _atanh(self)


def arctan2(self: Any, other: Any) -> Any:
    return _atan2(self, other)


def divide(self: Any, other: Any, rounding_mode: Any = None) -> Any:
    """divide.Tensor, .Scalar, .Tensor_mode and .Scalar_mode (one kernel, as upstream's C++ overloads)."""
    if rounding_mode is None:
        return _div(self, other)
    return _div_mode(self, other, rounding_mode=rounding_mode)


def true_divide(self: Any, other: Any) -> Any:
    return _div(self, other)


def multiply(self: Any, other: Any) -> Any:
    return _mul(self, other)


def subtract(self: Any, other: Any, alpha: Any = 1) -> Any:
    return _sub(self, other, alpha=alpha)


def negative(self: Any) -> Any:
    return _neg(self)


def positive(self: Any) -> Any:
    if self.dtype is _BOOL:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def fix(self: Any) -> Any:
    return _trunc(self)


def not_equal(self: Any, other: Any) -> Any:
    return _ne(self, other)


def greater_equal(self: Any, other: Any) -> Any:
    return _ge(self, other)


def less_equal(self: Any, other: Any) -> Any:
    return _le(self, other)


def greater(self: Any, other: Any) -> Any:
    return _gt(self, other)


def less(self: Any, other: Any) -> Any:
    return _lt(self, other)


def swapaxes(self: Any, axis0: int, axis1: int) -> Any:
    return _transpose(self, axis0, axis1)


def swapdims(self: Any, dim0: int, dim1: int) -> Any:
    return _transpose(self, dim0, dim1)


def ravel(self: Any) -> Any:
    return _view(_contiguous(self), [-1])


def view_as(self: Any, other: Any) -> Any:
    return _view(self, list(other._sizes()))


def reshape_as(self: Any, other: Any) -> Any:
    return _reshape(self, list(other._sizes()))


def type_as(self: Any, other: Any) -> Any:
    return _to_other(self, other)
