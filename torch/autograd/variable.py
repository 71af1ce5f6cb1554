"""torch.autograd.Variable: PyTorch's old name for a tensor (isinstance(t, Variable) holds for every tensor,
Variable(t) is t), and Variable._execution_engine, whose queue_callback runs a function once the running
backward ends (DistributedDataParallel waits for its reductions there)."""
from __future__ import annotations

from typing import Any, Callable

from c10.tensor_impl import TensorImpl
from torch.autograd._backward import queue_callback

__all__ = ["Variable"]


class _ExecutionEngine:
    def queue_callback(self, callback: Callable[[], Any]) -> None:
        queue_callback(callback)


class _VariableMeta(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, TensorImpl)


class Variable(metaclass=_VariableMeta):
    __module__ = "torch.autograd.variable"
    _execution_engine = _ExecutionEngine()

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
        if not isinstance(data, TensorImpl):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        tensor: Any = data
        if requires_grad:
            tensor.requires_grad_(True)
        return tensor
