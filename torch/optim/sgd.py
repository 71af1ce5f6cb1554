"""SGD with momentum, dampening, Nesterov, weight decay and maximize: PyTorch's single-tensor
update (torch/optim/sgd.py), in place on the parameters under no_grad, run for a whole group by one
multi-tensor kernel where the tensors allow (torch/optim/_multi_tensor.py)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from torch.optim import _multi_tensor
from torch.optim.optimizer import Optimizer, ParamsT, _scalar, _to_scalar, _use_grad_for_differentiable

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Implements stochastic gradient descent (optionally with momentum)."""

    _GROUP_DEFAULTS = {"nesterov": False, "maximize": False, "foreach": None, "differentiable": False, "fused": False}

    def __init__(self, params: ParamsT, lr: float | Tensor = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float | Tensor = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
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
            momentum = group["momentum"]
            params: list[Tensor] = []
            grads: list[Tensor] = []
            buffers: list[Tensor | None] = []
            for p in group["params"]:
                grad = p.grad
                if grad is not None:
                    if group["fused"]:
                        _multi_tensor.check_fused_param(p)
                    params.append(p)
                    grads.append(grad)
                    if momentum != 0:
                        buffers.append(state[p].get("momentum_buffer"))
            sgd(params, grads, buffers, weight_decay=group["weight_decay"], momentum=momentum, lr=group["lr"],
                dampening=group["dampening"], nesterov=group["nesterov"], maximize=group["maximize"],
                foreach=group["foreach"], fused=group["fused"], differentiable=group["differentiable"],
                grad_scale=getattr(self, "grad_scale", None), found_inf=getattr(self, "found_inf", None))
            if momentum != 0:
                for p, buf in zip(params, buffers):
                    state[p]["momentum_buffer"] = buf
        return loss


def sgd(params: list[Tensor], d_p_list: list[Tensor], momentum_buffer_list: list[Tensor | None],
        has_sparse_grad: bool = False, foreach: bool | None = None, fused: bool | None = None,
        grad_scale: Tensor | None = None, found_inf: Tensor | None = None, differentiable: bool = False, *,
        weight_decay: float, momentum: float, lr: float | Tensor, dampening: float, nesterov: bool,
        maximize: bool) -> None:
    r"""Functional API that performs SGD algorithm computation (PyTorch's single-tensor form, or the
    multi-tensor kernel giving its bits; new momentum buffers are stored into momentum_buffer_list).

    See :class:`~torch.optim.SGD` for details.
    """
    weight_decay = _scalar(weight_decay)
    if fused or (foreach is not False and not differentiable and grad_scale is None and found_inf is None
                 and _multi_tensor_ready(params, d_p_list, momentum_buffer_list, momentum)):
        # a tensor lr goes to the kernel as it is (read there: no graph break in a compiled step)
        lr = _to_scalar(lr) if _multi_tensor.tensor_lr(lr, params) else _scalar(_to_scalar(lr))
        _fused_sgd(params, d_p_list, momentum_buffer_list, weight_decay=weight_decay, momentum=momentum,
                   lr=lr, dampening=dampening, nesterov=nesterov, maximize=maximize,
                   grad_scale=grad_scale, found_inf=found_inf)
        return
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr = _scalar(_to_scalar(lr))
    for i, param in enumerate(params):
        grad = d_p_list[i] if not maximize else -d_p_list[i]
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        param.add_(grad, alpha=-lr)


def _multi_tensor_ready(params: list[Tensor], grads: list[Tensor], buffers: list[Tensor | None],
                        momentum: float) -> bool:
    """Whether the kernel can take the group (with the momentum buffers made so far)."""
    if not _multi_tensor.qualifies(params, grads):
        return False
    made = [i for i, b in enumerate(buffers) if b is not None] if momentum != 0 else []
    return not made or _multi_tensor.qualifies([params[i] for i in made], [b for b in buffers if b is not None])


def _fused_sgd(params: list[Tensor], grads: list[Tensor], buffers: list[Tensor | None], *, weight_decay: float,
               momentum: float, lr: float | Tensor, dampening: float, nesterov: bool, maximize: bool,
               grad_scale: Tensor | None, found_inf: Tensor | None) -> None:
    """torch._fused_sgd_ over the group: one call, or with momentum one for the parameters whose buffers
    are made here (the kernel fills them with the gradients, as PyTorch's first step) and one for the rest."""
    if not params or found_inf is not None and bool(found_inf == 1):
        return                  # a skipped step: the kernel would not run, and no buffer is made

    def run(index: list[int], bufs: list[Tensor], first: bool) -> None:
        kernel = torch.ops.aten._fused_sgd_
        (kernel.tensor_lr if isinstance(lr, Tensor) else kernel.default)(
            [params[i] for i in index], [grads[i] for i in index], bufs, weight_decay=weight_decay,
            momentum=momentum, lr=lr, dampening=dampening, nesterov=nesterov, maximize=maximize,
            is_first_step=first, grad_scale=grad_scale, found_inf=found_inf)
    if momentum == 0:
        run(list(range(len(params))), [], False)
        return
    fresh = [i for i, b in enumerate(buffers) if b is None]
    kept = [i for i, b in enumerate(buffers) if b is not None]
    kept_buffers = [b for b in buffers if b is not None]
    made: list[Tensor] = []
    for i in fresh:
        made.append(torch.empty_like(grads[i], memory_format=torch.contiguous_format))
        buffers[i] = made[-1]
    if fresh:
        run(fresh, made, True)
    if kept:
        run(kept, kept_buffers, False)
