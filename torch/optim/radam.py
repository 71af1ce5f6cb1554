"""RAdam: PyTorch's single-tensor update (torch/optim/radam.py): Adam whose adaptive step is used only
once the variance of its estimate is tractable (rho_t > 5), rectified by r_t; plain momentum before."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from torch.optim._single_tensor import SingleTensorOptimizer, check_common
from torch.optim.optimizer import ParamsT, _get_scalar_dtype, _scalar

__all__ = ["RAdam"]


class RAdam(SingleTensorOptimizer):
    """Implements RAdam algorithm."""

    _GROUP_DEFAULTS = {"foreach": None, "maximize": False, "capturable": False, "differentiable": False,
                       "decoupled_weight_decay": False}

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_common(lr, eps, weight_decay, betas)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "capturable": capturable,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "differentiable": differentiable})

    def _init_state(self, p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        state["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
        state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps, weight_decay = _scalar(group["lr"]), group["betas"], group["eps"], \
            group["weight_decay"]
        state["step"].add_(1)
        step = state["step"].item()
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(p, alpha=weight_decay)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive = (bias_correction2 ** 0.5) / exp_avg_sq.sqrt().add(eps)     # sqrt's backward needs its output
            p.add_(corrected * lr * adaptive * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)
