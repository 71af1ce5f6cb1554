"""torch._dynamo.made_results: the objects a compiled call makes and hands back, made anew by each replay.

A call may return an object it made that pytree does not flatten: a transformers DynamicCache holding the keys and
values it computed, a plain class or dataclass instance, a set. Eager hands each caller a new one, holding that
call's tensors; a replay returning the captured object would share it between callers and hold stale tensors.
So a replay deep-copies the captured object: the tensors in it become the replay's graph outputs, and the objects
that existed before the call (a module, a config, a device) stay themselves, as eager would hand them out. (Not
through copy.deepcopy: its protocol caches __slotnames__ on the class, a change the guards on the class see.)

What existed before is told from what the call made by the cyclic garbage collector: a capture runs with the older
objects frozen (utils.older_objects_frozen), so gc.get_objects() then lists only objects made since. Only objects
that copy by their fields are made again: the builtin containers, and instances of classes that keep Python's
default copy protocol (no __deepcopy__, __copy__, __reduce__, __reduce_ex__, __getstate__ or __setstate__ of
their own, none registered with copyreg). Anything else the call made (a NumPy array, a module, a closure, an
object with its own copy protocol) stays a graph break, as it was."""
from __future__ import annotations

import copyreg
import gc
import sys
import types
from typing import Any, Callable

import torch
from torch._dynamo.call_values import holds_tensors
from torch._dynamo.plain_values import is_plain_value

__all__ = ["Remade", "plan"]

# copied as themselves: values that cannot change, and functions and classes (a closure the call made is the
# exception: its cells could hold what the call made)
_ATOMS = (int, float, bool, str, bytes, complex, type(None), torch.dtype, torch.device, type, types.ModuleType,
          types.BuiltinFunctionType, types.MethodType, types.FunctionType, range, slice)
_BUILTIN_ATOMS = (int, float, bool, str, bytes, complex, type(None))
_PROTOCOL = ("__deepcopy__", "__copy__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__")
_CONTAINERS = (list, tuple, dict, set, frozenset)
_MOST_OBJECTS = 10_000          # a result reaching more objects than this the call made stays a graph break


class _Slot:
    """Where the template holds the graph output `index` (the captured tensor itself is not kept alive)."""
    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


class Remade:
    """One result leaf made anew at each replay: a copy of `template` with its slots filled by the outputs."""

    def __init__(self, value: Any, kept: dict[int, Any], tensors: list[torch.Tensor]) -> None:
        self.tensors = tensors          # the captured tensors in it, in the order of their graph outputs
        self.kept = kept                # id -> an object that existed before the call, handed back as itself
        self.slots = [_Slot(i) for i in range(len(tensors))]
        memo = dict(kept)
        for tensor, slot in zip(tensors, self.slots):
            memo[id(tensor)] = slot
        self.template = _copy(value, memo)

    def place(self, first: int) -> list[torch.Tensor]:
        """The tensors it holds, to be the graph outputs from `first` on (the made object lets them go)."""
        for slot in self.slots:
            slot.index += first
        tensors, self.tensors = self.tensors, []
        return tensors

    def __call__(self, outputs: Any) -> Any:
        memo = dict(self.kept)
        for slot in self.slots:
            memo[id(slot)] = outputs[slot.index]
        return _copy(self.template, memo)


def plan(leaves: list[Any], known: Callable[[Any], bool]) -> dict[int, Remade] | str:
    """For each result leaf that is an object the call made, how a replay makes it again (by the leaf's position);
    or why one cannot be (a graph break's reason). Called during the capture (the objects older than it frozen)."""
    wanted = []
    for k, leaf in enumerate(leaves):
        if isinstance(leaf, types.FunctionType):
            if holds_tensors(leaf):
                return "the result is a function closing over tensors, which a replay would return as captured"
        elif not (_atom(leaf) or isinstance(leaf, torch.Tensor) or known(leaf)):
            wanted.append(k)
    if not wanted:
        return {}
    made = {id(o) for o in gc.get_objects()}
    plans: dict[int, Remade] = {}
    for k in wanted:
        kept: dict[int, Any] = {}
        tensors: dict[int, torch.Tensor] = {}
        reason = _walk(leaves[k], made, known, kept, tensors)
        if reason is not None:
            return reason
        try:
            plans[k] = Remade(leaves[k], kept, list(tensors.values()))
        except Exception as error:          # a class whose instances cannot be made without arguments
            return f"the result holds a {type(leaves[k]).__name__} the call made, which a replay cannot make " \
                   f"again ({type(error).__name__}: {error})"
    return plans


def _atom(value: Any) -> bool:
    """A value handed back as itself: one that cannot change (a number, a string, a torch.Size, a tuple of them),
    a class or a function (but a closure: its cells could hold what the call made)."""
    if isinstance(value, types.FunctionType):
        return not value.__closure__
    if isinstance(value, _ATOMS) or (type(value) is not list and is_plain_value(value)):
        return True
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.generic)


def _walk(value: Any, made: set[int], known: Callable[[Any], bool], kept: dict[int, Any],
          tensors: dict[int, torch.Tensor]) -> str | None:
    """Sorts what value reaches: tensors (to become graph outputs), objects from before the call (kept), and the
    objects the call made (copied: each must copy by its fields). The reason it cannot be made again, or None."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, torch.Tensor):
            tensors[id(item)] = item
        elif _atom(item):
            if type(item) not in _BUILTIN_ATOMS:
                kept[id(item)] = item           # (a device, a dtype, a function: as itself, never copied)
        elif known(item) or (gc.is_tracked(item) and id(item) not in made):
            kept[id(item)] = item
        else:
            members = _members(item)
            if members is None:
                return f"the result holds a {type(item).__name__} the call made, which a replay cannot make " \
                       "again (only containers and objects that copy by their fields are)"
            if len(seen) > _MOST_OBJECTS:
                return f"the result reaches more than {_MOST_OBJECTS} objects the call made"
            stack.extend(members)
    return None


def _members(item: Any) -> list[Any] | None:
    """What a made object holds, as _copy copies it; None for one that does not copy by its fields."""
    kind = type(item)
    if kind in _CONTAINERS:
        return [*item.keys(), *item.values()] if kind is dict else list(item)
    if isinstance(item, (types.FunctionType, torch.nn.Module, torch.Tensor, *_CONTAINERS)) \
            or kind in copyreg.dispatch_table \
            or not kind.__flags__ & (1 << 9):   # Py_TPFLAGS_HEAPTYPE: a class defined in Python
        return None
    if any(getattr(kind, name, None) is not getattr(object, name, None) for name in _PROTOCOL):
        return None
    slots = [getattr(item, name) for name in _slot_names(kind) if hasattr(item, name)]
    return [*getattr(item, "__dict__", {}).values(), *slots]


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    """value copied deeply as copy.deepcopy copies containers and objects of the default protocol (a new instance
    of its class, its __dict__ and slots copied), memo giving what an object already is in the copy."""
    key = id(value)
    if key in memo:
        return memo[key]
    kind: Any = type(value)
    if kind in _BUILTIN_ATOMS:
        return value
    if kind is list:
        out: Any = memo.setdefault(key, [])
        out.extend(_copy(v, memo) for v in value)
    elif kind is dict:
        out = memo.setdefault(key, {})
        for k, v in value.items():
            out[_copy(k, memo)] = _copy(v, memo)
    elif kind is set:
        out = memo.setdefault(key, set())
        out.update(_copy(v, memo) for v in value)
    elif kind in (tuple, frozenset):
        out = memo.setdefault(key, kind(_copy(v, memo) for v in value))
    else:
        out = memo.setdefault(key, kind.__new__(kind))
        if isinstance(getattr(value, "__dict__", None), dict):
            vars(out).update({k: _copy(v, memo) for k, v in vars(value).items()})
        for name in _slot_names(kind):
            if hasattr(value, name):
                object.__setattr__(out, name, _copy(getattr(value, name), memo))
    return out


def _slot_names(kind: type) -> list[str]:
    declared = [getattr(cls, "__slots__", ()) for cls in kind.__mro__]
    return [name for slots in declared for name in ((slots,) if isinstance(slots, str) else slots)
            if name not in ("__dict__", "__weakref__")]
