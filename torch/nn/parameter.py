"""nn.Parameter and nn.Buffer: tensors that a Module registers when assigned as attributes."""
from __future__ import annotations

import copy
from typing import Any

import torch
from torch import Tensor
from torch._C.arg_parser import _disabled_torch_function_impl
from torch._utils import _tensor_reduce

__all__ = ["Parameter", "UninitializedParameter", "is_lazy", "Buffer", "UninitializedBuffer"]


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


class UninitializedTensorMixin:
    """A tensor with no shape yet (lazy modules' weights): only conversions and copies may touch it
    until `materialize` gives it a shape and turns it into `cls_to_become`."""

    cls_to_become: Any
    data: Any

    # PyTorch's list: what a Module may do to its parameters before they are initialised (move,
    # cast, copy a state_dict entry, hash it into a memo).
    _allowed_methods = [Tensor.__hash__, Tensor.size, Tensor.copy_, Tensor.is_complex, Tensor.is_floating_point,
                        Tensor.half, Tensor.float, Tensor.double, Tensor.char, Tensor.short, Tensor.int, Tensor.long,
                        Tensor.cuda, Tensor.cpu, Tensor.to, Tensor.get_device]

    def _converted(self, result: Any) -> Any:
        """A device or dtype conversion's result, still uninitialised (as PyTorch's __torch_function__
        keeps the subclass), with the requires_grad and buffer flags of self."""
        if result is self:
            return self
        converted = _alias_as(type(self), result)
        converted.requires_grad_(self.requires_grad)  # type: ignore[attr-defined]
        for flag in ("persistent", "_is_buffer"):
            if hasattr(self, flag):
                setattr(converted, flag, getattr(self, flag))
        return converted

    def to(self, *args: Any, **kwargs: Any) -> Any:
        return self._converted(Tensor.to(self, *args, **kwargs))  # type: ignore[call-overload]

    def half(self, *args: Any, **kwargs: Any) -> Any:
        return self._converted(Tensor.half(self, *args, **kwargs))  # type: ignore[arg-type]

    def float(self, *args: Any, **kwargs: Any) -> Any:
        return self._converted(Tensor.float(self, *args, **kwargs))  # type: ignore[arg-type]

    def double(self, *args: Any, **kwargs: Any) -> Any:
        return self._converted(Tensor.double(self, *args, **kwargs))  # type: ignore[arg-type]

    def cuda(self, *args: Any, **kwargs: Any) -> Any:
        return self._converted(Tensor.cuda(self, *args, **kwargs))  # type: ignore[arg-type]

    def cpu(self, *args: Any, **kwargs: Any) -> Any:
        return self._converted(Tensor.cpu(self, *args, **kwargs))  # type: ignore[arg-type]

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the tensor shape (uninitialised memory) and make it a `cls_to_become`."""
        if device is None:
            device = self.data.device
        if dtype is None:
            dtype = self.data.dtype
        self.data = torch.empty(shape, device=device, dtype=dtype)
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self) -> Any:
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto: Any) -> Any:
        # Hooks and data are not saved: unpickling makes a fresh uninitialised tensor.
        return (self.__class__, (getattr(self, "requires_grad"),))

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func in cls._allowed_methods or func.__class__.__name__ == "method-wrapper":
            return super().__torch_function__(func, types, args, kwargs or {})  # type: ignore[misc]
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {func}. This error happens when you are using a "
            f"`LazyModule` or explicitly manipulating `torch.nn.parameter.{cls.__name__}` objects. When using "
            "LazyModules Call `forward` with a dummy batch to initialize the parameters before calling torch functions")


class UninitializedParameter(UninitializedTensorMixin, Parameter):  # type: ignore[misc]
    """A Parameter whose shape is not known yet (LazyLinear's weight...); `materialize` makes it a
    Parameter.

    Args:
        requires_grad: as Parameter's. device, dtype: those of the eventual tensor.
    """

    __module__ = "torch.nn.parameter"
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> Any:
        param = _alias_as(cls, torch.empty(0, device=device, dtype=dtype))
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        pass

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.data.device, self.data.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (LazyBatchNorm's running stats); `materialize` makes it
    a plain Tensor.

    Args:
        requires_grad: Default: False. device, dtype: those of the eventual tensor.
        persistent: whether it is part of the module's state_dict. Default: True.
    """

    __module__ = "torch.nn.parameter"
    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                persistent: bool = True) -> Any:
        buf = _alias_as(cls, torch.empty(0, device=device, dtype=dtype))
        buf.requires_grad_(requires_grad)
        buf.persistent = persistent
        buf._is_buffer = True
        return buf

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                 persistent: bool = True) -> None:
        pass


def is_lazy(param: Any) -> bool:
    """Whether param is an uninitialized (lazy) parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
