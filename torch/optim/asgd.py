"""ASGD: PyTorch's single-tensor update (torch/optim/asgd.py): SGD with a step size eta decaying as
lr / (1 + lambd lr t) ** alpha and, after t0 steps, a running average ax of the iterates."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from torch.optim._single_tensor import SingleTensorOptimizer, check_common
from torch.optim.optimizer import ParamsT, _get_scalar_dtype, _scalar

__all__ = ["ASGD"]


class ASGD(SingleTensorOptimizer):
    """Implements Averaged Stochastic Gradient Descent."""

    _GROUP_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
                 t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_common(lr, 0.0, weight_decay)
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "capturable": capturable,
                                  "differentiable": differentiable})

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        # states saved by older PyTorch releases hold eta, mu as Python floats
        for param_state in self.state.values():
            for key in ('eta', 'mu'):
                if key in param_state and not torch.is_tensor(param_state[key]):
                    param_state[key] = torch.tensor(param_state[key], dtype=_get_scalar_dtype())

    def _init_state(self, p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        state["step"] = torch.zeros((), dtype=_get_scalar_dtype())
        state["eta"] = torch.as_tensor(_scalar(group["lr"]), dtype=_get_scalar_dtype()).clone().detach()
        state["mu"] = torch.ones((), dtype=_get_scalar_dtype())
        state["ax"] = torch.zeros_like(p, memory_format=torch.preserve_format)

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, lambd, alpha, t0 = _scalar(group["lr"]), group["lambd"], group["alpha"], group["t0"]
        state["step"].add_(1)
        step = state["step"].item()
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        eta, mu, ax = state["eta"], state["mu"], state["ax"]
        eta_value = eta.item()
        p.mul_(1 - lambd * eta_value)
        p.add_(grad, alpha=-eta_value)
        if mu.item() != 1:
            ax.add_(p.sub(ax).mul_(mu))
        else:
            ax.copy_(p)
        eta.copy_(torch.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
        mu.copy_(torch.as_tensor(1 / max(1, step - t0)))
