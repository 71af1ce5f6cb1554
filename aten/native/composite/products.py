"""Products and differences written with existing operators, as upstream's composites: inner, ger,
kron, cross, trace, diff, aminmax."""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import dtype_from_name

_op = find_operator
_mul = _op("mul.Tensor")
_sub = _op("sub.Tensor")
_t = _op("t")
_reshape = _op("reshape")
_sum = _op("sum.dim_IntList")
_mm = _op("mm")
_outer = _op("outer")
_narrow = _op("narrow")
_cat = _op("cat")
_logical_xor = _op("logical_xor")
_diagonal = _op("diagonal")
_select = _op("select.int")
_stack = _op("stack")
_amin = _op("amin")
_amax = _op("amax")
_expand = _op("expand")
_BOOL = dtype_from_name("bool")


def inner(self: Any, other: Any) -> Any:
    if self.dim() == 0 or other.dim() == 0:
        return _mul(self, other)
    a, b = tuple(self._sizes()), tuple(other._sizes())
    if a[-1] != b[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(a)} and {list(b)}")
    k = a[-1]
    rows, cols = math.prod(a[:-1]), math.prod(b[:-1])
    product = _mm(_reshape(self, [rows, k]), _t(_reshape(other, [cols, k])))
    return _reshape(product, list(a[:-1] + b[:-1]))


def ger(self: Any, vec2: Any) -> Any:
    return _outer(self, vec2)


def kron(self: Any, other: Any) -> Any:
    nd = max(self.dim(), other.dim())
    a = [1] * (nd - self.dim()) + list(self._sizes())
    b = [1] * (nd - other.dim()) + list(other._sizes())
    a_shape, b_shape = [], []
    for x, y in zip(a, b):
        a_shape += [x, 1]
        b_shape += [1, y]
    product = _mul(_reshape(self, a_shape), _reshape(other, b_shape))
    return _reshape(product, [x * y for x, y in zip(a, b)])


def cross(self: Any, other: Any, dim: Any = None) -> Any:
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        sizes = list(self._sizes())
        if 3 not in sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes.index(3)
    if self.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = self._wrap_dim(dim)
    if self._sizes()[d] != 3 or other._sizes()[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {self._sizes()[d]} and "
                           f"{other._sizes()[d]}")
    a = [_select(self, d, i) for i in range(3)]
    b = [_select(other, d, i) for i in range(3)]
    parts = [_sub(_mul(a[1], b[2]), _mul(a[2], b[1])),
             _sub(_mul(a[2], b[0]), _mul(a[0], b[2])),
             _sub(_mul(a[0], b[1]), _mul(a[1], b[0]))]
    return _stack(parts, d)


def linalg_cross(self: Any, other: Any, dim: int = -1) -> Any:
    return cross(self, other, dim)


def trace(self: Any) -> Any:
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    if self.dtype is _BOOL:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return _sum(_diagonal(self, 0, 0, 1), None)


def diff(self: Any, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None) -> Any:
    if self.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = self._wrap_dim(dim)
    if prepend is not None or append is not None:
        pieces = [t for t in (prepend, self, append) if t is not None]
        pieces = [_expand(t, list(self._sizes()[:d]) + [1] + list(self._sizes()[d + 1:])) if t.dim() == 0 else t
                  for t in pieces]
        self = _cat(pieces, d)
    for _ in range(n):
        length = self._sizes()[d]
        if length == 0:
            break
        hi = _narrow(self, d, 1, length - 1)
        lo = _narrow(self, d, 0, length - 1)
        self = _logical_xor(hi, lo) if self.dtype is _BOOL else _sub(hi, lo)
    return self


def aminmax(self: Any, dim: Any = None, keepdim: bool = False) -> Any:
    if dim is None:
        if self.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        lo, hi = _amin(self, []), _amax(self, [])
        if keepdim:
            shape = [1] * self.dim()
            lo, hi = _reshape(lo, shape), _reshape(hi, shape)
        return lo, hi
    d = self._wrap_dim(dim)
    if self.dim() > 0 and self._sizes()[d] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    return _amin(self, [dim], keepdim), _amax(self, [dim], keepdim)
