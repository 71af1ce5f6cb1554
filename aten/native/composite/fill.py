"""fill_: copy_ from a wrapped scalar, broadcast over self (works on every backend with copy_)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.pointwise import check_fits
from c10.tensor_impl import scalar_to_tensor

_copy = find_operator("copy_")


def fill_(self: Any, value: Any) -> Any:
    if not isinstance(value, (bool, int, float)):
        raise TypeError(f"fill_(): argument 'value' must be Number, not {type(value).__name__}")
    check_fits(value, self.dtype)
    return _copy(self, scalar_to_tensor(value))
