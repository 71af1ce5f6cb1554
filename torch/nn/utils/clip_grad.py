"""Gradient clipping (PyTorch's torch.nn.utils.clip_grad): by total norm or by value, in place."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch
from torch import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_"]


def _as_list(tensors: Any) -> list[Any]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def get_total_norm(tensors: Any, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the norms of tensors (the norm of their concatenation); foreach is ignored."""
    tensors = [t for t in _as_list(tensors) if t is not None]
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return torch.tensor(0.0)
    with torch.no_grad():
        norms = [torch.linalg.vector_norm(t, norm_type) for t in tensors]
        total_norm = torch.linalg.vector_norm(torch.stack(norms), norm_type)
    if error_if_nonfinite and bool(total_norm.isnan() | total_norm.isinf()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total_norm


def clip_grads_with_norm_(parameters: Any, max_norm: float, total_norm: Tensor, foreach: bool | None = None) -> None:
    """Scale the gradients by min(1, max_norm / (total_norm + 1e-6))."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if len(grads) == 0:
        return
    with torch.no_grad():
        clip_coef = float(max_norm) / (total_norm + 1e-6)
        clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped.to(g.dtype))


def clip_grad_norm_(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Scale the gradients in place so that their total norm is at most max_norm; returns the
    total norm before clipping (norm_type may be inf)."""
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters: Any, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """Deprecated alias of clip_grad_norm_."""
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient to [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    with torch.no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
