"""Sorting composites: argsort is the indices of sort (CompositeImplicitAutograd, as upstream)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_sort = find_operator("sort")
_sort_stable = find_operator("sort.stable")


def argsort(self: Any, dim: int = -1, descending: bool = False) -> Any:
    return _sort(self, dim, descending)[1]


def argsort_stable(self: Any, stable: bool, dim: int = -1, descending: bool = False) -> Any:
    return _sort_stable(self, stable=stable, dim=dim, descending=descending)[1]
