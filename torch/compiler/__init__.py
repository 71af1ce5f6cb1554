"""torch.compiler: the queries and switches programs call around torch.compile. Ember has no graph
compiler yet (torch.compile is not provided), so nothing is ever being compiled or exported: the
queries answer False and disable() returns the function it is given, as PyTorch's do outside a
compiled region."""
from __future__ import annotations

import functools
from typing import Any, Callable

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling", "is_dynamo_compiling",
           "is_exporting"]


def is_compiling() -> bool:
    """Whether the caller runs inside a torch.compile trace: never here."""
    return False


def is_dynamo_compiling() -> bool:
    """Whether TorchDynamo is tracing the caller: never here."""
    return False


def is_exporting() -> bool:
    """Whether torch.export is tracing the caller: never here."""
    return False


def disable(fn: Callable[..., Any] | None = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """Exclude fn from compilation: with no compiler, fn itself (usable as a decorator, with or
    without arguments)."""
    if fn is None:
        return functools.partial(disable, recursive=recursive, reason=reason)
    return fn


def allow_in_graph(fn: Any) -> Any:
    """Tells the tracer to put fn (or each of a list of functions) in the graph unopened; with no
    compiler, fn itself."""
    if isinstance(fn, (list, tuple)):
        return [allow_in_graph(f) for f in fn]
    if not callable(fn):
        raise AssertionError("allow_in_graph expects a callable")
    return fn


def assume_constant_result(fn: Any) -> Any:
    """Tells the tracer that fn's result is a constant; eagerly, fn runs as it is."""
    fn._dynamo_marked_constant = True
    return fn
