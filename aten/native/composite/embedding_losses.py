"""The ranking and embedding losses PyTorch writes as composites of pointwise ops and a reduction
(margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss, soft_margin_loss,
triplet_margin_loss, poisson_nll_loss): the same formulas, checks and messages, so their
gradients are those of the ops they use."""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.composite.losses import MEAN, reduce_loss

_sub = find_operator("sub.Tensor")
_add = find_operator("add.Tensor")
_mul = find_operator("mul.Tensor")
_div = find_operator("div.Tensor")
_neg = find_operator("neg")
_exp = find_operator("exp")
_log = find_operator("log")
_log1p = find_operator("log1p")
_sqrt = find_operator("sqrt")
_clamp_min = find_operator("clamp_min")
_where = find_operator("where.self")
_eq = find_operator("eq.Tensor")        # a number for other is wrapped, as PyTorch's Scalar overloads
_ne = find_operator("ne.Tensor")
_le = find_operator("le.Tensor")
_zeros_like = find_operator("zeros_like")
_sum_dim = find_operator("sum.dim_IntList")
_minimum = find_operator("minimum")
_masked_fill = find_operator("masked_fill.Scalar")
_pairwise_distance = find_operator("pairwise_distance")

_EPSILON = 1e-12      # cosine_embedding_loss's guard of the squared magnitudes


def margin_ranking_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0, reduction: int = MEAN) -> Any:
    """max(0, -target (input1 - input2) + margin)."""
    return reduce_loss(_clamp_min(_add(_mul(_neg(target), _sub(input1, input2)), margin), 0), reduction)


def hinge_embedding_loss(self: Any, target: Any, margin: float = 1.0, reduction: int = MEAN) -> Any:
    """x where target is 1, max(0, margin - x) where it is -1 (both where it is neither)."""
    zeros = _zeros_like(self)
    margin_part = _where(_ne(target, 1), _clamp_min(_sub(_neg(self), -margin), 0), zeros)
    self_part = _where(_ne(target, -1), self, zeros)
    return reduce_loss(_add(margin_part, self_part), reduction)


def cosine_embedding_loss(input1: Any, input2: Any, target: Any, margin: float = 0.0, reduction: int = MEAN) -> Any:
    """1 - cos where target is 1, max(0, cos - margin) where it is -1."""
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if dim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    products = _sum_dim(_mul(input1, input2), [dim])
    square1 = _add(_sum_dim(_mul(input1, input1), [dim]), _EPSILON)
    square2 = _add(_sum_dim(_mul(input2, input2), [dim]), _EPSILON)
    cos = _div(products, _sqrt(_mul(square1, square2)))
    zeros = _zeros_like(cos)
    positive = _where(_eq(target, 1), _sub(_neg(cos), -1), zeros)
    negative = _where(_eq(target, -1), _clamp_min(_sub(cos, margin), 0), zeros)
    return reduce_loss(_add(positive, negative), reduction)


def soft_margin_loss(self: Any, target: Any, reduction: int = MEAN) -> Any:
    """log(1 + exp(-target x))."""
    return reduce_loss(_log1p(_exp(_mul(_neg(self), target))), reduction)


def triplet_margin_loss(anchor: Any, positive: Any, negative: Any, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-06, swap: bool = False, reduction: int = MEAN) -> Any:
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm distance (with swap,
    the nearer of the negative to the anchor and to the positive)."""
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if not dims[0] == dims[1] == dims[2]:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {dims[0]}D, positive {dims[1]}D, and negative {dims[2]}D "
                           "inputs")
    to_positive = _pairwise_distance(anchor, positive, p, eps)
    to_negative = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        to_negative = _minimum(to_negative, _pairwise_distance(positive, negative, p, eps))
    return reduce_loss(_clamp_min(_sub(_add(to_positive, margin), to_negative), 0), reduction)


def poisson_nll_loss(input: Any, target: Any, log_input: bool, full: bool, eps: float, reduction: int) -> Any:
    """exp(x) - target x for a log rate x (else x - target log(x + eps)), with Stirling's
    approximation of log(target!) where target > 1 when full."""
    if log_input:
        loss = _sub(_exp(input), _mul(target, input))
    else:
        loss = _sub(input, _mul(target, _log(_add(input, eps))))
    if full:
        stirling = _add(_sub(_mul(target, _log(target)), target), _mul(_log(_mul(target, 2 * math.pi)), 0.5))
        loss = _add(loss, _masked_fill(stirling, _le(target, 1), 0))
    return reduce_loss(loss, reduction)
