"""torch._dynamo.readers: the small readers the side-effect guards call at each replay (a closure cell's contents,
a function's defaults, a chain of attributes, a bound method's binding), and what the capture reads of the
running program (the function a frame runs, the global random generators' states), and the chain a guard follows
to a value (guarded_chains)."""
from __future__ import annotations

import inspect
import random
import sys
from typing import Any, Callable

import torch
from torch._dynamo.global_reads import Step, along, local_uses
from torch._dynamo.program_state import is_program_file

__all__ = ["attribute_chain", "binds", "cell_contents", "code_of", "default_at", "defaults_of", "entered_function",
           "generator_states", "guarded_chains", "kwdefaults_of", "method_function", "own_attribute", "own_method"]


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


def code_of(fn: Any) -> Any:
    return fn.__code__


def default_at(fn: Any, index: int) -> Any:
    return fn.__defaults__[index]


def defaults_of(fn: Any) -> Any:
    return fn.__defaults__


def kwdefaults_of(fn: Any) -> Any:
    return fn.__kwdefaults__


def entered_function(frame: Any) -> Any:
    """The function object a frame runs, where it can be found: a method (or a property's getter) of its first
    argument's class (or of the class itself, a classmethod's cls), or a global of its module; None otherwise."""
    code = frame.f_code
    owner = frame.f_locals.get(code.co_varnames[0]) if code.co_argcount else None
    candidates = [frame.f_globals.get(code.co_name)]
    if owner is not None:
        cls = owner if isinstance(owner, type) else type(owner)
        candidates.insert(0, inspect.getattr_static(cls, code.co_name, None))
    for candidate in candidates:
        candidate = getattr(candidate, "__func__", candidate)       # a classmethod's or staticmethod's function
        candidate = candidate.fget if isinstance(candidate, property) else candidate
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


def guarded_chains(value: Any, chains: list[tuple[Step, ...]], depth: int = 3) -> list[tuple[tuple[Step, ...], bool]]:
    """The chains guards follow from value, each with whether its end must be guarded whole (a chain that fails
    to follow is left out). A tensor's .grad at a chain's end is read as a graph input when the call reads it
    (grad_read), and its value at entry (before the call's zero_grad and backward) says nothing: the tensor is
    guarded instead. A property on the way is not read (its getter would run at each check, its side effects
    with it): the chains its getter reads from its object are followed instead (or, where the getter uses its
    object otherwise, the object is guarded whole)."""
    found: list[tuple[tuple[Step, ...], bool]] = []
    for steps in chains:
        try:
            found.extend(_guarded(value, steps, depth))
        except Exception:       # a chain that fails (the call raises, or reads it under a condition)
            continue
    return found


def _guarded(value: Any, steps: tuple[Step, ...], depth: int) -> list[tuple[tuple[Step, ...], bool]]:
    owner = value
    for i, (kind, key) in enumerate(steps):
        prop = inspect.getattr_static(type(owner), key, None) if kind == "attr" else None
        if isinstance(prop, property):
            reads = _getter_reads(prop)
            if reads is None or depth <= 0:
                return [(steps[:i], True)]
            # (their ends whole: what the chain read past the property comes from them)
            return [(chain, True) for chain, _ in guarded_chains(value, [(*steps[:i], *c) for c in reads], depth - 1)]
        owner = along(owner, ((kind, key),))
    if steps and steps[-1] == ("attr", "grad") and isinstance(along(value, steps[:-1]), torch.Tensor):
        return [(steps[:-1], False)]
    return [(steps, False)]


def _getter_reads(prop: property) -> list[tuple[Step, ...]] | None:
    """The chains a property's getter (the program's function) reads from its object, or None where it uses the
    object otherwise (calls its methods, passes it on)."""
    code = getattr(prop.fget, "__code__", None)
    if code is None or not code.co_argcount or not is_program_file(code.co_filename):
        return None
    use = local_uses(code, code.co_varnames[0])
    if use.passed_on or use.methods:
        return None
    return [(("attr", name), *chain) for name, reads in use.attributes.items()
            for chain in {(), *reads.values, *reads.whole, *reads.blind}]
