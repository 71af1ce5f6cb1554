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
    scale = 2.0 / self.numel() if reduction == 1 else 2.0
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


# ==== Neural-network kernels (conv, pooling, norms, losses, embedding, dropout) ====
