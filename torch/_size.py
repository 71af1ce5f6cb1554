"""torch.Size: the shape of a tensor, a tuple of ints."""
from __future__ import annotations

import math
from typing import Any, SupportsIndex, overload


class Size(tuple[int, ...]):
    __module__ = "torch"
    __slots__ = ()

    def numel(self) -> int:
        return math.prod(self)

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    @overload
    def __getitem__(self, index: SupportsIndex) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> Size: ...

    def __getitem__(self, index: SupportsIndex | slice) -> int | Size:
        if isinstance(index, slice):
            return Size(tuple.__getitem__(self, index))
        return tuple.__getitem__(self, index)

    def __add__(self, other: Any) -> Size:
        return Size(tuple(self) + tuple(other))
