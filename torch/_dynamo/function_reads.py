"""torch._dynamo.function_reads: what a function, a partial or a bound method the captured call uses holds, which
a replay depends on: a function's code (fn.__code__ replaced), defaults and closure variables, what a partial
binds, the object a method is bound to. Guarded, and snapshotted where the call could change it. A mixin of
torch._dynamo.side_effects.Effects, whose guards and snapshots it uses."""
from __future__ import annotations

import functools
import types
from typing import TYPE_CHECKING, Any, Callable

import torch
from torch._dynamo import outside_calls
from torch._dynamo.guards import is_plain_value
from torch._dynamo.program_state import is_object, is_program_file, members_of
from torch._dynamo.readers import cell_contents, code_of, default_at, defaults_of, kwdefaults_of

__all__ = ["FunctionReads", "is_callable_held"]


def is_callable_held(value: Any) -> bool:
    """A function, a partial or a bound method: what it holds is guarded apart from its identity."""
    return isinstance(value, (types.FunctionType, functools.partial, types.MethodType))


class FunctionReads:
    """The guards on what functions hold (Effects provides the state and the guards this uses)."""
    read: set[tuple[Any, ...]]
    rebindings: list[tuple[str, Callable[[], Any], Any]]
    report: Callable[[str], None] | None
    objects: dict[int, tuple[str, Any]]

    if TYPE_CHECKING:
        def _guard(self, description: str, owner: Any, read: Callable[[Any], Any], value: Any, path: str | None,
                   whole: bool) -> None: ...

        def _add_read(self, *args: Any, **kwargs: Any) -> None: ...

        def watch(self, description: str, value: Any, depth: int = ...) -> None: ...

        def reached(self, description: str, value: Any, depth: int = ...) -> None: ...

    def function_state(self, description: str, fn: Any) -> None:
        """A program's function: its code and defaults, closure variables and mutable defaults guarded whole,
        snapshotted, and its closure variables' rebinding checked (a nonlocal counter)."""
        if not isinstance(fn, types.FunctionType) or ("function", id(fn)) in self.read \
                or not is_program_file(fn.__code__.co_filename):
            return
        self.read.add(("function", id(fn)))
        self.code_and_defaults(description, fn)
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            where = f"closure variable {name} of {description}"
            self.rebindings.append((where, functools.partial(cell_contents, cell), value))
            self._guard(where, cell, cell_contents, value, None, whole=True)
        for index, value in enumerate(fn.__defaults__ or ()):
            if members_of(value) is not None:         # a list or dict default: one object every call shares
                self._guard(f"default {index} of {description}", fn, functools.partial(default_at, index=index),
                            value, None, whole=True)
        if fn.__kwdefaults__:
            self.reached(f"keyword defaults of {description}", fn.__kwdefaults__)

    def code_and_defaults(self, description: str, fn: Any) -> None:
        """A function's code, by identity (fn.__code__ = ... after the compile runs other code), and its defaults
        as a whole (fn.__defaults__ = (...) makes another call), the generators among them watched."""
        if ("code", id(fn)) in self.read:
            return
        self.read.add(("code", id(fn)))
        self._add_read(f"the code of {description}", fn, code_of, fn.__code__, by_value=False, path="{}.__code__")
        if not (fn.__defaults__ or fn.__kwdefaults__):
            return          # (a function without defaults was called with every argument)
        # by identity (an inline check): defaults reassigned, even to equal values, make another call
        self._add_read(f"the defaults of {description}", fn, defaults_of, fn.__defaults__, by_value=False,
                       path="{}.__defaults__")
        if fn.__kwdefaults__:
            self._add_read(f"the keyword defaults of {description}", fn, kwdefaults_of, fn.__kwdefaults__,
                           by_value=False, path="{}.__kwdefaults__")
        for index, value in enumerate(fn.__defaults__ or ()):
            self.watch(f"default {index} of {description}", value)

    def callable_reached(self, description: str, value: Any, depth: int) -> None:
        """A function, partial or bound method used whole: what it holds (is_callable_held)."""
        if isinstance(value, types.FunctionType):
            self.function_state(getattr(value, "__name__", description), value)
        elif isinstance(value, types.MethodType):      # its function, and the object it is bound to
            self.reached(f"the function of {description}", value.__func__, depth - 1)
            self.bound_object(description, value)
        else:                                       # a partial: its function, and what it binds
            reason = outside_calls.outside_call(value.func, None) \
                if isinstance(value.func, types.BuiltinFunctionType) else None
            if reason is not None and self.report is not None:    # (a C function called by a C one: no event)
                self.report(reason)
            self.reached(f"the function of {description}", value.func, depth - 1)
            for index, bound in enumerate(value.args):
                if not is_plain_value(bound) or isinstance(bound, list):     # (a list of numbers can change)
                    self.reached(f"argument {index} bound by {description}", bound, depth - 1)
            self.reached(f"the keywords bound by {description}", value.keywords, depth - 1)     # (a dict of its own)

    def bound_object(self, description: str, method: Any) -> None:
        """The object a method is bound to: guarded on what the method reads of it, once it runs (as an argument
        object is: Effects.entered), or whole where that cannot be told. A module is watched as it is read."""
        owner = method.__self__
        if is_object(owner) and not isinstance(owner, torch.nn.Module):
            self.objects.setdefault(id(owner), (f"the object of {description}", owner))

    def callables_in(self, description: str, value: Any, depth: int) -> None:
        """The functions, partials and bound methods in an argument's containers (its structure), used whole."""
        if depth <= 0 or not isinstance(value, (list, tuple, dict)):
            return
        for member in (value.values() if isinstance(value, dict) else value):
            if is_callable_held(member):
                self.reached(f"a member of {description}", member)
            else:
                self.callables_in(description, member, depth - 1)
