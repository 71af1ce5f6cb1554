"""Stochastic weight averaging and exponential moving averages (PyTorch's torch.optim.swa_utils):
AveragedModel keeps a running average of a model's parameters, SWALR anneals each param group's
learning rate to its swa_lr, and update_bn recomputes BatchNorm statistics for the averaged
weights. The averaging rules are the get_*_avg_fn factories: one tensor at a time (avg_fn) or a
list per device and dtype (multi_avg_fn)."""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any, Literal

import torch
from torch import Tensor
from torch.nn import Module
from torch.nn.modules.batchnorm import _BatchNorm
from torch.optim._lr_scheduler_base import LRScheduler, _format_param, _warn_get_lr_called_within_step
from torch.optim.optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]

PARAM_LIST = tuple[Tensor, ...] | list[Tensor]
AvgFn = Callable[[Tensor, Tensor, Tensor | int], Tensor]
MultiAvgFn = Callable[[PARAM_LIST, PARAM_LIST, Tensor | int], None]

# PyTorch averages with its fused foreach kernels only on these devices; elsewhere (the CPU) its
# default goes one tensor at a time through get_swa_avg_fn, which rounds differently from lerp.
_FOREACH_DEVICES = ("cuda",)


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _lerps(tensors: PARAM_LIST) -> bool:
    return bool(torch.is_floating_point(tensors[0]) or torch.is_complex(tensors[0]))


def get_ema_multi_avg_fn(decay: float = 0.999) -> MultiAvgFn:
    """In-place exponential moving average of a list: ema = decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    @torch.no_grad()
    def ema_update(ema_param_list: PARAM_LIST, current_param_list: PARAM_LIST, _: Tensor | int) -> None:
        pairs = zip(ema_param_list, current_param_list, strict=True)
        if _lerps(ema_param_list):
            for p_ema, p_model in pairs:
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in pairs:
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> MultiAvgFn:
    """In-place running mean of a list: avg += (current - avg) / (num_averaged + 1)."""

    @torch.no_grad()
    def swa_update(averaged_param_list: PARAM_LIST, current_param_list: PARAM_LIST,
                   num_averaged: Tensor | int) -> None:
        pairs = list(zip(averaged_param_list, current_param_list, strict=True))
        if _lerps(averaged_param_list):
            for p_avg, p_model in pairs:
                p_avg.lerp_(p_model, 1 / (num_averaged + 1))
            return
        for p_avg, p_model in pairs:
            diff = p_model - p_avg
            if isinstance(num_averaged, Tensor):
                p_avg.addcdiv_(diff, num_averaged + 1)
            else:
                p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> AvgFn:
    """Exponential moving average of one tensor: decay * ema + (1 - decay) * current."""
    _check_decay(decay)

    @torch.no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Tensor | int) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> AvgFn:
    """Running mean of one tensor: avg + (current - avg) / (num_averaged + 1)."""

    @torch.no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged: Tensor | int) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_device_and_dtype(averaged: list[Tensor],
                               current: list[Tensor]) -> dict[tuple[torch.device, torch.dtype],
                                                              tuple[list[Tensor], list[Tensor]]]:
    """The pairs grouped by the averaged tensor's device and dtype, in order of first appearance."""
    groups: dict[tuple[torch.device, torch.dtype], tuple[list[Tensor], list[Tensor]]] = {}
    for p_avg, p_model in zip(averaged, current, strict=True):
        mine, theirs = groups.setdefault((p_avg.device, p_avg.dtype), ([], []))
        mine.append(p_avg)
        theirs.append(p_model)
    return groups


class AveragedModel(Module):
    """A deep copy of `model` (on `device`) whose parameters, and buffers with use_buffers, are the
    average of those passed to update_parameters: SWA's running mean unless avg_fn (one tensor at a
    time) or multi_avg_fn (a list per device and dtype) says otherwise. n_averaged counts the updates."""

    n_averaged: Tensor

    def __init__(self, model: Module, device: int | torch.device | None = None, avg_fn: AvgFn | None = None,
                 multi_avg_fn: MultiAvgFn | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", torch.tensor(0, dtype=torch.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The averaged module's forward."""
        return self.module(*args, **kwargs)

    def _tensors(self, model: Module) -> tuple[Iterable[Tensor], Iterable[Tensor]]:
        if self.use_buffers:
            return (itertools.chain(self.module.parameters(), self.module.buffers()),
                    itertools.chain(model.parameters(), model.buffers()))
        return self.parameters(), model.parameters()

    def update_parameters(self, model: Module) -> None:
        """Fold model's current parameters (and buffers, with use_buffers) into the average; the
        first update copies them. Without use_buffers the buffers are copied from model."""
        mine, theirs = self._tensors(model)
        averaged: list[Tensor] = []
        current: list[Tensor] = []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(mine, theirs):
            p_model_ = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model_)
            if first:
                p_avg.detach().copy_(p_model_)
        if not first:
            self._average(averaged, current)
        if not self.use_buffers:
            for b_avg, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_avg.detach().copy_(b_model.detach().to(b_avg.device))
        self.n_averaged += 1

    def _average(self, averaged: list[Tensor], current: list[Tensor]) -> None:
        if self.avg_fn is not None:
            for p_avg, p_model in zip(averaged, current, strict=True):
                p_avg.copy_(self.avg_fn(p_avg, p_model, self.n_averaged.to(p_avg.device)))
            return
        for (device, _), (mine, theirs) in _group_by_device_and_dtype(averaged, current).items():
            n_averaged = self.n_averaged.to(device)
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(mine, theirs, n_averaged)
            elif device.type in _FOREACH_DEVICES:
                get_swa_multi_avg_fn()(mine, theirs, n_averaged)
            else:
                swa = get_swa_avg_fn()
                for p_avg, p_model in zip(mine, theirs, strict=True):
                    p_avg.copy_(swa(p_avg, p_model, n_averaged))


@torch.no_grad()
def update_bn(loader: Iterable[Any], model: Module, device: int | torch.device | None = None) -> None:
    """Recompute the running statistics of model's BatchNorm layers in one pass over loader (its
    items, or their first element, are the inputs), as a cumulative average; momenta and the
    train/eval mode are restored afterwards."""
    momenta: dict[_BatchNorm, float | None] = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None      # None: a cumulative average over all the batches seen
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each param group's lr to its swa_lr over anneal_epochs steps ('cos' or 'linear'),
    then holds it there."""

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float], anneal_epochs: int = 10,
                 anneal_strategy: Literal["cos", "linear"] = "cos", last_epoch: int = -1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for group_swa_lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = group_swa_lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        """The lr the previous step annealed from, recovered from the current one."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _fraction(self, step: int) -> float:
        """The annealing weight of swa_lr after `step` steps."""
        return self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))

    def get_lr(self) -> list[Any]:
        """The chainable form: each lr is swa_lr * alpha + (1 - alpha) * the lr annealing started from."""
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self._fraction(step - 1)
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self._fraction(step)
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy: Literal["cos", "linear"]) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func: Callable[[float], float] = (self._cosine_anneal if anneal_strategy == "cos"
                                                      else self._linear_anneal)

    def state_dict(self) -> dict[str, Any]:
        """Every attribute but the optimizer and the annealing function (rebuilt on load)."""
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
