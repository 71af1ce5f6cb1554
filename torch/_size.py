"""torch.Size: the shape of a tensor, a tuple of ints."""
from __future__ import annotations

import math


class Size(tuple):  # type: ignore[type-arg]
    __module__ = "torch"
    __slots__ = ()

    def numel(self) -> int:
        return math.prod(self)

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        result = tuple.__getitem__(self, index)
        return Size(result) if isinstance(index, slice) else result

    def __add__(self, other):  # type: ignore[no-untyped-def]
        return Size(tuple(self) + tuple(other))
