"""torch._dynamo.tensor_attributes: what a program keeps on its tensors (x.scale = 2.0, x.meta = Config(),
weight.stats = {...}), told apart from Ember's own per-tensor state, and the guards on it.

A capture guards the attributes whose names the functions it entered read (their bytecode's names and string
constants: `x.scale`, `getattr(x, "scale", 1.0)`), on the tensor arguments, on the module tensors the call reads
and on the tensors the graph holds (parameters reached any way): plain values by value, objects and containers
by identity and on what they hold. Attributes the call never names (a step counter the loop keeps on a
parameter) are not guarded, as PyTorch guards only what is read; a program function that reads a tensor's
`__dict__` or calls `vars` makes every attribute read."""
from __future__ import annotations

import dis
import functools
import weakref
from dataclasses import dataclass
from typing import Any, Iterable

import torch
from torch._dynamo.guards import attributes_of, same_attributes
from torch._dynamo.program_state import is_ember_file, is_program_file, members_of

__all__ = ["EMBER_TENSOR_STATE", "ReadNames", "attributes_changed", "attributes_hold", "guard_attributes",
           "guarded_tensors", "public_attributes", "read_names"]

# Ember's own per-tensor state, kept in a tensor's __dict__ under these names (its autograd links and flags, a
# view's version, forward-mode tangents); torch._dynamo's marks (mark_dynamic) start with _dynamo_
EMBER_TENSOR_STATE = frozenset({"_accumulation_lock", "_fw_grads", "_grad", "_grad_accumulator", "_grad_fn",
                                "_leaf_hooks", "_output_nr", "_requires_grad", "_retains_grad", "_view_version"})
Attributes = tuple[tuple[str, Any, bool], ...]


def public_attributes(tensor: torch.Tensor, names: ReadNames | None = None) -> Attributes:
    """The attributes a program set on a tensor (x.scale = 2.0, x._scale = 2.0, x._meta = Config()), as
    guards.attributes_of gives them, of these names (None: all). Ember's own state and torch._dynamo's marks
    are not the program's; of the other names with a leading underscore, those holding plain values,
    containers or the program's objects are (a library's objects under such names, a weak reference say, would
    not compare alike from call to call)."""
    return tuple(entry for entry in attributes_of(tensor)
                 if (names is None or names.cover(entry[0], entry[1])) and (not entry[0].startswith("_") or (
                     entry[0] not in EMBER_TENSOR_STATE and not entry[0].startswith("_dynamo_")
                     and (entry[2] or _program_state(entry[1])))))


def _program_state(value: Any) -> bool:
    """A container or an object the program keeps state in (program_state.members_of knows it)."""
    return not isinstance(value, torch.Tensor) and members_of(value) is not None


# Names through which a program's function may read attributes whatever their names: it may read any.
_DYNAMIC_READS = frozenset({"__dict__", "vars", "getattr", "hasattr", "attrgetter", "__getattribute__"})


@dataclass(frozen=True)
class ReadNames:
    """The attribute names a call's code loads, and the names it calls as methods (a tensor attribute holding a
    callable, t.scale_fn(), is read so; a counter named as an optimizer's step() is not)."""
    attributes: frozenset[str]
    methods: frozenset[str]

    def cover(self, name: str, value: Any) -> bool:
        return name in self.attributes or (name in self.methods and callable(value))


def read_names(codes: Iterable[Any]) -> ReadNames | None:
    """The attribute names the functions of these code objects may read by name (loaded as attributes, or
    string constants), Ember's own aside (an optimizer's `state` is not a tensor's); None (any) where a program
    function reads attributes by computed names (getattr, vars, __dict__...)."""
    attributes: set[str] = set()
    methods: set[str] = set()
    for code in codes:
        if is_ember_file(code.co_filename):
            continue
        if is_program_file(code.co_filename) and not _DYNAMIC_READS.isdisjoint(code.co_names):
            return None
        loaded, called = _names_read(code)
        attributes.update(loaded)
        methods.update(called)
    return ReadNames(frozenset(attributes), frozenset(methods))


_read_by: weakref.WeakKeyDictionary[Any, tuple[frozenset[str], frozenset[str]]] = weakref.WeakKeyDictionary()


def _names_read(code: Any) -> tuple[frozenset[str], frozenset[str]]:
    """The attribute names a code object loads with its string constants (getattr(x, "scale")), and the names it
    calls as methods; cached per code."""
    found = _read_by.get(code)
    if found is None:
        instructions = list(dis.get_instructions(code))
        found = _read_by[code] = (
            frozenset([ins.argval for ins in instructions if ins.opname == "LOAD_ATTR"] +
                      [constant for constant in code.co_consts if isinstance(constant, str)]),
            frozenset(ins.argval for ins in instructions if ins.opname == "LOAD_METHOD"))
    return found


def attributes_hold(tensor: torch.Tensor, expected: Attributes, names: ReadNames | None,
                    allowed: frozenset[str]) -> bool:
    """Whether a tensor carries the read attributes it had when captured (expected: of those names); allowed:
    the names it may carry without a look (Ember's state, attributes the call does not read)."""
    if tensor.__dict__.keys() <= allowed:       # (the common case, at every replay)
        return not expected
    return same_attributes(public_attributes(tensor, names), expected)


def attributes_changed(flat: list[Any], position: int, expected: Attributes, names: ReadNames | None,
                       allowed: frozenset[str]) -> str | None:
    """What changed in the read attributes of the tensor argument at position, None if nothing did (a nones
    reader)."""
    return None if attributes_hold(flat[position], expected, names, allowed) else \
        f"the attributes set on tensor argument {position} changed"


def _allowed(tensor: torch.Tensor, names: ReadNames | None) -> frozenset[str]:
    if names is None:
        return EMBER_TENSOR_STATE
    return EMBER_TENSOR_STATE | frozenset(key for key, value in tensor.__dict__.items() if not names.cover(key, value))


def guard_attributes(capture: Any, flat: list[Any], argument_names: dict[int, str], names: ReadNames | None,
                     tensors: dict[int, tuple[str, torch.Tensor]]) -> None:
    """Guards, after the call, on the read attributes of the tensor arguments (by flat position), and of the
    other tensors the call read or the graph holds (by id: description and tensor). A tensor the graph holds
    without read attributes is checked in its layout test (guards.attribute_keys); objects and containers kept
    under read names are guarded on what they hold."""
    guards, constants = capture.guards, {id(t) for t in capture.tracer.constant_tensors}
    for position, name in argument_names.items():
        tensor = flat[position]
        expected = public_attributes(tensor, names)
        guards.add_none(f"the attributes set on argument {name}", functools.partial(
            attributes_changed, position=position, expected=expected, names=names, allowed=_allowed(tensor, names)))
        _guard_held(capture, f"argument {name}", expected)
    for key, (description, tensor) in tensors.items():
        expected, allowed = public_attributes(tensor, names), _allowed(tensor, names)
        if not expected and key in constants:
            guards.attribute_keys[key] = allowed
            continue
        hold = functools.partial(attributes_hold, expected=expected, names=names, allowed=allowed)
        helper = f"ATTRIBUTES_HOLD_{len(guards.reads)}"       # (the helpers share the check's namespace)
        guards.add_read(f"the attributes set on {description}", tensor, hold, True, by_value=True,
                        path=f"{helper}({{}})", helpers={helper: hold})
        _guard_held(capture, description, expected)


def _guard_held(capture: Any, description: str, attributes: Attributes) -> None:
    """The objects and containers among a tensor's read attributes guarded on what they hold; one too large or
    too deep for the guards' budget (side_effects: members compared per capture, three levels) makes the call
    run eagerly instead of replaying what it held."""
    for key, value, plain in attributes:
        if plain:
            continue
        capture.effects.reached(f"attribute {key} of {description}", value)
        if _unguarded(value, capture.effects.read, set()):
            capture.graph_break(f"attribute {key} of {description} holds more than the guards compare (a replay "
                                "would not see it change)")


def _unguarded(value: Any, read: set[Any], seen: set[int]) -> bool:
    """Whether a container or object, or one it holds (at any depth), has no guard on its members."""
    if id(value) in seen or not _program_state(value):
        return False
    seen.add(id(value))
    return ("members", id(value)) not in read or any(_unguarded(member, read, seen)
                                                     for member in members_of(value) or ())


def guarded_tensors(reads: Iterable[Any]) -> dict[int, tuple[str, torch.Tensor]]:
    """The tensors guarded by identity (by id: description, tensor): a global's, a closure cell's, those among a
    function's defaults."""
    found: dict[int, tuple[str, torch.Tensor]] = {}
    for read in reads:
        value = read.expected
        members = value if isinstance(value, (tuple, list)) else value.values() if isinstance(value, dict) else \
            (value,)
        for member in members:
            if isinstance(member, torch.Tensor):
                found.setdefault(id(member), (read.description, member))
    return found
