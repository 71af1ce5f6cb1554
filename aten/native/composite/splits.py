"""Flips, rotations and splits written with views and other operators, as upstream's composites:
fliplr/flipud/rot90, tensor_split and hsplit/vsplit/dsplit, sum_to_size, diagflat."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import dtype_from_name

_op = find_operator
_transpose = _op("transpose.int")
_contiguous = _op("contiguous")
_reshape = _op("reshape")
_flip = _op("flip")
_sum = _op("sum.dim_IntList")
_slice = _op("slice.Tensor")
_diag = _op("diag")
_clone = _op("clone")
_INT64 = dtype_from_name("int64")


def fliplr(self: Any) -> Any:
    if self.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(self, [1])


def flipud(self: Any) -> Any:
    if self.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(self, [0])


def rot90(self: Any, k: int = 1, dims: Any = (0, 1)) -> Any:
    dims = list(dims)
    total = self.dim()
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if total < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {total}")
    if dims[0] == dims[1] or (dims[0] - dims[1]) % total == 0:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    for d in dims:
        if not -total <= d < total:
            raise RuntimeError(f"Rotation dim{dims.index(d)} out of range, dim{dims.index(d)} = {d}")
    k = k % 4
    if k == 1:
        return _transpose(_flip(self, [dims[1]]), dims[0], dims[1])
    if k == 2:
        return _flip(self, dims)
    if k == 3:
        return _transpose(_flip(self, [dims[0]]), dims[0], dims[1])
    return _clone(self)


def _split_at(self: Any, bounds: list[int], d: int) -> list[Any]:
    out = []
    length = self._sizes()[d]
    start = 0
    for b in bounds + [length]:
        stop = max(min(b, length), start) if b >= 0 else max(length + b, start)
        out.append(_slice(self, d, start, stop, 1))
        start = stop
    return out


def tensor_split_sections_symint(self: Any, sections: int, dim: int = 0) -> list[Any]:
    if self.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    if sections <= 0:
        raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
    d = self._wrap_dim(dim)
    length = self._sizes()[d]
    base, extra = divmod(length, sections)
    out, start = [], 0
    for i in range(sections):
        size = base + (1 if i < extra else 0)
        out.append(_slice(self, d, start, start + size, 1))
        start += size
    return out


def tensor_split_indices_symint(self: Any, indices: Any, dim: int = 0) -> list[Any]:
    if self.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = self._wrap_dim(dim)
    length = self._sizes()[d]
    out, start = [], 0
    for index in list(indices) + [length]:
        stop = index
        out.append(_slice(self, d, start, stop, 1))
        start = stop
    return out


def tensor_split(self: Any, tensor_indices_or_sections: Any, dim: int = 0) -> list[Any]:
    t = tensor_indices_or_sections
    if self.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    if str(t.device) != "cpu":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be on cpu, but it's on {t.device}")
    if t.dtype is not _INT64:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{t.dtype.type_name}")
    if t.dim() > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {t.dim()} dims")
    if t.dim() == 0:
        return tensor_split_sections_symint(self, int(t.item()), dim)
    return tensor_split_indices_symint(self, [int(v) for v in t.tolist()], dim)


def _named_split(name: str, self: Any, sections: Any, dim: int, min_dims: int) -> list[Any]:
    if self.dim() < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor "
                           f"with {self.dim()} dimensions!")
    if isinstance(sections, int):
        size = self._sizes()[dim]
        if sections == 0 or size % sections != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {size} is not divisible by the split_size {sections}!")
        return tensor_split_sections_symint(self, sections, dim)
    return tensor_split_indices_symint(self, sections, dim)


def hsplit(self: Any, sections: Any) -> list[Any]:
    if self.dim() < 1:
        raise RuntimeError(f"torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with "
                           f"{self.dim()} dimensions!")
    return _named_split("hsplit", self, sections, 1 if self.dim() > 1 else 0, 1)


def vsplit(self: Any, sections: Any) -> list[Any]:
    return _named_split("vsplit", self, sections, 0, 2)


def dsplit(self: Any, sections: Any) -> list[Any]:
    return _named_split("dsplit", self, sections, 2, 3)


def sum_to_size_symint(self: Any, size: Any) -> Any:
    size = list(size)
    shape = list(self._sizes())
    lead = len(shape) - len(size)
    ok = lead >= 0 and all(s == 1 or s == shape[lead + i] for i, s in enumerate(size))
    if not ok:
        raise RuntimeError(f"size {{{size}}} is not expandable to size {{{shape}}}.")
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1]
    if not dims:
        return self
    result = _sum(self, dims, True)
    return _reshape(result, size) if lead else result


def diagflat(self: Any, offset: int = 0) -> Any:
    return _diag(_reshape(_contiguous(self), [-1]), offset)
