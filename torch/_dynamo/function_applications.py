"""torch._dynamo.function_applications: a torch.autograd.Function applied, inside a captured call, to tensors that
require grad (a library's custom GeLU, a straight-through estimator).

Its backward is its own, not the derivative of the operators its forward runs, so the graph cannot hold those
operators: it holds one node that applies the Function (FunctionApplication), as PyTorch's graphs hold an
autograd_function_apply. While the capture runs the Function for real, the operators of its forward are not
recorded (the tracer runs them plainly), and its result's tensors are that node's outputs. A replay applies the
Function again, so autograd records it with its own backward, and its Python (the decisions it takes on values,
what it does outside its tensors, a backward's too) runs at each call as in eager: a graph that autograd records
runs through autograd rather than traced ahead of time with its backward (torch._dynamo.aot_autograd), which
would run that Python once, on the trace's tensors.

Graph breaks: a Function given other than tensors and plain values (a module, a function: the graph holds only
values it can spell), applied under autocast (its replay would run outside the region), returning other than
new tensors (an input, a Python value), a tensor made inside its forward used outside it, an attribute its
forward assigns on a module, and a backward run inside the captured call through the Function (the graph of a
whole training step holds the backward's operators, which its node does not have)."""
from __future__ import annotations

import operator
from typing import Any, Callable

import torch
from torch._dynamo.plain_values import is_plain_value

__all__ = ["FunctionApplication", "applied"]


class FunctionApplication:
    """A graph node's target: cls.apply(*args), recorded by autograd with cls's own backward. Kept by dead-code
    elimination when nothing reads its result (its forward may change a buffer, draw random numbers)."""

    _is_impure = True
    _layout_varies = True       # (its Python may size its results otherwise at each call: torch._inductor)

    def __init__(self, cls: type) -> None:
        self.cls = cls
        self.__name__ = f"apply_{cls.__name__}"
        self.__qualname__ = self.__name__

    def __call__(self, *args: Any) -> Any:
        return self.cls.apply(*args)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"<autograd.Function {self.cls.__module__}.{self.cls.__qualname__}.apply>"


def applied(cap: Any, function_apply: Callable[..., Any], cls: type, args: tuple[Any, ...],
            kwargs: dict[str, Any]) -> Any:
    """cls.apply(*args) during a capture (its inputs requiring grad): run for real, its operators unrecorded,
    recorded as one FunctionApplication node."""
    tracer = cap.tracer
    problem = _problem(cap, cls, args, kwargs)
    if problem is not None or tracer.broken:
        if not tracer.broken:
            cap.graph_break(f"autograd.Function {cls.__name__} {problem}")
        return function_apply(cls, *args, **kwargs)
    # (before the call: the constants it reads become graph values; a tuple stays a tuple, a torch.Size a size)
    given = [a if type(a) is torch.Size else tuple(tracer.node_of(a)) if type(a) is tuple else tracer.node_of(a)
             for a in args]
    tracer.opaque += 1
    try:
        result = function_apply(cls, *args)
    except BaseException:
        # the program may take another way around it (try/except) that the replay would take every time
        cap.graph_break(f"autograd.Function {cls.__name__} raised in its forward")
        raise
    finally:
        tracer.opaque -= 1
    outputs = list(result) if type(result) in (tuple, list) else [result]
    inputs = {id(a) for a in args if isinstance(a, torch.Tensor)}
    if not all(isinstance(t, torch.Tensor) and tracer.made_in_opaque(t) and id(t) not in inputs for t in outputs):
        cap.graph_break(f"autograd.Function {cls.__name__} returned other than tensors its forward made (an input, "
                        "a Python value)")
        return result
    node = cap.graph.call_function(FunctionApplication(cls), tuple(given))
    # its outputs carry no example layout: its Python may give them another size at each call
    if outputs and outputs[0] is result:
        tracer.bind_plainly(result, node)
    else:
        for i, tensor in enumerate(outputs):
            tracer.bind_plainly(tensor, cap.graph.call_function(operator.getitem, (node, i)))
    for tensor in outputs:
        tracer.made_inside.pop(id(tensor), None)
    cap.applications.append(cls.__name__)
    return result


def _problem(cap: Any, cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """Why a FunctionApplication node cannot stand for this call, if it cannot."""
    if kwargs:
        return "applied with keyword arguments"
    if cap.writes:
        return "applied after the call assigned attributes (its node runs before a replay assigns them again)"
    if "<locals>" in cls.__qualname__ and any(_closes_over(getattr(cls, name, None))
                                              for name in ("forward", "backward", "setup_context", "jvp")):
        return "defined in a function, closing over its values (the node would keep the captured call's class)"
    if any(torch.is_autocast_enabled(device) for device in ("cpu", "cuda")):
        return "applied under autocast (a replay of its node would run outside the region)"
    for value in args:
        items = value if type(value) in (list, tuple) else (value,)
        if not all(isinstance(v, torch.Tensor) or is_plain_value(v) for v in items):
            return f"given a {type(value).__name__} (its graph node holds tensors and plain values)"
    return None


def _closes_over(method: Any) -> bool:
    """Whether a Function's method reads variables of an enclosing function (but the class itself, super()'s)."""
    function = getattr(method, "__func__", method)
    cells = getattr(function, "__closure__", None) or ()
    names = getattr(getattr(function, "__code__", None), "co_freevars", ())
    return any(name != "__class__" for name, _ in zip(names, cells))
