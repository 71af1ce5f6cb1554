"""Rprop: PyTorch's single-tensor update (torch/optim/rprop.py): each entry's own step size grows by
etaplus while its gradient keeps its sign and shrinks by etaminus when it flips (that step is then
skipped), within step_sizes; the parameter moves by the sign of its gradient."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from torch.optim._single_tensor import SingleTensorOptimizer, check_lr
from torch.optim.optimizer import ParamsT, _get_scalar_dtype, _scalar

__all__ = ["Rprop"]


class Rprop(SingleTensorOptimizer):
    """Implements the resilient backpropagation algorithm."""

    _GROUP_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False, "capturable": False}

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _init_state(self, p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        state["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
        state["prev"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        assert p.grad is not None       # the state is made at the first step with a gradient
        state["step_size"] = torch.full_like(p.grad, _scalar(group["lr"]))

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        (etaminus, etaplus), (step_min, step_max) = group["etas"], group["step_sizes"]
        state["step"].add_(1)
        prev, step_size = state["prev"], state["step_size"]
        sign = grad.mul(prev.clone() if group["differentiable"] else prev).sign()
        sign[sign.gt(0)] = etaplus
        sign[sign.lt(0)] = etaminus
        sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_min, step_max)
        grad = grad.clone(memory_format=torch.preserve_format)
        grad[sign.eq(etaminus)] = 0       # after a sign change the step is skipped (and remembered as 0)
        p.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
