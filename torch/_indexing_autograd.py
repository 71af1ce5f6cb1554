"""Indexing of tensors that require grad (torch/_C/_indexing.pyx hands them here in grad mode).

Every index, basic or advanced, maps each result element to one element of self. Indexing a
tensor of flat positions (0 .. numel-1) the same way gives that map, so one backward serves
all index forms: getitem's gradient adds grad into zeros at those positions (index_add_, which
sums repeated positions); setitem's gives self the gradient with those positions zeroed and the
value the gradient there, summed to its shape."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import dtype_from_name
from c10.tensor_impl import TensorImpl
from torch._C import _indexing
from torch.autograd.grad_mode import no_grad
from torch.csrc.autograd import graph, view_nodes
from torch.csrc.autograd.functions_manual import sum_to
from torch.csrc.autograd.graph import edges, set_outputs
from torch.csrc.autograd.variable_type import check_inplace

_arange = find_operator("arange")
_zeros = find_operator("zeros")
_INT64 = dtype_from_name("int64")


def _positions(shape: tuple[int, ...], device: Any, index: Any) -> Any:
    """The flat position in a tensor of `shape` of each element [index] selects (computed at
    backward time: O(numel), so not on the forward path)."""
    with no_grad():
        numel = 1
        for size in shape:
            numel *= size
        flat = _arange(numel, dtype=_INT64, device=device).reshape(shape)
        return _indexing.getitem(flat, index).reshape(-1)


def _save_index(index: Any) -> Any:
    """The index with each tensor in it saved (version-checked): an index tensor modified in place
    before backward raises PyTorch's error instead of giving a wrong gradient."""
    if isinstance(index, TensorImpl):
        return graph.SavedVariable(index)
    if isinstance(index, (tuple, list)):
        return type(index)(_save_index(i) for i in index)
    return index


def _unpack_index(index: Any) -> Any:
    if isinstance(index, graph.SavedVariable):
        return index.unpack()
    if isinstance(index, (tuple, list)):
        return type(index)(_unpack_index(i) for i in index)
    return index


class IndexBackward0(graph.Node):
    index: Any
    shape: tuple[int, ...]
    numel: int

    def apply(self, grads: Any) -> tuple[Any, ...]:
        grad = grads[0]
        if grad is None:
            return (None,)
        out = _zeros((self.numel,), dtype=grad.dtype, device=grad.device)
        positions = _positions(self.shape, grad.device, _unpack_index(self.index))
        return (out.index_add(0, positions, grad.reshape(-1)).reshape(self.shape),)


class IndexPutBackward0(graph.Node):
    needs: tuple[bool, ...]
    index: Any
    selected_shape: tuple[int, ...]
    value_shape: tuple[int, ...]

    def apply(self, grads: Any) -> tuple[Any, ...]:
        grad = grads[0]
        if grad is None:
            return (None, None)
        flat = grad.reshape(-1)
        positions = _positions(tuple(grad.shape), grad.device, _unpack_index(self.index))
        grad_self = grad_value = None
        if self.needs[0]:
            grad_self = flat.index_fill(0, positions, 0).reshape(tuple(grad.shape))
        if self.needs[1]:
            grad_value = sum_to(flat.index_select(0, positions).reshape(self.selected_shape), self.value_shape)
        return (grad_self, grad_value)


def getitem(self: Any, index: Any) -> Any:
    with no_grad():
        result = _indexing.getitem(self, index)
    node = IndexBackward0(edges((self,)))
    node.index = _save_index(index)
    node.shape, node.numel = tuple(self.shape), self.numel()
    if result is self:                       # t[...] is t itself in Cython's fast path
        with no_grad():
            result = self.alias()
    set_outputs(node, result)
    graph.record_view_version(result)
    return result


def setitem(self: Any, index: Any, value: Any) -> None:
    check_inplace(self, "__setitem__")
    value_is_tensor = hasattr(value, "_grad_fn")
    base = self._base
    base_edge = graph.gradient_edge(base) if base is not None else None
    with no_grad():
        selected_shape = tuple(_indexing.getitem(self, index).shape)
        _indexing.setitem(self, index, value)
    node = IndexPutBackward0(edges((self, value if value_is_tensor else None)))
    node.needs = graph.needs(node.next_edges)
    node.index = _save_index(index)
    node.selected_shape = selected_shape
    node.value_shape = tuple(value.shape) if value_is_tensor else ()
    if base is not None and base_edge is not None and (node.needs[1] or base_edge.function is not None):
        view_nodes.rebase_history(self, base, node, base_edge)     # a write into a view writes its base
    elif any(node.needs):
        set_outputs(node, self)


_indexing.install_autograd(getitem, setitem)
