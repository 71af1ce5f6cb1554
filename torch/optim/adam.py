"""Adam (and, with decoupled_weight_decay, AdamW): PyTorch's single-tensor update
(torch/optim/adam.py) with bias corrections from the float32 'step' counter, amsgrad and maximize,
run for a whole group by one multi-tensor kernel where the tensors allow (torch/optim/_multi_tensor.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from torch.optim import _multi_tensor
from torch.optim.optimizer import (Optimizer, ParamsT, _get_scalar_dtype, _scalar, _to_scalar,
                                   _use_grad_for_differentiable)

__all__ = ["Adam", "adam"]


def _check_adam_args(lr: Any, betas: tuple[Any, Any], eps: float, weight_decay: float, foreach: bool | None,
                     capturable: bool) -> None:
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
        raise ValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], Tensor):
            if not capturable and foreach:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
            if betas[i].numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


class Adam(Optimizer):
    """Implements Adam algorithm."""

    _GROUP_DEFAULTS = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False, "differentiable": False, "decoupled_weight_decay": False, "fused": None}
    _STEP_TENSORS = True

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3,
                 betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        _check_adam_args(lr, betas, eps, weight_decay, foreach, capturable)
        betas = (_to_scalar(betas[0]), _to_scalar(betas[1]))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        self._check_fused(fused, differentiable, foreach)
        if fused:
            self._step_supports_amp_scaling = True

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        loss = self._evaluate(closure)
        state = self.state
        for group in self.param_groups:
            amsgrad = group["amsgrad"]
            params: list[Tensor] = []
            grads: list[Tensor] = []
            exp_avgs: list[Tensor] = []
            exp_avg_sqs: list[Tensor] = []
            max_exp_avg_sqs: list[Tensor] = []
            steps: list[Tensor] = []
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if group["fused"]:
                    _multi_tensor.check_fused_param(p)
                params.append(p)
                grads.append(grad)
                s = state[p]
                if len(s) == 0:
                    s["step"] = torch.tensor(0.0, dtype=_get_scalar_dtype())
                    s["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    s["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    if amsgrad:
                        s["max_exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                exp_avgs.append(s["exp_avg"])
                exp_avg_sqs.append(s["exp_avg_sq"])
                if amsgrad:
                    max_exp_avg_sqs.append(s["max_exp_avg_sq"])
                steps.append(s["step"])
            beta1, beta2 = group["betas"]
            adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, amsgrad=amsgrad, beta1=beta1,
                 beta2=beta2, lr=group["lr"], weight_decay=group["weight_decay"], eps=group["eps"],
                 maximize=group["maximize"], decoupled_weight_decay=group["decoupled_weight_decay"],
                 foreach=group["foreach"], fused=group["fused"], differentiable=group["differentiable"],
                 grad_scale=getattr(self, "grad_scale", None), found_inf=getattr(self, "found_inf", None))
        return loss


def adam(params: list[Tensor], grads: list[Tensor], exp_avgs: list[Tensor], exp_avg_sqs: list[Tensor],
         max_exp_avg_sqs: list[Tensor], state_steps: list[Tensor], foreach: bool | None = None,
         capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
         grad_scale: Tensor | None = None, found_inf: Tensor | None = None, has_complex: bool = False,
         decoupled_weight_decay: bool = False, *, amsgrad: bool, beta1: float | Tensor, beta2: float | Tensor,
         lr: float | Tensor, weight_decay: float, eps: float, maximize: bool) -> None:
    r"""Functional API that performs Adam algorithm computation (PyTorch's single-tensor form, or the
    multi-tensor kernel giving its bits).

    See :class:`~torch.optim.Adam` for details.
    """
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")
    beta1_: float = _scalar(_to_scalar(beta1))
    beta2_: float = _scalar(_to_scalar(beta2))
    tensors = (params, grads, exp_avgs, exp_avg_sqs) + ((max_exp_avg_sqs,) if amsgrad else ())
    if fused or (foreach is not False and not differentiable and grad_scale is None and found_inf is None
                 and _multi_tensor.qualifies(*tensors)):
        if not params:
            return
        _multi_tensor.take_step(state_steps)
        packet = torch.ops.aten._fused_adamw_ if decoupled_weight_decay else torch.ops.aten._fused_adam_
        # a tensor lr goes to the kernel as it is (the .tensor_lr overload reads it): a compiled step reads the
        # value a scheduler wrote into it at each call, with no graph break
        as_tensor = _multi_tensor.tensor_lr(lr, params)
        kernel = packet.tensor_lr if as_tensor else packet.default
        kernel(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps,
               lr=_to_scalar(lr) if as_tensor else _scalar(_to_scalar(lr)), beta1=beta1_,
               beta2=beta2_, weight_decay=weight_decay, eps=eps, amsgrad=amsgrad, maximize=maximize,
               grad_scale=grad_scale, found_inf=found_inf)
        _multi_tensor.undo_skipped_step(state_steps, found_inf)
        return
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr_: float = _scalar(_to_scalar(lr))
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg = exp_avgs[i]
        exp_avg_sq = exp_avg_sqs[i]
        step_t = state_steps[i]
        step_t.add_(1)
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr_ * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1_)
        exp_avg_sq.mul_(beta2_).addcmul_(grad, grad, value=1 - beta2_)
        step = step_t.item()
        bias_correction1 = 1 - beta1_ ** step
        bias_correction2 = 1 - beta2_ ** step
        step_size = lr_ / bias_correction1
        bias_correction2_sqrt = bias_correction2 ** 0.5
        if amsgrad:
            torch.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
            denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        param.addcdiv_(exp_avg, denom, value=-step_size)
