"""torch._dynamo.program_state: what a capture takes for the program's own code and state, and a value's
members as its guards and snapshots compare them.

The program's code is code from a file outside Ember, the standard library and installed libraries (or typed
in). Its state: lists, tuples, deques, dicts and sets; objects of its classes (and settings namespaces), by
their attributes, slots and the attributes their classes define; its classes, by those. An installed
library's object (a config) is compared by its plain settings only: its inner state is its own."""
from __future__ import annotations

import argparse
import collections
import dis
import functools
import inspect
import itertools
import operator
import os
import sys
import sysconfig
import types
import weakref
from typing import Any

import torch
from torch._dynamo.guards import is_plain_value, same_plain, slot_names

__all__ = ["CALLABLES", "MembersCheck", "SettingsReader", "has_settings", "is_ember_file", "is_library_class",
           "is_object", "is_program_class", "is_program_code", "is_program_file", "is_program_module",
           "is_self_contained", "is_standard_library", "is_watched", "library_members", "member_keys", "members_are",
           "members_of", "plain_attributes", "program_methods", "same_members"]

# Callables a global, an attribute or a closure variable may hold: guarded by identity (a helper swapped).
CALLABLES = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.BuiltinMethodType,
             functools.partial)
# Namespaces of the standard library that programs keep settings in.
_SETTINGS = (types.SimpleNamespace, argparse.Namespace)


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
_EMBER = _LIBRARY[:4]
# (a virtual environment's platstdlib is its own lib folder, which holds its site-packages: stdlib alone)
_STANDARD = (os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep, "<frozen ")
_standard_files: dict[str, bool] = {}


def is_standard_library(filename: str) -> bool:
    """Whether code from this file is the standard library's (its frozen modules too)."""
    known = _standard_files.get(filename)
    if known is None:
        known = _standard_files[filename] = filename.startswith("<frozen ") or \
            os.path.abspath(filename).startswith(_STANDARD)
    return known
_ember_files: dict[str, bool] = {}


def is_ember_file(filename: str) -> bool:
    """Whether code from this file is Ember's own (torch, aten, c10, torchgen)."""
    known = _ember_files.get(filename)
    if known is None:
        known = _ember_files[filename] = os.path.abspath(filename).startswith(_EMBER)
    return known
# Code typed in rather than read from a file: the program's (other code with no file, "<string>" and the like,
# is generated: a namedtuple's or a dataclass's methods, FX's forwards, the guards).
_TYPED_IN = ("<stdin>", "<ipython-input")
_program_files: dict[str, bool] = {}


def is_program_file(filename: str | None) -> bool:
    """Whether code from this file is the program's (not Ember's, a library's or generated)."""
    if filename is None:
        return False
    known = _program_files.get(filename)
    if known is None:
        if filename.startswith("<"):
            known = filename.startswith(_TYPED_IN)
        else:
            known = not os.path.abspath(filename).startswith(_LIBRARY)
        _program_files[filename] = known
    return known


def is_program_code(code: Any, namespace: Any) -> bool:
    """Whether a function's code, run with these globals, is the program's: from a program's file, or exec'd from a
    string (`<string>`) into the program's own module or into a namespace that is no module's (exec(source, ns)):
    the globals it reads are the program's."""
    if is_program_file(code.co_filename):
        return True
    if code.co_filename != "<string>" or not isinstance(namespace, dict):
        return False
    module = sys.modules.get(str(namespace.get("__name__")))        # (a name no module has: None)
    return module is None or getattr(module, "__dict__", None) is not namespace or is_program_module(module)


_SELF_CONTAINED: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()
_OUTSIDE_NAMES = frozenset({"LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL", "STORE_NAME", "DELETE_GLOBAL", "DELETE_NAME",
                            "IMPORT_NAME", "LOAD_CLASSDEREF"})


def is_self_contained(function: Any) -> bool:
    """Whether a function reads and changes nothing but what it is given: no global name (a builtin's neither), no
    closure, no dunder attribute (`x.__class__.__init__.__globals__` would reach globals), immutable plain
    defaults, and so for the functions it defines (transformers' `make_inputs_require_grads(module, input,
    output)`). A library's such function runs inside a capture as the program's own would: what it does to its
    arguments is seen as theirs."""
    if not isinstance(function, types.FunctionType) or function.__closure__:
        return False
    defaults = (*(function.__defaults__ or ()), *(function.__kwdefaults__ or {}).values())
    if not all(is_plain_value(v) and not isinstance(v, list) for v in defaults):
        return False
    return _code_self_contained(function.__code__)


def _code_self_contained(code: types.CodeType) -> bool:
    found = _SELF_CONTAINED.get(code)
    if found is None:
        found = _SELF_CONTAINED[code] = not code.co_freevars and \
            not any(name.startswith("__") for name in code.co_names) and \
            not any(ins.opname in _OUTSIDE_NAMES for ins in dis.get_instructions(code)) and \
            all(_code_self_contained(c) for c in code.co_consts if isinstance(c, types.CodeType))
    return found


def is_program_module(module: Any) -> bool:
    """A module of the program's own files, or one it made in memory (types.ModuleType: no file, no spec, not a
    built-in one nor Ember's)."""
    if not isinstance(module, types.ModuleType):
        return False
    file = getattr(module, "__file__", None)
    if file is None:
        return getattr(module, "__spec__", None) is None and module.__name__ not in sys.builtin_module_names and \
            module.__name__.partition(".")[0] not in _EMBER_PACKAGES
    return is_program_file(file)


_EMBER_PACKAGES = ("torch", "aten", "c10", "torchgen")


def program_methods(cls: type, names: set[str]) -> bool:
    """Whether each of these methods of cls is the program's own function (one inherited from a library's class
    runs unseen by the capture's trace)."""
    for name in names:
        method = inspect.getattr_static(cls, name, None)
        method = getattr(method, "__func__", method)
        code = getattr(method, "__code__", None)
        if code is None or not is_program_file(code.co_filename):
            return False
    return True


def is_program_class(cls: type) -> bool:
    """Whether a class is the program's: not Ember's (an optimizer's state is guarded as such) nor a library's
    (a logger's or a progress bar's inner state is not the program's)."""
    module = sys.modules.get(getattr(cls, "__module__", "") or "")
    return module is not None and (is_program_file(getattr(module, "__file__", None)) or cls.__module__ == "__main__")


_object_classes: weakref.WeakKeyDictionary[type, tuple[str, ...] | None] = weakref.WeakKeyDictionary()


def _object_slots(cls: type) -> tuple[str, ...] | None:
    """For a class whose instances the program keeps state in (a config, a counter holder: the program's or a
    settings namespace, not a tensor, a module, a function or a class), its slots' names; else None."""
    if cls in _object_classes:
        return _object_classes[cls]
    slots: tuple[str, ...] | None = None
    if not issubclass(cls, (type, types.ModuleType, torch.Tensor, torch.nn.Module, *CALLABLES)) and \
            (issubclass(cls, _SETTINGS) or is_program_class(cls)):
        slots = tuple(slot_names(cls))
    _object_classes[cls] = slots
    return slots


def is_object(value: Any) -> bool:
    """An object the program keeps state in: see _object_slots (not one whose own lookups fail: a proxy not
    bound yet)."""
    slots = _object_slots(type(value))
    try:
        return slots is not None and (bool(slots) or isinstance(getattr(value, "__dict__", None), dict))
    except Exception:
        return False


def _slots(value: Any) -> tuple[tuple[str, Any], ...]:
    return tuple((name, getattr(value, name)) for name in _object_slots(type(value)) or () if hasattr(value, name))


_program_bases: weakref.WeakKeyDictionary[type, tuple[type, ...]] = weakref.WeakKeyDictionary()
_flat = itertools.chain.from_iterable        # (key, value) pairs as one run of keys and values


def _class_attributes(cls: type) -> tuple[Any, ...]:
    """The attributes a program's class and its program bases define, but their methods (defaults an instance
    reads through self, settings read through cls)."""
    bases = _program_bases.get(cls)
    if bases is None:
        bases = _program_bases[cls] = tuple(klass for klass in cls.__mro__ if klass is not object and
                                            is_program_class(klass) and not issubclass(klass, torch.nn.Module))
    if not bases:
        return ()
    return tuple(_flat(pair for klass in bases for pair in vars(klass).items()
                       if not isinstance(pair[1], (*CALLABLES, classmethod, staticmethod, property))))


def members_of(value: Any) -> tuple[Any, ...] | None:
    """A container's or object's members as one tuple (keys and values), or None for anything else."""
    if isinstance(value, (list, tuple, collections.deque)):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(_flat(value.items()))
    if isinstance(value, set):
        return tuple(value)
    if isinstance(value, type):
        return _class_attributes(value) if is_program_class(value) else None
    if is_object(value):
        own = tuple(_flat(getattr(value, "__dict__", {}).items()))
        return own + tuple(_flat(_slots(value))) + _class_attributes(type(value))
    return None


def plain_attributes(value: Any) -> tuple[Any, ...]:
    """A library's object's attributes that are plain values (a config's settings), by value."""
    own = getattr(value, "__dict__", None)
    return tuple(sorted((k, v) for k, v in own.items() if is_plain_value(v))) if isinstance(own, dict) else ()


class _SameObjects:
    """Whether a read finds the very objects the last kept read found (compared one by one by identity, at C
    speed): a replay's guard then skips its slow part (a transformers config holds some sixty members)."""

    __slots__ = ("last",)

    def __init__(self) -> None:
        self.last: tuple[Any, ...] | None = None

    def __call__(self, members: tuple[Any, ...]) -> bool:
        last = self.last
        return last is not None and len(members) == len(last) and all(map(operator.is_, members, last))


class SettingsReader:
    """plain_attributes for one guard, read at every replay: while the object's __dict__ holds the very objects it
    held at the last read (under the same names), the last result is handed back as it is, itself (which the
    guard's comparison then finds at once), without filtering and sorting its settings again."""

    def __init__(self) -> None:
        self.same = _SameObjects()
        self.result: tuple[Any, ...] = ()

    def __call__(self, value: Any) -> tuple[Any, ...]:
        own = getattr(value, "__dict__", None)
        if not isinstance(own, dict):
            return ()
        members = tuple(_flat(own.items()))
        if not self.same(members):
            self.same.last, self.result = members, plain_attributes(value)
        return self.result


def is_library_class(kind: type) -> bool:
    """A class an installed library defines (not Ember's, the standard library's or the program's)."""
    source = getattr(sys.modules.get(kind.__module__), "__file__", None)
    return source is not None and not (is_program_file(source) or is_ember_file(source)
                                       or is_standard_library(source))


def has_settings(value: Any) -> bool:
    """A library's object with attributes (a config class of an installed library): not a tensor, a module, a
    function, a class or a container, nor Ember's own (an optimizer's state is guarded as such, and its
    step counters change every call)."""
    kind = type(value)          # (not isinstance: it asks a config's slow __getattribute__ for __class__)
    if issubclass(kind, (type, types.ModuleType, torch.Tensor, torch.nn.Module, *CALLABLES, list, tuple, dict, set,
                         collections.deque)):
        return False
    owner = (getattr(kind, "__module__", "") or "").partition(".")[0]
    return owner not in ("torch", "aten", "c10") and isinstance(getattr(value, "__dict__", None), dict)


def library_members(value: Any) -> tuple[Any, ...] | None:
    """A library's object's own attributes as one tuple (keys and values; an argument the call may change, a
    transformers cache say), or None for anything else."""
    return tuple(_flat(value.__dict__.items())) if has_settings(value) else None


class MembersCheck:
    """members_are as a guard's read, at every replay: while the container or object holds the very members it
    held when last found to hold them, it still does, without their being compared one by one again."""

    def __init__(self, keys: tuple[Any, ...], library: bool = False) -> None:
        self.keys = keys
        self.library = library
        self.same = _SameObjects()

    def __call__(self, value: Any) -> bool:
        members = library_members(value) if self.library else members_of(value)
        if members is None:
            return False
        if self.same(members):
            return True
        if not members_are(value, self.keys, self.library):
            return False
        self.same.last = members
        return True


def is_watched(value: Any) -> bool:
    """Whether a capture guards this value whole: a container, a program's object (its members) or a library's
    object (its settings)."""
    return members_of(value) is not None or has_settings(value)


def same_members(before: tuple[Any, ...], now: tuple[Any, ...] | None, by_value: bool = False) -> bool:
    """Whether a snapshot's members are still the same objects (by_value: plain values equal, of one type, as
    member_keys compares them: a library's object storing an equal shape or number anew has not changed)."""
    if now is None or len(now) != len(before):
        return False
    if not by_value:
        return all(a is b for a, b in zip(before, now))
    return all(a is b or (type(a) is type(b) and is_plain_value(a) and same_plain(a, b)) for a, b in zip(before, now))


def member_keys(members: tuple[Any, ...]) -> tuple[Any, ...]:
    """What members_are compares: a plain value (a number, a string) by its type and value, as the graph holds
    it (an equal float stored anew each step is the same to a replay); anything else by identity."""
    return tuple((type(m), m) if is_plain_value(m) else id(m) for m in members)


def members_are(value: Any, keys: tuple[Any, ...], library: bool = False) -> bool:
    """A guard's read: whether a container or object (an installed library's: its library_members) still holds
    these members (member_keys; the guard set holds the members, so no other object can take one's identity)."""
    members = library_members(value) if library else members_of(value)
    if members is None or len(members) != len(keys):
        return False
    for member, key in zip(members, keys):
        if type(key) is int:
            if id(member) != key or is_plain_value(member):
                return False
        elif type(member) is not key[0] or not same_plain(member, key[1]):
            return False
    return True
