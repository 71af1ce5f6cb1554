"""Adadelta: PyTorch's single-tensor update (torch/optim/adadelta.py): running averages of the squared
gradients and squared updates, their RMS ratio scaling each step."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from torch.optim._single_tensor import SingleTensorOptimizer, check_lr
from torch.optim.optimizer import ParamsT, _get_scalar_dtype, _scalar

__all__ = ["Adadelta"]


class Adadelta(SingleTensorOptimizer):
    """Implements Adadelta algorithm."""

    _GROUP_DEFAULTS = {"foreach": None, "capturable": False, "maximize": False, "differentiable": False}

    def __init__(self, params: ParamsT, lr: float | Tensor = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize, "capturable": capturable, "foreach": foreach,
                                  "differentiable": differentiable})

    def _init_state(self, p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        state["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
        state["square_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        state["acc_delta"] = torch.zeros_like(p, memory_format=torch.preserve_format)

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, rho, eps, weight_decay = _scalar(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
        state["step"].add_(1)
        if weight_decay != 0:
            grad = grad.add(p, alpha=weight_decay)
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if group["differentiable"]:      # sqrt_'s backward needs its output unchanged
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-lr)
