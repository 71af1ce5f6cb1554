"""Portable selection kernels: topk, kthvalue, median and nanmedian written over a stable sort, for a
device whose only selection kernel is sort (CUDA: aten/native/cuda/sort.py). Registered as
CompositeExplicitAutograd beside the CPU kernels, as in portable.py. NaN counts as the largest
value and equal values keep their order, as the CPU kernels do; the checks are theirs.
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.composite.portable import not_implemented_for
from c10 import scalar_type

_sort_stable = find_operator("sort.stable")
_narrow = find_operator("narrow")
_gather = find_operator("gather")
_squeeze_dim = find_operator("squeeze.dim")
_isnan = find_operator("isnan")
_sum_dim = find_operator("sum.dim_IntList")
_where = find_operator("where.self")
_sub = find_operator("sub.Tensor")
_add = find_operator("add.Tensor")
_neg = find_operator("neg")
_gt = find_operator("gt.Tensor")
_floor_divide = find_operator("floor_divide")
_clone = find_operator("clone")
_zeros = find_operator("zeros")
_full = find_operator("full")
_reshape = find_operator("reshape")
_contiguous = find_operator("contiguous")

_BOOL = scalar_type.dtype_from_name("bool")
_INT64 = scalar_type.dtype_from_name("int64")
# the median of nothing: NaN converted to the dtype, as PyTorch's full({}, NAN).to(dtype) gives it
_NAN_AS = {"float16": float("nan"), "float32": float("nan"), "float64": float("nan"), "int64": -(1 << 63),
           "int32": -(1 << 31)}


def _refuse_bool(self: Any, op: str) -> None:
    if self.dtype is _BOOL:
        raise not_implemented_for(op, self)


def _check_nonempty_dim(self: Any, d: int, name: str) -> None:
    if self.dim() > 0 and self.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def _scalar_result(self: Any) -> tuple[Any, Any]:
    """A 0-dim self is its own selection, at index 0."""
    return _clone(self), _zeros((), dtype=_INT64, device=self.device)


def topk(self: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """The first k of a stable sort (descending when largest): sorted whatever `sorted` says."""
    d = self._wrap_dim(dim)
    size = self.shape[d] if self.dim() > 0 else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    _refuse_bool(self, "topk")
    if self.dim() == 0:
        return _scalar_result(self)
    values, indices = _sort_stable(self, stable=True, dim=d, descending=largest)
    return _contiguous(_narrow(values, d, 0, k)), _contiguous(_narrow(indices, d, 0, k))


def _select(self: Any, d: int, positions: Any, keepdim: bool) -> tuple[Any, Any]:
    """The sorted values and their indices at `positions` (a keepdim-shaped int64 tensor) along d."""
    values, indices = _sort_stable(self, stable=True, dim=d, descending=False)
    values, indices = _gather(values, d, positions), _gather(indices, d, positions)
    if not keepdim:
        values, indices = _squeeze_dim(values, d), _squeeze_dim(indices, d)
    return values, indices


def kthvalue(self: Any, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    d = self._wrap_dim(dim)
    size = self.shape[d] if self.dim() > 0 else 1
    _refuse_bool(self, "kthvalue")
    _check_nonempty_dim(self, d, "kthvalue")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if self.dim() == 0:
        return _scalar_result(self)
    shape = tuple(1 if i == d else s for i, s in enumerate(self.shape))
    return _select(self, d, _full(shape, k - 1, dtype=_INT64, device=self.device), keepdim)


def _median_positions(self: Any, d: int, ignore_nan: bool) -> Any:
    """Where each line's median sits in its ascending sort (NaNs last, in their order): the lower
    median of the numbers; without ignore_nan a line with a NaN gives its first NaN, and with it a
    line of NaNs only gives its lower middle one (PyTorch's position for it)."""
    n = self.shape[d]
    nans = _sum_dim(_isnan(self), [d], True)
    numbers = _add(_neg(nans), n)
    lower_median = _floor_divide(_sub(numbers, 1), 2)
    if ignore_nan:
        return _where(_gt(numbers, 0), lower_median, (n - 1) // 2)
    return _where(_gt(nans, 0), numbers, lower_median)


def _median_dim(self: Any, dim: int, keepdim: bool, ignore_nan: bool, name: str) -> Any:
    d = self._wrap_dim(dim)
    _refuse_bool(self, "median_out")
    _check_nonempty_dim(self, d, name)
    if self.dim() == 0:
        return _scalar_result(self)
    return _select(self, d, _median_positions(self, d, ignore_nan), keepdim)


def median_dim(self: Any, dim: int, keepdim: bool = False) -> Any:
    return _median_dim(self, dim, keepdim, False, "median")


def nanmedian_dim(self: Any, dim: int, keepdim: bool = False) -> Any:
    return _median_dim(self, dim, keepdim, True, "nanmedian")


def _median_all(self: Any, ignore_nan: bool, name: str) -> Any:
    _refuse_bool(self, name)
    if self.numel() == 0:
        return _full((), _NAN_AS.get(self.dtype.name, 0), dtype=self.dtype, device=self.device)
    return _median_dim(_reshape(self, (-1,)), 0, False, ignore_nan, name)[0]


def median(self: Any) -> Any:
    return _median_all(self, False, "median")


def nanmedian(self: Any) -> Any:
    return _median_all(self, True, "nanmedian")
