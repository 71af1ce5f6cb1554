"""torch._dynamo.function_applications: a torch.autograd.Function applied, inside a captured call, to tensors that
require grad (a library's custom GeLU, a straight-through estimator).

Its backward is its own, not the derivative of the operators its forward runs, so the graph cannot hold those
operators: it holds one node that applies the Function (FunctionApplication), as PyTorch's graphs hold an
autograd_function_apply. While the capture runs the Function for real, the operators of its forward are not
recorded (the tracer runs them plainly), and its result's tensors are that node's outputs. A replay applies the
Function again, so autograd records it with its own backward; compiled ahead of time
(torch._dynamo.aot_autograd), the node's forward and the Function's backward are traced into the forward and
backward graphs, unless one of them reads a tensor's value (values_refused: the traced operators would repeat
the decision it took), when the graph runs through autograd, applying the Function at each call. Graph breaks: a Function returning other than new tensors (an input, a view of one, a Python
value), a tensor made inside its forward used outside it, and a backward run inside the captured call through
the Function (the graph of a whole training step holds the backward's operators, which its node does not have)."""
from __future__ import annotations

import contextlib
import operator
import threading
from typing import Any, Callable, Iterator

import torch
from torch._dynamo.patches import on_thread, original, patched

__all__ = ["FunctionApplication", "applied", "values_refused"]


class FunctionApplication:
    """A graph node's target: cls.apply(*args), recorded by autograd with cls's own backward."""

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
    if kwargs or tracer.broken:
        if not tracer.broken:
            cap.graph_break(f"autograd.Function {cls.__name__} applied with keyword arguments")
        return function_apply(cls, *args, **kwargs)
    given = [tracer.node_of(a) for a in args]      # (before the call: constants it reads become graph values)
    tracer.opaque += 1
    try:
        result = function_apply(cls, *args)
    finally:
        tracer.opaque -= 1
    outputs = list(result) if type(result) in (tuple, list) else [result]
    inputs = {id(a) for a in args if isinstance(a, torch.Tensor)}
    if not all(isinstance(t, torch.Tensor) and id(t) in tracer.made_inside and id(t) not in inputs
               for t in outputs):
        cap.graph_break(f"autograd.Function {cls.__name__} returned other than tensors its forward made (an input, "
                        "a Python value)")
        return result
    node = cap.graph.call_function(FunctionApplication(cls), tuple(given))
    if outputs and outputs[0] is result:
        tracer.bind(result, node)
    else:
        for i, tensor in enumerate(outputs):
            tracer.bind(tensor, cap.graph.call_function(operator.getitem, (node, i)))
    for tensor in outputs:
        del tracer.made_inside[id(tensor)]
    cap.applications.append(cls.__name__)
    return result


@contextlib.contextmanager
def values_refused(tracer: Any) -> Iterator[None]:
    """While AOT autograd traces a graph that applies Functions: a traced tensor's value read (item(), and bool,
    float and int through it; tolist(); NumPy) raises RuntimeError, on this thread."""
    thread = threading.get_ident()
    tensor_cls = torch.Tensor

    def refusing(name: str) -> Any:
        saved = original(tensor_cls, name)

        def read(self: Any, *args: Any, **kwargs: Any) -> Any:
            if id(self) in tracer.nodes and not self._is_wrapped_number:
                raise RuntimeError(f"Tensor.{name}: an autograd.Function reads a traced tensor's value")
            return saved(self, *args, **kwargs)
        return on_thread(thread, read, saved)

    with patched([(tensor_cls, name, refusing(name)) for name in ("item", "tolist", "_numpy_view")]):
        yield
