"""Multi-tensor optimizer steps on CUDA (PyTorch's _fused_adam_, _fused_adamw_ and _fused_sgd_):
one kernels/fused_optim.cu launch updates every parameter of a group, with the CPU kernels' checks
and formulas (aten/native/optim_formulas.h) and scalars (aten/native/meta/optim_constants.py).

The launch reads a table of runs (each parameter cut into runs of at most CHUNK elements: its
tensors' addresses and the run's bounds) from device memory kept per distinct table, so a training
loop whose tensors stay in place uploads it once. The step counters are CPU tensors, as the
optimizers keep them, and read on the host; a gradient scale or found_inf flag on the device is
read back (the host waits for the device), as only GradScaler passes them.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import MAX_BLOCKS, device_meta
from aten.native.meta.optim_constants import ADAM, ADAMW, adam_constants, lr_value, sgd_constants

CHUNK = 65536           # elements per run: a block's share
_THREADS = 256
# optim_formulas.h's flags
_ADAM_L2, _ADAM_DECOUPLED, _ADAM_AMSGRAD, _ADAM_SCALED, _ADAM_MAXIMIZE = 1, 2, 4, 8, 16
_SGD_DECAY, _SGD_MOMENTUM, _SGD_FIRST, _SGD_NESTEROV, _SGD_SCALED, _SGD_MAXIMIZE = 1, 2, 4, 8, 16, 32


def _check_lists(op: str, lists: list[list[Any]], names: list[str]) -> None:
    """Every list as long as the first; every tensor a dense CUDA float32/float64 tensor of the
    parameter's dtype and size (the CPU kernel's rules, on the parameter's device)."""
    n = len(lists[0])
    for tensors in lists[1:]:
        if len(tensors) != n:
            raise RuntimeError(f"{op}: Tensor lists must have the same number of tensors, got {n} and {len(tensors)}")
    for i in range(n):
        p = lists[0][i]
        for tensors, name in zip(lists, names):
            t = tensors[i]
            if not t.is_cuda:
                raise RuntimeError(f"{op}: expected all tensors on {p.device}, but {name}[{i}] is on {t.device}")
            if t.dtype.name not in ("float32", "float64"):
                raise NotImplementedError(f'"{op}" not implemented for \'{t.dtype.type_name}\'')
            if t.dtype is not p.dtype:
                raise RuntimeError(f"{op}: expected {name}[{i}] to have dtype {p.dtype.type_name}, got "
                                   f"{t.dtype.type_name}")
            if t.numel() != p.numel():
                raise RuntimeError(f"{op}: {name}[{i}] has {t.numel()} elements, its parameter {p.numel()}")
            if not t.is_contiguous():
                raise RuntimeError(f"{op}: {name}[{i}] must be contiguous")


def _one_value(t: Any, what: str) -> float:
    if t.numel() != 1 or t.dtype.name != "float32":
        raise RuntimeError(f"{what} must be a one-element float32 tensor")
    return float(t.item())


def _step_value(step: Any, i: int) -> float:
    if step.numel() != 1 or step.is_cuda:
        raise RuntimeError(f"state_steps[{i}] must be a one-element CPU tensor")
    if step.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"state_steps[{i}] must be a float32 or float64 tensor, got {step.dtype.type_name}")
    return float(step.item())


def _table(lists: list[list[Any]], index: list[int]) -> tuple[Any, int]:
    """The device table of the runs of parameters `index` ([p, g, m, v, vmax, begin, end] each) and
    how many runs it holds."""
    values: list[int] = []
    for i in index:
        pointers = [tensors[i].data_ptr() for tensors in lists] + [0] * (5 - len(lists))
        n = lists[0][i].numel()
        for begin in range(0, n, CHUNK):
            values += pointers
            values += (begin, min(begin + CHUNK, n))
    return device_meta(values), len(values) // 7


def _launch(kernel: str, lists: list[list[Any]], index: list[int], flags: int, constants: tuple[float, ...]) -> None:
    table, count = _table(lists, index)
    if count:
        launch_kernel("kernels/fused_optim.cu", f"{kernel}_{lists[0][0].dtype.name}", (min(count, MAX_BLOCKS), 1, 1),
                      (_THREADS, 1, 1), np.uintp(int(table)), np.int64(count), np.int32(flags),
                      *[np.float64(c) for c in constants])


def _bump(lists: list[list[Any]]) -> None:
    for tensors in lists:
        for t in tensors:
            t._bump_version()


def _adam(op: str, mode: int, params: list[Any], grads: list[Any], exp_avgs: list[Any], exp_avg_sqs: list[Any],
          max_exp_avg_sqs: list[Any], state_steps: list[Any], lr: float, beta1: float, beta2: float,
          weight_decay: float, eps: float, amsgrad: bool, maximize: bool, grad_scale: Any, found_inf: Any) -> None:
    lists, names = [params, grads, exp_avgs, exp_avg_sqs], ["params", "grads", "exp_avgs", "exp_avg_sqs"]
    if amsgrad:
        lists.append(max_exp_avg_sqs)
        names.append("max_exp_avg_sqs")
    if len(state_steps) != len(params):
        raise RuntimeError(f"{op}: Tensor lists must have the same number of tensors, got {len(params)} and "
                           f"{len(state_steps)}")
    _check_lists(op, lists, names)
    scale = _one_value(grad_scale, "grad_scale") if grad_scale is not None else 0.0
    if (found_inf is not None and _one_value(found_inf, "found_inf") == 1.0) or not params:
        return                  # GradScaler found an inf or NaN: the step is skipped
    flags = ((_ADAM_L2 if mode == ADAM and weight_decay != 0 else _ADAM_DECOUPLED) | (_ADAM_AMSGRAD if amsgrad else 0)
             | (_ADAM_SCALED if scale != 0 else 0) | (_ADAM_MAXIMIZE if maximize else 0))
    steps = [_step_value(s, i) for i, s in enumerate(state_steps)]
    for step in dict.fromkeys(steps):       # one launch per distinct step (one in a plain training loop)
        _launch("fused_adam", lists, [i for i, s in enumerate(steps) if s == step], flags,
                adam_constants(mode, lr, beta1, beta2, weight_decay, eps, step, scale))
    _bump(lists if grad_scale is not None else [params] + lists[2:])


def _fused_adam_kernel_cuda_(self: Any, grads: Any, exp_avgs: Any, exp_avg_sqs: Any, max_exp_avg_sqs: Any,
                             state_steps: Any, lr: Any, beta1: float, beta2: float, weight_decay: float, eps: float,
                             amsgrad: bool, maximize: bool, grad_scale: Any = None, found_inf: Any = None) -> None:
    _adam("_fused_adam_", ADAM, list(self), list(grads), list(exp_avgs), list(exp_avg_sqs), list(max_exp_avg_sqs),
          list(state_steps), lr_value(lr), beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf)


def _fused_adamw_kernel_cuda_(self: Any, grads: Any, exp_avgs: Any, exp_avg_sqs: Any, max_exp_avg_sqs: Any,
                              state_steps: Any, lr: Any, beta1: float, beta2: float, weight_decay: float, eps: float,
                              amsgrad: bool, maximize: bool, grad_scale: Any = None, found_inf: Any = None) -> None:
    _adam("_fused_adamw_", ADAMW, list(self), list(grads), list(exp_avgs), list(exp_avg_sqs), list(max_exp_avg_sqs),
          list(state_steps), lr_value(lr), beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf)


def _fused_sgd_kernel_cuda_(self: Any, grads: Any, momentum_buffer_list: Any, weight_decay: float, momentum: float,
                            lr: Any, dampening: float, nesterov: bool, maximize: bool, is_first_step: bool,
                            grad_scale: Any = None, found_inf: Any = None) -> None:
    """_fused_sgd_ and its .tensor_lr overload (lr a number or a 1-element tensor)."""
    lists = [list(self), list(grads)]
    if momentum != 0:
        lists.append(list(momentum_buffer_list))
    _check_lists("_fused_sgd_", lists, ["params", "grads", "momentum_buffer_list"])
    scale = _one_value(grad_scale, "grad_scale") if grad_scale is not None else 0.0
    if (found_inf is not None and _one_value(found_inf, "found_inf") == 1.0) or not lists[0]:
        return
    flags = ((_SGD_DECAY if weight_decay != 0 else 0) | (_SGD_SCALED if scale != 0 else 0)
             | (_SGD_MAXIMIZE if maximize else 0))
    if momentum != 0:
        flags |= _SGD_MOMENTUM | (_SGD_FIRST if is_first_step else 0) | (_SGD_NESTEROV if nesterov else 0)
    _launch("fused_sgd", lists, list(range(len(lists[0]))), flags,
            sgd_constants(weight_decay, momentum, lr_value(lr), dampening, scale))
    _bump(lists if grad_scale is not None else [lists[0]] + lists[2:])

