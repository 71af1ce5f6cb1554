"""torch.linalg.norm and torch.linalg.matrix_norm (CompositeImplicitAutograd, as upstream): the
vector norm for ord=None or one dim, and the matrix norms written with linalg_vector_norm and
amax/amin; the spectral norms (ord 2, -2, 'nuc') from the singular values (linalg_svdvals), as
upstream."""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.views import wrap as _wrap

_vector_norm = find_operator("linalg_vector_norm")
_amax = find_operator("amax")
_amin = find_operator("amin")
_svdvals = find_operator("linalg_svdvals")


def _check_norm_dims(self: Any, dim: Any, ord_given: bool) -> None:
    if dim is not None:
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord_given and self.dim() not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {self.dim()}D.")


def linalg_norm(self: Any, ord: Any = None, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    _check_norm_dims(self, dim, ord is not None)
    if ord is not None and ((dim is not None and len(dim) == 2) or (dim is None and self.dim() == 2)):
        return linalg_matrix_norm(self, ord, list(dim) if dim is not None else [0, 1], keepdim, dtype)
    return _vector_norm(self, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


def linalg_norm_ord_str(self: Any, ord: str, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    _check_norm_dims(self, dim, True)
    return linalg_matrix_norm_str_ord(self, ord, list(dim) if dim is not None else [0, 1], keepdim, dtype)


def _matrix_checks(self: Any, dim: Any, dtype: Any) -> list[int]:
    if self.dim() < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    dims = [_wrap(d, self.dim()) for d in dim]
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                           f"Got {self.dtype.type_name}")
    return dims


def _spectral(self: Any, dims: list[int], keepdim: bool, dtype: Any, reduce: str) -> Any:
    """The largest (amax), smallest (amin) or summed (sum) singular values over the two dims."""
    a = self if dtype is None else self.to(dtype)
    values = _svdvals(a.movedim(tuple(dims), (-2, -1)))
    result = _amax(values, [-1]) if reduce == "amax" else _amin(values, [-1]) if reduce == "amin" else values.sum(-1)
    if keepdim:
        for d in sorted(dims):
            result = result.unsqueeze(d)
    return result


def linalg_matrix_norm(self: Any, ord: Any, dim: Any = (-2, -1), keepdim: bool = False, dtype: Any = None) -> Any:
    order = float(ord)
    if abs(order) not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dims = _matrix_checks(self, dim, dtype)
    if abs(order) == 2.0:
        return _spectral(self, dims, keepdim, dtype, "amax" if order > 0 else "amin")
    if abs(order) == math.inf:      # the inf norm is the 1 norm of the transposed matrix
        dims = [dims[1], dims[0]]
    if not keepdim and dims[0] < dims[1]:
        dims[1] -= 1                # the first reduction removed a dimension before it
    column_sums = _vector_norm(self, 1.0, [dims[0]], keepdim, dtype=dtype)
    return _amax(column_sums, [dims[1]], keepdim) if order > 0 else _amin(column_sums, [dims[1]], keepdim)


def linalg_matrix_norm_str_ord(self: Any, ord: str = "fro", dim: Any = (-2, -1), keepdim: bool = False,
                               dtype: Any = None) -> Any:
    if ord not in ("fro", "nuc"):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    dims = _matrix_checks(self, dim, dtype)
    if ord == "nuc":
        return _spectral(self, dims, keepdim, dtype, "sum")
    return _vector_norm(self, 2.0, dims, keepdim, dtype=dtype)
