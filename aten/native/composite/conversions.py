"""Conversions and whole-tensor comparisons for every backend: _to_copy and the `to` overloads
(aten/native/TensorConversions.cpp), isclose and allclose (TensorCompare.cpp)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10 import layout as _layout
from c10.device import canonical
from c10.scalar_type import get_default_dtype
from c10.tensor_impl import scalar_to_tensor

_empty_like = find_operator("empty_like")
_copy = find_operator("copy_")
_eq = find_operator("eq.Tensor")
_isnan = find_operator("isnan")
_isfinite = find_operator("isfinite")
_logical_and = find_operator("logical_and")
_logical_or = find_operator("logical_or")
_sub = find_operator("sub.Tensor")
_mul = find_operator("mul.Tensor")
_add = find_operator("add.Tensor")
_abs = find_operator("abs")
_le = find_operator("le.Tensor")
_all = find_operator("all")


def _to_copy(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
             non_blocking: bool = False, memory_format: Any = None) -> Any:
    """A new tensor with self's values, on `device` as `dtype`; preserve_format keeps dense strides."""
    out = _empty_like(self, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory,
                      memory_format=memory_format)
    return _copy(out, self, non_blocking)


def _will_alias(self: Any, dtype: Any, layout: Any, device: Any, copy: bool, memory_format: Any) -> bool:
    """PyTorch's to_will_alias: nothing asked for differs from self, and no copy was requested."""
    if copy:
        return False
    if dtype is not None and dtype is not self.dtype:
        return False
    if layout is not None and layout is not _layout.strided:
        return False
    if device is not None and canonical(device) != self.device:
        return False
    if memory_format is None or memory_format is _layout.preserve_format:
        return True
    # suggest_memory_format(): channels_last only for 4-d tensors laid out that way.
    return _is_channels_last(self) == (memory_format is _layout.channels_last)


def _is_channels_last(t: Any) -> bool:
    if t.dim() != 4:
        return False
    n, c, h, w = t.shape
    return t.stride() == (h * w * c, 1, w * c, c) and c > 1


def to_dtype_layout(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
                    non_blocking: bool = False, copy: bool = False, memory_format: Any = None) -> Any:
    if pin_memory is None and _will_alias(self, dtype, layout, device, copy, memory_format):
        return self
    return _to_copy(self, dtype, layout, device, pin_memory, non_blocking, memory_format)


def to_device(self: Any, device: Any, dtype: Any, non_blocking: bool = False, copy: bool = False,
              memory_format: Any = None) -> Any:
    return to_dtype_layout(self, dtype, None, device, None, non_blocking, copy, memory_format)


def to_dtype(self: Any, dtype: Any, non_blocking: bool = False, copy: bool = False, memory_format: Any = None) -> Any:
    return to_dtype_layout(self, dtype, None, None, None, non_blocking, copy, memory_format)


def to_other(self: Any, other: Any, non_blocking: bool = False, copy: bool = False, memory_format: Any = None) -> Any:
    return to_dtype_layout(self, other.dtype, None, other.device, None, non_blocking, copy, memory_format)


def isclose(self: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Any:
    """|self - other| <= atol + rtol * |other|, elementwise; equal values (infinities too) are close."""
    if self.dtype is not other.dtype:
        raise RuntimeError(f"{self.dtype.type_name} did not match {other.dtype.type_name}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    close = _eq(self, other)
    if equal_nan and self.dtype.is_floating_point:
        close = _logical_or(close, _logical_and(_isnan(self), _isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    if not self.dtype.is_floating_point:
        # PyTorch measures integral (and bool) errors in the default dtype: no wrap-around.
        self, other = _to_copy(self, dtype=get_default_dtype()), _to_copy(other, dtype=get_default_dtype())
    allowed = _add(_abs(_mul(other, scalar_to_tensor(rtol))), scalar_to_tensor(atol))
    actual = _abs(_sub(self, other))
    return _logical_or(close, _logical_and(_isfinite(actual), _le(actual, allowed)))


def allclose(self: Any, other: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(_all(isclose(self, other, rtol, atol, equal_nan)).item())
