"""Backward formulas' helpers for pointwise ops: arithmetic, powers, clamps and activations."""
from __future__ import annotations

import math

from typing import Any

from aten.dispatcher import find_operator
from c10 import grad_mode as _grad_mode

_softplus = find_operator("softplus")
_softmax_backward_data = find_operator("_softmax_backward_data")
_log_softmax_backward_data = find_operator("_log_softmax_backward_data")
_where = find_operator("where.self")
_threshold_backward = find_operator("threshold_backward")
_zeros_like = find_operator("zeros_like")


def conj(x: Any) -> Any:
    """Upstream formulas' x.conj(): the conjugate of a complex tensor or number, x itself otherwise
    (without a dispatch: most gradients are real)."""
    if isinstance(x, complex):
        return x.conjugate()
    if isinstance(x, (int, float)) or not x.dtype.is_complex:
        return x
    return x.conj_physical()


def acosh_backward(grad: Any, self: Any) -> Any:
    """Upstream's: one rsqrt of self^2 - 1 for real inputs, where sqrt(x y) = sqrt(x) sqrt(y) holds;
    the two factors for complex ones, where it does not."""
    if self.dtype.is_complex:
        return grad * conj((self + 1).rsqrt() * (self - 1).rsqrt())
    return grad * (self * self - 1).rsqrt()


def angle_backward(grad: Any, self: Any) -> Any:
    """Upstream's angle_backward: 0 for real inputs; grad * i z / |z|^2 (0 at z = 0) for complex ones."""
    if not self.dtype.is_complex:
        return _zeros_like(self)
    return _where(self == 0, _zeros_like(self), grad * self / self.abs().pow(2) * 1j)


def polar_backward_abs(grad: Any, result: Any) -> Any:
    return (conj(grad) * result.sgn()).real


def polar_backward_angle(grad: Any, result: Any) -> Any:
    return (conj(grad) * (result * 1j)).real


def maybe_multiply(t: Any, s: Any) -> Any:
    """t * s, skipping the multiplication by 1 (as upstream)."""
    return t if (isinstance(s, (int, float)) and s == 1) else t * s


def mul_tensor_backward(grad: Any, other: Any, self_scalar_type: Any) -> Any:
    return grad * other


def div_tensor_self_backward(grad: Any, other: Any, self_scalar_type: Any) -> Any:
    return grad / other


def div_tensor_other_backward(grad: Any, self: Any, other: Any) -> Any:
    return -grad * conj((self / other) / other)


def pow_backward(grad: Any, self: Any, exponent: Any) -> Any:
    if isinstance(exponent, (int, float)) and exponent == 0:
        return grad * 0
    return grad * conj(exponent * self.pow(exponent - 1))


def pow_backward_self(grad: Any, self: Any, exponent: Any) -> Any:
    """d/dself self**exponent, 0 where the exponent is 0 (as upstream's pow_backward_self)."""
    return where(exponent == 0, 0.0, grad * conj(exponent * self.pow(exponent - 1)))


def pow_backward_exponent(grad: Any, self: Any, exponent: Any, result: Any) -> Any:
    """d/dexponent self**exponent = result * log(self), 0 where self is 0 and exponent >= 0."""
    return grad * where((self == 0) & (exponent.real >= 0), 0.0, conj(result * self.log()))


def threshold_backward(grad: Any, self: Any, threshold: Any) -> Any:
    # the op (one kernel): a select, not a product, so an infinite incoming gradient below the
    # threshold gives 0, not NaN
    return _threshold_backward(grad, self, threshold)


def where(condition: Any, a: Any, b: Any) -> Any:
    return _where(condition, a, b)


def clamp_backward(grad: Any, self: Any, min: Any, max: Any) -> Any:
    keep = None
    if min is not None:
        keep = self >= min
    if max is not None:
        keep = (self <= max) if keep is None else keep & (self <= max)
    return grad if keep is None else where(keep, grad, 0.0)


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


gelu_backward = find_operator("gelu_backward")     # an op: its own derivative gives gelu's second


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


def zeros_like(t: Any) -> Any:
    return _zeros_like(t)


def softmax_backward_data(grad: Any, output: Any, dim: int) -> Any:
    if not _grad_mode.is_grad_enabled():      # no double backward to build: the kernel, one pass per row
        return _softmax_backward_data(grad, output, dim, output.dtype)
    return output * (grad - (grad * output).sum(dim, keepdim=True))


def log_softmax_backward_data(grad: Any, output: Any, dim: int) -> Any:
    if not _grad_mode.is_grad_enabled():
        return _log_softmax_backward_data(grad, output, dim, output.dtype)
    return grad - output.exp() * grad.sum(dim, keepdim=True)
