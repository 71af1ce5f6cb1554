"""torch._dynamo.library_arguments: an argument that is an installed library's object (a transformers StaticCache
passed to a compiled forward) guarded on its structure rather than on its identity, as Dynamo guards what it reads
of such an object rather than the object itself. transformers' generate() makes a new cache per call: guarded by
identity, each call captured its steps again.

The structure is walked before the call, through the object's attributes (its __dict__ and slots), the lists,
tuples and dicts it holds and the library objects inside those: a later call's argument replays when it is of the
same classes, holds its plain values equal (numbers, strings, None, dtypes, devices), the same other objects (a
function, a module, a config of the program's) and tensors where the captured one held them, none of them shared
with another input unless they were then too. Its tensors are graph inputs, read from the argument at each call
along their path (their layouts guarded), so the graph updates the caller's cache in place, as eager does.
A replay hands back the argument where the captured call returned it. What a replay could not redo stays a graph
break: an object inside the structure that the call returns, assigns or keeps in an object it made (a replay
would hand back the captured one), a tensor of it whose .grad the call reads or sets. The call changing the
structure itself (setting an attribute, a lazy initialisation) is a side effect (torch._dynamo.side_effects).

An object walked deeper than _DEPTH levels or reaching more than _MOST_NODES values, one reached twice inside it,
a dict keyed by other than strings and integers, or a tensor inside it of a Tensor subclass or that requires grad
(a graph holding a backward treats those as parameters) keeps the argument guarded by identity."""
from __future__ import annotations

import functools
import sys
import types
from typing import Any

import torch
from torch._dynamo.guards import OfType, Snapshot, slot_names
from torch._dynamo.plain_values import is_plain_value, same_plain
from torch._dynamo.program_state import CALLABLES, is_ember_file, is_program_file, is_standard_library

__all__ = ["Structure", "bind_structures", "escaped", "inside", "is_library_object", "structure_of", "structures",
           "tensor_at"]

_DEPTH = 6
_MOST_NODES = 2000
_HEAP_TYPE = 1 << 9             # Py_TPFLAGS_HEAPTYPE: a class defined in Python
_TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)
# the skeleton's node kinds
_TENSOR, _PLAIN, _SAME, _OBJECT, _LIST, _TUPLE, _DICT = range(7)


def is_library_object(value: Any) -> bool:
    """An instance of a class an installed library defines in Python (not Ember's, the standard library's or the
    program's), that is not a module, a class, a function or another callable."""
    kind = type(value)
    if not kind.__flags__ & _HEAP_TYPE or callable(value) or \
            isinstance(value, (type, types.ModuleType, torch.nn.Module, torch.Tensor, *CALLABLES)):
        return False
    source = getattr(sys.modules.get(kind.__module__), "__file__", None)
    return source is not None and not (is_program_file(source) or is_ember_file(source)
                                       or is_standard_library(source))


class Structure:
    """A library argument's skeleton as the capture found it, and the paths of the tensors it held (in the order
    the walk meets them: a later call's tensors are read, and its skeleton compared, in the same order)."""

    def __init__(self, skeleton: tuple[Any, ...], paths: list[tuple[tuple[str, Any], ...]],
                 tensors: list[torch.Tensor], objects: set[int]) -> None:
        self.skeleton = skeleton
        self.paths = paths
        self.tensors = tensors          # the captured call's (dropped once bound: the guards do not hold them)
        self.objects = objects          # ids of the captured objects inside it, the argument itself among them

    def failure(self, flat: list[Any], position: int, inputs: tuple[int, ...], description: str) -> str | None:
        """A guard's reader: None when the argument at position has the captured structure, its tensors distinct
        from each other and from the tensor arguments at `inputs`; else what differs."""
        found: list[torch.Tensor] = []
        if not _matches(flat[position], self.skeleton, found):
            return f"{description} is not structured as it was (its classes, plain values or tensors' places)"
        ids = {id(t) for t in found}
        if len(ids) != len(found) or not ids.isdisjoint(id(flat[p]) for p in inputs):
            return f"the tensors of {description} are shared as they were not"
        return None


def structure_of(value: Any) -> Structure | None:
    """The structure of a library object, or None where it is to be guarded by identity (any other value; see
    the module)."""
    if not is_library_object(value):
        return None
    walk = _Walk()
    skeleton = walk.node(value, (), _DEPTH)
    if skeleton is None:
        return None
    return Structure(skeleton, walk.paths, walk.tensors, walk.objects)


def structures(flat: list[Any]) -> dict[int, Structure]:
    """The structure of each library object among a call's flattened arguments, by position."""
    found = {i: structure_of(value) for i, value in enumerate(flat)}
    return {i: structure for i, structure in found.items() if structure is not None}


def inside(found: dict[int, Structure]) -> set[int]:
    """The ids of the objects the structures hold, the arguments themselves among them."""
    return set().union(*(structure.objects for structure in found.values()))


class _Walk:
    def __init__(self) -> None:
        self.tensors: list[torch.Tensor] = []
        self.paths: list[tuple[tuple[str, Any], ...]] = []
        self.index: dict[int, int] = {}
        self.objects: set[int] = set()
        self.count = 0

    def node(self, value: Any, path: tuple[tuple[str, Any], ...], depth: int) -> tuple[Any, ...] | None:
        self.count += 1
        if self.count > _MOST_NODES:
            return None
        if isinstance(value, torch.Tensor):
            if type(value) not in _TENSOR_TYPES or value.requires_grad:
                return None
            k = self.index.get(id(value))
            if k is None:
                k = self.index[id(value)] = len(self.tensors)
                self.tensors.append(value)
                self.paths.append(path)
            return (_TENSOR, k)
        if is_plain_value(value):
            return (_PLAIN, list(value) if isinstance(value, list) else value)
        kind = type(value)
        walked = kind in (list, tuple, dict) or is_library_object(value)
        if not walked:
            return (_SAME, value)
        if depth <= 0 or id(value) in self.objects:
            return None
        self.objects.add(id(value))
        if kind in (list, tuple):
            items = [self.node(v, (*path, ("item", i)), depth - 1) for i, v in enumerate(value)]
            return None if None in items else (_LIST if kind is list else _TUPLE, tuple(items))
        if kind is dict:
            if not all(type(k) in (str, int) for k in value):
                return None
            items = [self.node(v, (*path, ("item", k)), depth - 1) for k, v in value.items()]
            return None if None in items else (_DICT, tuple(value), tuple(items))
        own = tuple(getattr(value, "__dict__", ()))
        slots = tuple(slot_names(kind))
        filled = tuple(hasattr(value, name) for name in slots)
        names = own + tuple(name for name, here in zip(slots, filled) if here)
        items = [self.node(getattr(value, name), (*path, ("attr", name)), depth - 1) for name in names]
        return None if None in items else (_OBJECT, kind, own, slots, filled, names, tuple(items))


def _matches(value: Any, node: tuple[Any, ...], found: list[torch.Tensor]) -> bool:
    """Whether value has the skeleton node's structure; its tensors appended to found, in the walk's order."""
    tag = node[0]
    if tag == _TENSOR:
        if not isinstance(value, torch.Tensor):
            return False
        if node[1] == len(found):
            found.append(value)
            return True
        return found[node[1]] is value
    if tag == _PLAIN:
        return value is node[1] or same_plain(value, node[1])
    if tag == _SAME:
        return value is node[1]
    if tag in (_LIST, _TUPLE):
        return type(value) is (list if tag == _LIST else tuple) and len(value) == len(node[1]) and \
            all(_matches(v, n, found) for v, n in zip(value, node[1]))
    if tag == _DICT:
        return type(value) is dict and tuple(value) == node[1] and \
            all(_matches(v, n, found) for v, n in zip(value.values(), node[2]))
    _, kind, own, slots, filled, names, items = node
    return type(value) is kind and tuple(getattr(value, "__dict__", ())) == own and \
        (not slots or tuple(hasattr(value, name) for name in slots) == filled) and \
        all(_matches(getattr(value, name), n, found) for name, n in zip(names, items))


def tensor_at(flat: list[Any], position: int, path: tuple[tuple[str, Any], ...]) -> Any:
    """A source's reader: the tensor at path inside the argument at position."""
    value = flat[position]
    for kind, key in path:
        value = getattr(value, key) if kind == "attr" else value[key]
    return value


def bind_structures(cap: Any, flat: list[Any], names: list[str], positions: list[int], taken: set[int],
                    structures: dict[int, Structure]) -> None:
    """The library arguments (by position) guarded on their structure, their tensors made graph inputs read from
    them at each call, before the call runs; one sharing a tensor with a tensor argument or another input
    (`taken`: the loose arguments' fields) is guarded by identity after all (and dropped from structures)."""
    taken = taken | {id(flat[p]) for p in positions}
    for i, structure in list(structures.items()):
        ids = {id(t) for t in structure.tensors}
        if not ids.isdisjoint(taken):
            del structures[i]
            cap.guards.values.append((i, names[i], Snapshot(flat[i])))
            continue
        taken |= ids
        description = f"argument {names[i]}"
        cap.guards.values.append((i, names[i], OfType(flat[i])))
        cap.guards.add_none(description, functools.partial(structure.failure, position=i, inputs=tuple(positions),
                                                           description=description))
        for k, tensor in enumerate(structure.tensors):
            node = cap.source_placeholder(f"{names[i]}_tensor_{k}")
            cap.tracer.bind(tensor, node)
            cap.guards.add_source(f"{description} tensor {k}", functools.partial(
                tensor_at, position=i, path=structure.paths[k]), tensor)
            cap.source_tensors.append(tensor)
            cap.library_tensors.add(id(tensor))
        structure.tensors = []


def escaped(cap: Any, leaves: list[Any], flat: list[Any], structures: dict[int, Structure]) -> list[tuple[int, int]]:
    """(leaf index, position) per result leaf that is a library argument itself, which a replay hands back as that
    call's (the leaf itself dropped from leaves: the captured one is not kept); a graph break where the call returns, assigns or keeps an object inside one, or sets an attribute
    on one (a replay would hand out or change the captured call's)."""
    roots = {id(flat[i]): i for i in structures}
    held = inside(structures) - roots.keys()
    passed = []
    for k, leaf in enumerate(leaves):
        if id(leaf) in roots:
            passed.append((k, roots[id(leaf)]))
            leaves[k] = None
        elif id(leaf) in held:
            cap.graph_break(f"the result holds a {type(leaf).__name__} inside a library argument (a replay would "
                            "hand back the captured call's)")
    for owner, name, value in cap.writes.values():
        if id(value) in roots or id(value) in held or id(owner) in held or id(owner) in roots \
                or id(owner) in cap.library_tensors:
            cap.graph_break(f"{name} assigned on or to a library argument or what it holds (a replay would assign "
                            "the captured call's)")
    return passed
