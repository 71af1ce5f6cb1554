"""GradScaler's two operators, written with other operators so one code path serves every device and
nothing is read back to the host (PyTorch's AmpGradScalerKernels, CPU and CUDA alike):

- _amp_foreach_non_finite_check_and_unscale_: multiply each gradient by inv_scale in place (reduced
  floats in float32, rounded once) and set found_inf to 1.0 if any element was inf or NaN;
- _amp_update_scale_: back the scale off after a step with inf/NaN, or grow it (in double, rounded to
  float, never to inf) after growth_interval clean steps in a row.
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import DTYPE_NAMES

_isfinite = find_operator("isfinite")
_logical_not = find_operator("logical_not")
_logical_or = find_operator("logical_or")
_any = find_operator("any")
# The writes run below autograd, as PyTorch's kernels write: a gradient may be a leaf that requires grad.
_masked_fill_ = find_operator("masked_fill_.Scalar").call_below_autograd
_mul = find_operator("mul.Tensor")
_mul_ = find_operator("mul_.Tensor").call_below_autograd
_add = find_operator("add.Scalar")
_eq = find_operator("eq.Tensor")
_ne = find_operator("ne.Tensor")
_where = find_operator("where.self")
_copy_ = find_operator("copy_").call_below_autograd
_to_copy = find_operator("_to_copy")

_GRAD_DTYPES = ("float16", "bfloat16", "float32", "float64")
_FLOAT32, _FLOAT64, _INT32 = DTYPE_NAMES["float32"], DTYPE_NAMES["float64"], DTYPE_NAMES["int32"]


def _check_one_element(t: Any, what: str, dtype: Any, dtype_word: str, device: str) -> None:
    if t.device.type != device:
        raise RuntimeError(f"{what} must be a {device.upper()} tensor.")
    if t.numel() != 1:
        raise RuntimeError(f"{what} must be a 1-element tensor.")
    if t.dtype is not dtype:
        raise RuntimeError(f"{what} must be a{'n' if dtype_word == 'int' else ''} {dtype_word} tensor.")


def _amp_foreach_non_finite_check_and_unscale_(self: Any, found_inf: Any, inv_scale: Any) -> None:
    if len(self) == 0:
        return
    device = self[0].device.type
    _check_one_element(inv_scale, "inv_scale", _FLOAT32, "float", device)
    _check_one_element(found_inf, "found_inf", _FLOAT32, "float", device)
    for t in self:
        if t.device.type != device:
            raise RuntimeError(f"one of scaled_grads was not a {device.upper()} tensor.")
        if t.dtype.name not in _GRAD_DTYPES:
            raise NotImplementedError(f'"_amp_foreach_non_finite_check_and_unscale_{device}" not implemented '
                                      f"for '{t.dtype.type_name}'")
        _masked_fill_(found_inf, _any(_logical_not(_isfinite(t))), 1.0)
        if t.dtype is _FLOAT32 or t.dtype is _FLOAT64:
            _mul_(t, inv_scale)
        else:
            _copy_(t, _mul(_to_copy(t, dtype=_FLOAT32), inv_scale))


def _amp_update_scale_(self: Any, growth_tracker: Any, found_inf: Any, scale_growth_factor: float,
                       scale_backoff_factor: float, growth_interval: int) -> Any:
    device = self.device.type
    _check_one_element(growth_tracker, "growth_tracker", _INT32, "int", device)
    _check_one_element(self, "current_scale", _FLOAT32, "float", device)
    _check_one_element(found_inf, "found_inf", _FLOAT32, "float", device)
    found = _ne(found_inf, 0)                      # NaN counts as found, as a C truth test does
    scale = _to_copy(self, dtype=_FLOAT64)
    backed_off = _to_copy(_mul(scale, scale_backoff_factor), dtype=_FLOAT32)
    grown = _to_copy(_mul(scale, scale_growth_factor), dtype=_FLOAT32)
    successful = _add(growth_tracker, 1)
    at_interval = _eq(successful, growth_interval)
    grow = _where(at_interval, _isfinite(grown), False)
    _copy_(self, _where(found, backed_off, _where(grow, grown, self)))
    _copy_(growth_tracker, _where(_logical_or(found, at_interval), 0, successful))
    return self
