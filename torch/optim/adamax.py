"""Adamax: PyTorch's single-tensor update (torch/optim/adamax.py): Adam with the infinity norm of the
gradients in place of their second moment."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from torch.optim._single_tensor import SingleTensorOptimizer, check_common
from torch.optim.optimizer import ParamsT, _get_scalar_dtype, _scalar

__all__ = ["Adamax"]


class Adamax(SingleTensorOptimizer):
    """Implements Adamax algorithm (a variant of Adam based on infinity norm)."""

    _GROUP_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def __init__(self, params: ParamsT, lr: float | Tensor = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_common(lr, eps, weight_decay, betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _init_state(self, p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        state["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
        state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        state["exp_inf"] = torch.zeros_like(p, memory_format=torch.preserve_format)

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = _scalar(group["lr"]), group["betas"], group["eps"]
        state["step"].add_(1)
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg.lerp_(grad, 1 - beta1)
        if group["differentiable"]:      # no out=: autograd records the running maximum
            norms = torch.cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(torch.amax(norms, 0, keepdim=False))
        else:
            torch.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        p.addcdiv_(exp_avg, exp_inf, value=-lr / (1 - beta1 ** step))
