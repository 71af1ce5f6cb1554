"""torch._dynamo.global_reads: what a function's bytecode does with each global it names.

A chain of attribute loads and constant subscripts read from a global (`CFG.model.scale`, `STATE["lr"]`) is
a read of the chain's end; the end (or the global itself) loaded and then used any other way (passed on,
iterated, a method called on it) is used whole; a list's append and the like change it without reading it;
STORE_GLOBAL assigns it. torch._dynamo.side_effects guards what the capture's functions read accordingly."""
from __future__ import annotations

import dis
import weakref
from dataclasses import dataclass, field
from typing import Any

__all__ = ["GlobalUse", "LocalUse", "Step", "along", "follow", "global_uses", "local_uses", "path", "self_uses",
           "spelled"]

# Methods of lists, dicts and sets that change them without reading their members (the change itself is what
# the snapshot sees).
_BLIND_MUTATORS = frozenset({"append", "extend", "insert", "add", "update", "clear", "discard"})


Step = tuple[str, Any]      # ("attr", name) or ("item", key)


@dataclass
class GlobalUse:
    """How one function uses one global: the chains read from it (their ends guarded as values), the chains
    whose end it uses whole, whether it assigns the global."""
    values: set[tuple[Step, ...]] = field(default_factory=set)
    whole: set[tuple[Step, ...]] = field(default_factory=set)
    # chains whose end has a list's, dict's or set's blind mutator called (append...): whole unless it is one
    blind: set[tuple[Step, ...]] = field(default_factory=set)
    assigned: bool = False


_uses: weakref.WeakKeyDictionary[Any, dict[str, GlobalUse]] = weakref.WeakKeyDictionary()


def global_uses(code: Any) -> dict[str, GlobalUse]:
    """What code does with each global it names (cached per code object)."""
    found = _uses.get(code)
    if found is not None:
        return found
    found = {}
    instructions = list(dis.get_instructions(code))
    for i, ins in enumerate(instructions):
        if ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL"):
            found.setdefault(ins.argval, GlobalUse()).assigned = True
        elif ins.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            _classify(instructions, i + 1, found.setdefault(ins.argval, GlobalUse()))
    _uses[code] = found
    return found


@dataclass
class LocalUse:
    """How a function uses one of its parameters: the chains it reads from the parameter's attributes (by
    attribute), the methods it calls on it, whether it uses it otherwise (passes it on, returns or stores it,
    rebinds the name): then what is read of it cannot be told from the code."""
    attributes: dict[str, GlobalUse] = field(default_factory=dict)
    methods: set[str] = field(default_factory=set)
    passed_on: bool = False


_local_uses: weakref.WeakKeyDictionary[Any, dict[str, LocalUse]] = weakref.WeakKeyDictionary()


def local_uses(code: Any, name: str) -> LocalUse:
    """What code does with its local `name` (a parameter), cached per code."""
    per_code = _local_uses.get(code)
    if per_code is None:
        per_code = _local_uses[code] = {}
    found = per_code.get(name)
    if found is not None:
        return found
    found = per_code[name] = LocalUse()
    if name in code.co_cellvars:        # read by a closure, a lambda or a comprehension too: not only here
        found.passed_on = True
        return found
    instructions = list(dis.get_instructions(code))
    for i, ins in enumerate(instructions):
        if ins.opname in ("STORE_FAST", "DELETE_FAST") and ins.argval == name:
            found.passed_on = True
        if ins.opname != "LOAD_FAST" or ins.argval != name:
            continue
        after = instructions[i + 1] if i + 1 < len(instructions) else None
        if after is not None and after.opname == "LOAD_ATTR":
            _classify(instructions, i + 2, found.attributes.setdefault(after.argval, GlobalUse()))
        elif after is not None and after.opname == "LOAD_METHOD":
            found.methods.add(after.argval)
        elif after is None or after.opname != "STORE_ATTR":
            found.passed_on = True
    return found


def self_uses(code: Any) -> dict[str, GlobalUse]:
    """What a method does with each attribute it reads from its first argument (self.config.scale: the chain
    ("attr", "scale") read from attribute config), as global_uses does with globals (cached per code)."""
    return local_uses(code, code.co_varnames[0]).attributes if code.co_argcount else {}


def _classify(instructions: list[Any], start: int, use: GlobalUse) -> None:
    """Record how the value loaded just before instruction `start` is used: the chain read from it and what
    its end is used for."""
    steps, end = _chain(instructions, start)
    nxt = instructions[end] if end < len(instructions) else None
    after = instructions[end + 1] if end + 1 < len(instructions) else None
    if nxt is not None and nxt.opname == "LOAD_METHOD":
        # a method called on the chain's end: it reads that object, unless a list's append and the like (the
        # type is known when the capture reads the value)
        (use.blind if nxt.argval in _BLIND_MUTATORS else use.whole).add(tuple(steps))
    elif nxt is not None and (nxt.opname in ("STORE_ATTR", "DELETE_ATTR") or (
            nxt.opname == "LOAD_CONST" and after is not None and after.opname in ("STORE_SUBSCR", "DELETE_SUBSCR"))):
        use.values.add(tuple(steps))        # written into: a side effect the snapshot sees
    else:
        use.whole.add(tuple(steps))


def _chain(instructions: list[Any], i: int) -> tuple[list[Step], int]:
    """The attribute loads and constant subscripts from instruction i on, and where they end."""
    steps: list[Step] = []
    while i < len(instructions):
        ins = instructions[i]
        if ins.opname == "LOAD_ATTR":
            steps.append(("attr", ins.argval))
            i += 1
        elif ins.opname == "LOAD_CONST" and isinstance(ins.argval, (str, int)) and i + 1 < len(instructions) \
                and instructions[i + 1].opname == "BINARY_SUBSCR":
            steps.append(("item", ins.argval))
            i += 2
        else:
            break
    return steps, i


def follow(holder: Any, name: str, steps: tuple[Step, ...]) -> Any:
    """The end of a chain read from a global (holder: a module's globals, weakly referable)."""
    return along(holder.namespace[name], steps)


def along(value: Any, steps: tuple[Step, ...]) -> Any:
    """The end of a chain read from value."""
    for kind, key in steps:
        value = getattr(value, key) if kind == "attr" else value[key]
    return value


def path(name: str, steps: tuple[Step, ...]) -> str:
    return f"{{}}.namespace[{name!r}]" + spelled("", steps)


def spelled(name: str, steps: tuple[Step, ...]) -> str:
    return name + "".join(f".{key}" if kind == "attr" else f"[{key!r}]" for kind, key in steps)
