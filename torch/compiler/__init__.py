"""torch.compiler: torch.compile and the queries and switches programs call around it.

torch.compile captures a function's operators into a graph the first time it is called with given
inputs (torch._dynamo), and hands the graph to a backend: "inductor" (Ember's compiler of fused kernels,
torch._inductor), "eager" and "aot_eager" (the graph run operator by operator), or a callable taking
(GraphModule, example_inputs). is_compiling() is true while a call is being captured, so that libraries
can pick graph-friendly code there, as they do under PyTorch's."""
from __future__ import annotations

import functools
import sys
from typing import Any, Callable

__all__ = ["allow_in_graph", "assume_constant_result", "compile", "cudagraph_mark_step_begin", "disable",
           "is_compiling", "is_dynamo_compiling", "is_exporting", "list_backends", "reset"]


def is_compiling() -> bool:
    """Whether the caller runs inside a torch.compile capture."""
    capture = sys.modules.get("torch._dynamo.capture")
    return capture is not None and bool(capture.active())


def is_dynamo_compiling() -> bool:
    """Whether TorchDynamo (Ember: the capture) is tracing the caller."""
    return is_compiling()


def is_exporting() -> bool:
    """Whether torch.export is tracing the caller: never here (Ember has no torch.export)."""
    return False


def disable(fn: Callable[..., Any] | None = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """Exclude fn from compilation (usable as a decorator, with or without arguments): called from a
    compiled function, fn runs eagerly (a graph break)."""
    from torch._dynamo.eval_frame import disable as dynamo_disable
    return dynamo_disable(fn, recursive, reason=reason)


def allow_in_graph(fn: Any) -> Any:
    """Tells the tracer to put fn in the graph (torch._dynamo.allow_in_graph)."""
    from torch._dynamo.decorators import allow_in_graph as allow
    return allow(fn)


def assume_constant_result(fn: Any) -> Any:
    """Tells the tracer that fn's result is a constant (torch._dynamo.assume_constant_result)."""
    from torch._dynamo.decorators import assume_constant_result as assume
    return assume(fn)


def list_backends(exclude_tags: tuple[str, ...] | None = ("debug", "experimental")) -> list[str]:
    """The names torch.compile's backend= accepts (without the debugging ones by default)."""
    from torch._dynamo.backends.registry import list_backends as registered
    return registered(exclude_tags)


def reset() -> None:
    """Forget every compiled graph: the next call of each compiled function captures again."""
    from torch._dynamo.eval_frame import reset as dynamo_reset
    dynamo_reset()


def cudagraph_mark_step_begin() -> None:
    """Marks the start of a training step for CUDA-graph trees; Ember's compiled steps keep no graph
    memory across steps that this would release, so there is nothing to do."""


def compile(model: Any = None, *, fullgraph: bool = False, dynamic: bool | None = None, backend: Any = "inductor",
            mode: str | None = None, options: dict[str, Any] | None = None, name: str | None = None,
            disable: bool = False, recompile_limit: int | None = None, isolate_recompiles: bool = False,
            shapes_spec: Any = None) -> Any:
    """torch.compile: model (a function or a module) compiled by backend; without a model, a decorator;
    with disable=True, the model itself."""
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
    from torch._dynamo.eval_frame import compile_model
    return compile_model(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode, options=options)
