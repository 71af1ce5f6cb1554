"""Shape and view operators for every backend.

Views (CompositeExplicitAutograd, as upstream) compute only metadata, in Cython
(aten/native/meta/views.pyx, device-neutral): the result shares the
base's storage and version counter. The CompositeImplicitAutograd kernels here are written
with other operators through the dispatcher (as PyTorch's are), so autograd sees the ops they
are made of.
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta import views as _v
from aten.native.meta.pointwise import broadcast_shapes as _broadcast_shapes
from c10.layout import channels_last, contiguous_format, preserve_format

_view = find_operator("view")
_reshape = find_operator("reshape")
_clone = find_operator("clone")
_permute = find_operator("permute")
_expand = find_operator("expand")
_slice = find_operator("slice.Tensor")
_narrow = find_operator("narrow")
_split = find_operator("split.Tensor")
_split_with_sizes = find_operator("split_with_sizes")
_unsqueeze = find_operator("unsqueeze")
_nonzero = find_operator("nonzero")
_unbind = find_operator("unbind.int")
_flatten = find_operator("flatten.using_ints")
_diagonal = find_operator("diagonal")
_repeat = find_operator("repeat")
_cat = find_operator("cat")
_copy = find_operator("copy_")
_zeros = find_operator("zeros")
_view_as_real_op = find_operator("view_as_real")


# -- views (metadata in Cython) ------------------------------------------------------------------

def view(self: Any, size: Any) -> Any:
    return _v.view(self, size)


def view_dtype(self: Any, dtype: Any) -> Any:
    return _v.view_dtype(self, dtype)


def view_as_real(self: Any) -> Any:
    return _v.view_as_real(self)


def view_as_complex(self: Any) -> Any:
    return _v.view_as_complex(self)


def real(self: Any) -> Any:
    """A complex tensor's real parts (a view); a real tensor itself. Through the view_as_real
    operator, so autograd records it."""
    return _view_as_real_op(self).select(-1, 0) if self.dtype.is_complex else self


def imag(self: Any) -> Any:
    if not self.dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _view_as_real_op(self).select(-1, 1)


def squeeze(self: Any) -> Any:
    return _v.squeeze(self)


def squeeze_dim(self: Any, dim: int) -> Any:
    return _v.squeeze_dim(self, dim)


def squeeze_dims(self: Any, dim: Any) -> Any:
    return _v.squeeze_dims(self, dim)


def unsqueeze(self: Any, dim: int) -> Any:
    return _v.unsqueeze(self, dim)


def permute(self: Any, dims: Any) -> Any:
    return _v.permute(self, dims)


def transpose(self: Any, dim0: int, dim1: int) -> Any:
    return _v.transpose(self, dim0, dim1)


def t(self: Any) -> Any:
    return _v.t(self)


def alias(self: Any) -> Any:
    return _v.alias_of(self)


def detach(self: Any) -> Any:
    return _v.detach_of(self)


def detach_(self: Any) -> Any:
    return self


def expand(self: Any, size: Any, implicit: bool = False) -> Any:
    return _v.expand(self, size, implicit)


def select(self: Any, dim: int, index: int) -> Any:
    return _v.select(self, dim, index)


def slice(self: Any, dim: int = 0, start: Any = None, end: Any = None, step: int = 1) -> Any:  # noqa: A001
    return _v.slice_view(self, dim, start, end, step)


def unbind(self: Any, dim: int = 0) -> Any:
    return _v.unbind(self, dim)


def where_condition(condition: Any) -> Any:
    """torch.where(condition): the indices of its nonzero elements, one tensor per dimension (a 0-dim
    condition counts as 1-dim, as PyTorch's nonzero_numpy)."""
    indices = _nonzero(_unsqueeze(condition, 0) if condition.dim() == 0 else condition)
    return tuple(_unbind(indices, 1))


def split(self: Any, split_size: int, dim: int = 0) -> Any:
    return _v.split(self, split_size, dim)


def split_with_sizes(self: Any, split_sizes: Any, dim: int = 0) -> Any:
    return _v.split_with_sizes(self, split_sizes, dim)


def as_strided(self: Any, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    return _v.as_strided(self, size, stride, storage_offset)


def diagonal(self: Any, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
    return _v.diagonal(self, offset, dim1, dim2)


def unfold(self: Any, dimension: int, size: int, step: int) -> Any:
    return _v.unfold(self, dimension, size, step)


# -- made of other operators ---------------------------------------------------------------------

def reshape(self: Any, shape: Any) -> Any:
    """A view when the strides allow one, else a contiguous copy viewed with the shape."""
    try:
        return _view(self, shape)
    except RuntimeError as e:
        if not str(e).startswith("view size is not compatible"):
            raise
    return _view(_clone(self, memory_format=contiguous_format), shape)


def flatten(self: Any, start_dim: int = 0, end_dim: int = -1) -> Any:
    shape = _v.flatten_shape(self, start_dim, end_dim)
    return self if shape is None else _reshape(self, shape)


def unflatten(self: Any, dim: int, sizes: Any) -> Any:
    return _view(self, _v.unflatten_shape(self, dim, sizes))


def movedim(self: Any, source: Any, destination: Any) -> Any:
    return _permute(self, _v.movedim_order(self, source, destination))


def moveaxis(self: Any, source: Any, destination: Any) -> Any:
    return movedim(self, source, destination)


def expand_as(self: Any, other: Any) -> Any:
    return _expand(self, other._sizes())


def broadcast_to(self: Any, size: Any) -> Any:
    return _expand(self, size)


def narrow(self: Any, dim: int, start: int, length: int) -> Any:
    start, length = _v.narrow_range(self, dim, start, length)
    return _slice(self, dim, start, start + length, 1)


def narrow_tensor(self: Any, dim: int, start: Any, length: int) -> Any:
    return _narrow(self, dim, _v.index_value(start), length)


def split_sizes(self: Any, split_size: Any, dim: int = 0) -> Any:
    return _split_with_sizes(self, split_size, dim)


def chunk(self: Any, chunks: int, dim: int = 0) -> Any:
    split_size, zero_sizes = _v.chunk_split(self, chunks, dim)
    if zero_sizes is not None:
        return _split_with_sizes(self, zero_sizes, dim)
    return _split(self, split_size, dim)


def contiguous(self: Any, memory_format: Any = contiguous_format) -> Any:
    """self when already laid out in memory_format, else a copy that is."""
    if memory_format is channels_last:
        if self.is_contiguous(memory_format=channels_last):
            return self
    elif self.is_contiguous():
        return self
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return _clone(self, memory_format=memory_format)


def tile(self: Any, dims: Any) -> Any:
    dims = tuple(dims)
    if len(dims) < self.dim():
        dims = (1,) * (self.dim() - len(dims)) + dims
    return _repeat(self, dims)


def repeat_interleave_self_int(self: Any, repeats: int, dim: Any = None, output_size: Any = None) -> Any:
    inp = self if dim is not None else _flatten(self)
    d = _v.wrap(0 if dim is None else dim, self.dim())
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    inp = _unsqueeze(inp, d + 1)
    shape = list(inp._sizes())
    shape[d + 1] = repeats
    inp = _expand(inp, shape)
    if output_size is not None and output_size != repeats * shape[d]:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {repeats * shape[d]} but got "
                           f"{output_size}")
    return _flatten(_clone(inp, memory_format=contiguous_format), d, d + 1)


def stack(tensors: Any, dim: int = 0) -> Any:
    if len(tensors) == 0:
        raise RuntimeError("stack expects a non-empty TensorList")
    first = tensors[0]
    d = _v.wrap(dim, first.dim() + 1)
    shape = first._sizes()
    for i, t in enumerate(tensors):
        if t._sizes() != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                               f"{list(t._sizes())} at entry {i}")
    return _cat([_v.unsqueeze(t, d) for t in tensors], d)


def hstack(tensors: Any) -> Any:
    if len(tensors) == 0:
        raise RuntimeError("hstack expects a non-empty TensorList")
    parts = [_reshape(t, (1,)) if t.dim() == 0 else t for t in tensors]
    return _cat(parts, 0 if parts[0].dim() == 1 else 1)


def vstack(tensors: Any) -> Any:
    if len(tensors) == 0:
        raise RuntimeError("vstack expects a non-empty TensorList")
    parts = [_reshape(t, (1, 1)) if t.dim() == 0 else _unsqueeze(t, 0) if t.dim() == 1 else t for t in tensors]
    return _cat(parts, 0)


def concat(tensors: Any, dim: int = 0) -> Any:
    return _cat(tensors, dim)


def concatenate(tensors: Any, dim: int = 0) -> Any:
    return _cat(tensors, dim)


def diag(self: Any, diagonal: int = 0) -> Any:
    if self.dim() not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {self.dim()}D")
    if self.dim() == 1:     # diag_embed (not a copy into zeros), so that autograd sees it (as upstream)
        return find_operator("diag_embed")(self, diagonal, 0, 1)
    return _clone(_diagonal(self, diagonal), memory_format=contiguous_format)


def diag_embed(self: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
    ndim = self.dim() + 1
    d1, d2 = _v.wrap(dim1, ndim), _v.wrap(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    new_len = abs(offset) + self._size_at(-1)
    sizes = list(self._sizes()[:-1])
    sizes.insert(min(d1, d2), new_len)
    sizes.insert(max(d1, d2), new_len)
    out = _zeros(sizes, dtype=self.dtype, device=self.device)
    _copy(_v.diagonal(out, offset, d1, d2), self)
    return out


def broadcast_tensors(tensors: Any) -> Any:
    """Views of every tensor expanded to their common broadcast shape (none for no tensors)."""
    if not tensors:
        return ()
    shape = _broadcast_shapes(*tensors)
    return tuple(_expand(t, shape) for t in tensors)
