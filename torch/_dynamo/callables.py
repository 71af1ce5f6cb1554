"""torch._dynamo.callables: what torch.compile is handed, as the capture takes it: a method bound to a plain
object (or a callable object) as its function with the object as first argument; a generator or coroutine
function, whose body runs outside the call, as it is."""
from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable

from torch.nn import Module

__all__ = ["receiver", "runs_later"]


def receiver(fn: Any) -> tuple[Callable[..., Any], Any] | None:
    """(the function, the object it runs on) for a method bound to a plain object, or a callable object that is
    not a module: the capture then takes the object as its first argument, so that what is read of it is guarded
    and its changes are side effects, as any object's passed in (a module's attributes are watched on the module
    itself; a class's, through classmethods)."""
    if isinstance(fn, types.MethodType):
        owner = fn.__self__
        return None if isinstance(owner, (Module, type, types.ModuleType)) else (fn.__func__, owner)
    if isinstance(fn, (types.FunctionType, types.BuiltinFunctionType, functools.partial, type, Module)):
        return None
    call = getattr(type(fn), "__call__", None)
    return (call, fn) if isinstance(call, types.FunctionType) else None


def runs_later(fn: Any) -> bool:
    """A generator or coroutine function: a call only makes the generator, whose body runs as it is iterated."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    return code is not None and bool(code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                                                      inspect.CO_ASYNC_GENERATOR))
