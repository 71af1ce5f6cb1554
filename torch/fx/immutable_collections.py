"""torch.fx.immutable_collections: the list and dict types a Node's args and kwargs are stored as,
so that a pass cannot mutate them in place behind the graph's back (the users bookkeeping would go
stale); assigning a fresh ``node.args`` is the way to change them."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NoReturn, TypeVar

from torch.utils._pytree import MappingKey, SequenceKey, register_pytree_node

__all__ = ["immutable_list", "immutable_dict"]

_T = TypeVar("_T")
_KT = TypeVar("_KT")
_VT = TypeVar("_VT")
_Cls = TypeVar("_Cls", bound=type)

_HOW_TO_CHANGE_ARGS = """If you are attempting to modify the kwargs or args of a torch.fx.Node object,
instead create a new copy of it and assign the copy to the node:

    new_args = ...  # copy and mutate args
    node.args = new_args"""


def _blocked(op_name: str) -> Callable[..., NoReturn]:
    """A stand-in for the in-place operation op_name that always refuses."""

    def refuse(self: Any, *_args: Any, **_kwargs: Any) -> NoReturn:
        raise TypeError(f"{type(self).__name__!r} object does not support mutation. {_HOW_TO_CHANGE_ARGS}")

    refuse.__name__ = refuse.__qualname__ = op_name
    return refuse


def _frozen(in_place_ops: Iterable[str], contents: Callable[[Any], tuple[Any, ...]]) -> Callable[[_Cls], _Cls]:
    """Class decorator: replace the container's in-place operations with refusals, and pickle / copy it as
    ``cls(contents(obj))`` (the default protocol would rebuild it through the refused operations)."""

    def decorate(cls: _Cls) -> _Cls:
        for op_name in in_place_ops:
            setattr(cls, op_name, _blocked(op_name))

        def __reduce__(self: Any) -> tuple[Any, ...]:
            return type(self), (contents(self),)

        setattr(cls, "__reduce__", __reduce__)
        return cls

    return decorate


# item assignment / deletion, in-place operators, then the mutating named methods
_LIST_MUTATORS = ("__setitem__", "__delitem__", "__iadd__", "__imul__",
                  "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse")
_DICT_MUTATORS = ("__setitem__", "__delitem__", "__ior__",
                  "update", "setdefault", "pop", "popitem", "clear")


@_frozen(_LIST_MUTATORS, tuple)
class immutable_list(list[_T]):
    """A list whose in-place operations raise TypeError; it hashes by its items, so args can be keys."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))


@_frozen(_DICT_MUTATORS, lambda mapping: tuple(mapping.items()))
class immutable_dict(dict[_KT, _VT]):
    """A dict whose in-place operations raise TypeError; its hash ignores insertion order, as == does."""

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))


def _list_children_with_keys(seq: immutable_list[Any]) -> tuple[list[tuple[Any, Any]], None]:
    return [(SequenceKey(position), item) for position, item in enumerate(seq)], None


def _dict_children_with_keys(mapping: immutable_dict[Any, Any]) -> tuple[list[tuple[Any, Any]], list[Any]]:
    return [(MappingKey(key), value) for key, value in mapping.items()], list(mapping)


# pytree sees them as the list and dict they are, so tree_map / tree_flatten walk into a node's args
register_pytree_node(immutable_list, lambda seq: (list(seq), None), lambda items, _: immutable_list(items),
                     serialized_type_name="torch.fx.immutable_collections.immutable_list",
                     flatten_with_keys_fn=_list_children_with_keys)
register_pytree_node(immutable_dict, lambda mapping: (list(mapping.values()), list(mapping)),
                     lambda values, keys: immutable_dict(zip(keys, values)),
                     serialized_type_name="torch.fx.immutable_collections.immutable_dict",
                     flatten_with_keys_fn=_dict_children_with_keys)
