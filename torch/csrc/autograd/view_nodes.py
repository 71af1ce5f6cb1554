"""Autograd of views whose base is written in place (PyTorch's CopySlices and view replay).

A view shares its base's memory, so an in-place op on the view changes the base: the base's
history becomes a `CopySlices` node, whose backward takes the base's gradient, hands the view's
part of it to the in-place op's own node, writes that node's gradient for the old view values
back into the view's part, and passes the rest on to the base's old history. The view's own
history becomes `AsStridedBackward0` of the base's new history: its gradient lands in the
view's part of a zero base gradient. A view whose base changed through another alias (the
shared version counter moved since its history was recorded) is given that history again
when it is next used (graph.edge_of), as PyTorch regenerates a view's grad_fn.

Both nodes work in the base's storage space: each element's storage position (relative to the
base's offset) for the base's and the view's geometry, so any view (slices, transposes,
diagonals, expands) maps onto its base with index_select / index_copy / index_add, ops that
are themselves differentiable (create_graph works through these nodes)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10 import grad_mode
from c10.scalar_type import dtype_from_name
from torch.csrc.autograd import graph
from torch.csrc.autograd.variable_type import check_inplace

_arange = find_operator("arange")
_as_strided_ = find_operator("as_strided_")
_zeros = find_operator("zeros")
_INT64 = dtype_from_name("int64")

__all__ = ["CopySlices", "AsStridedBackward0", "as_strided_", "rebase_history", "replay_view"]


class _Geometry:
    """A tensor's sizes, strides and storage offset relative to its base's."""
    __slots__ = ("sizes", "strides", "offset")

    def __init__(self, tensor: Any, base: Any) -> None:
        self.sizes = tuple(tensor.shape)
        self.strides = tuple(tensor.stride())
        self.offset = tensor.storage_offset() - base.storage_offset()

    def shifted(self, offset: int) -> _Geometry:
        moved = _Geometry.__new__(_Geometry)
        moved.sizes, moved.strides, moved.offset = self.sizes, self.strides, self.offset + offset
        return moved

    def positions(self, device: Any) -> Any:
        """The storage position of each element, flattened (int64, no history)."""
        enabled = grad_mode.is_grad_enabled()
        grad_mode.set_grad_enabled(False)
        try:
            pos = _zeros(self.sizes, dtype=_INT64, device=device) + self.offset
            for d, (size, stride) in enumerate(zip(self.sizes, self.strides)):
                if size > 1 and stride != 0:
                    shape = [1] * len(self.sizes)
                    shape[d] = size
                    pos = pos + _arange(size, dtype=_INT64, device=device).reshape(shape) * stride
            return pos.reshape(-1)
        finally:
            grad_mode.set_grad_enabled(enabled)


def _span(*geometries: _Geometry) -> int:
    """The storage length the geometries reach (relative positions 0 .. span - 1)."""
    end = 1
    for g in geometries:
        if 0 in g.sizes:
            continue
        last = g.offset + sum((s - 1) * st for s, st in zip(g.sizes, g.strides))
        end = max(end, last + 1)
    return end


class CopySlices(graph.Node):
    """The base's history after an in-place op on one of its views (PyTorch's CopySlices)."""
    base: _Geometry
    view: _Geometry
    fn: graph.Node

    def name(self) -> str:
        return "CopySlices"

    def apply(self, grads: Any) -> tuple[Any, ...]:
        grad = grads[0]
        if grad is None:
            return (None,) * len(self.next_edges)
        base_pos, view_pos = self.base.positions(grad.device), self.view.positions(grad.device)
        storage = _zeros((_span(self.base, self.view),), dtype=grad.dtype, device=grad.device)
        storage = storage.index_copy(0, base_pos, grad.reshape(-1))
        grad_view = storage.index_select(0, view_pos).reshape(self.view.sizes)
        result = tuple(self.fn.apply((grad_view,)))
        old_view = result[0]
        if old_view is None:
            old_view = _zeros(self.view.sizes, dtype=grad.dtype, device=grad.device)
        storage = storage.index_copy(0, view_pos, old_view.reshape(-1))
        return (storage.index_select(0, base_pos).reshape(self.base.sizes),) + result[1:]

    def release_variables(self) -> None:
        super().release_variables()
        self.fn.release_variables()


class AsStridedBackward0(graph.Node):
    """A view's history as a function of its base's: its gradient in the view's part of zeros."""
    base: _Geometry
    view: _Geometry

    def apply(self, grads: Any) -> tuple[Any, ...]:
        grad = grads[0]
        if grad is None:
            return (None,)
        base_pos, view_pos = self.base.positions(grad.device), self.view.positions(grad.device)
        storage = _zeros((_span(self.base, self.view),), dtype=grad.dtype, device=grad.device)
        storage = storage.index_add(0, view_pos, grad.reshape(-1))     # summed where a view overlaps itself
        return (storage.index_select(0, base_pos).reshape(self.base.sizes),)


def replay_view(view: Any, base: Any, base_edge: graph.Edge) -> None:
    """Give view the history `AsStridedBackward0` of base's current history (base_edge)."""
    node = AsStridedBackward0((base_edge,))
    node.base = _Geometry(base, base)
    node.view = _Geometry(view, base)
    node.needs = (True,)
    graph.set_view_history(view, node)


def rebase_history(view: Any, base: Any, fn: graph.Node, base_edge: graph.Edge) -> None:
    """After the in-place op recorded as fn wrote into view: base's history is CopySlices(fn) and
    the view's is a view of it. fn's first edge (the view's old history) is replaced by base's."""
    node = CopySlices((base_edge,) + fn.next_edges[1:])
    node.base = _Geometry(base, base)
    node.view = _Geometry(view, base)
    node.fn = fn
    fn.needs = (base_edge.function is not None,) + tuple((fn.needs or ())[1:])
    node.needs = fn.needs
    graph.set_outputs(node, base)
    replay_view(view, base, graph.Edge(node, 0))


def as_strided_(self: Any, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    """as_strided_'s autograd kernel (by hand: its formula needs self's geometry from before the
    op): the gradient of the new geometry lands in storage and is read back with the old one."""
    check_inplace(self, "as_strided_")
    edge = graph.gradient_edge(self)
    old = _Geometry(self, self).shifted(self.storage_offset())
    _as_strided_.call_below_autograd(self, size, stride, storage_offset)
    new = _Geometry(self, self).shifted(self.storage_offset())
    low = min(old.offset, new.offset)
    node = AsStridedBackward0((edge,))
    node.base, node.view = old.shifted(-low), new.shifted(-low)
    node.needs = (True,)
    graph.set_outputs(node, self)
    return self
