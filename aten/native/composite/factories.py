"""Creation operators for every backend (CompositeExplicitAutograd): zeros, ones, full and the
*_like / new_* ops are an empty tensor on the requested backend, then fill_ (on the CPU, zeros,
ones, full and scalar_tensor have their own kernels in aten/native/cpu/empty.pyx); arange,
linspace, logspace and eye have CPU kernels (aten/native/cpu/factories.pyx), whose result is
copied to the device when another is asked for."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta import context
from aten.native.meta.tensor_options import empty_like_on, fill_uninitialized, fresh, new_empty_on
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
        elif isinstance(fill_value, complex):
            dtype = scalar_type.get_default_dtype().to_complex()
    out = _empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    return fresh(_fill(out, fill_value))


def zeros(size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    if any(s < 0 for s in size):
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    return fresh(_fill(_empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory), 0))


def ones(size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return fresh(_fill(_empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory), 1))


# -- *_like, new_*, clone, zero_ -------------------------------------------------------------------
# One allocation on the target device (aten/native/meta/tensor_options.pyx), then fill_; what a
# factory returns is new, so at version 0 (fresh), whatever its fill counted.

def empty_like(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
               memory_format: Any = None) -> Any:
    """A new tensor of self's shape; preserve_format (the default) keeps self's stride order."""
    out = empty_like_on(self, dtype, layout, device, pin_memory, memory_format)
    return fill_uninitialized(out) if context.filling else out


def _filled_like(self: Any, value: Any, dtype: Any, layout: Any, device: Any, pin_memory: Any,
                 memory_format: Any) -> Any:
    return fresh(_fill(empty_like_on(self, dtype, layout, device, pin_memory, memory_format), value))


def zeros_like(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
               memory_format: Any = None) -> Any:
    return _filled_like(self, 0, dtype, layout, device, pin_memory, memory_format)


def ones_like(self: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
              memory_format: Any = None) -> Any:
    return _filled_like(self, 1, dtype, layout, device, pin_memory, memory_format)


def full_like(self: Any, fill_value: Any, dtype: Any = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None, memory_format: Any = None) -> Any:
    return _filled_like(self, fill_value, dtype, layout, device, pin_memory, memory_format)


def new_empty(self: Any, size: Any, dtype: Any = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None) -> Any:
    """new_*: self's dtype and device unless given (new_full does not infer a dtype from the value)."""
    out = new_empty_on(self, size, dtype, layout, device, pin_memory)
    return fill_uninitialized(out) if context.filling else out


def new_zeros(self: Any, size: Any, dtype: Any = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None) -> Any:
    return fresh(_fill(new_empty_on(self, size, dtype, layout, device, pin_memory), 0))


def new_ones(self: Any, size: Any, dtype: Any = None, layout: Any = None, device: Any = None,
             pin_memory: Any = None) -> Any:
    return fresh(_fill(new_empty_on(self, size, dtype, layout, device, pin_memory), 1))


def new_full(self: Any, size: Any, fill_value: Any, dtype: Any = None, layout: Any = None, device: Any = None,
             pin_memory: Any = None) -> Any:
    return fresh(_fill(new_empty_on(self, size, dtype, layout, device, pin_memory), fill_value))


def new_empty_strided(self: Any, size: Any, stride: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: Any = None) -> Any:
    return _empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype, layout=layout,
                          device=self.device if device is None else device, pin_memory=pin_memory)


def clone(self: Any, memory_format: Any = None) -> Any:
    return fresh(_copy(empty_like(self, memory_format=memory_format), self))


def zero_(self: Any) -> Any:
    return _fill(self, 0)


def scalar_tensor(s: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return fresh(_fill(_empty((), dtype=dtype, layout=layout, device=device, pin_memory=pin_memory), s))


# -- ranges and eye --------------------------------------------------------------------------------
# Their CPU kernels compute them (aten/native/cpu/factories.pyx: PyTorch's CPU arithmetic, bit for
# bit); another device gets the CPU result copied over (these kernels run for devices without one).

_arange_op = find_operator("arange.start_step")
_linspace_op = find_operator("linspace")
_logspace_op = find_operator("logspace")
_eye_m_op = find_operator("eye.m")


def _on_device(t: Any, device: Any) -> Any:
    if device is None or device.type == "cpu":
        return t
    return fresh(_copy(_empty(t._sizes(), dtype=t.dtype, device=device), t))


def arange(end: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _arange_op(0, end, 1, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def arange_start(start: Any, end: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None) -> Any:
    return _arange_op(start, end, 1, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def arange_start_step(start: Any, end: Any, step: Any = 1, dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: Any = None) -> Any:
    return _on_device(_arange_op(start, end, step, dtype=dtype, layout=layout, pin_memory=pin_memory), device)


def linspace(start: Any, end: Any, steps: int, dtype: Any = None, layout: Any = None, device: Any = None,
             pin_memory: Any = None) -> Any:
    return _on_device(_linspace_op(start, end, steps, dtype=dtype, layout=layout, pin_memory=pin_memory), device)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, dtype: Any = None, layout: Any = None,
             device: Any = None, pin_memory: Any = None) -> Any:
    return _on_device(_logspace_op(start, end, steps, base, dtype=dtype, layout=layout, pin_memory=pin_memory),
                      device)


def eye(n: int, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _eye_m_op(n, n, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def eye_m(n: int, m: int, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _on_device(_eye_m_op(n, m, dtype=dtype, layout=layout, pin_memory=pin_memory), device)
