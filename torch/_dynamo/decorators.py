"""torch._dynamo's markers on tensors and functions, as PyTorch's decorators module has them.

mark_dynamic and mark_static record which sizes the program wants symbolic or fixed, on the tensor, as
PyTorch does. A call with a size marked dynamic is captured as one at sizes that vary (its graph compiled generic
in sizes: torch._dynamo.size_families); mark_static changes nothing, since every capture is at its own sizes."""
from __future__ import annotations

import functools
from typing import Any, Callable

import torch
from torch._dynamo import capture
from torch.nn import Module

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "graph_break", "mark_dynamic", "mark_static",
           "maybe_mark_dynamic", "mark_static_address"]


def allow_in_graph(fn: Any) -> Any:
    """Tells the tracer to put fn in the graph: Ember's capture records fn's operators in the graph
    anyway, so fn is returned as it is."""
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(f) for f in fn]
    if not callable(fn):
        raise AssertionError("allow_in_graph expects a callable")
    return fn


def graph_break(msg: str = "") -> None:
    """A graph break where it is called while capturing (the frame runs eagerly; under fullgraph=True it raises
    torch._dynamo.exc.Unsupported); nothing otherwise."""
    capture.break_graph("Call to `torch._dynamo.graph_break()`\n  Explanation: User-inserted graph break. "
                        f"Message: {msg or None}\n  Hint: Remove the `torch._dynamo.graph_break()` call.")


def assume_constant_result(fn: Any) -> Any:
    """Tells the tracer that fn's result is a constant (its tensors are then read as they were)."""
    fn._dynamo_marked_constant = True
    return fn


def _indices(t: torch.Tensor, index: int | list[int] | tuple[int, ...]) -> list[int]:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"mark_dynamic expects a Tensor, got {type(t).__name__}")
    indices = [index] if isinstance(index, int) else list(index)
    for i in indices:
        if not -t.dim() <= i < max(t.dim(), 1):
            raise AssertionError(f"Index {i} out of range for a tensor of {t.dim()} dimensions")
    return [i % max(t.dim(), 1) for i in indices]


def mark_dynamic(t: Any, index: int | list[int] | tuple[int, ...], *, min: int | None = None,
                 max: int | None = None, specialize_on: Any = None) -> None:
    """Record that t's dims `index` vary between calls (t._dynamo_dynamic_indices)."""
    indices = _indices(t, index)
    existing: set[int] = getattr(t, "_dynamo_dynamic_indices", set())
    t._dynamo_dynamic_indices = existing | set(indices)


def maybe_mark_dynamic(t: Any, index: int | list[int] | tuple[int, ...]) -> None:
    """As mark_dynamic, as a hint (t._dynamo_weak_dynamic_indices)."""
    indices = _indices(t, index)
    t._dynamo_weak_dynamic_indices = getattr(t, "_dynamo_weak_dynamic_indices", set()) | set(indices)


def mark_static(t: Any, index: int | list[int] | tuple[int, ...] | None = None) -> None:
    """Record that t's dims `index` (all when None) stay fixed (t._dynamo_static_indices)."""
    indices = list(range(t.dim())) if index is None else _indices(t, index)
    t._dynamo_static_indices = getattr(t, "_dynamo_static_indices", set()) | set(indices)


def mark_static_address(t: Any, guard: bool = True) -> None:
    """Record that t keeps its memory across calls (t._dynamo_static_input_type), as PyTorch's."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"mark_static_address expects a tensor but received {type(t)}")
    setattr(t, "_dynamo_static_input_type", "guarded" if guard else "unguarded")


def disable(fn: Callable[..., Any] | None = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """fn never compiled: called from a function being captured, it is a graph break (under fullgraph=True,
    PyTorch's error); called otherwise, it runs as it is. Usable as a decorator with or without arguments."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    if isinstance(fn, Module):
        fn.forward = disable(fn.forward, recursive, reason=reason)
        return fn

    @functools.wraps(fn)
    def disabled(*args: Any, **kwargs: Any) -> Any:
        if capture.active():
            capture.break_graph("Skip calling `torch.compiler.disable()`d function: skip calling function "
                                f"`{fn}` since it was wrapped with `torch.compiler.disable` (reason: {reason})")
        return fn(*args, **kwargs)

    setattr(disabled, "_torchdynamo_disable", True)
    setattr(disabled, "_torchdynamo_orig_callable", fn)
    return disabled
