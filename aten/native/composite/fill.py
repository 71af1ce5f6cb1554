"""fill_: copy_ from a wrapped scalar, broadcast over self (works on every backend with copy_)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.pointwise import check_fits
from c10.tensor_impl import scalar_to_tensor

_copy = find_operator("copy_")
_empty_like = find_operator("empty_like")


def fill_(self: Any, value: Any) -> Any:
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}")
    check_fits(value, self.dtype)
    return _copy(self, scalar_to_tensor(value))


def _check_fill_value(value: Any) -> None:
    if value.dim() != 0:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                           "dimensions.")


def fill_tensor_(self: Any, value: Any) -> Any:
    """fill_ with a 0-dim tensor: its value, converted to self's dtype, in every element."""
    _check_fill_value(value)
    return _copy(self, value)


def fill_tensor(self: Any, value: Any) -> Any:
    _check_fill_value(value)
    return _copy(_empty_like(self), value)
