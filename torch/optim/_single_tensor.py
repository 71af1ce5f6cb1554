"""The loop the element-wise optimizers share (Adadelta, Adamax, NAdam, RAdam, Rprop, ASGD): for each
parameter with a gradient, its state made on first use, the gradient negated under maximize, then
the optimizer's update in PyTorch's single-tensor form (each class's _update)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch import Tensor

from torch.optim.optimizer import Optimizer, _use_grad_for_differentiable


def check_lr(lr: Any) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_common(lr: Any, eps: float, weight_decay: float, betas: tuple[float, float] | None = None) -> None:
    check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if betas is not None:
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class SingleTensorOptimizer(Optimizer):
    """An optimizer whose update touches one parameter at a time."""

    _STEP_TENSORS = True

    def _init_state(self, p: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        raise NotImplementedError

    def _update(self, p: Tensor, grad: Tensor, state: dict[str, Any], group: dict[str, Any]) -> None:
        raise NotImplementedError

    @_use_grad_for_differentiable
    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Perform a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model and returns the loss.
        """
        loss = self._evaluate(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(p, state, group)
                self._update(p, -p.grad if group["maximize"] else p.grad, state, group)
        return loss
