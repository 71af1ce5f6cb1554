"""Reductions on CUDA (sum, mean, amax, amin, max/min along a dim, argmax, argmin): the reduced
dimensions are moved last and made contiguous, then kernels/reduce.cu folds each row. Scans
(cumsum, cumprod) walk each line along their dim in place."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from aten.native.cuda.copy import copy_cuda
from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import MAX_BLOCKS, grid_for
from aten.native.cuda.runtime.transfer import contiguous_cuda, to_device
from aten.native.cuda.sort import ORDERED_TYPES
from aten.native.meta.views import view_as_complex, view_as_real
from c10.scalar_type import CPP_TYPE_NAMES
from c10 import scalar_type, tensor_impl

_THREADS = 256
_INT64 = scalar_type.dtype_from_name("int64")
_MINMAX_TYPES = ("float32", "float64", "int32", "int64")


def _dims(self: Any, dim: Any) -> list[int]:
    """The reduced dimensions, wrapped and deduplicated (None or [] is all of them)."""
    nd = self.dim()
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        return list(range(nd))
    dims = [dim] if isinstance(dim, int) else list(dim)
    wrapped = []
    for d in dims:
        if not -max(nd, 1) <= d < max(nd, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, {max(nd, 1) - 1}], "
                             f"but got {d})")
        d = d % max(nd, 1)
        if d in wrapped:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        wrapped.append(d)
    return [d for d in wrapped if d < nd]


def _rows(self: Any, dims: Sequence[int]) -> tuple[Any, int, int, list[int]]:
    """self as contiguous (rows, R) with dims last, rows, R, and the kept dimensions' sizes."""
    kept = [d for d in range(self.dim()) if d not in dims]
    moved = contiguous_cuda(self.permute(kept + list(dims)))
    r = 1
    for d in dims:
        r *= self.shape[d]
    rows = 1
    for d in kept:
        rows *= self.shape[d]
    return moved, rows, r, [self.shape[d] for d in kept]


# sum_lines walks n values per thread: taken for short lines only (long ones reduce faster as rows)
_SHORT_LINE = 4096


def _middle(t: Any, dims: Sequence[int]) -> tuple[int, int, int] | None:
    """(outer, n, inner) when dims are consecutive and not the last (the (n,) block of a contiguous t
    seen as (outer, n, inner)), for sum_lines, when its lines are short; else None."""
    if not dims or max(dims) == t.dim() - 1 or sorted(dims) != list(range(min(dims), max(dims) + 1)):
        return None
    outer = n = inner = 1
    for d, size in enumerate(t.shape):
        if d < min(dims):
            outer *= size
        elif d in dims:
            n *= size
        else:
            inner *= size
    return (outer, n, inner) if 0 < n <= _SHORT_LINE else None


def _shape(self: Any, dims: Sequence[int], keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return tuple(1 if d in dims else s for d, s in enumerate(self.shape))
    return tuple(s for d, s in enumerate(self.shape) if d not in dims)


def _grid(rows: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return (max(1, min(rows, MAX_BLOCKS)), 1, 1), (_THREADS, 1, 1)


def _sum(self: Any, dim: Any, keepdim: bool, dtype: Any, mean: bool, name: str, prod: bool = False) -> Any:
    """sum, mean or (prod) product over dim, in dtype (integral inputs: int64 unless given)."""
    if self.dtype.is_complex or (dtype is not None and dtype.is_complex):
        dtype = dtype or self.dtype
        if not dtype.is_complex:
            raise RuntimeError(f"{name}_cuda: a complex input reduces to a complex dtype, not {dtype.type_name}")
        if not prod:
            return _complex_sum(self, dim, keepdim, dtype, mean, name)
    else:
        given = dtype is not None
        if dtype is None:
            dtype = self.dtype if self.dtype.is_floating_point or mean else _INT64
        if mean and not dtype.is_floating_point:
            which, got = ("Optional dtype", dtype) if given else ("Input dtype", self.dtype)
            raise RuntimeError(f"mean(): could not infer output dtype. {which} must be either a floating point or "
                               f"complex dtype. Got: {got.type_name}")
        if dtype.name not in ("float32", "float64", "int64"):
            raise NotImplementedError(f'"{name}_cuda" not implemented for \'{dtype.type_name}\'')
    source = to_device(contiguous_cuda(self), dtype)
    dims = _dims(self, dim)
    out = tensor_impl.empty(_shape(self, dims, keepdim), dtype, self.device)
    lines = None if prod else _middle(source, dims)
    if lines is not None and out.numel():
        outer, r, inner = lines
        grid, block = grid_for(outer * inner)
        launch_kernel("kernels/reduce.cu", f"sum_lines_{dtype.name}", grid, block, np.int64(outer), np.int64(r),
                      np.int64(inner), np.uintp(source.data_ptr()), np.uintp(out.data_ptr()),
                      np.float64(1.0 / r if mean else 1.0))
        return out
    moved, rows, r, _ = _rows(source, dims)
    if rows == 0:
        return out
    if r == 0:
        return out.fill_(float("nan") if mean else (1 if prod else 0))
    grid, block = _grid(rows)
    if prod:            # real and complex kernels alike (c10::complex's product)
        launch_kernel("kernels/reduce.cu", f"prod_rows_{dtype.name}", grid, block, np.int64(rows), np.int64(r),
            np.uintp(moved.data_ptr()), np.uintp(out.data_ptr()))
        return out
    scale = 1.0 / r if mean else 1.0
    launch_kernel("kernels/reduce.cu", f"sum_rows_{dtype.name}", grid, block, np.int64(rows), np.int64(r),
        np.uintp(moved.data_ptr()), np.uintp(out.data_ptr()), np.float64(scale))
    return out


def _complex_sum(self: Any, dim: Any, keepdim: bool, dtype: Any, mean: bool, name: str) -> Any:
    """Complex sums and means: the real and imaginary parts reduced apart (a complex accumulator's two
    parts are exactly such sums) over the (..., 2) real view."""
    source = to_device(contiguous_cuda(self), dtype)
    dims = _dims(self, dim)
    if not dims and self.dim() == 0:      # a 0-d tensor: its own sum
        return source if source is not self else copy_cuda(tensor_impl.empty((), dtype, self.device), self)
    return view_as_complex(_sum(view_as_real(source), dims, keepdim, None, mean, name))


def sum_cuda(self: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    return _sum(self, dim, keepdim, dtype, False, "sum")


def mean_cuda(self: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    return _sum(self, dim, keepdim, dtype, True, "mean")


def prod_cuda(self: Any, dtype: Any = None) -> Any:
    return _sum(self, None, False, dtype, False, "prod", prod=True)


def prod_dim_cuda(self: Any, dim: int, keepdim: bool = False, dtype: Any = None) -> Any:
    return _sum(self, dim, keepdim, dtype, False, "prod", prod=True)


def _minmax(self: Any, dims: list[int], keepdim: bool, is_max: bool, values: bool, indices: bool,
            name: str) -> tuple[Any, Any]:
    if self.dtype.name not in _MINMAX_TYPES:
        raise NotImplementedError(f'"{name}_cuda" not implemented for \'{self.dtype.type_name}\'')
    for d in dims or range(self.dim()):
        if self.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    if self.numel() == 0 and not dims:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
    moved, rows, r, _ = _rows(self, dims)
    shape = _shape(self, dims, keepdim)
    out_v = tensor_impl.empty(shape, self.dtype, self.device) if values else None
    out_i = tensor_impl.empty(shape, _INT64, self.device) if indices else None
    if rows == 0:
        return out_v, out_i
    grid, block = _grid(rows)
    launch_kernel("kernels/reduce.cu", f"minmax_rows_{self.dtype.name}", grid, block, np.int64(rows), np.int64(r),
        np.uintp(moved.data_ptr()), np.uintp(out_v.data_ptr() if out_v is not None else 0),
        np.uintp(out_i.data_ptr() if out_i is not None else 0), np.int32(is_max))
    return out_v, out_i


def amax_cuda(self: Any, dim: Any = (), keepdim: bool = False) -> Any:
    return _minmax(self, _dims(self, dim), keepdim, True, True, False, "amax")[0]


def amin_cuda(self: Any, dim: Any = (), keepdim: bool = False) -> Any:
    return _minmax(self, _dims(self, dim), keepdim, False, True, False, "amin")[0]


def max_all_cuda(self: Any) -> Any:
    if self.numel() == 0:
        raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    return _minmax(self, list(range(self.dim())), False, True, True, False, "max")[0]


def min_all_cuda(self: Any) -> Any:
    if self.numel() == 0:
        raise RuntimeError("min(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")
    return _minmax(self, list(range(self.dim())), False, False, True, False, "min")[0]


def max_dim_cuda(self: Any, dim: int, keepdim: bool = False) -> Any:
    return _minmax(self, _dims(self, dim), keepdim, True, True, True, "max")


def min_dim_cuda(self: Any, dim: int, keepdim: bool = False) -> Any:
    return _minmax(self, _dims(self, dim), keepdim, False, True, True, "min")


def _arg(self: Any, dim: Any, keepdim: bool, is_max: bool, name: str) -> Any:
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        flat = contiguous_cuda(self).reshape(-1)
        result = _minmax(flat, [0], False, is_max, False, True, name)[1]
        return result.reshape([1] * self.dim()) if keepdim else result
    return _minmax(self, _dims(self, dim), keepdim, is_max, False, True, name)[1]


def argmax_cuda(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _arg(self, dim, keepdim, True, "argmax")


def argmin_cuda(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
    return _arg(self, dim, keepdim, False, "argmin")


_SCAN_TYPES = ("float32", "float64", "int32", "int64")


def _lines(self: Any, d: int) -> tuple[int, int, int]:
    """(outer, n, inner): self read as lines of n elements along dim d (a 0-dim self: one line of 1)."""
    outer = inner = 1
    for s in self.shape[:d]:
        outer *= s
    for s in self.shape[d + 1:]:
        inner *= s
    return outer, (self.shape[d] if self.dim() else 1), inner


def _line_grid(lines: int) -> tuple[int, int, int]:
    return max(1, min((lines + _THREADS - 1) // _THREADS, MAX_BLOCKS)), 1, 1


def _scan(self: Any, dim: int, dtype: Any, prod: bool, inplace: bool) -> Any:
    """cumsum/cumprod with PyTorch's dtypes: integral (and bool) inputs give int64 unless dtype
    says otherwise; an in-place scan keeps self's dtype."""
    name = "cumprod" if prod else "cumsum"
    d = self._wrap_dim(dim)
    if dtype is not None:
        out_dtype = dtype
    elif not self.dtype.is_floating_point and not inplace:
        out_dtype = _INT64
    else:
        out_dtype = self.dtype
    if inplace and out_dtype is not self.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {CPP_TYPE_NAMES[self.dtype.name]} and output "
                           f"tensor dtype {CPP_TYPE_NAMES[out_dtype.name]} should match")
    out = tensor_impl.empty(tuple(self.shape), out_dtype, self.device)
    if self.numel() == 0:
        return out
    src = to_device(contiguous_cuda(self), out_dtype)
    if self.dim() == 0:
        return copy_cuda(out, src)
    if out_dtype.name not in _SCAN_TYPES:
        raise NotImplementedError(f'"{name}_cuda" not implemented for \'{out_dtype.type_name}\'')
    outer, n, inner = _lines(self, d)
    launch_kernel("kernels/reduce.cu", f"scan_lines_{out_dtype.name}", _line_grid(outer * inner), (_THREADS, 1, 1),
        np.int64(outer), np.int64(n), np.int64(inner), np.uintp(src.data_ptr()), np.uintp(out.data_ptr()),
        np.int32(prod))
    return out


def cumsum_cuda(self: Any, dim: int, dtype: Any = None) -> Any:
    return _scan(self, dim, dtype, False, False)


def cumprod_cuda(self: Any, dim: int, dtype: Any = None) -> Any:
    return _scan(self, dim, dtype, True, False)


def cumsum__cuda(self: Any, dim: int, dtype: Any = None) -> Any:
    return copy_cuda(self, _scan(self, dim, dtype, False, True))


def cumprod__cuda(self: Any, dim: int, dtype: Any = None) -> Any:
    return copy_cuda(self, _scan(self, dim, dtype, True, True))


def _cum_extreme(self: Any, dim: int, is_max: bool) -> tuple[Any, Any]:
    """cummax/cummin as PyTorch's CPU runs them: among equal values the last index, and a NaN, once
    seen, stays (kernels/reduce.cu extreme_lines)."""
    if self.dim() == 0 and dim not in (0, -1):
        raise IndexError(f"{'cummax' if is_max else 'cummin'}(): Expected reduction dim -1 or 0 for scalar but got "
                         f"{dim}")
    values = tensor_impl.empty(tuple(self.shape), self.dtype, self.device)
    indices = tensor_impl.empty(tuple(self.shape), _INT64, self.device)
    if self.numel() == 0:
        return values, indices
    d = self._wrap_dim(dim) if self.dim() else 0
    src = contiguous_cuda(self)
    outer, n, inner = _lines(self, d)
    launch_kernel("kernels/reduce.cu", f"extreme_lines_{ORDERED_TYPES[self.dtype.name]}", _line_grid(outer * inner),
        (_THREADS, 1, 1), np.int64(outer), np.int64(n), np.int64(inner), np.uintp(src.data_ptr()),
        np.uintp(values.data_ptr()), np.uintp(indices.data_ptr()), np.int32(is_max))
    return values, indices


def cummax_cuda(self: Any, dim: int) -> Any:
    return _cum_extreme(self, dim, True)


def cummin_cuda(self: Any, dim: int) -> Any:
    return _cum_extreme(self, dim, False)


def logcumsumexp_cuda(self: Any, dim: int) -> Any:
    """Accumulated in double, as PyTorch's CPU kernel does for float32 and float64."""
    d = self._wrap_dim(dim)
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f'"logcumsumexp_cuda" not implemented for \'{self.dtype.type_name}\'')
    out = tensor_impl.empty(tuple(self.shape), self.dtype, self.device)
    if self.numel() == 0:
        return out
    src = contiguous_cuda(self)
    outer, n, inner = _lines(self, d)
    launch_kernel("kernels/reduce.cu", f"log_cumsum_exp_lines_{self.dtype.name}", _line_grid(outer * inner),
        (_THREADS, 1, 1), np.int64(outer), np.int64(n), np.int64(inner), np.uintp(src.data_ptr()),
        np.uintp(out.data_ptr()))
    return out
