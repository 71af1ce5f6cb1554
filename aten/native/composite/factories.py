"""Creation operators for every backend (CompositeExplicitAutograd): zeros, ones, full and the
*_like ops are an empty tensor on the requested backend, then fill_; arange, linspace,
logspace and eye are filled on the CPU (aten/native/cpu/factories.pyx) and copied to the
device when another is asked for."""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.cpu import factories as _fills
from aten.native.cpu import shape as _shape
from aten.native.cpu import views as _views
from c10 import layout as _layout
from c10 import scalar_type

_empty = find_operator("empty.memory_format")
_empty_strided = find_operator("empty_strided")
_fill = find_operator("fill_.Scalar")
_copy = find_operator("copy_")


def full(size: Any, fill_value: Any, dtype: Any = None, layout: Any = None, device: Any = None,
         pin_memory: Any = None) -> Any:
    if dtype is None:
        # torch.full infers the dtype from the fill value, as torch.tensor does.
        if isinstance(fill_value, bool):
            dtype = scalar_type.dtype_from_name("bool")
        elif isinstance(fill_value, int):
            dtype = scalar_type.dtype_from_name("int64")
    out = _empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return _fill(out, fill_value)


def zeros(size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _fill(_empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory), 0)


def ones(size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _fill(_empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory), 1)


# -- *_like, clone, zero_ ------------------------------------------------------------------------

def _cpu_like(self: Any, layout: Any, device: Any, pin_memory: Any) -> bool:
    """The CPU fast path applies: a CPU tensor made like a CPU tensor, default layout."""
    return (self.device.type == "cpu" and (device is None or device.type == "cpu")
            and (layout is None or layout is _layout.strided) and not pin_memory)


def empty_like(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
               memory_format: Any = None) -> Any:
    """A new tensor of self's shape; preserve_format (the default) keeps self's stride order."""
    if _cpu_like(self, layout, device, pin_memory):
        return _shape.new_like_cpu(self, dtype, memory_format)
    size = self._sizes()
    mf = _layout.preserve_format if memory_format is None else memory_format
    if mf is _layout.preserve_format:
        strides = _views.preserve_strides(self)
    elif mf is _layout.channels_last:
        strides = _views.channels_last_strides(size)
    elif mf is _layout.contiguous_format:
        strides = None
    else:
        raise RuntimeError(f"empty_like: unsupported memory format {mf!r}")
    dtype = self.dtype if dtype is None else dtype
    device = self.device if device is None else device
    if strides is None or strides == _views.contiguous_strides_of(size):
        return _empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return _empty_strided(size, strides, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def _filled_like(self: Any, value: Any, dtype: Any, layout: Any, device: Any, pin_memory: Any,
                 memory_format: Any) -> Any:
    if _cpu_like(self, layout, device, pin_memory):
        return _shape.fill_cpu(_shape.new_like_cpu(self, dtype, memory_format), value)
    return _fill(empty_like(self, dtype, layout, device, pin_memory, memory_format), value)


def zeros_like(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
               memory_format: Any = None) -> Any:
    return _filled_like(self, 0, dtype, layout, device, pin_memory, memory_format)


def ones_like(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
              memory_format: Any = None) -> Any:
    return _filled_like(self, 1, dtype, layout, device, pin_memory, memory_format)


def full_like(self: Any, fill_value: Any, dtype: Any = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None, memory_format: Any = None) -> Any:
    return _filled_like(self, fill_value, dtype, layout, device, pin_memory, memory_format)


def clone(self: Any, memory_format: Any = None) -> Any:
    return _copy(empty_like(self, memory_format=memory_format), self)


def zero_(self: Any) -> Any:
    return _fill(self, 0)


def scalar_tensor(s: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _fill(_empty((), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory), s)


# -- ranges and eye: computed on the CPU, then moved to the device -------------------------------

def _check_options(layout: Any, pin_memory: Any) -> None:
    _empty((0,), layout=layout, pin_memory=pin_memory)    # the factories' checks of layout and pin_memory


def _on_device(t: Any, device: Any) -> Any:
    if device is None or device.type == "cpu":
        return t
    return _copy(_empty(t._sizes(), dtype=t.dtype, device=device), t)


_FLOAT32 = scalar_type.dtype_from_name("float32")


def _to_float16(wide: Any, device: Any) -> Any:
    out = _empty(wide._sizes(), dtype=scalar_type.dtype_from_name("float16"))
    return _on_device(_copy(out, wide), device)


def _not_implemented(op: str, dtype: Any) -> NotImplementedError:
    return NotImplementedError(f"\"{op}_cpu\" not implemented for '{dtype.type_name}'")


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _to_int64(value: Any) -> int:
    """Scalar.to<int64_t>(): PyTorch's overflow error, truncation toward zero for floats."""
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    v = int(value)
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return v


def _arange(start: Any, end: Any, step: Any, dtype: Any, layout: Any, device: Any, pin_memory: Any) -> Any:
    if dtype is None:
        # Integers (and bools) give int64, anything else the default dtype (PyTorch's rule).
        integral = all(isinstance(v, int) for v in (start, end, step))
        dtype = scalar_type.dtype_from_name("int64") if integral else scalar_type.get_default_dtype()
    if dtype.name == "bool":
        raise _not_implemented("arange", dtype)
    if dtype.name == "float16":
        # PyTorch computes float16 ranges in float and rounds each value once.
        return _to_float16(_arange(start, end, step, _FLOAT32, layout, None, pin_memory), device)
    floating = dtype.is_floating_point
    # The accumulation type: double for floating dtypes, int64 for integral ones.
    xstart, xend, xstep = (float(start), float(end), float(step)) if floating else \
        (_to_int64(start), _to_int64(end), _to_int64(step))
    dstart, dend, dstep = float(start), float(end), float(step)
    if not (dstep > 0 or dstep < 0):
        raise RuntimeError("step must be nonzero")
    if floating and not (math.isfinite(xstart) and math.isfinite(xend)):
        raise RuntimeError(f"unsupported range: {xstart:g} -> {xend:g}")
    if not ((dstep > 0 and xend >= xstart) or (dstep < 0 and xend <= xstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype.name == "int64":
        if xstep == 0:
            raise ValueError("step must be nonzero")
        sign = (xstep > 0) - (xstep < 0)
        num = xend - xstart + xstep - sign
        size = abs(num) // abs(xstep) * (1 if (num >= 0) == (xstep > 0) else -1)   # C's truncating division
    else:
        ratio = (dend - dstart) / dstep
        size = math.ceil(ratio) if math.isfinite(ratio) else -1
    if not 0 <= size <= _INT64_MAX:
        raise RuntimeError("invalid size, possible overflow?")
    out = _empty((size,), dtype=dtype, layout=layout, pin_memory=pin_memory)
    _fills.arange_fill(out, xstart, xstep)
    return _on_device(out, device)


def arange(end: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _arange(0, end, 1, dtype, layout, device, pin_memory)


def arange_start(start: Any, end: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Any:
    return _arange(start, end, 1, dtype, layout, device, pin_memory)


def arange_start_step(start: Any, end: Any, step: Any = 1, dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: Any = None) -> Any:
    return _arange(start, end, step, dtype, layout, device, pin_memory)


def _spaced(op: str, start: Any, end: Any, steps: int, base: float, dtype: Any, layout: Any, device: Any,
            pin_memory: Any) -> Any:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    out = _empty((steps,), dtype=dtype, layout=layout, pin_memory=pin_memory)
    if steps == 1:
        _fill(out, start if op == "linspace" else _fills.c_pow(base, float(start)))
    elif steps > 1:
        if out.dtype.name == "bool":
            raise _not_implemented(op, out.dtype)
        if out.dtype.name == "float16":
            wide = _spaced(op, start, end, steps, base, _FLOAT32, layout, None, pin_memory)
            return _to_float16(wide, device)
        if op == "linspace":
            _fills.linspace_fill(out, start, end)
        else:
            _fills.logspace_fill(out, start, end, base)
    return _on_device(out, device)


def linspace(start: Any, end: Any, steps: int, dtype: Any = None, layout: Any = None, device: Any = None,
             pin_memory: Any = None) -> Any:
    return _spaced("linspace", start, end, steps, 10.0, dtype, layout, device, pin_memory)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, dtype: Any = None, layout: Any = None,
             device: Any = None, pin_memory: Any = None) -> Any:
    return _spaced("logspace", start, end, steps, base, dtype, layout, device, pin_memory)


def _eye(n: int, m: int, dtype: Any, layout: Any, device: Any, pin_memory: Any) -> Any:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    _check_options(layout, pin_memory)
    return _on_device(_shape.eye_cpu(n, m, dtype), device)


def eye(n: int, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _eye(n, n, dtype, layout, device, pin_memory)


def eye_m(n: int, m: int, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _eye(n, m, dtype, layout, device, pin_memory)
