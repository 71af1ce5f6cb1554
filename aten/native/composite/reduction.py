"""sum over every element: sum.dim_IntList with no dims (CompositeExplicitAutograd, as upstream)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_sum_dim = find_operator("sum.dim_IntList")


def sum_all(self: Any, dtype: Any = None) -> Any:
    return _sum_dim(self, None, False, dtype=dtype)
