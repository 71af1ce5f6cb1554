"""torch.complex and torch.polar: complex tensors built from real ones (their parts written through
view_as_real), with PyTorch's dtype checks and broadcasting."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.pointwise import broadcast_shapes
from c10 import grad_mode

_empty = find_operator("empty.memory_format")
_view_as_real = find_operator("view_as_real")
_REAL = ("float16", "float32", "float64")


def refuse_autograd(name: str, *tensors: Any) -> None:
    """Ember's autograd has no complex gradients yet: an input that requires grad is refused rather
    than cut off from the graph."""
    if grad_mode.is_grad_enabled() and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"{name}: Ember does not differentiate through complex tensors yet (an input requires "
                           "grad)")


def _check(a: Any, b: Any) -> None:
    if a.dtype.name not in _REAL or b.dtype.name not in _REAL:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {a.dtype.type_name} "
                           f"and {b.dtype.type_name}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {a.dtype.type_name} but got scalar type "
                           f"{b.dtype.type_name} for second argument")


def complex(real: Any, imag: Any) -> Any:
    _check(real, imag)
    refuse_autograd("torch.complex", real, imag)
    out = _empty(broadcast_shapes(real, imag), dtype=real.dtype.to_complex(), device=real.device)
    parts = _view_as_real(out)
    parts.select(-1, 0).copy_(real)
    parts.select(-1, 1).copy_(imag)
    return out


def polar(abs: Any, angle: Any) -> Any:
    _check(abs, angle)
    refuse_autograd("torch.polar", abs, angle)
    return complex(abs * angle.cos(), abs * angle.sin())
