"""How a compiled function's arguments become the flat leaves a graph's inputs and guards are positions of:
pytree's containers opened, and so are dataclass instances (a batch passed as a dataclass, a new one at each
step), into their fields, so that a new object of the same type and fields replays the graph, as Dynamo's
guards on attributes let it. A dataclass that also carries attributes besides its fields stays one leaf, guarded
by identity (what the call might read of it is not known)."""
from __future__ import annotations

import dataclasses
from typing import Any

from torch.utils._pytree import register_pytree_node, tree_flatten

__all__ = ["flatten_call"]


class _Fields:
    """A dataclass instance's fields, as the flattened structure holds them (its type and field names are the
    structure's, compared by the guards)."""

    __slots__ = ("kind", "names", "values")

    def __init__(self, kind: type, names: tuple[str, ...], values: list[Any]) -> None:
        self.kind, self.names, self.values = kind, names, values


register_pytree_node(_Fields, lambda f: (list(f.values), (f.kind, f.names)),
                     lambda values, context: _Fields(context[0], context[1], list(values)))


def _fields_only(value: Any) -> tuple[str, ...] | None:
    """The field names of a dataclass instance that has no other attributes, else None."""
    if isinstance(value, type) or not dataclasses.is_dataclass(value):
        return None
    names = tuple(f.name for f in dataclasses.fields(value))
    held = getattr(value, "__dict__", None)
    if held is not None and set(held) != set(names):
        return None
    return names


def _opened(value: Any) -> Any:
    kind = type(value)
    if kind is list or kind is tuple:
        return kind(_opened(v) for v in value)
    if kind is dict:
        return {k: _opened(v) for k, v in value.items()}
    names = _fields_only(value)
    if names is not None:
        return _Fields(kind, names, [_opened(getattr(value, n)) for n in names])
    return value


def _holds_dataclass(value: Any) -> bool:
    kind = type(value)
    if kind is list or kind is tuple:
        return any(_holds_dataclass(v) for v in value)
    if kind is dict:
        return any(_holds_dataclass(v) for v in value.values())
    return dataclasses.is_dataclass(value) and not isinstance(value, type)


def flatten_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], Any]:
    """(leaves, structure) of a call's arguments, dataclasses opened."""
    if _holds_dataclass(args) or _holds_dataclass(kwargs):
        return tree_flatten((_opened(args), _opened(kwargs)))
    return tree_flatten((args, kwargs))
