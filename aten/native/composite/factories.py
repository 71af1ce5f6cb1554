"""zeros, ones, full: an empty tensor on the requested backend, then fill_ (CompositeExplicitAutograd)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10 import scalar_type

_empty = find_operator("empty.memory_format")
_fill = find_operator("fill_.Scalar")


def full(size: Any, fill_value: Any, dtype: Any = None, layout: Any = None, device: Any = None,
         pin_memory: Any = None) -> Any:
    if dtype is None:
        # torch.full infers the dtype from the fill value, as torch.tensor does.
        if isinstance(fill_value, bool):
            dtype = scalar_type.dtype_from_name("bool")
        elif isinstance(fill_value, int):
            dtype = scalar_type.dtype_from_name("int64")
    out = _empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return _fill(out, fill_value)


def zeros(size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _fill(_empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory), 0)


def ones(size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _fill(_empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory), 1)
