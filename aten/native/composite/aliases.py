"""PyTorch's alias names and small composite ops, written with existing operators.

Aliases call the op they name (absolute -> abs, divide -> div, ...); the composites follow
upstream's CompositeImplicitAutograd / CompositeExplicitAutograd kernels (same steps, hence the
same result dtypes and error messages). In-place views (t_, transpose_, squeeze_, ...) compute
the view and move self onto its geometry (views.restride_): metadata only, as PyTorch, so the
version counter does not change.
"""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta import views as _v
from aten.native.meta.errors import output_cast_error
from c10.scalar_type import can_cast, dtype_from_name, get_default_dtype
from c10.tensor_impl import scalar_to_tensor

_op = find_operator

# -- pure aliases ---------------------------------------------------------------------------------

_abs = _op("abs")
_acos = _op("acos")
_acosh = _op("acosh")
_asin = _op("asin")
_asinh = _op("asinh")
_atan = _op("atan")
_atanh = _op("atanh")
_atan2 = _op("atan2")
_div = _op("div.Tensor")
_div_mode = _op("div.Tensor_mode")
_mul = _op("mul.Tensor")
_sub = _op("sub.Tensor")
_add = _op("add.Tensor")
_neg = _op("neg")
_trunc = _op("trunc")
_ne = _op("ne.Tensor")
_ge = _op("ge.Tensor")
_le = _op("le.Tensor")
_gt = _op("gt.Tensor")
_lt = _op("lt.Tensor")
_eq = _op("eq.Tensor")
_transpose = _op("transpose.int")
_t = _op("t")
_contiguous = _op("contiguous")
_view = _op("view")
_reshape = _op("reshape")
_to_other = _op("to.other")
_to_dtype = _op("to.dtype")
_squeeze = _op("squeeze")
_squeeze_dim = _op("squeeze.dim")
_squeeze_dims = _op("squeeze.dims")
_unsqueeze = _op("unsqueeze")
_as_strided = _op("as_strided")
_flip = _op("flip")
_sum = _op("sum.dim_IntList")
_nansum = _op("nansum")
_isnan = _op("isnan")
_where = _op("where.self")
_sign = _op("sign")
_copysign = _op("copysign.Tensor")
_xlogy = _op("xlogy.Tensor")
_pow = _op("pow.Tensor_Tensor")
_pow_ = _op("pow_.Tensor")
_mm = _op("mm")
_outer = _op("outer")
_narrow = _op("narrow")
_cat = _op("cat")
_logical_xor = _op("logical_xor")
_diagonal = _op("diagonal")
_select = _op("select.int")
_stack = _op("stack")
_maximum = _op("maximum")
_minimum = _op("minimum")
_amin = _op("amin")
_amax = _op("amax")
_split_with_sizes = _op("split_with_sizes")
_slice = _op("slice.Tensor")
_diag = _op("diag")
_zeros_like = _op("zeros_like")
_full_like = _op("full_like")
_clone = _op("clone")
_copy = _op("copy_")
_expand = _op("expand")
_logical_not = _op("logical_not")
_polygamma = _op("polygamma")
_transpose_ = _op("transpose_")

_FLOAT64 = dtype_from_name("float64")
_INT64 = dtype_from_name("int64")
_BOOL = dtype_from_name("bool")


def absolute(self: Any) -> Any:
    return _abs(self)


def arccos(self: Any) -> Any:
    return _acos(self)


def arccosh(self: Any) -> Any:
    return _acosh(self)


def arcsin(self: Any) -> Any:
    return _asin(self)


def arcsinh(self: Any) -> Any:
    return _asinh(self)


def arctan(self: Any) -> Any:
    return _atan(self)


def arctanh(self: Any) -> Any:
    return _atanh(self)


def arctan2(self: Any, other: Any) -> Any:
    return _atan2(self, other)


def divide(self: Any, other: Any, rounding_mode: Any = None) -> Any:
    """divide.Tensor, .Scalar, .Tensor_mode and .Scalar_mode (one kernel, as upstream's C++ overloads)."""
    if rounding_mode is None:
        return _div(self, other)
    return _div_mode(self, other, rounding_mode=rounding_mode)


def true_divide(self: Any, other: Any) -> Any:
    return _div(self, other)


def multiply(self: Any, other: Any) -> Any:
    return _mul(self, other)


def subtract(self: Any, other: Any, alpha: Any = 1) -> Any:
    return _sub(self, other, alpha=alpha)


def negative(self: Any) -> Any:
    return _neg(self)


def positive(self: Any) -> Any:
    if self.dtype is _BOOL:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def fix(self: Any) -> Any:
    return _trunc(self)


def not_equal(self: Any, other: Any) -> Any:
    return _ne(self, other)


def greater_equal(self: Any, other: Any) -> Any:
    return _ge(self, other)


def less_equal(self: Any, other: Any) -> Any:
    return _le(self, other)


def greater(self: Any, other: Any) -> Any:
    return _gt(self, other)


def less(self: Any, other: Any) -> Any:
    return _lt(self, other)


def swapaxes(self: Any, axis0: int, axis1: int) -> Any:
    return _transpose(self, axis0, axis1)


def swapdims(self: Any, dim0: int, dim1: int) -> Any:
    return _transpose(self, dim0, dim1)


def ravel(self: Any) -> Any:
    return _view(_contiguous(self), [-1])


def view_as(self: Any, other: Any) -> Any:
    return _view(self, list(other._sizes()))


def reshape_as(self: Any, other: Any) -> Any:
    return _reshape(self, list(other._sizes()))


def type_as(self: Any, other: Any) -> Any:
    return _to_other(self, other)


# -- predicates -----------------------------------------------------------------------------------

def is_floating_point(self: Any) -> bool:
    return bool(self.dtype.is_floating_point)


def is_complex(self: Any) -> bool:
    return bool(self.dtype.is_complex)


def is_signed(self: Any) -> bool:
    return bool(self.dtype.is_signed)


def is_same_size(self: Any, other: Any) -> bool:
    return tuple(self._sizes()) == tuple(other._sizes())


def is_nonzero(self: Any) -> bool:
    n = self.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(self.item())


# -- in-place views ---------------------------------------------------------------------------------

def swapaxes_via_transpose(self: Any, axis0: int, axis1: int) -> Any:
    return _transpose_(self, axis0, axis1)


def swapdims_via_transpose(self: Any, dim0: int, dim1: int) -> Any:
    return _transpose_(self, dim0, dim1)


def transpose_(self: Any, dim0: int, dim1: int) -> Any:
    return _v.restride_(self, _transpose(self, dim0, dim1))


def t_(self: Any) -> Any:
    if self.dim() > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return _v.restride_(self, _t(self))


def squeeze_(self: Any, dim: Any = None) -> Any:
    """squeeze_, squeeze_.dim and squeeze_.dims."""
    if dim is None:
        view = _squeeze(self)
    elif isinstance(dim, (list, tuple)):
        view = _squeeze_dims(self, dim)
    else:
        view = _squeeze_dim(self, dim)
    return _v.restride_(self, view)


def unsqueeze_(self: Any, dim: int) -> Any:
    return _v.restride_(self, _unsqueeze(self, dim))


def as_strided__symint(self: Any, size: Any, stride: Any, storage_offset: Any = None) -> Any:
    return _v.restride_(self, _as_strided(self, size, stride, storage_offset))


# -- small composites ---------------------------------------------------------------------------------

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


def nansum(self: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    if self.dtype.is_floating_point:
        self = _where(_isnan(self), scalar_to_tensor(0.0), self)
    return _sum(self, dim, keepdim, dtype=dtype)


def nanmean(self: Any, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{self.dtype.type_name}")
    count = _sum(_logical_not(_isnan(self)), dim, keepdim)
    # The op (not the kernel above): autograd then records nansum's formula, whose product
    # with the mask gives NaN gradients for all-NaN slices, as PyTorch's.
    return _div(_nansum(self, dim, keepdim, dtype=dtype), count)


def xlogy(self: Any, other: Any) -> Any:
    """xlogy.Scalar_Self and xlogy.Scalar_Other: the number becomes a wrapped 0-dim tensor."""
    if not hasattr(self, "dtype"):
        self = scalar_to_tensor(self)
    if not hasattr(other, "dtype"):
        other = scalar_to_tensor(other)
    return _xlogy(self, other)


def copysign(self: Any, other: Any) -> Any:
    return _copysign(self, scalar_to_tensor(other))


def rad2deg(self: Any) -> Any:
    if not self.dtype.is_floating_point:
        self = _to_dtype(self, get_default_dtype())
    return _mul(self, scalar_to_tensor(180.0 / math.pi))


def deg2rad(self: Any) -> Any:
    if not self.dtype.is_floating_point:
        self = _to_dtype(self, get_default_dtype())
    return _mul(self, scalar_to_tensor(math.pi / 180.0))


def sgn(self: Any) -> Any:
    return _sign(self)


def signbit(self: Any) -> Any:
    if self.dtype.is_floating_point:
        return _lt(_copysign(_full_like(self, 1), self), 0)
    if not self.dtype.is_signed:
        return _zeros_like(self, dtype=_BOOL)
    return _lt(self, 0)


def heaviside(self: Any, values: Any) -> Any:
    if self.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    positive = _to_dtype(_gt(self, 0), self.dtype)
    return _where(_eq(self, 0), values, positive)


def _as_tensor(value: Any) -> Any:
    return value if hasattr(value, "dtype") else scalar_to_tensor(value)


def float_power(self: Any, exponent: Any) -> Any:
    """float_power.Tensor_Tensor, .Scalar and .Tensor_Scalar: pow in float64."""
    base = _to_dtype(_as_tensor(self), _FLOAT64)
    exp = _to_dtype(_as_tensor(exponent), _FLOAT64)
    return _pow(base, exp)


def float_power_inplace(self: Any, exponent: Any) -> Any:
    """float_power_ (both overloads), implicit autograd: the pow_ it runs is what autograd records."""
    if self.dtype is not _FLOAT64:
        raise RuntimeError(f"the base given to float_power_ has dtype {self.dtype.type_name} but the operation's "
                           "result requires dtype Double")
    # pow_ in place (as PyTorch's decomposition): under autograd it is recorded as PowBackward.
    return _pow_(self, _to_dtype(_as_tensor(exponent), _FLOAT64))


def polygamma_(self: Any, n: int) -> Any:
    result = _polygamma(n, self)
    if not can_cast(result.dtype, self.dtype):
        raise output_cast_error(result.dtype.type_name, self.dtype.type_name)
    return _copy(self, result)


def special_polygamma(n: int, self: Any) -> Any:
    return _polygamma(n, self)


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


def trace(self: Any) -> Any:
    if self.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {self.dim()}")
    if self.dtype is _BOOL:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return _sum(_diagonal(self, 0, 0, 1), None)


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


def max_other(self: Any, other: Any) -> Any:
    return _maximum(self, other)


def min_other(self: Any, other: Any) -> Any:
    return _minimum(self, other)
