"""Adagrad (lr_decay, weight decay, initial accumulator, maximize): PyTorch's single-tensor update
(torch/optim/adagrad.py). As PyTorch's, the state ('step', 'sum') exists from construction."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from torch.optim.optimizer import (Optimizer, ParamsT, _get_scalar_dtype, _scalar, _to_scalar,
                                   _use_grad_for_differentiable)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """Implements Adagrad algorithm."""

    _GROUP_DEFAULTS = {"foreach": None, "maximize": False, "differentiable": False, "fused": None}
    _STEP_TENSORS = True

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        self._check_fused(fused, differentiable, foreach)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, initial_accumulator_value)

    def _init_state(self, p: Tensor, initial_accumulator_value: float) -> dict[str, Any]:
        state = self.state[p]
        state["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
        state["sum"] = torch.full_like(p, initial_accumulator_value, memory_format=torch.preserve_format)
        return state

    def share_memory(self) -> None:
        """Calls tensor.share_memory_() on the state sum tensors."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        loss = self._evaluate(closure)
        state = self.state
        for group in self.param_groups:
            params: list[Tensor] = []
            grads: list[Tensor] = []
            sums: list[Tensor] = []
            steps: list[Tensor] = []
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                params.append(p)
                grads.append(grad)
                s = state[p]
                if len(s) == 0:
                    s = self._init_state(p, self.defaults["initial_accumulator_value"])
                sums.append(s["sum"])
                steps.append(s["step"])
            adagrad(params, grads, sums, steps, lr=group["lr"], weight_decay=group["weight_decay"],
                    lr_decay=group["lr_decay"], eps=group["eps"], maximize=group["maximize"])
        return loss


def adagrad(params: list[Tensor], grads: list[Tensor], state_sums: list[Tensor], state_steps: list[Tensor],
            fused: bool | None = None, grad_scale: Tensor | None = None, found_inf: Tensor | None = None,
            has_sparse_grad: bool = False, foreach: bool | None = None, differentiable: bool = False,
            has_complex: bool = False, *, lr: float, weight_decay: float, lr_decay: float, eps: float,
            maximize: bool) -> None:
    r"""Functional API that performs Adagrad algorithm computation (PyTorch's single-tensor form).

    See :class:`~torch.optim.Adagrad` for details.
    """
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr = _scalar(_to_scalar(lr))
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps):
        step_t.add_(1)
        step = step_t.item()
        if maximize:
            grad = -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)
