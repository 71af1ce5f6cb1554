"""NAdam: PyTorch's single-tensor update (torch/optim/nadam.py): Adam with Nesterov momentum whose
coefficient mu_t decays with momentum_decay (the running product of the mu's kept in the state)."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from torch.optim._single_tensor import SingleTensorOptimizer, check_common
from torch.optim.optimizer import ParamsT, _get_scalar_dtype, _scalar

__all__ = ["NAdam"]


class NAdam(SingleTensorOptimizer):
    """Implements NAdam algorithm."""

    _GROUP_DEFAULTS = {"foreach": None, "maximize": False, "capturable": False, "differentiable": False,
                       "decoupled_weight_decay": False}

    def __init__(self, params: ParamsT, lr: float | Tensor = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        check_common(lr, eps, weight_decay, betas)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize, "foreach": foreach, "capturable": capturable,
                                  "differentiable": differentiable})

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        # states saved by older PyTorch releases hold mu_product as Python floats
        for param_state in self.state.values():
            for key in ('mu_product',):
                if key in param_state and not torch.is_tensor(param_state[key]):
                    param_state[key] = torch.tensor(param_state[key], dtype=_get_scalar_dtype())

    def _init_state(self, p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        state["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
        state["mu_product"] = torch.tensor(1.0, dtype=_get_scalar_dtype())
        state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = _scalar(group["lr"]), group["betas"], group["eps"]
        weight_decay, momentum_decay = group["weight_decay"], group["momentum_decay"]
        state["step"].add_(1)
        step = state["step"].item()
        bias_correction2 = 1 - beta2 ** step
        if weight_decay != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(p, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product = state["mu_product"]
        mu_product *= mu
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add(eps)     # not in place: sqrt's backward needs it
        product = mu_product.item()
        p.addcdiv_(grad, denom, value=-lr * (1.0 - mu) / (1.0 - product))
        p.addcdiv_(exp_avg, denom, value=-lr * mu_next / (1.0 - product * mu_next))
