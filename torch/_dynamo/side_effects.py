"""torch._dynamo.side_effects: the Python state a captured call reads or changes outside the graph.

A replay runs the graph and the module attribute writes, and nothing else of the function's Python code, so a
capture must see the rest. While the call runs, a trace function on the capturing thread sees every function
of the program's own it enters (not Ember's, the standard library's or an installed library's): the compiled
function, the helpers it calls, the forward methods of its modules (and the C functions it calls that read or
change state outside, torch._dynamo.outside_calls). Each one's bytecode says which globals it
loads and how (torch._dynamo.global_reads): a chain of attributes and constant subscripts read from a global
(`CFG.model.scale`, `STATE["lr"]`) is guarded at its end only; a global (or the end of such a chain) used any
other way (passed on, iterated, a method called on it) is guarded whole: a container by its members, an object
by its attributes, a function by its closure and defaults, nested ones too (to _DEPTH). Plain values compare
by value, anything else by identity. The containers and objects reachable from those globals, from the
compiled function's closure and defaults, and from the arguments are snapshotted when first seen. A call that
changed one of them (a list appended to, a dict entry set, an object's attribute assigned, a global or a
closure variable rebound) had a side effect a replay would not redo: the capture reports it (a graph break, so
the function runs eagerly for its guards)."""
from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import types
from typing import Any, Callable, Iterator

import torch
from torch._dynamo import outside_calls
from torch._dynamo.global_reads import (GlobalUse, LocalUse, Step, along, follow, global_uses, local_uses, path,
                                        self_uses, spelled)
from torch._dynamo.guards import GuardSet, array_state, is_array, is_plain_value
from torch._dynamo.held_state import held_state, is_random_generator, what_changed
from torch._dynamo.function_reads import FunctionReads, is_callable_held
from torch._dynamo.readers import attribute_chain, binds, entered_function, generator_states, guarded_chains
from torch._dynamo.program_state import (MembersCheck, SettingsReader, has_settings, is_library_class, is_object,
                                         is_program_code, is_program_file, is_program_module, library_members,
                                         member_keys, members_of, program_methods, same_members)

__all__ = ["Effects"]

# Containers whose members a guard and a snapshot read (more members: the container's identity only).
_MAX_MEMBERS = 256
# How deep a snapshot and a whole guard follow containers and objects inside containers and objects.
_DEPTH = 3
# How many members in all one capture's whole guards compare on each call (a big lookup table nested in a
# global: its deeper levels are guarded by identity only), counting each guard as _GUARD_COST members.
_MEMBER_BUDGET = 1024
_GUARD_COST = 16            # a guard's own cost, in members compared
_MISSING = object()         # a global the call may create
_DYNAMO = os.path.dirname(os.path.abspath(__file__)) + os.sep      # the capture's own code


class _Namespace:
    """A module's globals dict, weakly referable for its guards."""

    def __init__(self, namespace: dict[str, Any]) -> None:
        self.namespace = namespace


class Effects(FunctionReads):
    """What one capture's call read and changed outside the graph: guards on what it read, snapshots of what
    it could change (what functions hold: torch._dynamo.function_reads)."""

    def __init__(self, guards: GuardSet) -> None:
        self.guards = guards
        self.report: Callable[[str], None] | None = None      # the capture's graph break
        self.snapshots: dict[int, tuple[str, Any, tuple[Any, ...]]] = {}    # id -> (description, object, members)
        self.rebindings: list[tuple[str, Callable[[], Any], Any]] = []     # (description, reader, value)
        self.namespaces: dict[int, _Namespace] = {}
        self.read: set[tuple[Any, ...]] = set()         # what is guarded already
        self.codes: set[Any] = set()                    # the code of every function the call entered
        self.added: list[Any] = []                      # the guards it added
        self.budget = _MEMBER_BUDGET                    # members the whole guards may still compare
        self.generators: tuple[Any, ...] = ()           # Python's and NumPy's global random states, before the call
        self.held: dict[int, tuple[str, Any, Any]] = {}     # id -> (description, generator or iterator, state)
        # argument objects guarded on what is read of them: id -> (description, object)
        self.objects: dict[int, tuple[str, Any]] = {}
        self.libraries: set[int] = set()        # the libraries' objects snapshotted (by id)
        # the snapshots of libraries' objects a module or a global holds, and of what they hold (by id)
        self.library_state: set[int] = set()

    # -- what the call may change ---------------------------------------------------------------------------------
    def watch(self, description: str, value: Any, depth: int = _DEPTH, libraries: bool = False) -> None:
        """Snapshot a container or an object (and those inside it, to `depth`) before the call changes it; with
        `libraries`, libraries' objects too (reached from an argument: a transformers cache the call updates)."""
        if depth <= 0 or id(value) in self.snapshots:
            return
        if isinstance(value, types.ModuleType):
            if is_program_module(value):    # the program's own module (config.step += 1): its names rebound
                self.snapshots[id(value)] = (f"module {value.__name__}", vars(value), members_of(vars(value)) or ())
            return
        if isinstance(value, (types.MethodType, types.BuiltinMethodType)) and \
                is_random_generator(getattr(value, "__self__", None)):
            value = value.__self__          # a generator's draw bound once (draw = rng.random)
        state = held_state(value)
        if state is not None:
            self.held.setdefault(id(value), (description, value, state))
            return
        members = members_of(value)
        if members is None and libraries:
            members = library_members(value)
            if members is not None:
                self.libraries.add(id(value))
        if members is None:
            return
        self.snapshots[id(value)] = (description, value, members)
        if len(members) <= 2 * _MAX_MEMBERS:
            for member in members:
                self.watch(description, member, depth - 1, libraries)

    def replayed(self, value: Any) -> None:
        """A change the call made to a library's object that the replay redoes (library_arguments.rebound): its
        snapshot taken again, as it is now."""
        if id(value) in self.snapshots:
            description = self.snapshots[id(value)][0]
            self.snapshots[id(value)] = (description, value, library_members(value) or ())

    def known(self, value: Any) -> bool:
        """Whether the call reached value from before it ran (an argument, a global, a closure's, a module's)."""
        key = id(value)
        return any(key in seen and seen[key][1] is value for seen in (self.snapshots, self.held, self.objects))

    def changed(self) -> str | None:
        """What the call changed that a replay would not change again, if anything."""
        if generator_states() != self.generators:
            return "Python's random module or NumPy's global random generator drew numbers (a replay would " \
                   "repeat the captured draws)"
        for description, held, state in self.held.values():
            if held_state(held) != state:
                return f"{description} (a {type(held).__name__}) {what_changed(held)}"
        for description, reader, value in self.rebindings:
            if reader() is not value:
                return f"{description} was assigned"
        for key, (description, value, members) in self.snapshots.items():
            library = id(value) in self.libraries
            if not same_members(members, library_members(value) if library else members_of(value), library):
                if key in self.library_state:
                    # the eager entry holds while it holds what it held before this call: once it changes no
                    # more (a memo filled on first use), the call is captured again, and compiled
                    self.guards.held.append(members)
                    self._add_read(f"the members of {description}", value, MembersCheck(member_keys(members), library),
                                   True, by_value=True)
                return f"{description} (a {type(value).__name__}) was changed"
        return None

    # -- what the call reads --------------------------------------------------------------------------------------
    def function(self, fn: Callable[..., Any]) -> None:
        """The compiled function's closure, defaults and the globals its code reads, before it runs (a partial's
        too, and what it binds)."""
        if isinstance(fn, functools.partial):
            self.reached("the compiled partial", fn)
            fn = fn.func
        code = getattr(fn, "__code__", None)
        if code is None or not is_program_code(code, getattr(fn, "__globals__", None)):
            return              # a module's call (its forward is entered as the program's), a library's function
        self.function_state(getattr(fn, "__name__", "the function"), fn)
        self._globals(code, getattr(fn, "__globals__", None))

    def arguments(self, names: list[str], values: list[Any], scoped: dict[int, LocalUse] | None = None,
                  loose: frozenset[int] | set[int] = frozenset()) -> None:
        """The call's arguments, before it runs: snapshotted; an object, a function, a partial or a bound method
        guarded whole (its identity is an argument's guard; containers are the arguments' structure, their members
        inputs, and the functions among them guarded whole too), but for the objects in `scoped` (by id: how the
        compiled function uses each), guarded on what the function and the methods it calls on them read, and
        those in `loose` (by id: read only through their fields, which loose_arguments guards)."""
        scoped = scoped or {}
        for name, value in zip(names, values):
            self.watch(f"argument {name}", value, _DEPTH + 2, libraries=True)     # (a cache in a dict of them)
            if id(value) in loose:
                continue
            if id(value) in scoped:
                self.objects[id(value)] = (f"argument {name}", value)
                self._object_reads(value, scoped[id(value)].attributes)
            elif is_object(value) or is_callable_held(value):
                self.reached(f"argument {name}", value)
            else:
                self.callables_in(f"argument {name}", value, _DEPTH)

    def entered(self, frame: Any) -> None:
        """A Python function the call entered for the first time: a program's one has its globals guarded and its
        closure's containers snapshotted."""
        code = frame.f_code
        self.codes.add(code)
        if not is_program_code(code, frame.f_globals):
            return
        if code.co_freevars:
            local = frame.f_locals
            for name in code.co_freevars:
                if name in local:
                    self.watch(f"closure variable {name} of {code.co_name}", local[name])
        self._globals(code, frame.f_globals)
        fn = entered_function(frame)
        if fn is not None:
            self.code_and_defaults(code.co_name, fn)
        first = frame.f_locals.get(code.co_varnames[0]) if code.co_argcount else None
        if isinstance(first, type) and is_program_file(getattr(sys.modules.get(first.__module__), "__file__", None)):
            self._class_reads(first, code)
        elif first is not None and id(first) in self.objects and self.objects[id(first)][1] is first:
            use = local_uses(code, code.co_varnames[0])
            if use.passed_on or not program_methods(type(first), use.methods) or \
                    any(name.startswith("__") for name in use.attributes):
                self.reached(self.objects[id(first)][0], first)     # what it reads cannot be told: whole
            else:
                self._object_reads(first, use.attributes)
        for name in code.co_freevars:       # a lambda, a nested function or a comprehension closing over one
            value = frame.f_locals.get(name)
            if value is not None and id(value) in self.objects and self.objects[id(value)][1] is value:
                self.reached(self.objects[id(value)][0], value)

    def _class_reads(self, cls: type, code: Any) -> None:
        """What a classmethod reads from its cls (cls.factor): guarded as a global's chains are (module attribute
        reads are seen as they happen; a class's are not)."""
        self._attribute_reads(cls, cls.__name__, self_uses(code), functools.partial(getattr, cls))

    def _object_reads(self, obj: Any, uses: dict[str, GlobalUse]) -> None:
        """What a function reads from an argument object's attributes (a compiled method's self: trainer.lr),
        guarded as a global's chains are; an attribute it never reads is not (a step counter the loop moves).
        A property's or a method's own reads are seen as it runs."""
        self._attribute_reads(obj, self.objects[id(obj)][0], uses, functools.partial(inspect.getattr_static, obj),
                              skip_methods=True)

    def _attribute_reads(self, owner: Any, description: str, uses: dict[str, GlobalUse], lookup: Callable[..., Any],
                         skip_methods: bool = False) -> None:
        for name, use in uses.items():
            value = lookup(name, _MISSING)
            if value is _MISSING or skip_methods and (isinstance(value, types.FunctionType) and name not in getattr(
                    owner, "__dict__", {}) or hasattr(value, "__get__") and not isinstance(value, types.FunctionType)):
                continue
            if ("attribute of", id(owner), name) not in self.read:     # assigned by the call: a side effect
                self.read.add(("attribute of", id(owner), name))
                self.rebindings.append((f"{description}.{name}", functools.partial(lookup, name, _MISSING), value))
            for steps, at_property in guarded_chains(value, [(), *use.whole, *use.blind, *use.values]):
                try:
                    end = along(value, steps)
                except Exception:
                    continue
                key = ("chain of", id(owner), name, steps)
                if key in self.read:
                    continue
                self.read.add(key)
                self._guard(f"{description}.{name}" + spelled("", steps), owner,
                            functools.partial(attribute_chain, name=name, steps=steps), end, None,
                            whole=at_property or self._used_whole(use, steps, end))

    def _globals(self, code: Any, namespace: dict[str, Any] | None) -> None:
        if not namespace:
            return
        holder = self.namespaces.get(id(namespace))
        if holder is None:
            holder = self.namespaces[id(namespace)] = _Namespace(namespace)
            self.guards.held.append(holder)
        for name, use in global_uses(code).items():
            value = namespace.get(name, _MISSING)
            if ("global", id(namespace), name) not in self.read:
                self.read.add(("global", id(namespace), name))
                self.rebindings.append((f"global {name}", functools.partial(namespace.get, name, _MISSING), value))
            if value is _MISSING or (isinstance(value, types.ModuleType) and not is_program_module(value)):
                continue            # a builtin, a global the call creates, a library (torch, math, np)
            for steps, at_property in guarded_chains(value, [*use.whole, *use.blind, *use.values]):
                try:
                    end = follow(holder, name, steps)
                except Exception:       # a chain that fails (the call raises, or reads it under a condition)
                    continue
                whole = at_property or self._used_whole(use, steps, end)
                key = ("path", id(namespace), name, steps, whole)
                if key in self.read:
                    continue
                self.read.add(key)
                self._guard(f"global {spelled(name, steps)}", holder,
                            functools.partial(follow, name=name, steps=steps), end, path(name, steps), whole=whole)
            self.watch(f"global {name}", value)

    def attribute_read(self, module: Any, name: str, value: Any, description: str) -> None:
        """A module's attribute holding a container or an object (a config), read during the call: when the
        method reading it is the module's own (self.config.scale), guarded on the chain ends it reads from it;
        read any other way, guarded whole. Snapshotted either way."""
        self.watch(description, value)
        use = self._reading_method_use(module, name)
        chains = [] if use is None else [*use.whole, *use.blind, *use.values]
        if use is None or any(not steps and self._used_whole(use, steps, value) for steps in chains):
            self.reached(description, value)
            return
        for steps in chains:
            key = ("attribute", id(module), name, steps)
            if not steps or key in self.read:
                continue        # the object itself: its identity is guarded with the module's attribute
            self.read.add(key)
            try:
                end = along(value, steps)
            except Exception:
                continue
            self._guard(description + spelled("", steps), module,
                        functools.partial(attribute_chain, name=name, steps=steps), end, None,
                        whole=self._used_whole(use, steps, end))

    @staticmethod
    def _used_whole(use: GlobalUse, steps: tuple[Step, ...], end: Any) -> bool:
        return steps in use.whole or (steps in use.blind and not isinstance(end, (list, dict, set)))

    @staticmethod
    def _reading_method_use(module: Any, name: str) -> GlobalUse | None:
        """How the program's method reading module.name uses it, when that method's self is the module."""
        frame: Any = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename.startswith(_DYNAMO):
            frame = frame.f_back        # the capture's observers, between the read and the method
        if frame is None or not is_program_file(frame.f_code.co_filename):
            return None
        code = frame.f_code
        if not code.co_argcount or frame.f_locals.get(code.co_varnames[0]) is not module:
            return None
        return self_uses(code).get(name)

    def _guard(self, description: str, owner: Any, read: Callable[[Any], Any], value: Any, path: str | None,
               whole: bool) -> None:
        """A guard on what `read(owner)` gives: a plain value by value, anything else by identity; a value used
        whole also on its members (a container, an object, a function's closure), and snapshotted."""
        if isinstance(value, types.ModuleType) and not is_program_module(value):
            return
        if isinstance(value, (types.MethodType, types.BuiltinMethodType)) and \
                not isinstance(getattr(value, "__self__", None), types.ModuleType):
            # a bound method is made anew at each read: the object and the function it binds (and what it reads of
            # the object)
            self._add_read(description, owner, functools.partial(binds, read=read, method=value), True, by_value=True)
            if isinstance(value, types.MethodType):
                self.bound_object(description, value)
            return
        self._add_read(description, owner, read, value, path=path)
        self.watch(description, value)
        if whole:
            self.reached(description, value)

    def reached(self, description: str, value: Any, depth: int = _DEPTH) -> None:
        """A value the call uses whole (a global passed on, a module's attribute): guarded on its members'
        identities, theirs too (to `depth`), or on its closure if it is a function; and snapshotted."""
        if is_callable_held(value):
            self.callable_reached(description, value, depth)
            return
        if is_array(value) and ("values", id(value)) not in self.read:
            # a NumPy array whose values the program may read outside any operator (arr.sum()): by its values
            self.read.add(("values", id(value)))
            self._add_read(f"the values of {description}", value, array_state, array_state(value), by_value=True)
        if held_state(value) is not None:       # an iterator, a generator or an array: a change is a side effect
            self.watch(description, value)
            return
        members = members_of(value)
        if members is None and has_settings(value) and ("settings", id(value)) not in self.read:
            # a library's object (a config): its plain attributes; an installed library's (a cache kept on a
            # module) snapshotted too, what the call changes of it a side effect (a DynamicCache updated in place
            # would replay stale; not the standard library's: a logger caches its levels)
            self.read.add(("settings", id(value)))
            settings = SettingsReader()
            self._add_read(f"the settings of {description}", value, settings, settings(value), by_value=True)
            if is_library_class(type(value)):
                before = len(self.snapshots)
                self.watch(description, value, libraries=True)
                self.library_state.update(list(self.snapshots)[before:])
            return
        cost = len(members) + _GUARD_COST if members is not None else 0
        if depth <= 0 or members is None or len(members) > 2 * _MAX_MEMBERS or self.budget < cost \
                or ("members", id(value)) in self.read:
            return
        self.read.add(("members", id(value)))
        self.budget -= cost
        self.guards.held.append(members)
        self._add_read(f"the members of {description}", value, MembersCheck(member_keys(members)), True,
                       by_value=True)
        self.watch(description, value)
        for member in members:
            if members_of(member) is not None or not is_plain_value(member):
                self.reached(description, member, depth - 1)

    def _add_read(self, *args: Any, **kwargs: Any) -> None:
        self.guards.add_read(*args, **kwargs)
        self.added.append(self.guards.reads[-1])

    @contextlib.contextmanager
    def tracing(self, on_outside_call: Callable[[str], None]) -> Iterator[None]:
        """The call runs seen: each Python function it enters for the first time (entered), and each C function
        it calls whose effect the capture cannot see (reported to on_outside_call): torch._dynamo.outside_calls."""
        self.generators = generator_states()
        with outside_calls.watching(self.codes, self.entered, on_outside_call):
            yield
