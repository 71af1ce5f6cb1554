"""What the generated autograd kernels (torchgen/templates/autograd_functions.py.j2) call at
run time: argument binding, the checks of in-place and out= calls under autograd, and the node
that stands in for a missing derivative formula (PyTorch's VariableType helpers)."""
from __future__ import annotations

from typing import Any

from c10.tensor_impl import TensorImpl
from torch.csrc.autograd import graph

_VIEW_INPLACE = ("Ember does not support in-place operations on a view of a tensor that requires grad yet (the "
                 "gradient of its base would be wrong); clone() the view, or use the out-of-place operation")


def bind(args: tuple[Any, ...], kwargs: dict[str, Any], names: tuple[str, ...], defaults: tuple[Any, ...]) -> list[Any]:
    """The call's argument values in schema order (defaults filled in)."""
    values = list(args) + list(defaults[len(args):])
    for key, value in kwargs.items():
        values[names.index(key)] = value
    return values


def requires_grad(value: Any) -> bool:
    if isinstance(value, TensorImpl):
        return bool(value.requires_grad)  # type: ignore[attr-defined]
    if isinstance(value, (list, tuple)):
        return any(requires_grad(v) for v in value)
    return False


def edges(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """next_functions for the differentiable inputs (a tensor list gives one edge per tensor)."""
    out: list[Any] = []
    for v in values:
        if isinstance(v, (list, tuple)):
            out.extend(_edge(t) for t in v)
        else:
            out.append(_edge(v))
    return tuple(out)


def _edge(value: Any) -> Any:
    if isinstance(value, TensorImpl) and value.requires_grad:  # type: ignore[attr-defined]
        return graph.gradient_edge(value)
    return (None, 0)


def set_outputs(node: Any, result: Any, differentiable: tuple[bool, ...] | None = None) -> None:
    """Make node the grad_fn of result's floating outputs; record their metadata for checks."""
    outputs = result if isinstance(result, (tuple, list)) else (result,)
    metadata: list[Any] = []
    for i, out in enumerate(outputs):
        usable = (isinstance(out, TensorImpl) and (out.dtype.is_floating_point or out.dtype.is_complex)
                  and (differentiable is None or differentiable[i]))
        if usable:
            graph.set_history(out, node, i)
            metadata.append((out.shape, out.dtype, out.device))
        else:
            metadata.append(None)
    node._input_metadata = metadata


def mark_view(result: Any, base: Any) -> Any:
    """A view's base, for the in-place check (views of views point at the first base)."""
    if isinstance(result, TensorImpl):
        root = base.__dict__.get("_view_base", base)
        result.__dict__["_view_base"] = root
    elif isinstance(result, (list, tuple)):
        for r in result:
            mark_view(r, base)
    return result


def check_inplace(self: Any, op: str) -> None:
    """An in-place op under autograd: never on a leaf that requires grad, nor (yet) on a view."""
    if self.requires_grad and self._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = self.__dict__.get("_view_base")
    if base is not None and (base.requires_grad or self.requires_grad):
        raise RuntimeError(f"{op}: {_VIEW_INPLACE}")


def check_out(op: str, values: list[Any]) -> None:
    if any(requires_grad(v) for v in values):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, but "
                           "one of the arguments requires grad.")


class NotImplementedBackward(graph.Node):
    """Recorded for an op without a derivative formula: differentiating through it raises."""

    def __init__(self, op: str, next_functions: tuple[Any, ...]) -> None:
        super().__init__(next_functions)
        self.op = op

    def name(self) -> str:
        return "NotImplemented"

    def apply(self, grads: Any) -> tuple[Any, ...]:
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")
