"""Losses upstream writes as composites of pointwise ops and a reduction (l1_loss, kl_div; smooth_l1
and huber have fused kernels upstream, the same formulas here). As schema operators they dispatch,
so autocast's fp32 policy reaches them as PyTorch's lists say."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_sub = find_operator("sub.Tensor")
_mul = find_operator("mul.Tensor")
_abs = find_operator("abs")
_exp = find_operator("exp")
_lt = find_operator("lt.Tensor")
_where = find_operator("where.self")
_xlogy = find_operator("xlogy.Tensor")
_mean = find_operator("mean")
_sum = find_operator("sum")
_index_select = find_operator("index_select")
_arange = find_operator("arange")

NONE, MEAN, SUM = 0, 1, 2      # the reduction codes of torch.nn._reduction.get_enum


def reduce_loss(loss: Any, reduction: int) -> Any:
    """upstream's apply_loss_reduction: the loss as it is, its mean or its sum."""
    if reduction == MEAN:
        return _mean(loss)
    if reduction == SUM:
        return _sum(loss)
    return loss


def l1_loss(self: Any, target: Any, reduction: int = MEAN) -> Any:
    return reduce_loss(_abs(_sub(self, target)), reduction)


def _floating_only(self: Any, target: Any, kernel: str) -> None:
    """Upstream's fused kernels have floating loops only."""
    if not (self.dtype.is_floating_point or target.dtype.is_floating_point):
        raise NotImplementedError(f'"{kernel}_{self.device.type}" not implemented for \'{self.dtype.type_name}\'')


def smooth_l1_loss(self: Any, target: Any, reduction: int = MEAN, beta: float = 1.0) -> Any:
    """0.5 d^2 / beta where |d| < beta, |d| - 0.5 beta elsewhere (d = self - target)."""
    _floating_only(self, target, "smooth_l1")
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    z = _abs(_sub(self, target))
    if beta == 0.0:
        return reduce_loss(z, reduction)
    return reduce_loss(_where(_lt(z, beta), _mul(_mul(z, z), 0.5 / beta), _sub(z, 0.5 * beta)), reduction)


def huber_loss(self: Any, target: Any, reduction: int = MEAN, delta: float = 1.0) -> Any:
    """0.5 d^2 where |d| < delta, delta (|d| - 0.5 delta) elsewhere (d = self - target)."""
    _floating_only(self, target, "huber")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    z = _abs(_sub(self, target))
    return reduce_loss(_where(_lt(z, delta), _mul(_mul(z, z), 0.5), _mul(_sub(z, 0.5 * delta), delta)), reduction)


def kl_div(self: Any, target: Any, reduction: int = MEAN, log_target: bool = False) -> Any:
    """target (log target - self) pointwise: self holds log-probabilities, and so does target with log_target."""
    if not (self.dtype.is_floating_point and target.dtype.is_floating_point):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if log_target:
        loss = _mul(_exp(target), _sub(target, self))
    else:
        loss = _sub(_xlogy(target, target), _mul(target, self))
    return reduce_loss(loss, reduction)


def nll_loss_backward(grad_output: Any, self: Any, target: Any, weight: Any, reduction: int, ignore_index: int,
                      total_weight: Any) -> Any:
    """nll_loss's gradient on self: -weight[target] * grad at each target class (0 where the target
    is ignore_index), divided by total_weight for the mean; a comparison with the class index, so it
    stays differentiable. Any class dim (1, or 0 for an unbatched input) and spatial dims (nll_loss2d)."""
    sizes = tuple(self.shape)
    class_dim = 0 if len(sizes) == 1 else 1
    valid = target != ignore_index
    safe = _where(valid, target, 0)
    if weight is not None:
        w = _where(valid, _index_select(weight, 0, safe.reshape(-1)).reshape(safe.shape), 0.0)
    else:
        w = valid.to(grad_output.dtype)
    grad = grad_output
    if reduction == MEAN:
        grad = grad / _where(total_weight == 0, 1.0, total_weight)
    coef = -(w * grad).unsqueeze(class_dim)
    shape = [1] * len(sizes)
    shape[class_dim] = sizes[class_dim]
    classes = _arange(sizes[class_dim], dtype=target.dtype, device=target.device).reshape(shape)
    return _where(classes == safe.unsqueeze(class_dim), coef, 0.0).expand(sizes)
