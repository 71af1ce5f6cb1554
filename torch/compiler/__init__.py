"""torch.compiler: the queries and switches programs call around torch.compile. Ember has no graph
compiler yet, so nothing is ever being compiled or exported: the queries answer False and disable()
returns the function it is given, as PyTorch's do outside a compiled region. torch.compile (this
module's compile) checks its arguments as PyTorch does, returns the model itself under
disable=True, and otherwise raises a RuntimeError naming the missing compiler."""
from __future__ import annotations

import functools
from typing import Any, Callable

__all__ = ["allow_in_graph", "assume_constant_result", "compile", "disable", "is_compiling", "is_dynamo_compiling",
           "is_exporting"]

_NO_COMPILER = ("torch.compile is not supported by Ember yet: Ember has no graph compiler (TorchDynamo and "
                "Inductor). Run the model eagerly, or pass disable=True to torch.compile")


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


def compile(model: Any = None, *, fullgraph: bool = False, dynamic: bool | None = None, backend: Any = "inductor",
            mode: str | None = None, options: dict[str, Any] | None = None, name: str | None = None,
            disable: bool = False, recompile_limit: int | None = None, isolate_recompiles: bool = False,
            shapes_spec: Any = None) -> Any:
    """torch.compile: without a model, a decorator; with disable=True, the model itself (as PyTorch);
    otherwise Ember cannot compile it and says so."""
    if model is None:
        def decorate(fn: Any) -> Any:
            return compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options,
                           name=name, disable=disable, recompile_limit=recompile_limit,
                           isolate_recompiles=isolate_recompiles, shapes_spec=shapes_spec)
        return decorate
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if disable:
        return model
    raise RuntimeError(_NO_COMPILER)
