"""Tensor.to, .type and the dtype/device shorthands (.float(), .cpu() ...): bound by hand, as in
PyTorch (python_variable_methods.cpp, torch/_utils.py), because `to` takes a device or a dtype
in the same positional slot. The work is aten::to.* / aten::_to_copy."""
from __future__ import annotations

import builtins
from typing import Any

from aten.dispatcher import find_operator
from c10 import layout as _layout
from c10.device import device as _device
from c10.scalar_type import DTYPE_NAMES, dtype as _dtype, get_default_dtype
from torch._C.arg_parser import python_type_dtype

_to = find_operator("to.dtype_layout")

_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, "
    "*, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n")


def _invalid(args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
    got = ", ".join([builtin_type_name(a) for a in args] + [f"{k}={builtin_type_name(v)}" for k, v in kwargs.items()])
    return TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + _SIGNATURES)


def _is_device(v: Any) -> bool:
    return isinstance(v, (_device, str)) or (isinstance(v, int) and not isinstance(v, bool))


_TYPE = int.__class__         # the builtin type (this module defines Tensor.type)


def _named_dtype(value: Any) -> Any:
    """Python's float, int, bool and complex as the dtypes they name (as PyTorch's parser takes them)."""
    found = python_type_dtype(value)
    return found if isinstance(found, _dtype) else value


def to(self: Any, *args: Any, **kwargs: Any) -> Any:
    """Tensor.to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None),
    Tensor.to(dtype, ...) or Tensor.to(other, ...): self when nothing changes and copy is False."""
    rest = list(args)
    if len(rest) > 1 and rest[1].__class__ is _TYPE or rest and rest[0].__class__ is _TYPE:
        rest = [_named_dtype(a) for a in rest]      # x.to(int), x.to("cpu", float)
    if kwargs.get("dtype").__class__ is _TYPE:
        kwargs = {**kwargs, "dtype": _named_dtype(kwargs["dtype"])}
    device = dtype = None
    known = {"device", "dtype", "non_blocking", "copy", "memory_format", "tensor", "other"}
    if set(kwargs) - known:
        raise _invalid(args, kwargs)
    if rest and isinstance(rest[0], _dtype):
        dtype = rest.pop(0)
    elif rest and hasattr(rest[0], "dtype") and hasattr(rest[0], "device") and not isinstance(rest[0], _dtype):
        other = rest.pop(0)
        dtype, device = other.dtype, other.device
    else:
        if rest and (rest[0] is None or _is_device(rest[0])):
            device = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], _dtype)):
            dtype = rest.pop(0)
    if "tensor" in kwargs or "other" in kwargs:
        other = kwargs["tensor"] if "tensor" in kwargs else kwargs["other"]
        dtype, device = other.dtype, other.device
    device = kwargs.get("device", device)
    dtype = kwargs.get("dtype", dtype)
    flags = [kwargs.get("non_blocking", False), kwargs.get("copy", False)]
    if len(rest) > 2 or not all(isinstance(v, bool) for v in rest):
        raise _invalid(args, kwargs)
    flags[:len(rest)] = rest
    if (device is not None and not _is_device(device)) or (dtype is not None and not isinstance(dtype, _dtype)):
        raise _invalid(args, kwargs)
    if device is not None and not isinstance(device, _device):
        device = _device(device)
    memory_format = kwargs.get("memory_format")
    if memory_format is not None and not isinstance(memory_format, _layout.memory_format):
        raise _invalid(args, kwargs)
    return _to(self, dtype=dtype, device=device, non_blocking=flags[0], copy=flags[1], memory_format=memory_format)


# torch.FloatTensor ... names, by dtype (torch/_utils.py's _type).
_TENSOR_TYPES = {d.type_name + "Tensor": d for d in DTYPE_NAMES.values()}


def type(self: Any, dtype: Any = None, non_blocking: bool = False, **kwargs: Any) -> Any:  # noqa: A001
    """The type name ('torch.FloatTensor') with no argument; else self converted to that type."""
    cuda = self.device.type == "cuda"
    if dtype is None:
        return ("torch.cuda." if cuda else "torch.") + self.dtype.type_name + "Tensor"
    device = self.device
    if _is_tensor_class(self, dtype):       # the default tensor type, on the CPU
        dtype = "torch.Tensor"
    elif isinstance(dtype, builtins.type):
        if not isinstance(getattr(dtype, "dtype", None), _dtype):      # float, int, Parameter: no tensor type
            raise ValueError(f"invalid type: '{dtype.__name__}'")
        device, dtype = _device("cuda" if getattr(dtype, "is_cuda", False) else "cpu"), getattr(dtype, "dtype")
    if isinstance(dtype, str):
        name = dtype
        if name.startswith("torch.cuda."):
            device, name = _device("cuda"), name[len("torch.cuda."):]
        elif name.startswith("torch."):
            device, name = _device("cpu"), name[len("torch."):]
        if name == "Tensor":
            dtype = get_default_dtype()
        elif name not in _TENSOR_TYPES:
            raise ValueError(f"invalid type: '{dtype}'")
        else:
            dtype = _TENSOR_TYPES[name]
    if not isinstance(dtype, _dtype):
        raise TypeError("dtype must be a type, str, or dtype object")
    return _to(self, dtype=dtype, device=device, non_blocking=non_blocking)


def _is_tensor_class(tensor: Any, value: Any) -> bool:
    """Whether value is torch.Tensor itself (torch._tensor, which binds this module's methods, is not imported)."""
    return isinstance(value, builtins.type) and value.__module__ == "torch" and value.__qualname__ == "Tensor" and \
        isinstance(tensor, value)


def builtin_type_name(v: Any) -> str:
    return v.__class__.__name__


def _as(name: str) -> Any:
    target = DTYPE_NAMES[name]

    def convert(self: Any, memory_format: Any = _layout.preserve_format) -> Any:
        return _to(self, dtype=target, memory_format=memory_format)
    convert.__name__ = {"float32": "float", "float64": "double", "float16": "half", "int64": "long", "int32": "int",
                        "int16": "short", "int8": "char", "uint8": "byte", "bool": "bool", "bfloat16": "bfloat16",
                        "complex64": "cfloat", "complex128": "cdouble"}[name]
    convert.__doc__ = f"self.to(torch.{name})"
    return convert


def cpu(self: Any, memory_format: Any = _layout.preserve_format) -> Any:
    return _to(self, device=_device("cpu"), memory_format=memory_format)


def cuda(self: Any, device: Any = None, non_blocking: bool = False, memory_format: Any = _layout.preserve_format) -> Any:
    target = _device("cuda", device) if isinstance(device, int) else _device("cuda" if device is None else device)
    return _to(self, device=target, non_blocking=non_blocking, memory_format=memory_format)


METHODS: dict[str, Any] = {"to": to, "type": type, "cpu": cpu, "cuda": cuda}
METHODS.update({f.__name__: f for f in map(_as, ("float32", "float64", "float16", "int64", "int32", "int16", "int8",
                                                  "uint8", "bool", "bfloat16", "complex64", "complex128"))})
