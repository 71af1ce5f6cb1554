"""Tensor indexing as operator calls, for when a TorchDispatchMode is active (torch/_C/_indexing.pyx hands
__getitem__ and __setitem__ here then): the fast path folds basic indices into one view without calling
the dispatcher, which a mode (make_fx) must see. The steps are PyTorch's applySlicing: select for an int,
slice for a slice (none for a full `:`), unsqueeze for None and True/False, and the collected tensor
indices, one per dim with None between, to index.Tensor (or index_put_ to assign); a scalar is written
with fill_, a tensor with copy_."""
from __future__ import annotations

from typing import Any

import numpy as np

from torch._C import _indexing
from torch._indexing import sequence_to_index
from torch._tensor import Tensor

_INT64_MAX = (1 << 63) - 1


def _ops() -> Any:
    import torch
    return torch.ops.aten


def _as_items(index: Any) -> tuple[Any, ...]:
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and any(isinstance(i, (slice, list, tuple, Tensor, np.ndarray)) or i is None
                                       or i is Ellipsis for i in index):
        return tuple(index)                    # PyTorch's treatSequenceAsTuple
    return (index,)


def _folded(self: Tensor, index: Any) -> Any:
    """The fast path's result (or its error), unobserved: for what the steps here do not take apart, which
    the fast path refuses with PyTorch's errors (never for vmap's batched tensors: it would read one example)."""
    if self._is_batched():
        raise IndexError(f"vmap: Ember cannot index a batched tensor with {type(index).__name__} {index!r}")
    return _indexing.getitem_unobserved(self, index)


def _integer_scalar(item: Any) -> bool:
    """A 0-dim integer tensor index, which PyTorch applies as an int (a select), not a tensor index."""
    return isinstance(item, Tensor) and item.dim() == 0 and not item.is_floating_point() and not item.is_complex() \
        and not _is_mask(item) and not item._is_batched()       # vmap's: a number per example, so a tensor index


def _is_mask(t: Tensor) -> bool:
    import torch
    return t.dtype in (torch.bool, torch.uint8)


def _index_tensor(item: Any) -> Tensor | None:
    return item if isinstance(item, Tensor) else None


def _specified_dims(items: tuple[Any, ...]) -> int:
    count = 0
    for item in items:
        if item is None or item is Ellipsis or isinstance(item, bool):
            continue
        tensor = _index_tensor(item)
        count += tensor.dim() if tensor is not None and _is_mask(tensor) else 1
    return count


def _slicing(self: Tensor, index: Any) -> tuple[Tensor, list[Any]]:
    """self with the basic indices applied, and the tensor indices per remaining dim (None where none)."""
    import torch
    aten = _ops()
    # sequences become their index tensors once, before the counting and the walk both read them
    items = tuple(sequence_to_index(i) if isinstance(i, (list, tuple, np.ndarray)) else i for i in _as_items(index))
    result, dim = self, 0
    tensors: list[Any] = []
    for item in items:
        if item is Ellipsis:
            dim += self.dim() - _specified_dims(items)
        elif item is None:
            result = aten.unsqueeze.default(result, dim)
            dim += 1
        elif isinstance(item, bool):
            result = aten.unsqueeze.default(result, dim)
            _place(tensors, dim, torch.zeros(1 if item else 0, dtype=torch.int64, device=self.device))
            dim += 1
        elif isinstance(item, slice):
            start, stop, step = item.start, item.stop, item.step
            start = 0 if start is None else start.__index__()
            stop = _INT64_MAX if stop is None else stop.__index__()
            step = 1 if step is None else step.__index__()
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if (start, stop, step) != (0, _INT64_MAX, 1):
                result = aten.slice.Tensor(result, dim, start, stop, step)
            dim += 1
        elif _integer_scalar(item):
            result = aten.select.int(result, dim, int(item.item()))
        elif (tensor := _index_tensor(item)) is not None:
            _place(tensors, dim, tensor)
            dim += tensor.dim() if _is_mask(tensor) else 1
        elif hasattr(type(item), "__index__"):
            result = aten.select.int(result, dim, item.__index__())
        else:
            return _folded(self, index), []
    if result is self and not tensors:
        # x[...] and x[:] are new views of x, as PyTorch's (its aten.alias, which Ember's schema lacks)
        result = aten.view.default(self, list(self.shape))
    return result, tensors


def _place(tensors: list[Any], dim: int, tensor: Tensor) -> None:
    while len(tensors) < dim:
        tensors.append(None)
    tensors.append(tensor)


def getitem(self: Tensor, index: Any) -> Any:
    result, tensors = _slicing(self, index)
    if tensors:
        result = _ops().index.Tensor(result, tensors)
    return result


def setitem(self: Tensor, index: Any, value: Any) -> None:
    import torch
    aten = _ops()
    if index is False:
        return
    if isinstance(value, (list, tuple)):
        raise TypeError(f"can't assign a {type(value).__name__} to a {self.type()}")
    target, tensors = _slicing(self, index)
    if tensors:
        if not isinstance(value, Tensor):
            value = torch.tensor(value, dtype=self.dtype, device=self.device)
        elif value.dtype != self.dtype:
            value = value.to(self.dtype)
        aten.index_put_.default(target, tensors, value)
    elif isinstance(value, Tensor):
        aten.copy_.default(target, _without_leading_ones(value))
    else:
        aten.fill_.Scalar(target, value)


def _without_leading_ones(value: Tensor) -> Tensor:
    """value with its leading size-1 dims dropped, as PyTorch's assignment views it (slicePrefix1sSize):
    z[0] = ones(1, 1, 3) writes a row."""
    sizes = list(value.shape)
    while sizes and sizes[0] == 1:
        sizes.pop(0)
    return value if len(sizes) == value.dim() else value.view(sizes)


_indexing.install_dispatched(getitem, setitem)
