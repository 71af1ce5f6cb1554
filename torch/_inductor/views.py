"""views: the graph's view operators as fixed reinterpretations of the tensor they view.

A graph is specialised on its inputs' sizes and strides, so every view in it (view, t, transpose, expand, a
split's pieces...) has the sizes, strides and storage offset the capture recorded, relative to the first
tensor up its chain of views that is not one (its root). The wrapper makes such a view in one call on the
root (aten's as_strided kernel, bounds-checked; no dispatch), only where something other than a fused kernel
reads it: a kernel is handed the root's memory at the view's offset, since its loops already carry the view's
strides. Views autograd records (their inputs require grad under grad mode) keep their operator."""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["View", "reinterpretable_views"]


@dataclass(frozen=True)
class View:
    """A view node as (root, sizes, strides, offset from the root's storage offset, in elements)."""
    root: Any
    size: tuple[int, ...]
    stride: tuple[int, ...]
    delta: int


def _aliases_input(node: Any) -> bool:
    schema = getattr(node.target, "_schema", None)
    if schema is None or len(schema.returns) != 1:
        return False
    ret = schema.returns[0]
    return bool(ret.alias) and not ret.is_write


def _viewed(node: Any) -> Any:
    """The tensor node a view node views, or None when node is not a plain view."""
    if node.op != "call_function":
        return None
    if node.target is operator.getitem:             # a piece of split, chunk, unbind
        source = node.args[0]
        return source.args[0] if isinstance(source, torch.fx.Node) and _aliases_input(source) else None
    if _aliases_input(node) and str(node.target._schema.returns[0].type) == "Tensor":
        first = node.args[0] if node.args else None
        return first if isinstance(first, torch.fx.Node) else None
    return None


def reinterpretable_views(graph: Any, recorded: set[Any]) -> dict[Any, View]:
    """The view nodes of graph the wrapper may make from their root directly."""
    views: dict[Any, View] = {}
    for node in graph.nodes:
        base = _viewed(node)
        if base is None or node in recorded:
            continue
        example, base_example = node.meta.get("example"), base.meta.get("example")
        if example is None or base_example is None:
            continue
        shape, stride, dtype, device, offset = example
        if dtype is not base_example[2] or device != base_example[3]:
            continue                # view.dtype, view_as_real: another element type
        root = views[base].root if base in views else base
        root_example = root.meta.get("example")
        if root_example is None:
            continue
        views[node] = View(root, tuple(shape), tuple(stride), offset - root_example[4])
    return views
