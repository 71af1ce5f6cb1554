"""Helpers the backward formulas of tools/autograd/derivatives.yaml call (PyTorch's
FunctionsManual.cpp, by the same names where Ember has the same formula).

Formulas are written with tensor methods and these functions, so that create_graph=True
differentiates through them. Ember has no complex dtypes: conj() and handle_r_to_c are the
identity, and kept only so formulas read like upstream's."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10 import grad_mode as _grad_mode

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


gelu_backward = find_operator("gelu_backward")     # an op: its own derivative gives gelu's second


def gelu_double_backward(ggI: Any, gO: Any, self: Any, approximate: str) -> Any:
    """d/dx of gO * gelu'(x), times ggI. Exact: gelu''(x) = pdf(x) (2 - x^2). Tanh form, with
    u = beta (x + kappa x^3) and t = tanh(u): (1 - t^2) (u' - x t u'^2 + x u'' / 2)."""
    if approximate == "tanh":
        beta = math.sqrt(2.0 / math.pi)
        kappa = 0.044715
        du = beta * (1 + 3 * kappa * self * self)
        t = (beta * (self + kappa * self * self * self)).tanh()
        second = (1 - t * t) * (du - self * t * du * du + 3 * beta * kappa * self * self)
        return ggI * gO * second
    pdf = (-0.5 * self * self).exp() * (1.0 / math.sqrt(2.0 * math.pi))
    return ggI * gO * pdf * (2 - self * self)


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
    ins, out = einsum_explicit_subscripts(equation, [t.dim() for t in tensors])
    mine = ins[i]
    others = [s for j, s in enumerate(ins) if j != i]
    available = set(out).union(*others) if others else set(out)
    unique = "".join(c for k, c in enumerate(mine) if mine.index(c) == k)
    target = "".join(c for c in unique if c in available)
    g = _einsum(",".join([out] + others) + "->" + target, [grad] + [t for j, t in enumerate(tensors) if j != i])
    return einsum_operand_gradient(g, mine, available, tensors[i])


def aminmax_backward(gmin: Any, gmax: Any, self: Any, dim: Any, keepdim: bool, mn: Any, mx: Any) -> Any:
    dims = None if dim is None else [dim]
    a = None if gmin is None else amax_amin_backward(gmin, self, mn, dims, keepdim)
    b = None if gmax is None else amax_amin_backward(gmax, self, mx, dims, keepdim)
    return _add_optional(a, b)


def nansum_backward(grad: Any, self: Any, dims: Any, keepdim: bool) -> Any:
    expanded = restore_reduced_dims(grad, dims, keepdim, self.dim()).expand(tuple(self.shape))
    return expanded * self.isnan().logical_not()     # PyTorch's product: an inf or NaN grad gives NaN there


# -- issue 6's last missing formulas: einsum's '...' and repeated subscripts, repeat_interleave,
# as_strided, in-place views --

def einsum_explicit_subscripts(equation: str, ndims: list[int]) -> tuple[list[str], str]:
    """The operands' and the output's subscripts with '...' spelled out in unused letters (the
    ellipsis dims broadcast right-aligned, as PyTorch's einsum) and an implicit output made explicit
    (the ellipsis dims, then the letters used exactly once in alphabetical order)."""
    lhs, arrow, out = equation.replace(" ", "").partition("->")
    ins = lhs.split(",")
    used = set(c for c in equation if c.isalpha())
    fresh = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    counts = [nd - (len(sub) - 3) if "..." in sub else 0 for sub, nd in zip(ins, ndims)]
    width = max(counts, default=0)
    letters = "".join(fresh[:width])
    if not arrow:
        once = sorted(c for c in set(lhs) if c.isalpha() and lhs.count(c) == 1)
        out = ("..." if "..." in lhs else "") + "".join(once)
    ins = [sub.replace("...", letters[width - n:] if n else "") for sub, n in zip(ins, counts)]
    return ins, out.replace("...", letters)


def einsum_operand_gradient(g: Any, mine: str, available: set[str], operand: Any) -> Any:
    """g (over operand's distinct subscripts that the other operands or the output have, in order
    of first use) laid out as the operand: subscripts only it has broadcast back, a repeated
    subscript's gradient on that diagonal only, dims it broadcast (size 1) summed."""
    first: dict[str, int] = {}
    for pos, c in enumerate(mine):
        if c in first or c not in available:
            g = g.unsqueeze(pos)
        first.setdefault(c, pos)
    shape = tuple(operand.shape)
    for pos, c in enumerate(mine):
        p0 = first[c]
        if p0 != pos:
            n = max(shape[pos], g.shape[p0])
            mask = [1] * len(mine)
            mask[p0] = mask[pos] = n
            positions = _arange(n, device=g.device)
            g = g * (positions.unsqueeze(1) == positions).to(g.dtype).reshape(mask)
    summed = [k for k in range(len(shape)) if shape[k] == 1 and g.shape[k] != 1]
    if summed:
        g = g.sum(summed, True)
    return g.expand(shape)


_repeat_interleave_index = find_operator("repeat_interleave.Tensor")
_ones_of = find_operator("ones")


def repeat_interleave_backward(grad: Any, sizes: Any, repeats: Any, dim: Any) -> Any:
    """repeat_interleave.self_Tensor's gradient, as PyTorch's decomposition (index_select of
    self with repeat_interleave(repeats)) gives it: each output's gradient added back to the
    element it repeats (index_add, so the backward differentiates again)."""
    sizes = tuple(sizes)
    if dim is None:
        n = 1
        for size in sizes:
            n *= size
        d = 0
    else:
        d = dim % max(len(sizes), 1)
        n = sizes[d] if sizes else 1
    reps = repeats.reshape(-1)
    if reps.numel() == 1:
        reps = reps.expand(n)
    index = _repeat_interleave_index(reps)
    full = list(grad.shape)
    full[d] = n
    return _zeros_of(full, grad).index_add(d, index, grad).reshape(sizes)


def _storage_positions(sizes: Any, strides: Any, offset: int, device: Any) -> Any:
    """The storage index of each element of the geometry (an int64 tensor of shape sizes)."""
    index = _arange(1, device=device).reshape(()) + offset
    for n, st in zip(sizes, strides):
        index = index.unsqueeze(-1) + _arange(n, device=device) * st
    return index


def _storage_extent(sizes: Any, strides: Any, offset: int) -> int:
    if any(n == 0 for n in sizes):
        return 0
    return offset + 1 + sum((n - 1) * st for n, st in zip(sizes, strides))


def as_strided_backward(grad: Any, self: Any, size: Any, stride: Any, storage_offset: Any) -> Any:
    """PyTorch's as_strided_backward: the output's gradient scattered (summed, for an output
    geometry that overlaps itself) into a zero storage at the output's positions, read back at the
    input's positions, each divided by the number of input elements sharing its memory (an input
    that overlaps itself, e.g. expanded). Positions outside the input's view get no gradient."""
    size, stride = tuple(size), tuple(stride)
    in_sizes, in_strides = tuple(self.shape), tuple(self.stride())
    in_offset = self.storage_offset()
    out_offset = in_offset if storage_offset is None else int(storage_offset)
    shared = min(in_offset, out_offset)
    length = max(_storage_extent(size, stride, out_offset - shared),
                 _storage_extent(in_sizes, in_strides, in_offset - shared))
    out_index = _storage_positions(size, stride, out_offset - shared, grad.device).reshape(-1)
    in_index = _storage_positions(in_sizes, in_strides, in_offset - shared, grad.device).reshape(-1)
    storage = _zeros_of((length,), grad).index_add(0, out_index, grad.reshape(-1))
    count = _zeros_of((length,), grad).index_add(0, in_index, _ones_of((in_index.numel(),), dtype=grad.dtype,
                                                                       device=grad.device))
    return (storage.index_select(0, in_index) / count.index_select(0, in_index)).reshape(in_sizes)


def inplace_view_backward(grad_of_view: Any, self: Any) -> Any:
    """An in-place view's gradient (t_, transpose_, squeeze_, ...): the out-of-place view's,
    grad_of_view, in self's shape before the op. Reading self here makes the generated kernel keep
    self as it was before the op changed its shape (the shape it sums the gradient to)."""
    return grad_of_view.reshape(tuple(self.shape))


# ==== Neural-network kernels (conv, pooling, norms, losses, embedding, dropout) ====
# Linear maps (convolutions, pools, pads, upsampling) are differentiated with the ops that
# compute them (convolution, index_add, matmul, constant_pad_nd), never with opaque kernels, so
# their backward is itself differentiable. Normalisations recompute their statistics from the
# input with differentiable ops. Index maps are read from the forward kernels themselves (run on
# an iota input, or on one-hot rows), so they agree with the forward by construction.

_convolution = find_operator("convolution")
_constant_pad_nd = find_operator("constant_pad_nd")
_arange = find_operator("arange")
_ones = find_operator("ones")
_matmul = find_operator("matmul")
_index_add = find_operator("index_add")
_MEAN_REDUCTION, _SUM_REDUCTION = 1, 2


def not_implemented(op: str, input: str) -> Any:
    """An input that PyTorch does not differentiate (a loss's class weights): raise, as upstream."""
    raise RuntimeError(f"The function '{op}' is not differentiable with respect to argument '{input}'. This input "
                       "cannot have requires_grad True.")


def _prod(values: Any) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def _ntuple(value: Any, n: int) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    return value * n if len(value) == 1 else value


def _constant(values: Any, like: Any) -> Any:
    """A tensor of the numbers in a list (or a list of equal-length lists), in like's dtype and
    on its device (made through c10, since this layer may not import torch)."""
    from c10 import tensor_impl
    from c10.scalar_type import dtype_from_name
    nested = len(values) > 0 and isinstance(values[0], list)
    shape = (len(values), len(values[0])) if nested else (len(values),)
    flat = [v for row in values for v in row] if nested else list(values)
    t: Any = tensor_impl.empty(shape, dtype_from_name("float64"))
    if flat:
        t._numpy_view().reshape(-1)[:] = flat
    return t.to(dtype=like.dtype, device=like.device)


def convolution_backward_input(grad: Any, input_sizes: Any, weight: Any, stride: Any, padding: Any, dilation: Any,
                               transposed: bool, groups: int) -> Any:
    """The adjoint of convolution in its input: the transposed convolution (or, for a transposed
    one, the convolution) with the same weight; output_padding restores the input's size."""
    k = weight.dim() - 2
    stride, padding, dilation = _ntuple(stride, k), _ntuple(padding, k), _ntuple(dilation, k)
    if transposed:
        return _convolution(grad, weight, None, stride, padding, dilation, False, (0,) * k, groups)
    output_padding = tuple(int(input_sizes[2 + i]) - ((grad.shape[2 + i] - 1) * stride[i] - 2 * padding[i]
                                                      + dilation[i] * (weight.shape[2 + i] - 1) + 1) for i in range(k))
    return _convolution(grad, weight, None, stride, padding, dilation, True, output_padding, groups)


def _conv_weight_grad(x: Any, g: Any, weight_sizes: Any, stride: Any, padding: Any, dilation: Any, groups: int) -> Any:
    """dW[o, c, j] = sum_{n,i} g[n, o, i] x[n, c, i*stride - padding + j*dilation]: one grouped
    convolution with the batch as channels (stride and dilation swap roles), cut to the kernel."""
    k = len(weight_sizes) - 2
    n, c_in, c_out = x.shape[0], x.shape[1], g.shape[1]
    spatial = list(range(3, 3 + k))
    xs = x.reshape((n, groups, c_in // groups) + tuple(x.shape[2:])).permute([2, 1, 0] + spatial)
    xs = xs.reshape((c_in // groups, groups * n) + tuple(x.shape[2:]))
    gs = g.reshape((n, groups, c_out // groups) + tuple(g.shape[2:])).permute([1, 2, 0] + spatial)
    gs = gs.reshape((c_out, n) + tuple(g.shape[2:]))
    out = _convolution(xs, gs, None, dilation, padding, stride, False, (0,) * k, groups)
    for i in range(k):
        if out.shape[2 + i] != weight_sizes[2 + i]:
            out = out.narrow(2 + i, 0, int(weight_sizes[2 + i]))
    return out.transpose(0, 1)


def convolution_backward_weight(grad: Any, input: Any, weight_sizes: Any, stride: Any, padding: Any, dilation: Any,
                                transposed: bool, groups: int) -> Any:
    k = len(weight_sizes) - 2
    stride, padding, dilation = _ntuple(stride, k), _ntuple(padding, k), _ntuple(dilation, k)
    if transposed:     # the transposed convolution is the adjoint map: input and grad swap roles
        return _conv_weight_grad(grad, input, weight_sizes, stride, padding, dilation, groups)
    return _conv_weight_grad(input, grad, weight_sizes, stride, padding, dilation, groups)


def convolution_backward_bias(grad: Any) -> Any:
    return grad.sum([0] + list(range(2, grad.dim())))


def max_pool2d_with_indices_backward(grad: Any, self_sizes: Any, indices: Any) -> Any:
    """grad added at the argmax of each window (indices are flat over the last two dims)."""
    sizes = tuple(self_sizes)
    plane = int(sizes[-1]) * int(sizes[-2])
    lead = _prod(sizes[:-2])
    offsets = _arange(lead, dtype=indices.dtype, device=indices.device) * plane
    per_plane = indices.numel() // lead if lead else 0      # explicit: -1 is ambiguous for an empty input
    flat = (indices.reshape(lead, per_plane) + offsets.unsqueeze(1)).reshape(-1)
    return _zeros((lead * plane,), dtype=grad.dtype, device=grad.device).index_add(0, flat, grad.reshape(-1)).reshape(sizes)


def avg_pool2d_backward(grad: Any, self_sizes: Any, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
                        count_include_pad: bool, divisor_override: Any) -> Any:
    """Each window's gradient divided by its divisor and spread over the window: a transposed
    convolution with a kernel of ones over the padded frame, then the padding cut off."""
    sizes = tuple(int(s) for s in self_sizes)
    kernel = _ntuple(kernel_size, 2)
    stride = _ntuple(stride, 2) if stride is not None and len(_ntuple(stride, 2)) else kernel
    pads = _ntuple(padding, 2)
    H, W = sizes[-2], sizes[-1]
    out_h, out_w = grad.shape[-2], grad.shape[-1]

    def spans(n_out: int, size: int, k: int, s: int, p: int) -> list[tuple[int, int]]:
        out = []
        for i in range(n_out):
            start = i * s - p
            end = min(start + k, size + p)
            out.append((end - start, min(end, size) - max(start, 0)))
        return out

    rows = spans(out_h, H, kernel[0], stride[0], pads[0])
    cols = spans(out_w, W, kernel[1], stride[1], pads[1])
    divisor = [[float(divisor_override) if divisor_override else
                float((r[0] * c[0]) if count_include_pad else (r[1] * c[1])) or 1.0 for c in cols] for r in rows]
    lead = _prod(sizes[:-2])
    g = (grad / _constant(divisor, grad)).reshape(lead, 1, out_h, out_w)
    ones = _ones((1, 1) + kernel, dtype=grad.dtype, device=grad.device)
    full = _convolution(g, ones, None, stride, (0, 0), (1, 1), True, (0, 0), 1)
    frame_h, frame_w = full.shape[-2], full.shape[-1]
    out = _constant_pad_nd(full, (-pads[1], W + pads[1] - frame_w, -pads[0], H + pads[0] - frame_h), 0)
    return out.reshape(sizes)


def _adaptive_matrix(size: int, out_size: int, like: Any) -> Any:
    """(out_size, size): row i averages the window [floor(i*size/out), ceil((i+1)*size/out))."""
    rows = []
    for i in range(out_size):
        start = (i * size) // out_size
        end = -((-(i + 1) * size) // out_size)
        rows.append([1.0 / (end - start) if start <= j < end else 0.0 for j in range(size)])
    return _constant(rows, like).reshape(out_size, size)


def adaptive_avg_pool2d_backward(grad: Any, self_sizes: Any) -> Any:
    sizes = tuple(int(s) for s in self_sizes)
    rows = _adaptive_matrix(sizes[-2], grad.shape[-2], grad)
    cols = _adaptive_matrix(sizes[-1], grad.shape[-1], grad)
    return _matmul(_matmul(rows.t(), grad), cols)


def index_map_backward(grad: Any, self_sizes: Any, spatial: int, forward: Any) -> Any:
    """The gradient of an op whose every output element copies one input element (pads, nearest
    upsampling): the forward run on an iota of the spatial dims gives each output's source."""
    sizes = tuple(int(s) for s in self_sizes)
    if grad.numel() == 0:
        return _zeros(sizes, dtype=grad.dtype, device=grad.device)
    plane = _prod(sizes[-spatial:])
    with _NoGrad():
        iota = _arange(plane, dtype=_float64(), device=grad.device).reshape((1, 1) + sizes[-spatial:])
        source = forward(iota).reshape(-1).long()
    lead = sizes[:-spatial]
    g = grad.reshape(lead + (grad.numel() // _prod(lead) if _prod(lead) else 0,))
    return _zeros(lead + (plane,), dtype=grad.dtype, device=grad.device).index_add(len(lead), source, g).reshape(sizes)


class _NoGrad:
    def __enter__(self) -> None:
        from c10 import grad_mode
        self.prev = grad_mode.is_grad_enabled()
        grad_mode.set_grad_enabled(False)

    def __exit__(self, *exc: Any) -> None:
        from c10 import grad_mode
        grad_mode.set_grad_enabled(self.prev)


def _float64() -> Any:
    from c10.scalar_type import dtype_from_name
    return dtype_from_name("float64")


def upsample_bilinear2d_backward(grad: Any, self_sizes: Any, output_size: Any, align_corners: bool, scales_h: Any,
                                 scales_w: Any) -> Any:
    """Bilinear upsampling is separable, out = A_h x A_w^T: each matrix is read off the kernel
    run on one-hot rows (a width or height of 1 makes the other direction the identity)."""
    op = find_operator("upsample_bilinear2d")
    sizes = tuple(int(s) for s in self_sizes)
    H, W = sizes[-2], sizes[-1]
    out_h, out_w = int(output_size[0]), int(output_size[1])
    with _NoGrad():
        eye_h = _eye(H, grad).reshape(1, H, H, 1)
        rows_t = op(eye_h, (out_h, 1), align_corners, scales_h, None).reshape(H, out_h)     # A_h^T
        eye_w = _eye(W, grad).reshape(1, W, 1, W)
        cols_t = op(eye_w, (1, out_w), align_corners, None, scales_w).reshape(W, out_w)     # A_w^T
    return _matmul(_matmul(rows_t, grad), cols_t.t())


def _eye(n: int, like: Any) -> Any:
    return find_operator("eye")(n, dtype=like.dtype, device=like.device)


def _norm_stats(x: Any, dims: list[int], eps: float) -> tuple[Any, Any, Any]:
    """mean, rstd and the normalised input over dims (biased variance), differentiably."""
    mean = x.mean(dims, keepdim=True)
    centred = x - mean
    rstd = ((centred * centred).mean(dims, keepdim=True) + eps).rsqrt()
    return mean, rstd, centred * rstd


def _norm_input_grad(g: Any, xhat: Any, rstd: Any, dims: list[int]) -> Any:
    """d/dx of xhat = (x - mean) * rstd, contracted with g (g already multiplied by the weight)."""
    return rstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True))


def _channel_view(t: Any, ndim: int) -> Any:
    return t.reshape([1, -1] + [1] * (ndim - 2)) if ndim > 1 else t


_layer_norm_backward_input = find_operator("_ember_layer_norm_backward_input")
_layer_norm_backward_weight = find_operator("_ember_layer_norm_backward_weight")


def layer_norm_backward(which: int, grad: Any, input: Any, normalized_shape: Any, weight: Any, eps: float,
                        mean: Any, rstd: Any) -> Any:
    """Without create_graph, fused kernels from the forward's mean and rstd (PyTorch's
    native_layer_norm_backward); with it, the same gradient in differentiable operations, the
    statistics recomputed from the input so that they are differentiated too."""
    axis = input.dim() - len(normalized_shape)
    dims = list(range(axis, input.dim()))
    batch = list(range(axis))
    if which == 2:
        return grad.sum(batch) if batch else grad
    if not _grad_mode.is_grad_enabled() and input.device.type == "cpu":
        if which == 1:
            return _layer_norm_backward_weight(grad, input, mean, rstd, normalized_shape)
        return _layer_norm_backward_input(grad, input, mean, rstd, weight)
    _, rstd, xhat = _norm_stats(input, dims, eps)
    if which == 1:
        return (grad * xhat).sum(batch) if batch else grad * xhat
    g = grad * weight if weight is not None else grad
    return _norm_input_grad(g, xhat, rstd, dims)


def batch_norm_backward(which: int, grad: Any, input: Any, weight: Any, running_mean: Any, running_var: Any,
                        training: bool, eps: float) -> Any:
    """Training: the batch statistics are functions of the input; evaluation: the running ones
    are constants. Running statistics never get a gradient."""
    dims = [0] + list(range(2, input.dim()))
    if which == 2:
        return grad.sum(dims)
    if training or running_mean is None:
        _, rstd, xhat = _norm_stats(input, dims, eps)
    else:
        rstd = _channel_view((running_var + eps).rsqrt(), input.dim())
        xhat = (input - _channel_view(running_mean, input.dim())) * rstd
    if which == 1:
        return (grad * xhat).sum(dims)
    g = grad * _channel_view(weight, input.dim()) if weight is not None else grad
    if training or running_mean is None:
        return _norm_input_grad(g, xhat, rstd, dims)
    return g * rstd


def group_norm_backward(which: int, grads: Any, input: Any, weight: Any, N: int, C: int, HxW: int, group: int,
                        eps: float) -> Any:
    """Outputs: y, mean (N, group), rstd (N, group); all three are differentiable."""
    grad, grad_mean, grad_rstd = grads
    dims = [0] + list(range(2, input.dim()))
    x = input.reshape(N, group, -1)
    mean, rstd, xhat = _norm_stats(x, [2], eps)
    if which == 2:
        return grad.sum(dims) if grad is not None else None
    if which == 1:
        return (grad * xhat.reshape(input.shape)).sum(dims) if grad is not None else None
    out = None
    if grad is not None:
        g = grad * _channel_view(weight, input.dim()) if weight is not None else grad
        out = _norm_input_grad(g.reshape(N, group, -1), xhat, rstd, [2])
    count = x.shape[2]
    if grad_mean is not None:
        term = (grad_mean.unsqueeze(2) / count).expand(x.shape)
        out = term if out is None else out + term
    if grad_rstd is not None:
        term = -grad_rstd.unsqueeze(2) * rstd * rstd * rstd * (x - mean) / count
        out = term if out is None else out + term
    return out.reshape(input.shape) if out is not None else None


def nll_loss_backward(grad: Any, self_sizes: Any, target: Any, weight: Any, reduction: int, ignore_index: int,
                      total_weight: Any) -> Any:
    """-weight[target] * grad at each target class (0 where the target is ignore_index), divided
    by total_weight for the mean: a comparison with the class index, so it stays differentiable."""
    sizes = tuple(int(s) for s in self_sizes)
    class_dim = 0 if len(sizes) == 1 else 1
    valid = target != ignore_index
    safe = where(valid, target, 0)
    if weight is not None:
        w = where(valid, weight.index_select(0, safe.reshape(-1)).reshape(safe.shape), 0.0)
    else:
        w = valid.to(grad.dtype)
    if reduction == _MEAN_REDUCTION:
        grad = grad / where(total_weight == 0, 1.0, total_weight)
    coef = -(w * grad).unsqueeze(class_dim)
    shape = [1] * len(sizes)
    shape[class_dim] = sizes[class_dim]
    classes = _arange(sizes[class_dim], dtype=target.dtype, device=target.device).reshape(shape)
    return where(classes == safe.unsqueeze(class_dim), coef, 0.0).expand(sizes)


def _loss_grad(grad: Any, elementwise: Any, reduction: int) -> Any:
    if reduction == _MEAN_REDUCTION:
        return elementwise * (grad / elementwise.numel())
    return elementwise * grad


def binary_cross_entropy_backward(grad: Any, self: Any, target: Any, weight: Any, reduction: int) -> Any:
    """(x - y) / max(x (1 - x), 1e-12), as upstream's kernel."""
    d = (self - target) / ((1 - self) * self).clamp(min=1e-12)
    return _loss_grad(grad, d * weight if weight is not None else d, reduction)


def binary_cross_entropy_target_backward(grad: Any, self: Any, target: Any, weight: Any, reduction: int) -> Any:
    """log(1 - x) - log(x) (infinite at x = 0 or 1, as upstream: the forward's clamp at -100 is
    not differentiated)."""
    d = (1 - self).log() - self.log()
    return _loss_grad(grad, d * weight if weight is not None else d, reduction)


def _log_sigmoid(x: Any) -> Any:
    return -(-x).relu() - (1 + (-x.abs()).exp()).log()


def binary_cross_entropy_with_logits_backward(grad: Any, self: Any, target: Any, weight: Any, pos_weight: Any,
                                              reduction: int) -> Any:
    """loss = (1 - y) x + (1 + (p - 1) y) softplus(-x): d/dx = (1 + (p - 1) y) sigmoid(x) - p y."""
    if pos_weight is not None:
        d = (1 + (pos_weight - 1) * target) * self.sigmoid() - pos_weight * target
    else:
        d = self.sigmoid() - target
    return _loss_grad(grad, d * weight if weight is not None else d, reduction)


def binary_cross_entropy_with_logits_target_backward(grad: Any, self: Any, target: Any, weight: Any,
                                                     pos_weight: Any, reduction: int) -> Any:
    """d/dy = -x - (p - 1) log_sigmoid(x)."""
    d = -self if pos_weight is None else -self - (pos_weight - 1) * _log_sigmoid(self)
    return _loss_grad(grad, d * weight if weight is not None else d, reduction)


def embedding_backward(grad: Any, indices: Any, num_weights: int, padding_idx: int, scale_grad_by_freq: bool) -> Any:
    """Rows of grad added to the rows they were read from; padding_idx gets none; with
    scale_grad_by_freq each row is divided by how often its index occurs in the batch."""
    index = indices.reshape(-1)
    g = grad.reshape(index.shape[0], grad.shape[-1])
    if scale_grad_by_freq:
        counts = _zeros((num_weights,), dtype=grad.dtype, device=grad.device).index_add(
            0, index, _ones((index.shape[0],), dtype=grad.dtype, device=grad.device))
        g = g / counts.index_select(0, index).unsqueeze(1)
    g = where((index != padding_idx).unsqueeze(1), g, 0.0)
    return _zeros((num_weights, g.shape[1]), dtype=grad.dtype, device=grad.device).index_add(0, index, g)


def native_dropout_backward(grad: Any, mask: Any, p: float, train: Any) -> Any:
    """grad * mask / (1 - p) where the forward dropped (train True or None), grad otherwise."""
    if train is False:
        return grad
    return grad * mask * (0.0 if p == 1 else 1.0 / (1.0 - p))


def upsample_nearest2d_backward(grad: Any, self_sizes: Any, output_size: Any, scales_h: Any, scales_w: Any) -> Any:
    op = find_operator("upsample_nearest2d")
    return index_map_backward(grad, self_sizes, 2, lambda t: op(t, output_size, scales_h, scales_w))


def pad_backward(grad: Any, self_sizes: Any, op_name: str, padding: Any) -> Any:
    """reflection_pad1d/2d, replication_pad1d/2d, _pad_circular: each output copies one input."""
    op = find_operator(op_name)
    return index_map_backward(grad, self_sizes, len(padding) // 2, lambda t: op(t, padding))
