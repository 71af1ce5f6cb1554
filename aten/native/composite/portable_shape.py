"""Portable kernels for comparison, counting and data movement: equal, count_nonzero, roll,
take_along_dim, index_copy and the reflection/replication pads written over eq/all, ne/sum,
index_select, gather and index_put_,
registered as CompositeExplicitAutograd beside the CPU kernels as in portable.py. The checks and
messages are the CPU kernels'.
"""
from __future__ import annotations

from typing import Any, Sequence

from aten.dispatcher import find_operator
from aten.native.meta.errors import device_mismatch_error
from aten.native.meta.index_checks import check_index_copy
from aten.native.meta.pad_checks import check_gather_pad
from c10 import scalar_type

_eq = find_operator("eq.Tensor")
_ne = find_operator("ne.Tensor")
_all = find_operator("all")
_sum_dim = find_operator("sum.dim_IntList")
_arange = find_operator("arange.start")
_remainder = find_operator("remainder.Tensor")
_index_select = find_operator("index_select")
_gather = find_operator("gather")
_reshape = find_operator("reshape")
_expand = find_operator("expand")
_index_put_ = find_operator("index_put_")
_copy_ = find_operator("copy_")
_clone = find_operator("clone")
_amin = find_operator("amin")
_amax = find_operator("amax")
_abs = find_operator("abs")
_where = find_operator("where.self")
_ge = find_operator("ge.Tensor")
_add = find_operator("add.Tensor")
_neg = find_operator("neg")
_clamp = find_operator("clamp")

_INT64 = scalar_type.dtype_from_name("int64")


def equal(self: Any, other: Any) -> bool:
    if str(self.device) != str(other.device):
        raise device_mismatch_error(self.device, other.device)
    if tuple(self.shape) != tuple(other.shape):
        return False
    return self.numel() == 0 or bool(_all(_eq(self, other)).item())


def count_nonzero_dim(self: Any, dim: Sequence[int]) -> Any:
    return _sum_dim(_ne(self, 0), list(dim), False)


def roll(self: Any, shifts: Sequence[int], dims: Sequence[int] = ()) -> Any:
    """Each rolled dim read through index (i - shift) mod size; no dims rolls the flattened tensor."""
    if len(shifts) == 0:
        raise RuntimeError("`shifts` required")
    if len(dims) == 0 and len(shifts) == 1:
        return _reshape(roll(_reshape(self, (-1,)), shifts, (0,)), tuple(self.shape))
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if self.dim() == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    out = self
    for shift, dim in zip(shifts, dims):
        d = self._wrap_dim(dim)
        size = self.shape[d] if self.dim() else 1
        if size == 0 or shift % size == 0:
            continue
        positions = _remainder(_arange(-shift, size - shift, dtype=_INT64, device=self.device), size)
        out = _index_select(out, d, positions)
    return _clone(self) if out is self else out


def take_along_dim(self: Any, indices: Any, dim: Any = None) -> Any:
    """gather after broadcasting self and indices against each other everywhere but dim."""
    if dim is None:
        return _gather(_reshape(self, (-1,)), 0, _reshape(indices, (-1,)))
    if self.dim() != indices.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {self.dim()} dimensions for input, and {indices.dim()} dimensions for indices")
    if indices.dtype is not _INT64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got {indices.dtype.type_name}")
    if self.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = self._wrap_dim(dim)
    shape = []
    for i, (a, b) in enumerate(zip(self.shape, indices.shape)):
        if i != d and a != b and a != 1 and b != 1:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton "
                               f"dimension {i}")
        shape.append(max(a, b) if a != 0 and b != 0 else 0)
    source = _expand(self, tuple(s if i != d else self.shape[d] for i, s in enumerate(shape)))
    picks = _expand(indices, tuple(s if i != d else indices.shape[d] for i, s in enumerate(shape)))
    return _gather(source, d, picks)


def index_copy_(self: Any, dim: int, index: Any, source: Any) -> Any:
    """self[..., index[i], ...] = source[..., i, ...] along dim: index_put_ with index at dim's place."""
    d = self._wrap_dim(dim)
    check_index_copy(self, d, index, source)
    target = self if self.dim() else _reshape(self, (1,))
    size = target.shape[d]
    if index.numel():
        low, high = _amin(index, (), False).item(), _amax(index, (), False).item()
        if low < 0 or high >= size:
            bad = next(v for v in index.reshape(-1).tolist() if not 0 <= v < size)
            raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {d} with size {size}")
    values = source if source.dim() == target.dim() else _reshape(source, (1,) * target.dim())
    _index_put_(target, [None] * d + [_reshape(index, (-1,))], values, False)
    return self


def index_copy(self: Any, dim: int, index: Any, source: Any) -> Any:
    return index_copy_(_clone(self), dim, index, source)


def _gather_pad(self: Any, pads: Sequence[tuple[int, int]], reflect: bool) -> Any:
    """Along each padded dim (last first), the input position each output position reads: mirrored
    about the edges without repeating them (reflect) or the nearest edge (replicate)."""
    out = self
    for i, (lo, hi) in enumerate(pads):
        d = self.dim() - 1 - i
        size = self.shape[d]
        positions = _arange(-lo, size + hi, dtype=_INT64, device=self.device)
        if reflect:
            positions = _abs(positions)
            positions = _where(_ge(positions, size), _add(_neg(positions), 2 * (size - 1)), positions)
        else:
            positions = _clamp(positions, 0, size - 1)
        out = _index_select(out, d, positions)
    return out


def reflection_pad1d(self: Any, padding: Sequence[int]) -> Any:
    return _gather_pad(self, check_gather_pad(self, padding, True, 1), True)


def reflection_pad2d(self: Any, padding: Sequence[int]) -> Any:
    return _gather_pad(self, check_gather_pad(self, padding, True, 2), True)


def reflection_pad3d(self: Any, padding: Sequence[int]) -> Any:
    return _gather_pad(self, check_gather_pad(self, padding, True, 3), True)


def replication_pad1d(self: Any, padding: Sequence[int]) -> Any:
    return _gather_pad(self, check_gather_pad(self, padding, False, 1), False)


def replication_pad2d(self: Any, padding: Sequence[int]) -> Any:
    return _gather_pad(self, check_gather_pad(self, padding, False, 2), False)


def replication_pad3d(self: Any, padding: Sequence[int]) -> Any:
    return _gather_pad(self, check_gather_pad(self, padding, False, 3), False)
