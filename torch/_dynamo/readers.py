"""torch._dynamo.readers: the small readers the side-effect guards call at each replay (a closure cell's contents,
a function's defaults, a chain of attributes, a bound method's binding), and what the capture reads of the
running program (the function a frame runs, the global random generators' states), and the chain a guard follows
to a value (guarded_steps)."""
from __future__ import annotations

import inspect
import random
import sys
from typing import Any, Callable

import torch
from torch._dynamo.global_reads import Step, along

__all__ = ["attribute_chain", "binds", "cell_contents", "default_at", "defaults_of", "entered_function",
           "generator_states", "guarded_steps", "kwdefaults_of", "method_function", "own_attribute", "own_method"]


def attribute_chain(module: Any, name: str, steps: tuple[Step, ...]) -> Any:
    return along(getattr(module, name), steps)


def binds(owner: Any, read: Callable[[Any], Any], method: Any) -> bool:
    """A guard's read: whether read(owner) still binds the same function to the same object."""
    now = read(owner)
    if getattr(now, "__self__", None) is not method.__self__:
        return False
    func = getattr(method, "__func__", None)
    return getattr(now, "__func__", None) is func if func is not None else now.__name__ == method.__name__


def cell_contents(cell: Any) -> Any:
    return cell.cell_contents


def default_at(fn: Any, index: int) -> Any:
    return fn.__defaults__[index]


def defaults_of(fn: Any) -> Any:
    return fn.__defaults__


def kwdefaults_of(fn: Any) -> Any:
    return fn.__kwdefaults__


def entered_function(frame: Any) -> Any:
    """The function object a frame runs, where it can be found: a method of its first argument's class (or of the
    class itself, a classmethod's cls), or a global of its module; None otherwise."""
    code = frame.f_code
    owner = frame.f_locals.get(code.co_varnames[0]) if code.co_argcount else None
    candidates = [frame.f_globals.get(code.co_name)]
    if owner is not None:
        cls = owner if isinstance(owner, type) else type(owner)
        candidates.insert(0, inspect.getattr_static(cls, code.co_name, None))
    for candidate in candidates:
        candidate = getattr(candidate, "__func__", candidate)       # a classmethod's or staticmethod's function
        if getattr(candidate, "__code__", None) is code:
            return candidate
    return None


def generator_states() -> tuple[Any, ...]:
    """The states of the random generators a program draws from without naming them: Python's random module's
    and NumPy's global one (when NumPy is loaded). Those it holds are watched as it reads them (held_state)."""
    numpy = sys.modules.get("numpy")
    state = numpy.random.get_state() if numpy is not None else None
    return (random.getstate(), None if state is None else (state[1].tobytes(), *state[2:]))


def own_attribute(module: Any, name: str) -> bool:
    return name in module.__dict__


def own_method(module: Any, name: str) -> Any:
    """A method set on the instance itself (accelerate's and PEFT's hooks replace forward so), or None."""
    return module.__dict__.get(name)


def method_function(module: Any, name: str) -> Any:
    """The function of the method module.name (AttributeError once it is no method: a guard failure)."""
    return getattr(module, name).__func__


def guarded_steps(value: Any, steps: tuple[Step, ...]) -> tuple[tuple[Step, ...], bool]:
    """The chain a guard follows, and whether its end must be guarded whole. A tensor's .grad at its end is read
    as a graph input when the call reads it (grad_read), and its value at entry (before the call's zero_grad and
    backward) says nothing: the tensor is guarded instead. A property on the way is not read (its getter would
    run at each check, and its side effects with it): the object holding it is guarded whole instead, its
    getter's own reads with it."""
    owner = value
    for i, (kind, key) in enumerate(steps):
        if kind == "attr" and isinstance(inspect.getattr_static(type(owner), key, None), property):
            return steps[:i], True
        owner = along(owner, ((kind, key),))
    if steps and steps[-1] == ("attr", "grad") and isinstance(along(value, steps[:-1]), torch.Tensor):
        return steps[:-1], False
    return steps, False
