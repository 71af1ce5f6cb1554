"""torch._dynamo.held_state: the state of objects a program holds that a call can advance without assigning any
attribute a snapshot compares: random generators (random.Random, NumPy's), iterators (a generator, an
iterator over a list or a range, itertools.count, a data loader's iterator) and NumPy arrays (written through
their buffer, which no snapshot of members sees). A call that draws from one or takes
an item from one had a side effect a replay would not redo (it would repeat the captured draws or items), so
the capture compares their states before and after the call (torch._dynamo.side_effects). A call setting torch's
generator's state is a graph break where that changes it (generator_state_write)."""
from __future__ import annotations

import collections.abc
import random
import sys
import types
from typing import Any, Callable

import torch
from torch._dynamo.guards import array_state, is_array, is_plain_value
from torch._dynamo.program_state import is_object

__all__ = ["generator_state_read", "generator_state_write", "held_state", "is_random_generator", "what_changed"]

_DEPTH = 8          # how deep an iterator's state follows the tuples of __reduce__ and the iterators it draws from


def is_random_generator(value: Any) -> bool:
    """A random.Random, or a NumPy Generator, RandomState or BitGenerator."""
    if isinstance(value, random.Random):
        return True
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, (numpy.random.Generator, numpy.random.RandomState,
                                                    numpy.random.BitGenerator))


def held_state(value: Any) -> Any:
    """A random generator's or an iterator's state, or a NumPy array's contents, comparable with ==; None for
    anything else (and for a generator without a state to read: random.SystemRandom)."""
    if is_random_generator(value):
        return _generator_state(value)
    if is_array(value):
        return array_state(value)
    if isinstance(value, collections.abc.Iterator) and not isinstance(value, torch.Tensor) and not is_object(value):
        return _iterator_state(value, _DEPTH)       # (a program's own iterator object: its members are snapshotted)
    return None


def what_changed(value: Any) -> str:
    """How a held object changed, for the graph break's reason."""
    if is_random_generator(value):
        return "drew numbers (a replay would repeat the captured draws)"
    if is_array(value):
        return "was written to (a replay would not write it again)"
    return "was advanced (a replay would repeat the captured items)"


def _generator_state(value: Any) -> Any:
    try:
        if isinstance(value, random.Random):
            return value.getstate()
        numpy = sys.modules["numpy"]
        if isinstance(value, numpy.random.Generator):
            return repr(value.bit_generator.state)
        if isinstance(value, numpy.random.RandomState):
            return repr(value.get_state(legacy=False))
        return repr(value.state)
    except (NotImplementedError, TypeError, ValueError, KeyError):
        return None


def _iterator_state(value: Any, depth: int) -> Any:
    """A Python generator's position and locals; a built-in or itertools iterator's __reduce__ (its index, the
    iterators it draws from); another iterator's plain attributes (a data loader iterator's count of batches)."""
    if isinstance(value, types.GeneratorType):
        frame = value.gi_frame
        if frame is None:
            return ("finished",)
        return ("at", frame.f_lasti, tuple((name, _leaf(v, depth)) for name, v in frame.f_locals.items()))
    module = getattr(type(value), "__module__", None)
    if module in ("builtins", "itertools"):
        try:
            return ("reduced", _leaf(value.__reduce__(), depth))
        except (TypeError, ValueError):
            return None
    own = getattr(value, "__dict__", None)
    if isinstance(own, dict):
        return ("attributes", tuple((k, v) for k, v in own.items() if is_plain_value(v)))
    return None


def _leaf(value: Any, depth: int) -> Any:
    """value as part of a state: plain values and ranges by value, tuples member by member (past depth, by
    length: __reduce__ makes them anew), an iterator by its state (past depth, the iterator itself), a list by its
    length (what is left of a dict's or set's iterator, copied by each __reduce__; the list a list iterator walks
    is its own, its index is what moves), anything else by identity."""
    if is_plain_value(value):
        return value
    if isinstance(value, range):            # made anew by a range iterator's __reduce__
        return ("range", value.start, value.stop, value.step)
    if isinstance(value, tuple):
        return tuple(_leaf(v, depth - 1) for v in value) if depth > 0 else ("tuple", len(value))
    if isinstance(value, list):
        return ("list", len(value))
    if isinstance(value, collections.abc.Iterator) and not isinstance(value, torch.Tensor):
        return _iterator_state(value, depth - 1) if depth > 0 else ("iterator", id(value))
    return ("object", id(value))


def generator_state_read(saved: Callable[..., Any], taken: list[Any]) -> Callable[..., Any]:
    """torch.get_rng_state while capturing, each state it gives kept in taken (see generator_state_write)."""
    def read(*args: Any, **kwargs: Any) -> Any:
        state = saved(*args, **kwargs)
        taken.append(state)
        return state
    return read


def generator_state_write(capture: Any, saved: Callable[..., Any], name: str, taken: list[Any]) -> Callable[..., Any]:
    """torch.<name> (set_rng_state, manual_seed, seed) while capturing: a graph break (the generator's state set
    outside the dispatcher would not be replayed), but for set_rng_state setting, to the state the generator
    has, a state get_rng_state gave during the call (checkpoint's recomputation, under fork_rng, of a block that
    draws nothing: each replay's draws come where the capture's did, so eager's set would change nothing then
    either). A state from outside the call could differ at a replay."""
    get_state = torch.random.get_rng_state

    def unchanged(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        new_state: Any = args[0] if args else kwargs.get("new_state")
        if not any(new_state is state for state in taken):
            return False
        broken, capture.tracer.broken = capture.tracer.broken, True      # (compared outside the graph)
        try:
            now = get_state()
            return new_state.shape == now.shape and new_state.dtype == now.dtype and bool(torch.equal(new_state, now))
        finally:
            capture.tracer.broken = broken

    def write(*args: Any, **kwargs: Any) -> Any:
        if name != "set_rng_state" or not unchanged(args, kwargs):
            capture.graph_break(f"torch.{name} inside a compiled function (the generator's state set outside the "
                                "dispatcher would not be replayed)")
        return saved(*args, **kwargs)
    return write
