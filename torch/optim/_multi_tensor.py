"""When Adam, AdamW and SGD update a whole parameter group in one multi-tensor call
(torch._fused_adam_, torch._fused_adamw_, torch._fused_sgd_), and PyTorch's checks of fused=True.

The multi-tensor kernels give the single-tensor loop's bits, so the choice is only about speed:
foreach=None (the default) and foreach=True take them wherever every tensor qualifies (dense
float32 or float64 tensors of one dtype and device, CPU or CUDA, sized like their parameter; on
CUDA the last bits may differ, as the GPU contracts multiply-adds); anything else, or
foreach=False, runs the loop. fused=True always takes them, after the constructor's checks.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

FUSED_DEVICES = ["cpu", "cuda"]
_DTYPES = (torch.float32, torch.float64)


def check_fused_param(p: Tensor) -> None:
    """PyTorch's _device_dtype_check_for_fused, with the devices and dtypes Ember's kernels serve."""
    if not (p.device.type in FUSED_DEVICES and p.dtype in _DTYPES):
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of "
                           f"supported devices: {FUSED_DEVICES} but {p.dtype} and {p.device.type}")


def qualifies(*lists: Sequence[Tensor]) -> bool:
    """Whether the lists (parameters first, then their gradients and states) suit the kernels."""
    params = lists[0]
    if not params:
        return False
    dtype, device = params[0].dtype, params[0].device
    if dtype not in _DTYPES or device.type not in FUSED_DEVICES:
        return False
    for tensors in lists:
        for p, t in zip(params, tensors):
            if (t.device != device or t.dtype != dtype or t.layout != torch.strided or t.numel() != p.numel()
                    or not t.is_contiguous()):
                return False
    return True


def take_step(state_steps: list[Tensor]) -> None:
    """Each parameter's step counter advanced by one, in one call."""
    torch._foreach_add_(state_steps, 1)


def undo_skipped_step(state_steps: list[Tensor], found_inf: Tensor | None) -> None:
    """GradScaler found an inf or NaN and the kernel skipped the update: the counters go back (PyTorch
    subtracts found_inf from every step)."""
    if found_inf is not None:
        for step in state_steps:
            # the counters stay on the CPU where found_inf is a CUDA tensor (GradScaler's, for CUDA parameters)
            step.sub_(found_inf.to(step.device))


def tensor_lr(lr: Any, params: list[Tensor]) -> bool:
    """Whether the fused kernels take lr as the tensor it is (their .tensor_lr overloads): a tensor on the CPU, read
    by either device's kernel, or on the parameters' device. Elsewhere (a CUDA lr for CPU parameters) its value is
    passed, as the float overloads take it."""
    return isinstance(lr, Tensor) and (lr.device.type == "cpu" or not params or lr.device == params[0].device)
