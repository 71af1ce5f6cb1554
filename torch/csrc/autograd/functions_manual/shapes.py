"""Backward formulas' helpers for shape ops and views: permute, select, slice, cat, split, diagonals,
repeats, padding, as_strided and views written in place."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from torch.csrc.autograd.functions_manual.reductions import _zeros_of

_arange = find_operator("arange")
_cat = find_operator("cat")
_constant_pad_nd = find_operator("constant_pad_nd")
_diag_embed = find_operator("diag_embed")
_index = find_operator("index.Tensor")
_ones_of = find_operator("ones")
_repeat_interleave_index = find_operator("repeat_interleave.Tensor")
_stack = find_operator("stack")
_zeros = find_operator("zeros")


def zeros(sizes: Any, like: Any) -> Any:
    return _zeros(tuple(sizes), dtype=like.dtype, device=like.device)


def permute_backwards(grad: Any, dims: Any) -> Any:
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return grad.permute(inverse)


def select_backward(grad: Any, sizes: Any, dim: int, index: int) -> Any:
    """The gradient of select: grad placed at `index` of `dim` in zeros of the input's shape."""
    return _index_into_zeros(grad.unsqueeze(dim), sizes, dim, index % sizes[dim], index % sizes[dim] + 1, 1)


def slice_backward(grad: Any, sizes: Any, dim: int, start: Any, end: Any, step: int) -> Any:
    n = sizes[dim]
    first, last, _ = slice(start, end, step).indices(n)
    return _index_into_zeros(grad, sizes, dim, first, max(first, last), step)


def _index_into_zeros(values: Any, sizes: Any, dim: int, start: int, end: int, step: int) -> Any:
    """zeros of `sizes` with `values` at start:end:step along dim, built out of place (pad and
    interleave with zeros) so that it stays differentiable."""
    sizes = list(sizes)
    count = values.shape[dim]
    if step != 1 and count > 0:
        gap = list(values.shape)
        gap[dim] = count * (step - 1)
        parts = [values.unsqueeze(dim + 1), _zeros(tuple(gap[:dim] + [count, step - 1] + gap[dim + 1:]),
                                                   dtype=values.dtype, device=values.device)]
        values = _cat(parts, dim + 1).flatten(dim, dim + 1)
        values = values.narrow(dim, 0, (count - 1) * step + 1)
    before = list(sizes)
    before[dim] = start
    after = list(sizes)
    after[dim] = sizes[dim] - start - values.shape[dim]
    pieces = [_zeros(tuple(before), dtype=values.dtype, device=values.device), values,
              _zeros(tuple(after), dtype=values.dtype, device=values.device)]
    return _cat(pieces, dim)


def cat_tensors_backward(grad: Any, sizes: Any, dim: int) -> list[Any]:
    """Each input's slice of the gradient (a 1-D empty input of a legacy cat gets an empty one)."""
    out: list[Any] = []
    offset = 0
    d = dim % grad.dim() if grad.dim() else 0
    for shape in sizes:
        if len(shape) == 1 and shape[0] == 0 and grad.dim() != 1:
            out.append(_zeros((0,), dtype=grad.dtype, device=grad.device))
            continue
        out.append(grad.narrow(d, offset, shape[d]))
        offset += shape[d]
    return out


def split_backward(grads: Any, split_size: int, dim: int, sizes: Any, like: Any = None) -> Any:
    sizes = tuple(sizes)
    d = dim % len(sizes)
    n = sizes[d]
    lengths = [min(split_size, n - i) for i in range(0, n, split_size)] if split_size > 0 else [0]
    if n == 0:
        lengths = [0]
    return split_with_sizes_backward(grads, lengths, dim, sizes)


def split_with_sizes_backward(grads: Any, split_sizes: Any, dim: int, sizes: Any, like: Any = None) -> Any:
    """The pieces' gradients put back together (zeros for pieces without one)."""
    sizes = tuple(sizes)
    d = dim % len(sizes)
    some = next(g for g in grads if g is not None)
    parts = []
    for g, length in zip(grads, split_sizes):
        if g is None:
            shape = list(sizes)
            shape[d] = length
            g = _zeros_of(shape, some)
        parts.append(g)
    return _cat(parts, d)


def unbind_backward(grads: Any, dim: int, sizes: Any) -> Any:
    sizes = tuple(sizes)
    d = dim % len(sizes)
    some = next(g for g in grads if g is not None)
    shape = sizes[:d] + sizes[d + 1:]
    return _stack([g if g is not None else _zeros_of(shape, some) for g in grads], d)


def _fit(t: Any, dim: int, size: int) -> Any:
    """t narrowed or zero-padded at the end of dim to size."""
    have = t.shape[dim]
    if have > size:
        return t.narrow(dim, 0, size)
    if have < size:
        shape = list(t.shape)
        shape[dim] = size - have
        return _cat([t, _zeros_of(shape, t)], dim)
    return t


def diagonal_backward(grad: Any, sizes: Any, offset: int, dim1: int, dim2: int) -> Any:
    """zeros of the input's shape with grad on the diagonal (diag_embed, cut or padded to shape)."""
    sizes = tuple(sizes)
    nd = len(sizes)
    d1, d2 = dim1 % nd, dim2 % nd
    out = _diag_embed(grad, offset, d1, d2)
    out = _fit(out, d1, sizes[d1])
    return _fit(out, d2, sizes[d2])


def diag_embed_backward(grad: Any, offset: int, dim1: int, dim2: int) -> Any:
    return grad.diagonal(offset, dim1, dim2)


def trace_backward(grad: Any, sizes: Any) -> Any:
    sizes = tuple(sizes)
    length = min(sizes)
    return diagonal_backward(grad.expand((length,)), sizes, 0, 0, 1)


def repeat_backward(grad: Any, repeats: Any, sizes: Any) -> Any:
    """repeat tiles the (left-padded) input: grad viewed as (r0, s0, r1, s1, ...) summed over the r's."""
    sizes = tuple(sizes)
    repeats = tuple(repeats)
    lead = len(repeats) - len(sizes)
    padded = (1,) * lead + sizes
    if any(r == 0 for r in repeats) or any(s == 0 for s in padded):
        return _zeros_of(sizes, grad)
    split = []
    for r, s in zip(repeats, padded):
        split += [r, s]
    g = grad.reshape(tuple(split))
    g = g.sum(list(range(0, 2 * len(repeats), 2)))
    return g.reshape(sizes)


def roll_backward(grad: Any, shifts: Any, dims: Any) -> Any:
    return grad.roll([-s for s in shifts], list(dims))


def unfold_backward(grad: Any, sizes: Any, dim: int, size: int, step: int) -> Any:
    """Each window element (w, k) came from position w * step + k of dim: index_add them back."""
    sizes = tuple(sizes)
    if len(sizes) == 0:
        return grad.reshape(())
    d = dim % len(sizes)
    windows = grad.shape[d]
    positions = (_arange(windows, device=grad.device).unsqueeze(1) * step
                 + _arange(size, device=grad.device).unsqueeze(0)).reshape(-1)
    g = grad.movedim(-1, d + 1).flatten(d, d + 1)
    return _zeros_of(sizes, grad).index_add(d, positions, g)


def constant_pad_nd_backward(grad: Any, pad: Any) -> Any:
    return _constant_pad_nd(grad, [-p for p in pad])


def _pad_to(t: Any, sizes: Any) -> Any:
    """t padded with zeros at the end of each dim to sizes (a scatter's src larger than its index)."""
    sizes = tuple(sizes)
    if tuple(t.shape) == sizes:
        return t
    pad: list[int] = []
    for have, want in reversed(list(zip(t.shape, sizes))):
        pad += [0, want - have]
    return _constant_pad_nd(t, pad)


def repeat_interleave_backward(grad: Any, sizes: Any, repeats: Any, dim: Any) -> Any:
    """repeat_interleave.self_Tensor's gradient, as PyTorch's decomposition (index_select of
    self with repeat_interleave(repeats)) gives it: each output's gradient added back to the
    element it repeats (index_add, so the backward differentiates again)."""
    sizes = tuple(sizes)
    if dim is None:
        n = 1
        for size in sizes:
            n *= size
        d = 0
    else:
        d = dim % max(len(sizes), 1)
        n = sizes[d] if sizes else 1
    reps = repeats.reshape(-1)
    if reps.numel() == 1:
        reps = reps.expand(n)
    index = _repeat_interleave_index(reps)
    full = list(grad.shape)
    full[d] = n
    return _zeros_of(full, grad).index_add(d, index, grad).reshape(sizes)


def _storage_positions(sizes: Any, strides: Any, offset: int, device: Any) -> Any:
    """The storage index of each element of the geometry (an int64 tensor of shape sizes)."""
    index = _arange(1, device=device).reshape(()) + offset
    for n, st in zip(sizes, strides):
        index = index.unsqueeze(-1) + _arange(n, device=device) * st
    return index


def _storage_extent(sizes: Any, strides: Any, offset: int) -> int:
    if any(n == 0 for n in sizes):
        return 0
    return offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides))


def as_strided_backward(grad: Any, self: Any, size: Any, stride: Any, storage_offset: Any) -> Any:
    """PyTorch's as_strided_backward: the output's gradient scattered (summed, for an output
    geometry that overlaps itself) into a zero storage at the output's positions, read back at the
    input's positions, each divided by the number of input elements sharing its memory (an input
    that overlaps itself, e.g. expanded). Positions outside the input's view get no gradient."""
    size, stride = tuple(size), tuple(stride)
    in_sizes, in_strides = tuple(self.shape), tuple(self.stride())
    in_offset = self.storage_offset()
    out_offset = in_offset if storage_offset is None else int(storage_offset)
    shared = min(in_offset, out_offset)
    length = max(_storage_extent(size, stride, out_offset - shared),
                 _storage_extent(in_sizes, in_strides, in_offset - shared))
    out_index = _storage_positions(size, stride, out_offset - shared, grad.device).reshape(-1)
    in_index = _storage_positions(in_sizes, in_strides, in_offset - shared, grad.device).reshape(-1)
    storage = _zeros_of((length,), grad).index_add(0, out_index, grad.reshape(-1))
    count = _zeros_of((length,), grad).index_add(0, in_index, _ones_of((in_index.numel(),), dtype=grad.dtype,
                                                                       device=grad.device))
    return (storage.index_select(0, in_index) / count.index_select(0, in_index)).reshape(in_sizes)


def inplace_view_backward(grad_of_view: Any, self: Any) -> Any:
    """An in-place view's gradient (t_, transpose_, squeeze_, ...): the out-of-place view's,
    grad_of_view, in self's shape before the op. Reading self here makes the generated kernel keep
    self as it was before the op changed its shape (the shape it sums the gradient to)."""
    return grad_of_view.reshape(tuple(self.shape))


def _narrow_to(t: Any, sizes: Any) -> Any:
    for d, s in enumerate(sizes):
        if t.shape[d] != s:
            t = t.narrow(d, 0, s)
    return t


def index(t: Any, indices: Any) -> Any:
    return _index(t, indices)
