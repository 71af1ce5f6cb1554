"""The scalars of the multi-tensor optimizer steps, in optim_formulas.h's order, computed as the
single-tensor updates compute them in Python (pow(x, 0.5), not sqrt), for the CPU loops and the
CUDA kernels alike."""
from __future__ import annotations

from typing import Any

ADAM = 0
ADAMW = 1


def adam_constants(mode: int, lr: float, beta1: float, beta2: float, weight_decay: float, eps: float,
                   step: float, scale: float) -> tuple[float, ...]:
    """Adam's (mode ADAM) or AdamW's eight scalars at a step; scale is the gradient scale (0: none)."""
    # AdamW's factor (exactly 1 without decay), or Adam's L2 coefficient (1: the decoupled loop's no-op)
    decay = 1 - lr * weight_decay if mode == ADAMW else weight_decay if weight_decay != 0 else 1
    return (scale, decay, 1 - beta1, beta2, 1 - beta2, pow(1 - pow(beta2, step), 0.5), eps,
            -(lr / (1 - pow(beta1, step))))


def sgd_constants(weight_decay: float, momentum: float, lr: float, dampening: float,
                  scale: float) -> tuple[float, ...]:
    """SGD's five scalars; scale is the gradient scale (0: none)."""
    return (scale, weight_decay, momentum, 1 - dampening, -lr)


def lr_value(lr: Any) -> float:
    """The learning rate a fused kernel takes: a number, or a tensor's value (the .tensor_lr overloads: a scheduler
    writes it in place, and a compiled step reads it anew at each replay)."""
    if not hasattr(lr, "numel"):
        return float(lr)
    if lr.numel() != 1:
        raise RuntimeError(f"Tensor lr must be 1-element, got {lr.numel()} elements")
    return float(lr.item())
