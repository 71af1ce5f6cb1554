"""torch.autograd.forward_ad: forward-mode AD's user API (dual tensors).

Inside `dual_level()`, `make_dual(x, t)` gives an alias of x that carries the tangent t; every differentiable op on
it computes its output's tangent (the Jacobian-vector product) along with the value, and `unpack_dual(y)` gives
back (primal, tangent). Tangents are dropped when the level exits. One level at a time, as PyTorch's;
torch.func.jvp nests its own. The runtime is torch/csrc/autograd/forward_grad.py.
"""
from __future__ import annotations

from collections import namedtuple
from typing import Any

from torch.autograd.grad_mode import _DecoratorContextManager

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

# The level this API works at (-1: none); torch.func.jvp's levels are not this API's.
_current_level = -1


def _runtime() -> Any:
    from torch.csrc.autograd import forward_grad      # its operators exist once torch is imported
    return forward_grad


def enter_dual_level() -> int:
    """Enter a new forward AD level; make_dual and unpack_dual use it by default."""
    global _current_level
    if _current_level > _runtime().current_level():
        _current_level = -1           # left by torch.func.jvp, whose function raised inside this API's level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _current_level = _runtime().enter_level()
    return _current_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Exit the current level: every tangent made in it is deleted."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _runtime().exit_level(level)
    _current_level = -1


def make_dual(tensor: Any, tangent: Any, *, level: int | None = None) -> Any:
    """A new tensor aliased to `tensor` (backward-differentiable, as a view) carrying `tangent` as its forward
    gradient, as is."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    _runtime().check_level(level, "_make_dual")
    return _runtime().make_dual(tensor, tangent, level)


_UnpackedDualTensor = namedtuple("_UnpackedDualTensor", ["primal", "tangent"])


class UnpackedDualTensor(_UnpackedDualTensor):
    """What unpack_dual returns: (primal, tangent)."""


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent): primal is a view of tensor without the tangent, tangent is tensor's as is (None when it
    has none)."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    runtime = _runtime()
    runtime.check_level(level, "_fw_primal")
    return UnpackedDualTensor(runtime.primal_of(tensor, level), runtime.tangent(tensor, level))


class dual_level(_DecoratorContextManager):
    """Context manager (and decorator) that enables forward AD: dual tensors live inside it."""

    def __enter__(self) -> int:  # type: ignore[override]   # the level, as PyTorch's
        return enter_dual_level()

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        exit_dual_level()
