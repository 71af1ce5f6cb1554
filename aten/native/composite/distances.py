"""cosine_similarity and pairwise_distance, as PyTorch composes them (so their gradients are the
autograd of the ops they use)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.pointwise import result_type_of
from c10 import grad_mode

_vector_norm = find_operator("linalg_vector_norm")
_norm = find_operator("norm.ScalarOpt_dim")
_div = find_operator("div.Tensor")
_mul = find_operator("mul.Tensor")
_sub = find_operator("sub.Tensor")
_add = find_operator("add.Tensor")
_sum = find_operator("sum.dim_IntList")
_clone = find_operator("clone")
_clamp_min_ = find_operator("clamp_min_")
_broadcast_tensors = find_operator("broadcast_tensors")


def cosine_similarity(x1: Any, x2: Any, dim: int = 1, eps: float = 1e-8) -> Any:
    """sum(x1 / |x1| * x2 / |x2|) along dim, each norm at least eps; each input divided by its own
    norm first (results stay within [-1, 1]). The clamps run without grad, as PyTorch's."""
    common = result_type_of(x1, x2)
    if not common.is_floating_point:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {common.type_name}")
    if not x1.dtype.is_floating_point:
        x1 = x1.to(dtype=common)
    if not x2.dtype.is_floating_point:
        x2 = x2.to(dtype=common)
    x1, x2 = _broadcast_tensors([x1, x2])
    norm1 = _clone(_vector_norm(x1, 2, [dim], True))
    norm2 = _clone(_vector_norm(x2, 2, [dim], True))
    previous = grad_mode.is_grad_enabled()
    grad_mode.set_grad_enabled(False)
    try:
        _clamp_min_(norm1, eps)
        _clamp_min_(norm2, eps)
    finally:
        grad_mode.set_grad_enabled(previous)
    return _sum(_mul(_div(x1, norm1), _div(x2, norm2)), [dim])


def pairwise_distance(x1: Any, x2: Any, p: float = 2, eps: float = 1e-6, keepdim: bool = False) -> Any:
    """The p-norm of x1 - x2 + eps along the last dim of the broadcast inputs."""
    innermost = max(x1.dim(), x2.dim()) - 1
    return _norm(_add(_sub(x1, x2), eps), p, [innermost], keepdim)
