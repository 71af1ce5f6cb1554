"""Backward formulas' helpers for indexing: index_select, gather, scatter, index, masked and take ops."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from torch.csrc.autograd.functions_manual.pointwise import where
from torch.csrc.autograd.functions_manual.reductions import _zeros_of
from torch.csrc.autograd.functions_manual.shapes import _narrow_to, _pad_to, index, zeros

_cat = find_operator("cat")
_index_put = find_operator("index_put")
_zeros = find_operator("zeros")


def index_select_backward(grad: Any, sizes: Any, dim: int, index: Any) -> Any:
    return _zeros(tuple(sizes), dtype=grad.dtype, device=grad.device).index_add(dim, index, grad)


def gather_backward(grad: Any, sizes: Any, dim: int, index: Any) -> Any:
    return _zeros_of(sizes, grad).scatter_add(dim, index, grad)


def scatter_src_backward(grad: Any, dim: int, index: Any, src_sizes: Any) -> Any:
    """src's gradient: what its scattered elements became; 0 for the elements index does not reach."""
    return _pad_to(grad.gather(dim, index), src_sizes)


def scatter_reduce_backward(grad: Any, self: Any, dim: int, index: Any, src: Any, reduce: str, include_self: bool,
                            result: Any) -> list[Any]:
    """scatter_reduce's gradients for [self, src] (upstream's semantics): sum; mean (each share
    1/count); amax/amin (the gradient shared evenly among the values equal to the result); prod
    (the product of the other contributions; zeros refuse). Positions that index does not reach
    keep self: their gradient is grad; with include_self=False, self gets none where reached."""
    src_sizes = src.shape
    if index.numel() == 0:
        return [grad, _zeros_of(src_sizes, grad)]
    src = src if tuple(src.shape) == tuple(index.shape) else _narrow_to(src, index.shape)
    reached = _zeros_of(self.shape, grad).scatter(dim, index, 1.0) != 0
    if reduce == "sum":
        grad_self, grad_src = grad, grad.gather(dim, index)
    elif reduce == "mean":
        count = _zeros_of(self.shape, grad).scatter_add(dim, index, _zeros_of(index.shape, grad) + 1)
        count = count + 1 if include_self else where(count == 0, 1.0, count)
        grad_self, grad_src = grad / count, (grad / count).gather(dim, index)
    elif reduce in ("amax", "amin"):
        self_is = self == result
        if not include_self:
            self_is = self_is & ~reached
        src_is = src == result.gather(dim, index)
        count = self_is.to(grad.dtype).scatter_add(dim, index, src_is.to(grad.dtype))
        share = grad / where(count == 0, 1.0, count)
        grad_self, grad_src = share * self_is, share.gather(dim, index) * src_is
    elif reduce == "prod":
        if bool((src == 0).any()) or (include_self and bool(((self == 0) & reached).any())):
            raise RuntimeError("scatter_reduce(reduce='prod') backward with zeros among the reduced values is not "
                               "implemented in Ember yet")
        grad_self = where(reached, grad * result / where(reached, self, 1.0), grad)
        grad_src = (grad * result).gather(dim, index) / src
    else:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not include_self:
        grad_self = where(reached, 0.0, grad_self)
    return [grad_self, _pad_to(grad_src, src_sizes)]


def index_backward(grad: Any, sizes: Any, indices: Any) -> Any:
    return _index_put(_zeros_of(sizes, grad), indices, grad, True)


def masked_fill_backward(grad: Any, mask: Any) -> Any:
    return where(mask, grad, 0.0).sum()


def masked_select_backward(grad: Any, sizes: Any, mask: Any) -> Any:
    """grad back in the positions mask selects (mask broadcast to the output's shape)."""
    full = _broadcast_sizes(tuple(sizes), tuple(mask.shape))
    zeros = _zeros_of(full, grad)
    return zeros.masked_scatter(mask.expand(full), grad)


def _broadcast_sizes(a: Any, b: Any) -> tuple[int, ...]:
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(a, b))


def masked_scatter_backward(grad: Any, mask: Any, sizes: Any) -> Any:
    """source's gradient: grad at the masked positions (in order), zeros for the unused rest."""
    numel = 1
    for s in sizes:
        numel *= s
    selected = grad.masked_select(mask.expand(grad.shape) if tuple(mask.shape) != tuple(grad.shape) else mask)
    rest = numel - selected.numel()
    if rest > 0:
        selected = _cat([selected, _zeros((rest,), dtype=grad.dtype, device=grad.device)], 0)
    return selected.reshape(tuple(sizes))


def take_backward(grad: Any, sizes: Any, index: Any) -> Any:
    flat = _zeros_of((_numel(sizes),), grad)
    return flat.put(index, grad, True).reshape(tuple(sizes))


def _numel(sizes: Any) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


def take_along_dim_backward(grad: Any, sizes: Any, indices: Any, dim: Any) -> Any:
    sizes = tuple(sizes)
    if dim is None:
        flat = _zeros_of((_numel(sizes),), grad)
        return flat.scatter_add(0, indices.reshape(-1), grad.reshape(-1)).reshape(sizes)
    d = dim % len(sizes)
    full = list(_broadcast_sizes(sizes, tuple(indices.shape)))
    full[d] = indices.shape[d]
    idx = indices.expand(tuple(full))
    self_full = list(full)
    self_full[d] = sizes[d]
    return _zeros_of(self_full, grad).scatter_add(d, idx, grad)
