"""torch.quantile and torch.nanquantile, composed over sort as PyTorch's kernel is.

Each output position's values are sorted (NaN last); q maps to the fractional rank
q * (n - 1) (n counting only non-NaN values for nanquantile), computed in the input dtype; the
interpolation picks or blends the sorted values at floor/ceil of that rank (PyTorch's lerp, so
infinities blend as PyTorch's do). quantile gives NaN for a slice holding a NaN (its rank moves to
the last, NaN, value); nanquantile gives NaN only for an all-NaN slice. A 1-D q puts its
dimension first in the result. Checks and their order follow PyTorch's messages.
"""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.errors import warn_resized
from c10.scalar_type import dtype_from_name
from c10.tensor_impl import scalar_to_tensor

_op = find_operator
_sort = _op("sort")
_reshape = _op("reshape")
_unsqueeze = _op("unsqueeze")
_transpose = _op("transpose.int")
_isnan = _op("isnan")
_any = _op("any.dim")
_sum = _op("sum.dim_IntList")
_logical_not = _op("logical_not")
_mul = _op("mul.Tensor")
_sub = _op("sub.Tensor")
_where = _op("where.self")
_lt = _op("lt.Tensor")
_masked_fill = _op("masked_fill.Scalar")
_floor = _op("floor")
_ceil = _op("ceil")
_round = _op("round")
_to_dtype = _op("to.dtype")
_gather = _op("gather")
_lerp_scalar = _op("lerp.Scalar")
_lerp = _op("lerp.Tensor")
_ge = _op("ge.Tensor")
_le = _op("le.Tensor")
_logical_and = _op("logical_and")
_all = _op("all")
_resize = _op("resize_")
_copy = _op("copy_")
_contiguous = _op("contiguous")

_INT64 = dtype_from_name("int64")
_FLOATING = (dtype_from_name("float32"), dtype_from_name("float64"))
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _format_double(value: float) -> str:
    """A double as C++'s ostream prints it (%g): 2.0 -> 2, 123456789.0 -> 1.23457e+08."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:g}"


def _check_scalar_q(q: float) -> None:
    if not (0 <= q <= 1):
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {_format_double(float(q))}")


def _check_interpolation(interpolation: str) -> str:
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    return interpolation


def _check_inputs(self: Any, q: Any) -> None:
    if self.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if q.dim() > 1:
        raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if self.dtype not in _FLOATING:
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if q.dtype is not self.dtype:
        raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
    if q.device != self.device:
        raise RuntimeError("quantile() q tensor must be on the same device as the input tensor")


def _output_shape(self: Any, q: Any, dim: Any, keepdim: bool) -> list[int]:
    """The result's shape: the reduced dim dropped (or 1 with keepdim), q's dim first."""
    sizes = list(self.shape)
    if dim is None:
        shape = [1] * len(sizes) if keepdim else []
    else:
        d = self._wrap_dim(dim)
        shape = [1 if i == d else s for i, s in enumerate(sizes)] if keepdim else sizes[:d] + sizes[d + 1:]
    if q.dim() > 0:
        shape.insert(0, q.numel())
    return shape


def _compute(self: Any, q: Any, dim: Any, keepdim: bool, interpolation: str, ignore_nan: bool,
             q_checked: bool) -> Any:
    shape = _output_shape(self, q, dim, keepdim)
    if not q_checked and not bool(_all(_logical_and(_ge(q, scalar_to_tensor(0)), _le(q, scalar_to_tensor(1))))):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    # One row of sorted values per output position (order of the kept dims), NaN sorted last.
    if dim is None or self.dim() == 0:
        rows = _reshape(self, [1, -1])
    else:
        d = self._wrap_dim(dim)
        rows = _reshape(_transpose(_unsqueeze(self, -1), d, -1), [-1, self.shape[d]])
    values = _sort(rows, -1, False)[0]
    n = values.shape[-1]
    qs = _reshape(q, [1, -1])                                   # (1, nq), the input dtype
    nans = _isnan(values)
    if ignore_nan:
        valid = _sum(_logical_not(nans), [-1], True)            # (rows, 1) int64
        ranks = _mul(qs, _sub(valid, scalar_to_tensor(1)))      # (rows, nq)
        ranks = _masked_fill(ranks, _lt(ranks, scalar_to_tensor(0)), 0)
    else:
        last = scalar_to_tensor(n - 1)
        ranks = _where(_any(nans, -1, True), _to_dtype(last, self.dtype), _mul(qs, last))
    if interpolation == "lower":
        ranks = _floor(ranks)
    elif interpolation == "higher":
        ranks = _ceil(ranks)
    elif interpolation == "nearest":
        ranks = _round(ranks)                                   # half to even, as PyTorch
    below = _to_dtype(ranks, _INT64)
    result = _gather(values, -1, below)
    if interpolation in ("linear", "midpoint"):
        above = _gather(values, -1, _to_dtype(_ceil(ranks), _INT64))
        if interpolation == "midpoint":
            result = _lerp_scalar(result, above, 0.5)
        else:
            result = _lerp(result, above, _sub(ranks, below))
    # (rows, nq) -> (nq, rows) -> the result's shape
    return _reshape(_contiguous(_transpose(result, 0, 1)), shape)


def _run(self: Any, q: Any, dim: Any, keepdim: bool, interpolation: str, ignore_nan: bool,
         out: Any = None, q_checked: bool = False) -> Any:
    _check_interpolation(interpolation)
    _check_inputs(self, q)
    if out is not None and out.dtype is not self.dtype:
        raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
    result = _compute(self, q, dim, keepdim, interpolation, ignore_nan, q_checked)
    if out is None:
        return result
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            warn_resized(out.shape, result.shape)
        _resize(out, result.shape)
    _copy(out, result)
    return out


def _scalar_q(self: Any, q: float) -> Any:
    _check_scalar_q(q)
    return _to_dtype(scalar_to_tensor(float(q)), self.dtype)


def quantile(self: Any, q: Any, dim: Any = None, keepdim: bool = False, interpolation: str = "linear") -> Any:
    return _run(self, q, dim, keepdim, interpolation, False)


def quantile_out_checked(self: Any, q: Any, dim: Any = None, keepdim: bool = False, interpolation: str = "linear",
                 out: Any = None) -> Any:
    return _run(self, q, dim, keepdim, interpolation, False, out)


def quantile_scalar(self: Any, q: float, dim: Any = None, keepdim: bool = False,
                    interpolation: str = "linear") -> Any:
    return _run(self, _scalar_q(self, q), dim, keepdim, interpolation, False, q_checked=True)


def quantile_scalar_out(self: Any, q: float, dim: Any = None, keepdim: bool = False, interpolation: str = "linear",
                        out: Any = None) -> Any:
    return _run(self, _scalar_q(self, q), dim, keepdim, interpolation, False, out, True)


def nanquantile(self: Any, q: Any, dim: Any = None, keepdim: bool = False, interpolation: str = "linear") -> Any:
    return _run(self, q, dim, keepdim, interpolation, True)


def nanquantile_out_checked(self: Any, q: Any, dim: Any = None, keepdim: bool = False, interpolation: str = "linear",
                    out: Any = None) -> Any:
    return _run(self, q, dim, keepdim, interpolation, True, out)


def nanquantile_scalar(self: Any, q: float, dim: Any = None, keepdim: bool = False,
                       interpolation: str = "linear") -> Any:
    return _run(self, _scalar_q(self, q), dim, keepdim, interpolation, True, q_checked=True)


def nanquantile_scalar_out(self: Any, q: float, dim: Any = None, keepdim: bool = False,
                           interpolation: str = "linear", out: Any = None) -> Any:
    return _run(self, _scalar_q(self, q), dim, keepdim, interpolation, True, out, True)
