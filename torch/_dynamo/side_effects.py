"""torch._dynamo.side_effects: the Python state a captured call reads or changes outside the graph.

A replay runs the graph and the module attribute writes, and nothing else of the function's Python code, so a
capture must see the rest. While the call runs, a profile function on the capturing thread sees every function
of the program's own it enters (not Ember's, the standard library's or an installed library's): the compiled
function, the helpers it calls, the forward methods of its modules. The globals each one names are guarded:
plain values by value; tensors, modules, functions and objects by identity, with the members of a container
and the attributes of an object. The containers and objects reachable from those globals, from the compiled
function's closure and from the arguments are snapshotted when first seen. A call that changed one of them (a
list appended to, a dict entry set, an object's attribute assigned, a global or a closure variable rebound) had
a side effect a replay would not redo: the capture reports it (a graph break, so the function runs eagerly for
its guards)."""
from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
import sysconfig
import types
from typing import Any, Callable, Iterator

import torch
from torch._dynamo.guards import GuardSet, Snapshot, is_plain_value

__all__ = ["Effects", "is_watched"]

# Containers whose members a guard and a snapshot read (more members: the container's identity only).
_MAX_MEMBERS = 256
# How deep a snapshot follows containers and objects inside containers and objects.
_DEPTH = 3
# Callables a global or closure variable may hold, guarded by identity (a helper swapped for another).
_CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.BuiltinMethodType)
_CONTAINERS = (list, dict, set)


def _ember_and_libraries() -> tuple[str, ...]:
    """The folders whose code is Ember's own, the standard library's or an installed library's: not the
    program's (their globals are settings and caches, and their objects' inner state is theirs)."""
    repository = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
    roots = [os.path.join(repository, name) + os.sep for name in ("torch", "aten", "c10", "torchgen")]
    paths = sysconfig.get_paths()
    roots += [os.path.abspath(paths[key]) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib")
              if key in paths]
    return tuple(roots)


_LIBRARY = _ember_and_libraries()
# Code the capture generates or runs for itself (FX's generated forwards, the guards).
_GENERATED = ("<eval_with_key", "<guards>", "<frozen ")
_program_code: dict[Any, bool] = {}


def _is_program(code: Any) -> bool:
    """Whether a code object is the program's (not Ember's, a library's or generated)."""
    known = _program_code.get(code)
    if known is None:
        filename = code.co_filename
        known = not (filename.startswith(_GENERATED) or os.path.abspath(filename).startswith(_LIBRARY))
        _program_code[code] = known
    return known


# Namespaces of the standard library that programs keep settings in.
_SETTINGS = (types.SimpleNamespace, argparse.Namespace)
_program_class: dict[type, bool] = {}


def _is_program_class(cls: type) -> bool:
    """Whether a class is the program's: not Ember's (an optimizer's state is guarded as such) nor a library's
    (a logger's or a progress bar's inner state is not the program's)."""
    known = _program_class.get(cls)
    if known is None:
        module = sys.modules.get(getattr(cls, "__module__", "") or "")
        filename = getattr(module, "__file__", None)
        known = filename is None or not os.path.abspath(filename).startswith(_LIBRARY)
        _program_class[cls] = known
    return known


def _is_object(value: Any) -> bool:
    """An object the program keeps state in (a config, a counter holder): an instance with attributes of a class
    of the program's (or a settings namespace), not a tensor, a module, a function or a class."""
    if isinstance(value, (type, types.ModuleType, torch.Tensor, torch.nn.Module, *_CALLABLES)):
        return False
    if not (isinstance(value, _SETTINGS) or _is_program_class(type(value))):
        return False
    try:
        return isinstance(vars(value), dict)
    except TypeError:
        return False


def _members(value: Any) -> tuple[Any, ...] | None:
    """A container's or object's members as one tuple (keys and values), or None for anything else."""
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(item for pair in value.items() for item in pair)
    if isinstance(value, set):
        return tuple(value)
    if _is_object(value):
        return tuple(item for pair in vars(value).items() for item in pair)
    return None


def is_watched(value: Any) -> bool:
    """Whether a capture guards and snapshots this value's members: a list, dict, set or program's object."""
    return _members(value) is not None


def _same_members(before: tuple[Any, ...], now: tuple[Any, ...] | None) -> bool:
    return now is not None and len(now) == len(before) and all(a is b for a, b in zip(before, now))


def _members_are(value: Any, members: tuple[Any, ...]) -> bool:
    """A guard's read: whether a container or object still holds these members (the very objects)."""
    return _same_members(members, _members(value))


def _contents(cell: Any) -> Any:
    return cell.cell_contents


def _global(holder: _Namespace, name: str) -> Any:
    return holder.namespace[name]


class _Namespace:
    """A module's globals dict, weakly referable for its guards."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.namespace = namespace


class Effects:
    """What one capture's call read and changed outside the graph: guards on what it read, snapshots of what
    it could change."""

    def __init__(self, guards: GuardSet) -> None:
        self.guards = guards
        self.snapshots: dict[int, tuple[str, Any, tuple[Any, ...]]] = {}    # id -> (description, object, members)
        self.rebindings: list[tuple[str, Callable[[], Any], Any]] = []     # (description, reader, value)
        self.namespaces: dict[int, _Namespace] = {}
        self.read_names: set[tuple[int, str]] = set()
        self.codes: set[Any] = set()
        self.added: list[Any] = []          # the guards it added (dropped again after a side effect)

    # -- what the call may change ---------------------------------------------------------------------------------
    def watch(self, description: str, value: Any, depth: int = _DEPTH) -> None:
        """Snapshot a container or an object (and those inside it, to `depth`) before the call changes it."""
        if depth <= 0 or id(value) in self.snapshots:
            return
        members = _members(value)
        if members is None:
            return
        self.snapshots[id(value)] = (description, value, members)
        if len(members) <= 2 * _MAX_MEMBERS:
            for member in members:
                self.watch(description, member, depth - 1)

    def changed(self) -> str | None:
        """What the call changed that a replay would not change again, if anything. A change drops the guards
        this added: the function then runs eagerly whatever those values are (guards on what the call itself
        changes would fail on every call, capturing again each time)."""
        change = self._change()
        if change is not None:
            added = set(map(id, self.added))
            self.guards.reads = [read for read in self.guards.reads if id(read) not in added]
            self.guards.values = [(position, name, value) for position, name, value in self.guards.values
                                  if not isinstance(value, Snapshot)]      # an object argument it changes
        return change

    def _change(self) -> str | None:
        for description, reader, value in self.rebindings:
            if reader() is not value:
                return f"{description} was assigned"
        for description, value, members in self.snapshots.values():
            if not _same_members(members, _members(value)):
                return f"{description} (a {type(value).__name__}) was changed"
        return None

    # -- what the call reads --------------------------------------------------------------------------------------
    def function(self, fn: Callable[..., Any]) -> None:
        """The compiled function's closure variables and the globals its code names, before it runs."""
        code = getattr(fn, "__code__", None)
        if code is None:
            return
        for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or ()):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            self.rebindings.append((f"closure variable {name}", functools.partial(_contents, cell), value))
            self._guard(f"closure variable {name}", cell, _contents, value, None)
        self._globals(code, getattr(fn, "__globals__", None))

    def arguments(self, names: list[str], values: list[Any]) -> None:
        """The call's arguments, before it runs."""
        for name, value in zip(names, values):
            self.watch(f"argument {name}", value)

    def entered(self, frame: Any) -> None:
        """A Python function the call entered: a program's one has its globals guarded and its closure's
        containers snapshotted, the first time it is seen."""
        code = frame.f_code
        if code in self.codes or not _is_program(code):
            return
        self.codes.add(code)
        if code.co_freevars:
            local = frame.f_locals
            for name in code.co_freevars:
                if name in local:
                    self.watch(f"closure variable {name} of {code.co_name}", local[name])
        self._globals(code, frame.f_globals)

    def _globals(self, code: Any, namespace: dict[str, Any] | None) -> None:
        if not namespace:
            return
        holder = self.namespaces.get(id(namespace))
        if holder is None:
            holder = self.namespaces[id(namespace)] = _Namespace(namespace)
            self.guards.held.append(holder)
        for name in code.co_names:
            if name not in namespace or (id(namespace), name) in self.read_names:
                continue
            self.read_names.add((id(namespace), name))
            value = namespace[name]
            if isinstance(value, (type, types.ModuleType)):
                continue
            self.rebindings.append((f"global {name}", functools.partial(namespace.get, name), value))
            self._guard(f"global {name}", holder, functools.partial(_global, name=name), value,
                        f"{{}}.namespace[{name!r}]")

    def _guard(self, description: str, owner: Any, read: Callable[[Any], Any], value: Any, path: str | None) -> None:
        """A guard on what `read(owner)` gives: a plain value by value, a tensor, module or function by identity,
        a container or object by identity and its members' identities (snapshotted too)."""
        if is_plain_value(value):
            self._add_read(description, owner, read, value, path=path)
            self.watch(description, value)      # a list of numbers appended to
            return
        if not isinstance(value, (torch.Tensor, torch.nn.Module, *_CALLABLES)) and _members(value) is None:
            return
        self._add_read(description, owner, read, value, path=path)
        self.reached(description, value)

    def reached(self, description: str, value: Any) -> None:
        """A container or object the call reads (a global, a module's attribute): guarded on its members'
        identities and snapshotted."""
        members = _members(value)
        if members is not None and len(members) <= 2 * _MAX_MEMBERS:
            self._add_read(f"the members of {description}", value, functools.partial(_members_are, members=members),
                           True, by_value=True)
        self.watch(description, value)

    def _add_read(self, *args: Any, **kwargs: Any) -> None:
        self.guards.add_read(*args, **kwargs)
        self.added.append(self.guards.reads[-1])

    @contextlib.contextmanager
    def profiling(self) -> Iterator[None]:
        """The call runs with this capture's profile function on its thread (a profiler already set, such as
        cProfile's, is suspended meanwhile)."""
        entered = self.entered

        def profile(frame: Any, event: str, arg: Any) -> None:
            if event == "call":
                entered(frame)
        previous = sys.getprofile()
        sys.setprofile(profile)
        try:
            yield
        finally:
            sys.setprofile(previous)
