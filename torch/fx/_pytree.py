"""torch.fx._pytree: flattening of inputs against a recorded TreeSpec, as generated code that takes
nested inputs calls it (``fx_pytree`` in every generated module's globals)."""
from __future__ import annotations

from typing import Any

import torch.utils._pytree as pytree

__all__ = ["tree_flatten_spec"]


def tree_flatten_spec(pytree_value: Any, spec: pytree.TreeSpec) -> list[Any]:
    """The leaves of pytree_value read as spec describes them: a sequence node takes its children by position
    (a list where a tuple was traced is read alike), a dict node by the traced keys; other nodes must match."""
    if spec.is_leaf():
        return [pytree_value]
    if spec.type in (list, tuple) or pytree.is_namedtuple_class(spec.type):
        if not isinstance(pytree_value, (list, tuple)) or len(pytree_value) != spec.num_children:
            raise RuntimeError(f"Input {type(pytree_value).__name__} does not match the traced structure {spec}")
        children = list(pytree_value)
    elif isinstance(spec.context, list) and isinstance(pytree_value, dict):
        missing = [k for k in spec.context if k not in pytree_value]
        if missing:
            raise RuntimeError(f"Input dict lacks the traced keys {missing}")
        children = [pytree_value[k] for k in spec.context]
    else:
        leaves, actual = pytree.tree_flatten(pytree_value)
        if actual != spec:
            raise RuntimeError(f"Input structure {actual} does not match the traced structure {spec}")
        return leaves
    return [leaf for child, child_spec in zip(children, spec.children_specs)
            for leaf in tree_flatten_spec(child, child_spec)]
