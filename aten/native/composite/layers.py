"""Layer functions upstream writes as composites (prelu, bilinear), with its argument checks. As
schema operators they dispatch, so autocast reaches them as PyTorch's lists say."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import CPP_TYPE_NAMES

_reshape = find_operator("reshape")
_ge = find_operator("ge.Tensor")
_mul = find_operator("mul.Tensor")
_add = find_operator("add.Tensor")
_where = find_operator("where.self")
_matmul = find_operator("matmul")
_permute = find_operator("permute")
_unsqueeze = find_operator("unsqueeze")
_sum_dim = find_operator("sum.dim_IntList")


def prelu(self: Any, weight: Any) -> Any:
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or one for all."""
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    channels = self._sizes()[1] if self.dim() >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    if self.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {self.dtype.type_name} and "
                           f"{weight.dtype.type_name}")
    if weight.numel() == 1:
        weight = _reshape(weight, ())
    elif self.dim() >= 2:
        shape = [1] * self.dim()
        shape[1] = weight.numel()
        weight = _reshape(weight, shape)
    return _where(_ge(self, 0), self, _mul(weight, self))


def bilinear(input1: Any, input2: Any, weight: Any, bias: Any = None) -> Any:
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    if not input1.dtype is input2.dtype is weight.dtype:
        raise RuntimeError(f"All tensors must have the same dtype, got input1: {CPP_TYPE_NAMES[input1.dtype.name]}, "
                           f"input2: {CPP_TYPE_NAMES[input2.dtype.name]}, weight: {CPP_TYPE_NAMES[weight.dtype.name]}")
    shape1, shape2 = tuple(input1._sizes()), tuple(input2._sizes())
    if shape1[:-1] != shape2[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {shape1[:-1]} and {shape2[:-1]}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be a three-dimensional tensor, but got {weight.dim()}")
    w = tuple(weight._sizes())
    if shape1[-1] != w[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {shape1[-1]} but "
                           f"expected {w[1]}")
    if shape2[-1] != w[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {shape2[-1]} but "
                           f"expected {w[2]}")
    x1 = _reshape(input1, (-1, shape1[-1]))
    x2 = _reshape(input2, (-1, shape2[-1]))
    # (N, I) @ (I, O*J) -> (N, O, J), then contract J with x2.
    t = _reshape(_matmul(x1, _reshape(_permute(weight, (1, 0, 2)), (w[1], -1))), (x1._sizes()[0], w[0], -1))
    out = _sum_dim(_mul(t, _unsqueeze(x2, 1)), [-1])
    if bias is not None:
        out = _add(out, bias)
    return _reshape(out, (*shape1[:-1], w[0]))
