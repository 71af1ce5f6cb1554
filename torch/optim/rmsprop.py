"""RMSprop (centered, momentum, weight decay, maximize): PyTorch's single-tensor update
(torch/optim/rmsprop.py), in place on the parameters under no_grad."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from torch.optim.optimizer import (Optimizer, ParamsT, _get_scalar_dtype, _scalar, _to_scalar,
                                   _use_grad_for_differentiable)

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """Implements RMSprop algorithm."""

    _GROUP_DEFAULTS = {"momentum": 0, "centered": False, "foreach": None, "maximize": False, "differentiable": False, "capturable": False}
    _STEP_TENSORS = True

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        loss = self._evaluate(closure)
        state = self.state
        for group in self.param_groups:
            momentum = group["momentum"]
            centered = group["centered"]
            params: list[Tensor] = []
            grads: list[Tensor] = []
            square_avgs: list[Tensor] = []
            grad_avgs: list[Tensor] = []
            buffers: list[Tensor] = []
            steps: list[Tensor] = []
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                params.append(p)
                grads.append(grad)
                s = state[p]
                if len(s) == 0:
                    s["step"] = torch.zeros((), dtype=_get_scalar_dtype())
                    s["square_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    if momentum > 0:
                        s["momentum_buffer"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    if centered:
                        s["grad_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                square_avgs.append(s["square_avg"])
                steps.append(s["step"])
                if momentum > 0:
                    buffers.append(s["momentum_buffer"])
                if centered:
                    grad_avgs.append(s["grad_avg"])
            rmsprop(params, grads, square_avgs, grad_avgs, buffers, steps, maximize=group["maximize"],
                    lr=group["lr"], alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
                    momentum=momentum, centered=centered)
        return loss


def rmsprop(params: list[Tensor], grads: list[Tensor], square_avgs: list[Tensor], grad_avgs: list[Tensor],
            momentum_buffer_list: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
            maximize: bool = False, differentiable: bool = False, capturable: bool = False,
            has_complex: bool = False, *, lr: float, alpha: float, eps: float, weight_decay: float,
            momentum: float, centered: bool) -> None:
    r"""Functional API that performs rmsprop algorithm computation (PyTorch's single-tensor form).

    See :class:`~torch.optim.RMSProp` for details.
    """
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    lr = _scalar(_to_scalar(lr))
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        square_avg = square_avgs[i]
        state_steps[i].add_(1)
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)
