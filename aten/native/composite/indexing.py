"""Indexing composites: argwhere is nonzero (CompositeImplicitAutograd, as upstream)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_nonzero = find_operator("nonzero")


def argwhere(self: Any) -> Any:
    return _nonzero(self)
