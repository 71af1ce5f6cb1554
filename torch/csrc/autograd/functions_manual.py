"""Helpers the backward formulas of tools/autograd/derivatives.yaml call (PyTorch's
FunctionsManual.cpp, by the same names where Ember has the same formula).

Formulas are written with tensor methods and these functions, so that create_graph=True
differentiates through them. Ember has no complex dtypes: conj() and handle_r_to_c are the
identity, and kept only so formulas read like upstream's."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_sum_dims = find_operator("sum.dim_IntList")
_zeros = find_operator("zeros")
_reshape = find_operator("reshape")


def handle_r_to_c(scalar_type: Any, grad: Any) -> Any:
    return grad


def maybe_multiply(t: Any, s: Any) -> Any:
    """t * s, skipping the multiplication by 1 (as upstream)."""
    return t if (isinstance(s, (int, float)) and s == 1) else t * s


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


def mul_tensor_backward(grad: Any, other: Any, self_scalar_type: Any) -> Any:
    return grad * other


def div_tensor_self_backward(grad: Any, other: Any, self_scalar_type: Any) -> Any:
    return grad / other


def div_tensor_other_backward(grad: Any, self: Any, other: Any) -> Any:
    return -grad * (self / other) / other


def mm_mat1_backward(grad: Any, mat2: Any, sizes: Any, strides: Any, layout: Any, alpha: Any) -> Any:
    return maybe_multiply(grad.mm(mat2.t()), alpha)


def mm_mat2_backward(grad: Any, mat1: Any, sizes: Any, strides: Any, layout: Any, alpha: Any) -> Any:
    return maybe_multiply(mat1.t().mm(grad), alpha)


def pow_backward(grad: Any, self: Any, exponent: Any) -> Any:
    if isinstance(exponent, (int, float)) and exponent == 0:
        return grad * 0
    return grad * exponent * self.pow(exponent - 1)


def threshold_backward(grad: Any, self: Any, threshold: Any) -> Any:
    return grad * (self > threshold)


def softmax_backward_data(grad: Any, output: Any, dim: int) -> Any:
    return output * (grad - (grad * output).sum(dim, keepdim=True))


def log_softmax_backward_data(grad: Any, output: Any, dim: int) -> Any:
    return grad - output.exp() * grad.sum(dim, keepdim=True)


def zeros(sizes: Any, like: Any) -> Any:
    return _zeros(tuple(sizes), dtype=like.dtype, device=like.device)


def permute_backwards(grad: Any, dims: Any) -> Any:
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return grad.permute(inverse)


def select_backward(grad: Any, sizes: Any, dim: int, index: int) -> Any:
    """The gradient of select: grad placed at `index` of `dim` in zeros of the input's shape."""
    return _index_into_zeros(grad.unsqueeze(dim), sizes, dim, index % sizes[dim], index % sizes[dim] + 1, 1)


def slice_backward(grad: Any, sizes: Any, dim: int, start: Any, end: Any, step: int) -> Any:
    n = sizes[dim]
    first, last, _ = slice(start, end, step).indices(n)
    return _index_into_zeros(grad, sizes, dim, first, max(first, last), step)


def _index_into_zeros(values: Any, sizes: Any, dim: int, start: int, end: int, step: int) -> Any:
    """zeros of `sizes` with `values` at start:end:step along dim, built out of place (pad and
    interleave with zeros) so that it stays differentiable."""
    sizes = list(sizes)
    count = values.shape[dim]
    if step != 1 and count > 0:
        gap = list(values.shape)
        gap[dim] = count * (step - 1)
        parts = [values.unsqueeze(dim + 1), _zeros(tuple(gap[:dim] + [count, step - 1] + gap[dim + 1:]),
                                                   dtype=values.dtype, device=values.device)]
        values = _cat(parts, dim + 1).flatten(dim, dim + 1)
        values = values.narrow(dim, 0, (count - 1) * step + 1)
    before = list(sizes)
    before[dim] = start
    after = list(sizes)
    after[dim] = sizes[dim] - start - values.shape[dim]
    pieces = [_zeros(tuple(before), dtype=values.dtype, device=values.device), values,
              _zeros(tuple(after), dtype=values.dtype, device=values.device)]
    return _cat(pieces, dim)


_cat = find_operator("cat")


def mse_loss_backward(grad: Any, self: Any, target: Any, reduction: int) -> Any:
    scale = 2.0 / max(self.numel(), 1) if reduction == 1 else 2.0      # an empty input has no gradient to scale
    return scale * (self - target) * grad


_where = find_operator("where.self")


def where(condition: Any, a: Any, b: Any) -> Any:
    return _where(condition, a, b)


def pow_backward_self(grad: Any, self: Any, exponent: Any) -> Any:
    """d/dself self**exponent, 0 where the exponent is 0 (as upstream's pow_backward_self)."""
    return where(exponent == 0, 0.0, grad * exponent * self.pow(exponent - 1))


def pow_backward_exponent(grad: Any, self: Any, exponent: Any, result: Any) -> Any:
    """d/dexponent self**exponent = result * log(self), 0 where self is 0 and exponent >= 0."""
    return grad * where((self == 0) & (exponent >= 0), 0.0, result * self.log())


def cat_tensors_backward(grad: Any, sizes: Any, dim: int) -> list[Any]:
    """Each input's slice of the gradient (a 1-D empty input of a legacy cat gets an empty one)."""
    out: list[Any] = []
    offset = 0
    d = dim % grad.dim() if grad.dim() else 0
    for shape in sizes:
        if len(shape) == 1 and shape[0] == 0 and grad.dim() != 1:
            out.append(_zeros((0,), dtype=grad.dtype, device=grad.device))
            continue
        out.append(grad.narrow(d, offset, shape[d]))
        offset += shape[d]
    return out


def clamp_backward(grad: Any, self: Any, min: Any, max: Any) -> Any:
    keep = None
    if min is not None:
        keep = self >= min
    if max is not None:
        keep = (self <= max) if keep is None else keep & (self <= max)
    return grad if keep is None else where(keep, grad, 0.0)


def index_select_backward(grad: Any, sizes: Any, dim: int, index: Any) -> Any:
    return _zeros(tuple(sizes), dtype=grad.dtype, device=grad.device).index_add(dim, index, grad)


# ==== Pointwise (unary, binary, activations) ====

import math  # noqa: E402  (kept in this section)

_zeros_like = find_operator("zeros_like")
_softplus = find_operator("softplus")


def zeros_like(t: Any) -> Any:
    return _zeros_like(t)


def clamp_backward_min(grad: Any, self: Any, min: Any, max: Any) -> Any:
    """clamp.Tensor's gradient for min: where self is below min (and min does not exceed max,
    where max wins), as upstream's clamp_backward_min_max."""
    if max is not None:
        return where((self < min) & (min < max), grad, 0.0)
    return where(self < min, grad, 0.0)


def clamp_backward_max(grad: Any, self: Any, min: Any, max: Any) -> Any:
    """clamp.Tensor's gradient for max: where self is above max, or max is below min (max wins)."""
    if min is not None:
        return where((self > max) | (max < min), grad, 0.0)
    return where(self > max, grad, 0.0)


def copysign_tensor_self_backward(grad: Any, self: Any, result: Any) -> Any:
    """grad * sign flip (result / self), 0 where self is 0."""
    return grad * where(self == 0, 0.0, result / self)


def sinc_backward(grad: Any, self: Any) -> Any:
    """d/dx sin(pi x) / (pi x) = (pi x cos(pi x) - sin(pi x)) / (pi x^2), 0 at x = 0."""
    self_pi = self * math.pi
    self_squared_pi = self * self * math.pi
    out = grad * ((self_pi * self_pi.cos()) - self_pi.sin()) / self_squared_pi
    return where(self_squared_pi == 0.0, 0.0, out)


def hardtanh_backward(grad: Any, self: Any, min_val: Any, max_val: Any) -> Any:
    """0 at and beyond the bounds (a NaN input passes grad through, as PyTorch's kernel)."""
    return where((self <= min_val) | (self >= max_val), 0.0, grad)


def elu_backward(grad: Any, alpha: Any, scale: Any, input_scale: Any, self: Any) -> Any:
    """elu's gradient from its input: scale for x > 0, input_scale * alpha * scale * exp(x * input_scale)
    for x <= 0 (x = 0 takes the exponential branch, as PyTorch)."""
    return where(self <= 0, grad * (input_scale * alpha * scale) * (self * input_scale).exp(), grad * scale)


def silu_backward(grad: Any, self: Any) -> Any:
    """d/dx x sigmoid(x) = sigmoid(x) (1 + x (1 - sigmoid(x))) (upstream's infinitely differentiable form)."""
    sigmoid = self.sigmoid()
    return grad * sigmoid * (1 + self * (1 - sigmoid))


def mish_backward(grad: Any, self: Any) -> Any:
    """d/dx x tanh(softplus(x)) = tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2)."""
    tanh_softplus = _softplus(self).tanh()
    return grad * (tanh_softplus + self * self.sigmoid() * (1 - tanh_softplus * tanh_softplus))


def hardswish_backward(grad: Any, self: Any) -> Any:
    """0 up to -3, x / 3 + 1/2 strictly between, 1 from 3 on (PyTorch's values at -3 and 3)."""
    return where(self <= -3, 0.0, where(self < 3, grad * (self / 3 + 0.5), grad))


def gelu_backward(grad: Any, self: Any, approximate: str) -> Any:
    if approximate == "tanh":
        beta = math.sqrt(2.0 / math.pi)
        kappa = 0.044715
        inner = beta * (self + kappa * self * self * self)
        t = inner.tanh()
        left_derivative = 0.5 * (1 + t)
        right_derivative = 0.5 * self * (1 - t * t) * (beta * (1 + 3 * kappa * self * self))
        return grad * (left_derivative + right_derivative)
    cdf = 0.5 * (1 + (self * math.sqrt(0.5)).erf())
    pdf = (-0.5 * self * self).exp() * (1.0 / math.sqrt(2.0 * math.pi))
    return grad * (cdf + self * pdf)


def logit_backward(grad: Any, self: Any, eps: Any) -> Any:
    """grad / (x (1 - x)); without eps NaN outside [0, 1]; with eps 0 outside [eps, 1 - eps] (and at NaN)."""
    if eps is None or eps < 0:
        return where((self < 0) | (self > 1), math.nan, grad / (self * (1 - self)))
    return where((self >= eps) & (self <= 1 - eps), grad / (self * (1 - self)), 0.0)


def atan2_recip(self: Any, other: Any) -> Any:
    """1 / (self^2 + other^2), 0 where both are 0 (PyTorch's atan2 gradient at the origin is 0), the
    division kept off the zeros so that the second derivative stays finite."""
    denominator = self * self + other * other
    return where(denominator == 0, 0.0, 1 / where(denominator == 0, 1.0, denominator))


# ==== Reductions, shapes, views, indexing, linear algebra ====


_scatter_add = find_operator("scatter_add")
_diag_embed = find_operator("diag_embed")
_constant_pad_nd = find_operator("constant_pad_nd")
_index_put = find_operator("index_put")
_einsum = find_operator("einsum")
_arange = find_operator("arange")
_stack = find_operator("stack")


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
    mask = self.isnan() if bool(value.isnan()) else (self == value)
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
    if not bool((self == 0).any()):
        return grad * (result / self)
    return grad * _exclusive_cumprod(self, dim) * _exclusive_cumprod(self.flip(dim), dim).flip(dim)


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
    if not bool((self == 0).any()):
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


def split_backward(grads: Any, split_size: int, dim: int, sizes: Any, like: Any = None) -> Any:
    sizes = tuple(sizes)
    d = dim % len(sizes)
    n = sizes[d]
    lengths = [min(split_size, n - i) for i in range(0, n, split_size)] if split_size > 0 else [0]
    if n == 0:
        lengths = [0]
    return split_with_sizes_backward(grads, lengths, dim, sizes)


def split_with_sizes_backward(grads: Any, split_sizes: Any, dim: int, sizes: Any, like: Any = None) -> Any:
    """The pieces' gradients put back together (zeros for pieces without one)."""
    sizes = tuple(sizes)
    d = dim % len(sizes)
    some = next(g for g in grads if g is not None)
    parts = []
    for g, length in zip(grads, split_sizes):
        if g is None:
            shape = list(sizes)
            shape[d] = length
            g = _zeros_of(shape, some)
        parts.append(g)
    return _cat(parts, d)


def unbind_backward(grads: Any, dim: int, sizes: Any) -> Any:
    sizes = tuple(sizes)
    d = dim % len(sizes)
    some = next(g for g in grads if g is not None)
    shape = sizes[:d] + sizes[d + 1:]
    return _stack([g if g is not None else _zeros_of(shape, some) for g in grads], d)


def _fit(t: Any, dim: int, size: int) -> Any:
    """t narrowed or zero-padded at the end of dim to size."""
    have = t.shape[dim]
    if have > size:
        return t.narrow(dim, 0, size)
    if have < size:
        shape = list(t.shape)
        shape[dim] = size - have
        return _cat([t, _zeros_of(shape, t)], dim)
    return t


def diagonal_backward(grad: Any, sizes: Any, offset: int, dim1: int, dim2: int) -> Any:
    """zeros of the input's shape with grad on the diagonal (diag_embed, cut or padded to shape)."""
    sizes = tuple(sizes)
    nd = len(sizes)
    d1, d2 = dim1 % nd, dim2 % nd
    out = _diag_embed(grad, offset, d1, d2)
    out = _fit(out, d1, sizes[d1])
    return _fit(out, d2, sizes[d2])


def diag_embed_backward(grad: Any, offset: int, dim1: int, dim2: int) -> Any:
    return grad.diagonal(offset, dim1, dim2)


def trace_backward(grad: Any, sizes: Any) -> Any:
    sizes = tuple(sizes)
    length = min(sizes)
    return diagonal_backward(grad.expand((length,)), sizes, 0, 0, 1)


def repeat_backward(grad: Any, repeats: Any, sizes: Any) -> Any:
    """repeat tiles the (left-padded) input: grad viewed as (r0, s0, r1, s1, ...) summed over the r's."""
    sizes = tuple(sizes)
    repeats = tuple(repeats)
    lead = len(repeats) - len(sizes)
    padded = (1,) * lead + sizes
    if any(r == 0 for r in repeats) or any(s == 0 for s in padded):
        return _zeros_of(sizes, grad)
    split = []
    for r, s in zip(repeats, padded):
        split += [r, s]
    g = grad.reshape(tuple(split))
    g = g.sum(list(range(0, 2 * len(repeats), 2)))
    return g.reshape(sizes)


def roll_backward(grad: Any, shifts: Any, dims: Any) -> Any:
    return grad.roll([-s for s in shifts], list(dims))


def unfold_backward(grad: Any, sizes: Any, dim: int, size: int, step: int) -> Any:
    """Each window element (w, k) came from position w * step + k of dim: index_add them back."""
    sizes = tuple(sizes)
    if len(sizes) == 0:
        return grad.reshape(())
    d = dim % len(sizes)
    windows = grad.shape[d]
    positions = (_arange(windows, device=grad.device).unsqueeze(1) * step
                 + _arange(size, device=grad.device).unsqueeze(0)).reshape(-1)
    g = grad.movedim(-1, d + 1).flatten(d, d + 1)
    return _zeros_of(sizes, grad).index_add(d, positions, g)


def constant_pad_nd_backward(grad: Any, pad: Any) -> Any:
    return _constant_pad_nd(grad, [-p for p in pad])


def _pad_to(t: Any, sizes: Any) -> Any:
    """t padded with zeros at the end of each dim to sizes (a scatter's src larger than its index)."""
    sizes = tuple(sizes)
    if tuple(t.shape) == sizes:
        return t
    pad: list[int] = []
    for have, want in reversed(list(zip(t.shape, sizes))):
        pad += [0, want - have]
    return _constant_pad_nd(t, pad)


def gather_backward(grad: Any, sizes: Any, dim: int, index: Any) -> Any:
    return _zeros_of(sizes, grad).scatter_add(dim, index, grad)


def scatter_src_backward(grad: Any, dim: int, index: Any, src_sizes: Any) -> Any:
    """src's gradient: what its scattered elements became; 0 for the elements index does not reach."""
    return _pad_to(grad.gather(dim, index), src_sizes)


def scatter_reduce_backward(grad: Any, self: Any, dim: int, index: Any, src: Any, reduce: str, include_self: bool,
                            result: Any) -> list[Any]:
    """scatter_reduce's gradients for [self, src] (upstream's semantics): sum; mean (each share
    1/count); amax/amin (the gradient shared evenly among the values equal to the result); prod
    (the product of the other contributions; zeros refuse). Positions that index does not reach
    keep self: their gradient is grad; with include_self=False, self gets none where reached."""
    src_sizes = src.shape
    if index.numel() == 0:
        return [grad, _zeros_of(src_sizes, grad)]
    src = src if tuple(src.shape) == tuple(index.shape) else _narrow_to(src, index.shape)
    reached = _zeros_of(self.shape, grad).scatter(dim, index, 1.0) != 0
    if reduce == "sum":
        grad_self, grad_src = grad, grad.gather(dim, index)
    elif reduce == "mean":
        count = _zeros_of(self.shape, grad).scatter_add(dim, index, _zeros_of(index.shape, grad) + 1)
        count = count + 1 if include_self else where(count == 0, 1.0, count)
        grad_self, grad_src = grad / count, (grad / count).gather(dim, index)
    elif reduce in ("amax", "amin"):
        self_is = self == result
        if not include_self:
            self_is = self_is & ~reached
        src_is = src == result.gather(dim, index)
        count = self_is.to(grad.dtype).scatter_add(dim, index, src_is.to(grad.dtype))
        share = grad / where(count == 0, 1.0, count)
        grad_self, grad_src = share * self_is, share.gather(dim, index) * src_is
    elif reduce == "prod":
        if bool((src == 0).any()) or (include_self and bool(((self == 0) & reached).any())):
            raise RuntimeError("scatter_reduce(reduce='prod') backward with zeros among the reduced values is not "
                               "implemented in Ember yet")
        grad_self = where(reached, grad * result / where(reached, self, 1.0), grad)
        grad_src = (grad * result).gather(dim, index) / src
    else:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not include_self:
        grad_self = where(reached, 0.0, grad_self)
    return [grad_self, _pad_to(grad_src, src_sizes)]


def _narrow_to(t: Any, sizes: Any) -> Any:
    for d, s in enumerate(sizes):
        if t.shape[d] != s:
            t = t.narrow(d, 0, s)
    return t


_index = find_operator("index.Tensor")


def index(t: Any, indices: Any) -> Any:
    return _index(t, indices)


def index_backward(grad: Any, sizes: Any, indices: Any) -> Any:
    return _index_put(_zeros_of(sizes, grad), indices, grad, True)


def masked_fill_backward(grad: Any, mask: Any) -> Any:
    return where(mask, grad, 0.0).sum()


def masked_select_backward(grad: Any, sizes: Any, mask: Any) -> Any:
    """grad back in the positions mask selects (mask broadcast to the output's shape)."""
    full = _broadcast_sizes(tuple(sizes), tuple(mask.shape))
    zeros = _zeros_of(full, grad)
    return zeros.masked_scatter(mask.expand(full), grad)


def _broadcast_sizes(a: Any, b: Any) -> tuple[int, ...]:
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(max(x, y) if min(x, y) != 0 else 0 for x, y in zip(a, b))


def masked_scatter_backward(grad: Any, mask: Any, sizes: Any) -> Any:
    """source's gradient: grad at the masked positions (in order), zeros for the unused rest."""
    numel = 1
    for s in sizes:
        numel *= s
    selected = grad.masked_select(mask.expand(grad.shape) if tuple(mask.shape) != tuple(grad.shape) else mask)
    rest = numel - selected.numel()
    if rest > 0:
        selected = _cat([selected, _zeros((rest,), dtype=grad.dtype, device=grad.device)], 0)
    return selected.reshape(tuple(sizes))


def take_backward(grad: Any, sizes: Any, index: Any) -> Any:
    flat = _zeros_of((_numel(sizes),), grad)
    return flat.put(index, grad, True).reshape(tuple(sizes))


def _numel(sizes: Any) -> int:
    n = 1
    for s in sizes:
        n *= s
    return n


def take_along_dim_backward(grad: Any, sizes: Any, indices: Any, dim: Any) -> Any:
    sizes = tuple(sizes)
    if dim is None:
        flat = _zeros_of((_numel(sizes),), grad)
        return flat.scatter_add(0, indices.reshape(-1), grad.reshape(-1)).reshape(sizes)
    d = dim % len(sizes)
    full = list(_broadcast_sizes(sizes, tuple(indices.shape)))
    full[d] = indices.shape[d]
    idx = indices.expand(tuple(full))
    self_full = list(full)
    self_full[d] = sizes[d]
    return _zeros_of(self_full, grad).scatter_add(d, idx, grad)


def einsum_backward(grad: Any, equation: str, tensors: Any, i: int) -> Any:
    """Operand i's gradient: the einsum of the output's gradient with the other operands, to
    operand i's subscripts (subscripts only operand i has are broadcast back)."""
    lhs, _, out = equation.replace(" ", "").partition("->")
    ins = lhs.split(",")
    if not _ or "..." in equation:
        raise RuntimeError("einsum backward: Ember differentiates explicit equations without '...' only so far")
    mine = ins[i]
    if len(set(mine)) != len(mine):
        raise RuntimeError("einsum backward: an operand with a repeated subscript is not supported by Ember yet")
    others = [s for j, s in enumerate(ins) if j != i]
    available = set(out).union(*others) if others else set(out)
    target = "".join(c for c in mine if c in available)
    g = _einsum(",".join([out] + others) + "->" + target, [grad] + [t for j, t in enumerate(tensors) if j != i])
    for pos, c in enumerate(mine):
        if c not in available:
            g = g.unsqueeze(pos)
    return g.expand(tuple(tensors[i].shape))


def aminmax_backward(gmin: Any, gmax: Any, self: Any, dim: Any, keepdim: bool, mn: Any, mx: Any) -> Any:
    dims = None if dim is None else [dim]
    a = None if gmin is None else amax_amin_backward(gmin, self, mn, dims, keepdim)
    b = None if gmax is None else amax_amin_backward(gmax, self, mx, dims, keepdim)
    return _add_optional(a, b)


def nansum_backward(grad: Any, self: Any, dims: Any, keepdim: bool) -> Any:
    expanded = restore_reduced_dims(grad, dims, keepdim, self.dim()).expand(tuple(self.shape))
    return where(self.isnan(), 0.0, expanded)


# ==== Neural-network kernels (conv, pooling, norms, losses, embedding, dropout) ====
