"""torch.fx._pytree: flattening of inputs against a recorded TreeSpec, as generated code that takes
nested inputs calls it (``fx_pytree`` in every generated module's globals)."""
from __future__ import annotations

from typing import Any

import torch.utils._pytree as pytree

__all__ = ["tree_flatten_spec"]


def tree_flatten_spec(pytree_value: Any, spec: pytree.TreeSpec) -> list[Any]:
    """The leaves of pytree_value, which must have the structure spec describes."""
    leaves, actual = pytree.tree_flatten(pytree_value)
    if actual != spec:
        raise RuntimeError(f"Input structure {actual} does not match the traced structure {spec}")
    return leaves
