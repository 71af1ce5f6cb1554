"""Backward formulas' helpers for reductions and scans: sums, means, products, extremes, cumulative
ops, variance and norms (sum_to, shared by every broadcasting formula, is here)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from torch.csrc.autograd.functions_manual.pointwise import conj, where

_arange = find_operator("arange")
_cat = find_operator("cat")
_reshape = find_operator("reshape")
_sum_dims = find_operator("sum.dim_IntList")
_zeros = find_operator("zeros")


def sum_to(grad: Any, shape: Any) -> Any:
    """grad summed down to shape (undoes broadcasting): leading dims, then the dims of size 1."""
    if grad is None:
        return None
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    lead = grad.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, size in enumerate(shape) if size == 1 and grad.shape[lead + i] != 1]
    if dims:
        grad = _sum_dims(grad, dims, True)
    return _reshape(grad, shape) if lead or tuple(grad.shape) != shape else grad


def sum_backward(grad: Any, sizes: Any, dims: Any, keepdim: bool) -> Any:
    """The gradient of sum(self, dims, keepdim): grad broadcast back over the summed dims."""
    sizes = tuple(sizes)
    if not keepdim and len(sizes) > 0:
        if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
            dims = range(len(sizes))
        elif isinstance(dims, int):
            dims = (dims,)
        for d in sorted(d % len(sizes) for d in dims):
            grad = grad.unsqueeze(d)
    return grad.expand(sizes)


def mean_backward(grad: Any, sizes: Any, dims: Any, numel: int, keepdim: bool) -> Any:
    sizes = tuple(sizes)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        count = numel
    else:
        count = 1
        for d in ((dims,) if isinstance(dims, int) else dims):
            count *= sizes[d % len(sizes)] if sizes else 1
    return sum_backward(grad, sizes, dims, keepdim) / count


def _reduced_dims(dims: Any, ndim: int) -> list[int]:
    """The dims a reduction reduces: None or [] mean all (as PyTorch's reductions)."""
    if dims is None:
        return list(range(ndim))
    if isinstance(dims, int):
        dims = [dims]
    if len(dims) == 0:
        return list(range(ndim))
    return sorted({d % ndim for d in dims}) if ndim else []


def _zeros_of(sizes: Any, like: Any) -> Any:
    return _zeros(tuple(sizes), dtype=like.dtype, device=like.device)


def restore_reduced_dims(t: Any, dims: Any, keepdim: bool, ndim: int) -> Any:
    """t (a reduction's output or gradient) with the reduced dims back as size 1."""
    if keepdim or ndim == 0:
        return t
    for d in _reduced_dims(dims, ndim):
        t = t.unsqueeze(d)
    return t


def _count(sizes: Any, dims: Any) -> int:
    n = 1
    for d in _reduced_dims(dims, len(sizes)):
        n *= sizes[d]
    return n


def scale_grad_by_count(grad: Any, mask: Any, dims: Any) -> Any:
    """amax/amin: the gradient shared evenly among the positions that reach the extreme."""
    return (grad / mask.sum(_reduced_dims(dims, mask.dim()), keepdim=True)) * mask if mask.dim() else grad * mask


def amax_amin_backward(grad: Any, self: Any, result: Any, dims: Any, keepdim: bool) -> Any:
    ndim = self.dim()
    mask = restore_reduced_dims(result, dims, keepdim, ndim) == self
    return scale_grad_by_count(restore_reduced_dims(grad, dims, keepdim, ndim), mask, dims)


def evenly_distribute_backward(grad: Any, self: Any, value: Any) -> Any:
    """max()/min()/median() of all elements: the gradient shared by the elements equal to the
    result (the NaNs, when the result is NaN)."""
    mask = (self.isnan() & value.isnan()) | (self == value)     # no branch on the value: it may be vmap's batched
    return mask * (grad / mask.sum())


def value_selecting_reduction_backward(grad: Any, dim: int, indices: Any, sizes: Any, keepdim: bool) -> Any:
    """max/min/median/kthvalue/mode/sort/topk along dim: the gradient goes to the selected positions."""
    sizes = tuple(sizes)
    if len(sizes) == 0:
        return grad.reshape(())
    if not keepdim:
        grad = grad.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    return _zeros_of(sizes, grad).scatter(dim, indices, grad)


def prod_backward(grad: Any, self: Any, result: Any, dim: Any = None, keepdim: bool = False) -> Any:
    """d prod / d x_j = the product of the others: result / x_j without zeros; with zeros, the
    products before and after j (exclusive cumulative products), which is exact."""
    if dim is None:
        if self.dim() == 0:
            return grad
        flat = self.reshape(-1)
        return prod_backward(grad.reshape(1), flat, result.reshape(1), 0, True).reshape(self.shape)
    if self.dim() == 0:
        return grad
    grad = restore_reduced_dims(grad, dim, keepdim, self.dim())
    result = restore_reduced_dims(result, dim, keepdim, self.dim())
    if not self._is_batched() and not bool((self == 0).any()):     # (under vmap: the exact form for every example)
        return grad * conj(result / self)
    return grad * conj(_exclusive_cumprod(self, dim) * _exclusive_cumprod(self.flip(dim), dim).flip(dim))


def _exclusive_cumprod(x: Any, dim: int) -> Any:
    d = dim % x.dim()
    n = x.shape[d]
    if n == 0:
        return x
    ones = list(x.shape)
    ones[d] = 1
    shifted = _cat([_zeros(tuple(ones), dtype=x.dtype, device=x.device) + 1, x.narrow(d, 0, n - 1)], d)
    return shifted.cumprod(d)


def reversed_cumsum(x: Any, dim: int) -> Any:
    return x.flip(dim).cumsum(dim).flip(dim)


def cumsum_backward(grad: Any, dim: int) -> Any:
    if grad.dim() == 0:
        return grad
    return reversed_cumsum(grad, dim)


def cumprod_backward(grad: Any, self: Any, dim: int, result: Any) -> Any:
    """y_k = x_0...x_k: dL/dx_j = sum_{k>=j} g_k prod_{i<=k, i!=j} x_i. Without zeros that is
    reversed_cumsum(g * y)_j / x_j. With zeros, E_j * sum_{k>=j} g_k prod_{j<i<=k} x_i (E_j the
    product before j), the inner products from an (n, n) cumulative product: a polynomial in x,
    so its own derivatives are exact too."""
    if self.dim() == 0 or self.numel() == 0:
        return grad
    if not self._is_batched() and not bool((self == 0).any()):     # (under vmap: the exact form for every example)
        return reversed_cumsum(grad * result, dim) / self
    d = dim % self.dim()
    x = self.movedim(d, -1)
    g = grad.movedim(d, -1)
    n = x.shape[-1]
    positions = _arange(n, device=x.device)
    after = positions.unsqueeze(0) > positions.unsqueeze(1)            # [j, i]: i > j
    rows = where(after, x.unsqueeze(-2), 1.0).cumprod(-1)               # [j, k]: prod_{j<i<=k} x_i
    within = where(positions.unsqueeze(0) >= positions.unsqueeze(1), rows, 0.0)   # k >= j only
    inner = (within * g.unsqueeze(-2)).sum(-1)
    return (_exclusive_cumprod(x, -1) * inner).movedim(-1, d)


def cummaxmin_backward(grad: Any, self: Any, indices: Any, dim: int) -> Any:
    if self.dim() == 0:
        return grad
    return _zeros_of(self.shape, grad).scatter_add(dim, indices, grad)


def logcumsumexp_backward(grad: Any, self: Any, result: Any, dim: int) -> Any:
    """dL/dx_j = sum_{k>=j} g_k exp(x_j - y_k), summed in log space, the positive and negative
    parts of g apart (as upstream, for stability)."""
    if self.dim() == 0:
        return grad
    lowest = -1.7976931348623157e308 if self.dtype.itemsize == 8 else -3.4028234663852886e38
    log_abs = grad.abs().log()
    log_pos = where(grad > 0, log_abs, lowest)
    log_neg = where(grad < 0, log_abs, lowest)

    def reverse_logcumsumexp(x: Any) -> Any:
        return x.flip(dim).logcumsumexp(dim).flip(dim)

    return (reverse_logcumsumexp(log_pos - result) + self).exp() - (reverse_logcumsumexp(log_neg - result) + self).exp()


def var_backward(grad: Any, self: Any, dims: Any, correction: Any, keepdim: bool) -> Any:
    if grad is None:
        return None
    c = 1 if correction is None else correction
    n = _count(self.shape, dims)
    dof = max(0, n - c)       # as the forward: no degrees of freedom left gives inf
    scale = 2.0 / dof if dof else float("inf")
    dims_ = _reduced_dims(dims, self.dim())
    grad = restore_reduced_dims(grad, dims, keepdim, self.dim())
    return (scale * grad) * (self - self.mean(dims_, keepdim=True)) if self.dim() else (scale * grad) * (self - self)


def std_backward(result: Any, grad: Any, self: Any, dims: Any, correction: Any, keepdim: bool) -> Any:
    if grad is None:
        return None
    return var_backward(where(result == 0, 0.0, grad / (2 * result)), self, dims, correction, keepdim)


def _add_optional(a: Any, b: Any) -> Any:
    if a is None:
        return b
    return a if b is None else a + b


def var_mean_backward(gvar: Any, gmean: Any, self: Any, dims: Any, correction: Any, keepdim: bool) -> Any:
    mean_part = None if gmean is None else \
        mean_backward(gmean, self.shape, _reduced_dims(dims, self.dim()), self.numel(), keepdim)
    return _add_optional(var_backward(gvar, self, dims, correction, keepdim), mean_part)


def std_mean_backward(gstd: Any, gmean: Any, self: Any, std: Any, dims: Any, correction: Any, keepdim: bool) -> Any:
    mean_part = None if gmean is None else \
        mean_backward(gmean, self.shape, _reduced_dims(dims, self.dim()), self.numel(), keepdim)
    return _add_optional(std_backward(std, gstd, self, dims, correction, keepdim), mean_part)


def logsumexp_backward(grad: Any, self: Any, result: Any, dims: Any, keepdim: bool) -> Any:
    grad = restore_reduced_dims(grad, dims, keepdim, self.dim())
    result = restore_reduced_dims(result, dims, keepdim, self.dim())
    return grad * (self - result).exp()


def _sign(x: Any) -> Any:
    """sign(x) as a constant (its derivative is 0 everywhere it exists)."""
    return x.detach().sgn()


def norm_backward(grad: Any, self: Any, p: Any, norm: Any, dims: Any = None, keepdim: bool = False) -> Any:
    """linalg_vector_norm / norm: upstream's cases (0, 1, 2, inf, p < 1, p < 2, p >= 2); where the
    norm is 0 the gradient is 0."""
    p = 2.0 if p is None else float(p)
    ndim = self.dim()
    grad = restore_reduced_dims(grad, dims, keepdim, ndim)
    norm = restore_reduced_dims(norm, dims, keepdim, ndim)
    if p == 0.0:              # a count of non-zeros: no gradient (None, as upstream's undefined one)
        return None
    if p == 1.0:
        return _sign(self) * grad
    if p == 2.0:
        return self * where(norm == 0, 0.0, grad / norm)
    if p == float("inf") or p == float("-inf"):
        self_abs = self.abs()
        mask = (self_abs == norm) | self_abs.isnan()
        count = mask.sum(_reduced_dims(dims, ndim), keepdim=True) if ndim else mask.sum()
        return _sign(self) * ((grad / count) * mask)
    if p < 1.0:
        scaled = _sign(self) * where(self == 0, 0.0, self.abs().pow(p - 1))
        return scaled * grad * norm.pow(1 - p)
    if p < 2.0:
        scaled = _sign(self) * self.abs().pow(p - 1)
    else:
        scaled = self * self.abs().pow(p - 2)
    return scaled * where(norm == 0, 0.0, grad / norm.pow(p - 1))


def aminmax_backward(gmin: Any, gmax: Any, self: Any, dim: Any, keepdim: bool, mn: Any, mx: Any) -> Any:
    dims = None if dim is None else [dim]
    a = None if gmin is None else amax_amin_backward(gmin, self, mn, dims, keepdim)
    b = None if gmax is None else amax_amin_backward(gmax, self, mx, dims, keepdim)
    return _add_optional(a, b)


def nansum_backward(grad: Any, self: Any, dims: Any, keepdim: bool) -> Any:
    expanded = restore_reduced_dims(grad, dims, keepdim, self.dim()).expand(tuple(self.shape))
    return expanded * self.isnan().logical_not()     # PyTorch's product: an inf or NaN grad gives NaN there
