"""torch.complex and torch.polar: complex tensors built from real ones (their parts written through
view_as_real), with PyTorch's dtype checks and broadcasting."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.pointwise import broadcast_shapes

_empty = find_operator("empty.memory_format")
_view_as_real = find_operator("view_as_real")
_REAL = ("float16", "float32", "float64")


def _check(a: Any, b: Any) -> None:
    if a.dtype.name not in _REAL or b.dtype.name not in _REAL:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {a.dtype.type_name} "
                           f"and {b.dtype.type_name}")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"Expected object of scalar type {a.dtype.type_name} but got scalar type "
                           f"{b.dtype.type_name} for second argument")


def complex(real: Any, imag: Any) -> Any:
    _check(real, imag)
    out = _empty(broadcast_shapes(real, imag), dtype=real.dtype.to_complex(), device=real.device)
    parts = _view_as_real(out)
    parts.select(-1, 0).copy_(real)
    parts.select(-1, 1).copy_(imag)
    return out


def polar(abs: Any, angle: Any) -> Any:
    _check(abs, angle)
    return complex(abs * angle.cos(), abs * angle.sin())


# PyTorch's conjugate and negative bits are lazy views; Ember has neither bit: conj computes the
# conjugate of a complex tensor (conj_physical) and is the tensor itself for a real one, as PyTorch's is.
def conj(self: Any) -> Any:
    return self.conj_physical() if self.dtype.is_complex else self


def resolve_conj(self: Any) -> Any:
    return self


def resolve_neg(self: Any) -> Any:
    return self


def is_conj(self: Any) -> bool:
    return False


def is_neg(self: Any) -> bool:
    return False
