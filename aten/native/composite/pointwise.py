"""Pointwise ops whose optional or string arguments choose between generated formulas or
combine them: div's rounding_mode, clamp/clip, square, nan_to_num, gelu (and its backward), logit."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import float_limits
from c10.tensor_impl import scalar_to_tensor

_div = find_operator("div.Tensor")
_div_trunc = find_operator("_ember_div_trunc")
_floor_divide = find_operator("floor_divide")
_trunc = find_operator("trunc")
_clamp_min = find_operator("clamp_min.Tensor")
_clone = find_operator("clone")
_clamp_max = find_operator("clamp_max.Tensor")
_mul = find_operator("mul.Tensor")
_where = find_operator("where.self")
_isnan = find_operator("isnan")
_isposinf = find_operator("isposinf")
_isneginf = find_operator("isneginf")
_gelu = find_operator("_ember_gelu")
_gelu_tanh = find_operator("_ember_gelu_tanh")
_gelu_backward = find_operator("_ember_gelu_backward")
_gelu_tanh_backward = find_operator("_ember_gelu_tanh_backward")
_logit = find_operator("_ember_logit")



def div_Tensor_mode(self: Any, other: Any, rounding_mode: Any = None) -> Any:
    if rounding_mode is None:
        return _div(self, other)
    if rounding_mode == "trunc":
        return _div_trunc(self, other)
    if rounding_mode == "floor":
        return _floor_divide(self, other)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


def square(self: Any) -> Any:
    if self.dtype.name == "bool":     # PyTorch: pow(self, 2), which gives int64 for bool
        self = _mul(self, scalar_to_tensor(1))
    return _mul(self, self)


def clamp_Tensor(self: Any, min: Any = None, max: Any = None) -> Any:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    result = self
    if min is not None:
        result = _clamp_min(result, min)
    if max is not None:
        result = _clamp_max(result, max)
    return result


def clamp(self: Any, min: Any = None, max: Any = None) -> Any:
    # Python numbers take part in type promotion (clamp(int_tensor, 0.5) is floating), as PyTorch.
    return clamp_Tensor(self, None if min is None else scalar_to_tensor(min),
                        None if max is None else scalar_to_tensor(max))


def clip(self: Any, min: Any = None, max: Any = None) -> Any:
    return clamp(self, min, max)


def clip_Tensor(self: Any, min: Any = None, max: Any = None) -> Any:
    return clamp_Tensor(self, min, max)


def nan_to_num(self: Any, nan: Any = None, posinf: Any = None, neginf: Any = None) -> Any:
    if self.dtype.is_complex:       # not an integral type: its NaNs would pass through the copy below
        raise NotImplementedError(f'"nan_to_num" not implemented for \'{self.dtype.type_name}\'')
    if not self.dtype.is_floating_point:
        return _clone(self)         # integral values are all finite: a copy, as PyTorch's
    limit = float_limits(self.dtype)[2]        # the dtype's largest finite value, from the dtype table
    result = _where(_isnan(self), scalar_to_tensor(0.0 if nan is None else float(nan)), self)
    result = _where(_isposinf(self), scalar_to_tensor(limit if posinf is None else float(posinf)), result)
    return _where(_isneginf(self), scalar_to_tensor(-limit if neginf is None else float(neginf)), result)


def gelu(self: Any, approximate: str = "none") -> Any:
    if approximate == "none":
        return _gelu(self)
    if approximate == "tanh":
        return _gelu_tanh(self)
    raise RuntimeError("approximate argument must be either none or tanh.")


def gelu_backward(grad_output: Any, self: Any, approximate: str = "none") -> Any:
    if approximate == "none":
        return _gelu_backward(grad_output, self)
    if approximate == "tanh":
        return _gelu_tanh_backward(grad_output, self)
    raise RuntimeError("approximate argument must be either none or tanh.")


def logit(self: Any, eps: Any = None) -> Any:
    if eps is not None:
        self = clamp(self, eps, 1.0 - eps)
    return _logit(self)
