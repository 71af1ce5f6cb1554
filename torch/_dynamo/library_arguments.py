"""torch._dynamo.library_arguments: an argument that is an installed library's object (a transformers StaticCache
passed to a compiled forward) guarded on its structure rather than on its identity, as Dynamo guards what it reads
of such an object rather than the object itself. transformers' generate() makes a new cache per call: guarded by
identity, each call captured its steps again.

The structure is walked before the call, through the object's attributes (its __dict__ and slots), the lists,
tuples and dicts it holds and the library objects inside those: a later call's argument replays when it is of the
same classes, holds its plain values equal (numbers, strings, None, dtypes, devices; dict keys of the same types),
the same other objects (a function, a module, a config of the program's) and tensors where the captured one held
them, carrying no attributes of the program's, none of them shared with another input. Its tensors are graph
inputs, read from the argument at each call along their path (their layouts guarded), so the graph updates the
caller's cache in place, as eager does. A replay hands back the argument where the captured call returned it.
What a replay could not redo stays a graph break: an object inside the structure that the call returns (whole or
as one of the result's lists, tuples and dicts), assigns or keeps in an object it made (a replay would hand back
the captured one), a tensor of it whose .grad the call reads or sets or on which it sets an attribute. The call
changing the structure itself (setting an attribute, a lazy initialisation) is a side effect
(torch._dynamo.side_effects).

Guarded by identity instead: an object walked deeper than _DEPTH levels or reaching more than _MOST_NODES values,
one holding an object twice, a dict keyed by other than strings and integers, a tensor of a Tensor subclass, one
that requires grad (a graph holding a backward treats those as parameters) or that carries attributes; an object of
a class with a base defined in C (a dict or a namedtuple subclass keeps state outside its attributes), or holding
an object that something references weakly (a library may keep its state keyed by it, outside the structure);
arguments sharing a tensor or an object with each other or with a tensor argument. State a library keeps
elsewhere keyed by the object's id, or in its class attributes, is not seen."""
from __future__ import annotations

import functools
import types
import weakref
from typing import Any

import torch
from torch._dynamo.guards import OfType, Snapshot, slot_names
from torch._dynamo.plain_values import is_plain_value, same_plain
from torch._dynamo.program_state import CALLABLES, is_library_class
from torch._dynamo.tensor_attributes import EMBER_TENSOR_STATE, public_attributes

__all__ = ["Structure", "bind_structures", "escaped", "inside", "is_library_object", "rebound", "structure_of",
           "structures", "value_at"]

_DEPTH = 5         # (as deep as the side effects' snapshots of an argument reach: side_effects.Effects.arguments)
_MOST_NODES = 2000
_HEAP_TYPE = 1 << 9             # Py_TPFLAGS_HEAPTYPE: a class defined in Python
_TENSOR_TYPES = (torch.Tensor, torch.nn.Parameter)
# the skeleton's node kinds
_TENSOR, _PLAIN, _SAME, _OBJECT, _LIST, _TUPLE, _DICT = range(7)
Path = tuple[tuple[str, Any], ...]      # from an argument to what it holds: ("attr", name) and ("item", key) steps


def is_library_object(value: Any) -> bool:
    """An instance of a class an installed library defines in Python (not Ember's, the standard library's or the
    program's), all of whose bases but object are defined in Python too (one on dict or tuple, a namedtuple,
    keeps state outside its attributes), that is not a module, a class, a function or another callable."""
    kind = type(value)
    if not all(klass.__flags__ & _HEAP_TYPE for klass in kind.__mro__[:-1]) or callable(value) or \
            issubclass(kind, (type, types.ModuleType, torch.nn.Module, torch.Tensor, *CALLABLES)):
        return False
    return is_library_class(kind)


class Structure:
    """A library argument's skeleton as the capture found it, and the paths of the tensors it held (in the order
    the walk meets them: a later call's tensors are read, and its skeleton compared, in the same order)."""

    def __init__(self, skeleton: tuple[Any, ...], paths: list[Path], tensors: list[torch.Tensor], objects: set[int],
                 owners: list[tuple[Path, Any, dict[str, Any]]]) -> None:
        self.skeleton = skeleton
        self.paths = paths
        self.tensors = tensors          # the captured call's (dropped after the call: the guards do not hold them)
        self.objects = objects          # ids of the captured objects inside it, the argument itself among them
        # the library objects inside it: (path, object, its __dict__ before the call), dropped after the call too
        self.owners = owners


def _failure(flat: list[Any], bound: tuple[tuple[int, str, Structure], ...], inputs: tuple[int, ...]) -> str | None:
    """A guard's reader: None when each library argument (position, name, structure) has its captured structure,
    and their tensors are distinct from each other and from the tensor arguments at `inputs`, and carry no
    attributes of the program's; else what differs."""
    found: list[torch.Tensor] = []
    for position, name, structure in bound:
        first = len(found)
        if not _matches(flat[position], structure.skeleton, found, first):
            return f"argument {name} is not structured as it was (its classes, plain values or tensors' places)"
    ids = {id(t) for t in found}
    if len(ids) != len(found) or not ids.isdisjoint(id(flat[p]) for p in inputs):
        return "the tensors of the library arguments are shared as they were not"
    if any(t.__dict__ and not _own_state(t) for t in found):
        return "a tensor of a library argument carries attributes"
    return None


def _own_state(tensor: torch.Tensor) -> bool:
    """Whether a tensor's __dict__ holds only Ember's state and torch._dynamo's marks."""
    return all(key in EMBER_TENSOR_STATE or key.startswith("_dynamo_") for key in tensor.__dict__)


def structure_of(value: Any) -> Structure | None:
    """The structure of a library object, or None where it is to be guarded by identity (any other value; see
    the module)."""
    if not is_library_object(value):
        return None
    walk = _Walk()
    skeleton = walk.node(value, (), _DEPTH)
    if skeleton is None or walk.weakly_held:
        return None
    return Structure(skeleton, walk.paths, walk.tensors, walk.objects, walk.owners)


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
        self.paths: list[Path] = []
        self.index: dict[int, int] = {}
        self.objects: set[int] = set()
        self.owners: list[tuple[Path, Any, dict[str, Any]]] = []
        self.count = 0
        self.weakly_held = False        # an object inside is weakly referenced: state may be kept on it elsewhere

    def node(self, value: Any, path: Path, depth: int) -> tuple[Any, ...] | None:
        self.count += 1
        if self.count > _MOST_NODES:
            return None
        if isinstance(value, torch.Tensor):
            if type(value) not in _TENSOR_TYPES or value.requires_grad or public_attributes(value):
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
        self.weakly_held = self.weakly_held or (kind not in (list, tuple, dict) and weakref.getweakrefcount(value) > 0)
        if isinstance(getattr(value, "__dict__", None), dict):
            self.objects.add(id(value.__dict__))
            if kind not in (list, tuple, dict):
                self.owners.append((path, value, dict(value.__dict__)))
        if kind in (list, tuple):
            items = [self.node(v, (*path, ("item", i)), depth - 1) for i, v in enumerate(value)]
            return None if None in items else (_LIST if kind is list else _TUPLE, tuple(items))
        if kind is dict:
            if not all(type(k) in (str, int) for k in value):
                return None
            items = [self.node(v, (*path, ("item", k)), depth - 1) for k, v in value.items()]
            return None if None in items else (_DICT, tuple(value), tuple(map(type, value)), tuple(items))
        own = tuple(getattr(value, "__dict__", ()))
        slots = tuple(slot_names(kind))
        filled = tuple(hasattr(value, name) for name in slots)
        names = own + tuple(name for name, here in zip(slots, filled) if here)
        items = [self.node(getattr(value, name), (*path, ("attr", name)), depth - 1) for name in names]
        return None if None in items else (_OBJECT, kind, own, slots, filled, names, tuple(items))


def _matches(value: Any, node: tuple[Any, ...], found: list[torch.Tensor], first: int) -> bool:
    """Whether value has the skeleton node's structure; its tensors appended to found (its own from `first` on),
    in the walk's order."""
    tag = node[0]
    if tag == _TENSOR:
        if not isinstance(value, torch.Tensor):
            return False
        if first + node[1] == len(found):
            found.append(value)
            return True
        return found[first + node[1]] is value
    if tag == _PLAIN:
        return value is node[1] or same_plain(value, node[1])
    if tag == _SAME:
        return value is node[1]
    if tag in (_LIST, _TUPLE):
        return type(value) is (list if tag == _LIST else tuple) and len(value) == len(node[1]) and \
            all(_matches(v, n, found, first) for v, n in zip(value, node[1]))
    if tag == _DICT:
        return type(value) is dict and tuple(value) == node[1] and tuple(map(type, value)) == node[2] and \
            all(_matches(v, n, found, first) for v, n in zip(value.values(), node[3]))
    _, kind, own, slots, filled, names, items = node
    return type(value) is kind and tuple(getattr(value, "__dict__", ())) == own and \
        (not slots or tuple(hasattr(value, name) for name in slots) == filled) and \
        all(_matches(getattr(value, name), n, found, first) for name, n in zip(names, items))


def value_at(flat: list[Any], position: int, path: Path) -> Any:
    """What the argument at position holds at path (a source's reader: a tensor; a write's owner: an object),
    read without running the program's code: from an object's __dict__ or slot, from a list, tuple or dict
    itself (the replay's guards read it before the structure is compared: a property or a defaultdict found
    where the captured object held a value must not run). LookupError where it holds nothing there."""
    value = flat[position]
    for kind, key in path:
        if kind == "attr":
            value = _attribute(value, key)
        elif type(value) in (list, tuple, dict):
            value = value[key]
        else:
            raise LookupError(key)
    return value


def _attribute(value: Any, name: str) -> Any:
    """An attribute an object holds itself: in its __dict__, else in a slot of its class."""
    own = getattr(value, "__dict__", None)
    if type(own) is dict and name in own:
        return own[name]
    for klass in type(value).__mro__:
        found = klass.__dict__.get(name)
        if found is not None:
            if type(found) is types.MemberDescriptorType:
                return found.__get__(value)
            break
    raise LookupError(name)


def bind_structures(cap: Any, flat: list[Any], names: list[str], positions: list[int], taken: set[int],
                    structures: dict[int, Structure]) -> None:
    """The library arguments (by position) guarded on their structure, their tensors made graph inputs read from
    them at each call, before the call runs. Those sharing a tensor or an object with a tensor argument, another
    input (`taken`: the loose arguments' fields) or each other are guarded by identity after all (and dropped
    from structures), as are the tensor arguments they hold (a replay reads those as the arguments)."""
    arguments = {id(flat[p]): p for p in positions}
    owners: dict[int, list[int]] = {}       # a tensor's or an object's id -> the structures holding it
    for i, structure in structures.items():
        for key in {id(t) for t in structure.tensors} | structure.objects:
            owners.setdefault(key, []).append(i)
    shared = {i for key, held in owners.items() if len(held) > 1 or key in arguments or key in taken for i in held}
    for i in sorted(shared):
        structure = structures.pop(i)
        cap.guards.values.append((i, names[i], Snapshot(flat[i])))
        for tensor, path in zip(structure.tensors, structure.paths):
            if id(tensor) in arguments:
                cap.guards.add_none(f"argument {names[i]} holds argument {arguments[id(tensor)]}", functools.partial(
                    _holds_argument, position=i, path=path, argument=arguments[id(tensor)]))
    bound = tuple((i, names[i], structure) for i, structure in structures.items())
    if bound:
        cap.guards.add_none("the library arguments' structure", functools.partial(
            _failure, bound=bound, inputs=tuple(positions)))
    for i, name, structure in bound:
        cap.guards.values.append((i, name, OfType(flat[i])))
        for k, tensor in enumerate(structure.tensors):
            node = cap.source_placeholder(f"{name}_tensor_{k}")
            cap.tracer.bind(tensor, node)
            cap.guards.add_source(f"argument {name} tensor {k}", functools.partial(
                value_at, position=i, path=structure.paths[k]), tensor)
            cap.source_tensors.append(tensor)
            cap.library_tensors.add(id(tensor))


def _holds_argument(flat: list[Any], position: int, path: Path, argument: int) -> str | None:
    """A guard's reader: None while the object at position still holds the tensor argument at path."""
    try:
        held = value_at(flat, position, path)
    except (AttributeError, LookupError, TypeError):
        held = None
    return None if held is flat[argument] else f"argument {position} no longer holds argument {argument}"


def escaped(cap: Any, result: Any, leaves: list[Any], flat: list[Any],
            structures: dict[int, Structure]) -> list[tuple[int, int]]:
    """(leaf index, position) per result leaf that is a library argument itself, which a replay hands back as that
    call's (the leaf itself dropped from leaves: the captured one is not kept); a graph break where the call
    returns (whole or as one of the result's containers), assigns or keeps an object inside one, sets an attribute
    on one or on one of its tensors (a replay would hand out or change the captured call's). Drops the captured
    call's tensors from the structures."""
    roots = {id(flat[i]): i for i in structures}
    held = inside(structures) - roots.keys()
    passed = []
    for k, leaf in enumerate(leaves):
        if id(leaf) in roots:
            passed.append((k, roots[id(leaf)]))
            leaves[k] = None
    if any(id(item) in held for item in [*leaves, *_containers(result)]):
        cap.graph_break("the result holds an object inside a library argument (a replay would hand back the "
                        "captured call's)")
    for owner, name, value in cap.writes.values():
        if id(value) in roots or id(value) in held or id(owner) in held or id(owner) in roots \
                or id(owner) in cap.library_tensors:
            cap.graph_break(f"{name} assigned on or to a library argument or what it holds (a replay would assign "
                            "the captured call's)")
    for structure in structures.values():
        if any(public_attributes(t) for t in structure.tensors):
            cap.graph_break("an attribute set on a tensor inside a library argument (a replay would not set it)")
        structure.tensors, structure.owners = [], []
    return passed


def rebound(cap: Any, structures: dict[int, Structure]) -> None:
    """After the call, before its side effects are looked for: an object inside a library argument whose only
    change is tensors the graph computes assigned to attributes that held tensors (a transformers DynamicCache's
    layer growing its keys by torch.cat) has those assignments replayed, each on that call's argument along the
    same path (cap.library_writes: (position, path, name, tensor)), and they are no longer a side effect."""
    for position, structure in structures.items():
        for path, owner, before in structure.owners:
            now = owner.__dict__
            if now.keys() != before.keys():
                continue
            changed = [(name, value) for name, value in now.items() if value is not before[name]]
            if changed and _plainly_assigned(owner, [name for name, _ in changed]) and \
                    all(isinstance(before[name], torch.Tensor) and _computed(cap, value) for name, value in changed):
                cap.library_writes.extend((position, path, name, value) for name, value in changed)
                cap.effects.replayed(owner)


def _plainly_assigned(owner: Any, names: list[str]) -> bool:
    """Whether storing into owner's __dict__ under these names is all an assignment does (the replay stores
    there): its class keeps object's __setattr__ (a frozen dataclass refuses, another may keep a record) and
    defines none of them as a descriptor."""
    kind = type(owner)
    return all("__setattr__" not in klass.__dict__ for klass in kind.__mro__[:-1]) and \
        not any(name in klass.__dict__ for klass in kind.__mro__ for name in names)


def _computed(cap: Any, value: Any) -> bool:
    """A plain tensor an operator of the graph made, not requiring grad and carrying no attributes."""
    known = cap.tracer.nodes.get(id(value)) if type(value) is torch.Tensor else None
    return known is not None and known[0] is value and known[1].op == "call_function" and \
        not value.requires_grad and not public_attributes(value)


def _containers(result: Any) -> list[Any]:
    """The lists, tuples and dicts a result is made of (pytree makes them anew at each replay)."""
    found, stack = [], [result]
    while stack:
        value = stack.pop()
        if type(value) in (list, tuple, dict) or isinstance(value, tuple) and hasattr(value, "_fields"):
            found.append(value)
            stack.extend(value.values() if isinstance(value, dict) else value)
    return found
