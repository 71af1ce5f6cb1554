"""AdamW: Adam with decoupled weight decay (param *= 1 - lr * weight_decay before the update), as
PyTorch 2.13's AdamW, a thin subclass of Adam (torch/optim/adamw.py)."""
from __future__ import annotations

from typing import Any

from torch import Tensor

from torch.optim.adam import Adam, adam
from torch.optim.optimizer import ParamsT

__all__ = ["AdamW", "adamw"]


class AdamW(Adam):
    """Implements AdamW algorithm, where weight decay does not accumulate in the momentum nor variance."""

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adamw(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
          max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
          capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
          grad_scale: Tensor | None = None, found_inf: Tensor | None = None, has_complex: bool = False, *,
          amsgrad: bool, beta1: float | Tensor, beta2: float | Tensor, lr: float | Tensor, weight_decay: float,
          eps: float, maximize: bool) -> None:
    r"""Functional API that performs AdamW algorithm computation.

    See :class:`~torch.optim.AdamW` for details.
    """
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=foreach,
         capturable=capturable, differentiable=differentiable, fused=fused, grad_scale=grad_scale,
         found_inf=found_inf, has_complex=has_complex, amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, eps=eps, maximize=maximize, decoupled_weight_decay=True)
