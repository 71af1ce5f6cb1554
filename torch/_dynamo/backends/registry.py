"""The backend registry: a backend is a callable (graph_module, example_inputs) -> a callable that runs the
graph on its flattened tensor inputs, as PyTorch's. Ember's graphs are captured at the operator level
(aten operators, after autograd), so "eager" and "aot_eager" both run the graph's operators through the
dispatcher, autograd included; "inductor" generates fused kernels (torch._inductor)."""
from __future__ import annotations

import logging
from typing import Any, Callable

import torch
from torch._dynamo import exc

__all__ = ["list_backends", "lookup_backend", "register_backend"]

CompilerFn = Callable[..., Any]

_BACKENDS: dict[str, CompilerFn] = {}
_TAGS: dict[str, tuple[str, ...]] = {}


def register_backend(compiler_fn: CompilerFn | None = None, name: str | None = None,
                     tags: tuple[str, ...] = ()) -> Any:
    """Register a backend under name (the function's own name by default); usable as a decorator."""
    if compiler_fn is None:
        return lambda fn: register_backend(fn, name=name, tags=tags)
    if not callable(compiler_fn):
        raise AssertionError("backend must be callable")
    name = name or compiler_fn.__name__
    if name in _BACKENDS and _BACKENDS[name] is not compiler_fn:
        raise AssertionError(f"duplicate name: {name}")
    _BACKENDS[name] = compiler_fn
    _TAGS[name] = tuple(tags)
    return compiler_fn


def lookup_backend(compiler_fn: str | CompilerFn) -> CompilerFn:
    """The backend a name stands for (a callable is its own backend)."""
    if isinstance(compiler_fn, str):
        if compiler_fn not in _BACKENDS:
            raise exc.InvalidBackend(name=compiler_fn)
        return _BACKENDS[compiler_fn]
    return compiler_fn


def list_backends(exclude_tags: tuple[str, ...] | None = ("debug", "experimental")) -> list[str]:
    """The registered backends' names, without those carrying one of exclude_tags."""
    excluded = set(exclude_tags or ())
    return sorted(name for name, tags in _TAGS.items() if not excluded & set(tags))


def _ignoring(name: str, kwargs: dict[str, Any]) -> None:
    if kwargs:
        logging.getLogger("torch._dynamo").warning("%s backend ignoring extra kwargs %s", name, kwargs)


def eager(gm: Any, example_inputs: list[Any], **kwargs: Any) -> CompilerFn:
    """The captured graph run as it is, operator by operator."""
    _ignoring("eager", kwargs)
    return gm.forward


def _through_aot(gm: Any, example_inputs: list[Any], inner: CompilerFn) -> CompilerFn | None:
    """A graph that autograd records, as a compiled forward and backward (torch._dynamo.aot_autograd); None
    when it records nothing or cannot be split."""
    from torch._inductor.scheduler import needs_autograd
    if not needs_autograd(gm.graph, torch.is_grad_enabled()):
        return None
    if any(node.target is torch._C._set_grad_enabled for node in gm.graph.nodes):
        return None             # grad mode switched inside: the graph runs its switches through autograd
    from torch._dynamo.aot_autograd import aot_compile
    return aot_compile(gm, example_inputs, inner)


def aot_eager(gm: Any, example_inputs: list[Any], **kwargs: Any) -> CompilerFn:
    """PyTorch's AOTAutograd with eager kernels: a graph autograd records is split into a forward and a
    backward graph, each run operator by operator; any other graph runs as it is."""
    _ignoring("aot_eager", kwargs)
    return _through_aot(gm, example_inputs, lambda g, inputs: g.forward) or gm.forward


def inductor(gm: Any, example_inputs: list[Any], **kwargs: Any) -> CompilerFn:
    """Ember's compiler: fused kernels generated from the schema's formulas (torch._inductor); a graph that
    autograd records gets a compiled forward and a compiled backward."""
    from torch._inductor.compile_fx import compile_fx
    if getattr(gm, "meta", {}).get("dynamic_sizes"):     # a capture at sizes that vary (torch._dynamo.eval_frame)
        kwargs = {**kwargs, "dynamic": True}
    return _through_aot(gm, example_inputs, lambda g, inputs: compile_fx(g, inputs, **kwargs)) \
        or compile_fx(gm, example_inputs, **kwargs)


for _name, _backend, _tags in (("eager", eager, ("debug",)), ("aot_eager", aot_eager, ("debug",)),
                               ("inductor", inductor, ())):
    register_backend(_backend, name=_name, tags=_tags)
