"""nn.Parameter and nn.Buffer: tensors that a Module registers when assigned as attributes."""
from __future__ import annotations

import copy
from typing import Any

import torch
from torch import Tensor
from torch._C.arg_parser import _disabled_torch_function_impl
from torch._utils import _tensor_reduce

__all__ = ["Parameter", "Buffer", "is_lazy"]


def _alias_as(cls: type, data: Any) -> Any:
    """A tensor of class cls sharing data's storage and version counter (PyTorch's
    Tensor._make_subclass): a detached alias whose class is switched, which a Tensor subclass
    without __slots__ allows since its layout is Tensor's."""
    alias = data.detach()
    alias.__class__ = cls
    return alias


class Parameter(Tensor):
    """A Tensor that is a module parameter: assigned to a Module attribute, it is registered in
    `parameters()`. It requires grad by default.

    Args:
        data: the tensor to wrap (an empty tensor when None).
        requires_grad: whether the parameter requires gradient. Default: True.
    """

    __module__ = "torch.nn.parameter"

    def __new__(cls, data: Any = None, requires_grad: bool = True) -> Any:
        if data is None:
            data = torch.empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not {type(data).__name__}")
        param = _alias_as(cls, data)
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        pass

    # Calls on parameters are not dispatched to __torch_function__; results are plain tensors. (The
    # marker is compared, never bound, so mypy's classmethod signature does not apply.)
    __torch_function__ = _disabled_torch_function_impl  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        extra = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        for key, value in extra.items():
            result.__dict__[key] = copy.deepcopy(value, memo)
        return result

    def __repr__(self) -> str:
        plain = self.detach()
        if self.requires_grad:
            plain.requires_grad_(True)
        return "Parameter containing:\n" + repr(plain)

    def __reduce_ex__(self, protocol: Any) -> Any:
        # PyTorch's form (torch._utils._rebuild_parameter): pickles and checkpoints interchange.
        return _tensor_reduce(self)


class _BufferMeta(type):
    # isinstance(t, Buffer) is True for a tensor marked as a buffer (PyTorch's _BufferMeta).
    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Buffer:
            return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that is module state but not a parameter: assigned to a Module attribute, it is
    registered as a buffer (persistent: in state_dict).

    Args:
        data: the buffer tensor.
        persistent: whether it is part of the module's state_dict. Default: True.
    """

    __module__ = "torch.nn.parameter"

    def __new__(cls, data: Any = None, *, persistent: bool = True) -> Any:
        if data is None:
            data = torch.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


def is_lazy(param: Any) -> bool:
    """Whether param is an uninitialized (lazy) parameter: Ember has none, so False."""
    return False
