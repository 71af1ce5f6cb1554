"""torch._dynamo.call_values: what a captured call takes and gives back, as the capture sees it: a name per
flattened input, the object arguments guarded on what the function reads of them rather than on all their
attributes, and the containers it hands back as they are (a list it received). The objects it makes and hands
back are torch._dynamo.made_results'."""
from __future__ import annotations

import dataclasses
import inspect
import types
from typing import Any, Callable

import torch
from torch._dynamo.global_reads import LocalUse, local_uses
from torch._dynamo.guards import is_plain_value
from torch._dynamo.loose_arguments import loose_fields
from torch._dynamo.program_state import CALLABLES, is_program_file, program_methods
from torch.utils._pytree import tree_flatten

__all__ = ["input_names", "kept_containers", "scoped_arguments", "with_kept"]


def scoped_arguments(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any],
                      flat: list[Any]) -> dict[int, LocalUse]:
    """The object arguments (by flat position) guarded on what is read of them rather than on all their attributes
    (a compiled method's self, a trainer, a scheduler passed in): those the program's function only reads plain
    attributes of, or calls methods on that are the program's own (their reads are seen as they run), and no
    closure, lambda or comprehension of it reads."""
    code = getattr(fn, "__code__", None)
    if code is None or not is_program_file(code.co_filename):
        return {}
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs).arguments
    except (TypeError, ValueError):
        return {}
    found: dict[int, LocalUse] = {}
    position = {id(value): i for i, value in enumerate(flat)}
    for name, value in bound.items():
        i = position.get(id(value))
        if i is None or name not in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount] or \
                isinstance(value, (torch.Tensor, torch.nn.Module, type, types.ModuleType, *CALLABLES)) or \
                is_plain_value(value) or not (hasattr(value, "__dict__") or dataclasses.is_dataclass(value)):
            continue
        use = local_uses(code, name)
        if not use.passed_on and program_methods(type(value), use.methods) and \
                not any(attribute.startswith("__") for attribute in use.attributes) and \
                (hasattr(value, "__dict__") or loose_fields(value, use) is not None):
            found[i] = use      # (an object in slots only where it is read through its fields alone)
    return found


def input_names(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], count: int) -> list[str]:
    """A name per flattened input (count of them), as the guards and the graph show them: the parameter's name, with
    its position in the parameter's pytree when it holds several (d_0, d_1); arg0, arg1... where those do not
    number count."""
    named = [(f"arg{i}", a) for i, a in enumerate(args)] + list(kwargs.items())     # (as they flatten)
    try:
        positional = [p.name for p in inspect.signature(fn).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        positional = []
    for i, name in enumerate(positional[:len(args)]):
        named[i] = (name, args[i])
    names: list[str] = []
    for name, value in named:
        leaves = len(tree_flatten(value)[0])
        names.extend([name] if leaves == 1 else [f"{name}_{i}" for i in range(leaves)])
    seen: set[str] = set()
    unique = []
    for name in names:          # a parameter x_0 beside a list x: x_0, x_0_1
        candidate, n = name, 1
        while candidate in seen:
            candidate, n = f"{name}_{n}", n + 1
        seen.add(candidate)
        unique.append(candidate)
    return unique if len(unique) == count else [f"arg{i}" for i in range(count)]


# -- containers the result hands back as they are --------------------------------------------------------------------
_CONTAINERS = (list, tuple, dict)
_ARGUMENT_DEPTH = 4         # how deep in the arguments a returned container is looked for


def kept_containers(result: Any, args: tuple[Any, ...], kwargs: dict[str, Any], known: Callable[[Any], bool],
                    seen_as: Callable[[Any], str | None]) -> list[tuple[tuple[Any, ...], Any]]:
    """The lists, tuples and dicts in the result that the call received (an argument, or one inside one) or
    reached from before it (a global's list, known(value)), which eager hands back as they are, where a replay
    would rebuild a copy: (their path in the result, what to hand back: ("argument", path in (args, kwargs)) or
    ("object", the object itself, guarded by identity where the call read it)). The call changed none of them:
    that would have been a side effect, and a graph break. One the call received twice, or that is also what it
    reached otherwise (seen_as: how the capture first saw it, a global's), is left to be rebuilt: which of them
    a later call hands back cannot be told."""
    where: dict[int, tuple[Any, ...]] = {}
    twice: set[int] = set()
    _paths((args, kwargs), (), where, twice, _ARGUMENT_DEPTH)
    kept: list[tuple[tuple[Any, ...], Any]] = []

    def walk(value: Any, path: tuple[Any, ...]) -> None:
        if not isinstance(value, _CONTAINERS):
            return
        if id(value) in where:
            if id(value) not in twice and (seen_as(value) or "argument").startswith("argument"):
                kept.append((path, ("argument", where[id(value)])))
            return
        if isinstance(value, (list, dict)) and known(value):
            kept.append((path, ("object", value)))
            return
        for key, member in (value.items() if isinstance(value, dict) else enumerate(value)):
            walk(member, (*path, key))
    walk(result, ())
    return kept


def _paths(value: Any, path: tuple[Any, ...], where: dict[int, tuple[Any, ...]], twice: set[int],
           depth: int) -> None:
    if not isinstance(value, _CONTAINERS) or depth < 0:
        return
    if path:
        if id(value) in where:
            twice.add(id(value))
        where.setdefault(id(value), path)
    for key, member in (value.items() if isinstance(value, dict) else enumerate(value)):
        _paths(member, (*path, key), where, twice, depth - 1)


def with_kept(result: Any, kept: list[tuple[tuple[Any, ...], Any]], args: tuple[Any, ...],
              kwargs: dict[str, Any]) -> Any:
    """A replay's result (rebuilt from the graph's outputs) with the kept containers put back (kept_containers)."""
    for path, (kind, source) in kept:
        if kind == "argument":
            source = _along((args, kwargs), source)
        result = _replaced(result, path, source)
    return result


def _along(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """value with the member at path replaced (value is the replay's own: its lists and dicts are changed in
    place, its tuples rebuilt)."""
    if not path:
        return new
    head = path[0]
    member = _replaced(value[head], path[1:], new)
    if isinstance(value, tuple):
        items = list(value)
        items[head] = member
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    value[head] = member
    return value
