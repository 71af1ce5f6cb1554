"""The legacy constructors: torch.Tensor(...), torch.FloatTensor(...) and friends, Tensor.new(...)
(PyTorch's legacy_tensor_ctor in torch/csrc/utils/tensor_new.cpp). Each form is one of
`()`, `(*sizes)` / `(torch.Size)` (uninitialised), `(tensor)` (an alias) or `(data)` (a copy in the
constructor's dtype)."""
from __future__ import annotations

from typing import Any

import numpy as np

from c10 import scalar_type, tensor_impl
from c10.scalar_type import CPP_TYPE_NAMES
from c10.device import canonical
from c10.tensor_impl import TensorImpl

_SIGNATURES = (" * (*, torch.device device = None)\n"
               " * (torch.Storage storage)\n"
               " * (Tensor other)\n"
               " * (tuple of ints size, *, torch.device device = None)\n"
               " * (object data, *, torch.device device = None)\n")



def _options(dt: Any, device: Any) -> str:
    return (f"TensorOptions(dtype={CPP_TYPE_NAMES.get(dt.name, dt.name)}, device={device}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def legacy_new(dt: Any, device: Any, args: tuple[Any, ...], kwargs: dict[str, Any], check_dtype: bool) -> Any:
    """A tensor from the legacy constructor's arguments: dt is the constructor's dtype; check_dtype
    makes an alias of a tensor of another dtype an error (the typed constructors)."""
    extra = set(kwargs) - {"device"}
    if extra:
        got = ", ".join([type(a).__name__ for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
        first, rest = _SIGNATURES.split("\n", 1)
        raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        f"{first}\n      didn't match because some of the keywords were incorrect: "
                        f"{', '.join(sorted(extra))}\n{rest}")
    device = canonical(kwargs["device"]) if kwargs.get("device") is not None else device
    if not args:
        return tensor_impl.empty((0,), dt, device)
    if len(args) == 1 and isinstance(args[0], TensorImpl):
        other = args[0]
        if check_dtype and other.dtype is not dt:
            raise TypeError(f"expected {_options(dt, 'cpu')} (got {_options(other.dtype, other.device)})")
        return other.alias()  # type: ignore[attr-defined]
    from torch._size import Size
    if (len(args) == 1 and isinstance(args[0], Size)) or all(isinstance(a, int) and not isinstance(a, bool)
                                                              for a in args):
        sizes = tuple(args[0]) if isinstance(args[0], Size) else args
        for pos, v in enumerate(sizes):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {pos + 1} with error "
                                f"\"type must be tuple of ints,but got {type(v).__name__}\"")
        return tensor_impl.empty(sizes, dt, device)
    if len(args) > 1:
        bad = next(i for i, a in enumerate(args) if not isinstance(a, int) or isinstance(a, bool))
        raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {bad + 1} with error "
                        f"\"type must be tuple of ints,but got {type(args[bad]).__name__}\"")
    data = args[0]
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not isinstance(data, (list, tuple, np.ndarray)) and not hasattr(data, "__len__"):
        raise TypeError(f"new(): data must be a sequence (got {_type_name(data)})")
    from torch._creation import tensor
    return tensor(data, dtype=dt, device=device)


def _type_name(v: Any) -> str:
    cls = type(v)
    if isinstance(v, scalar_type.dtype):
        return "torch.dtype"
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__name__}"


class tensortype(type):
    """The metaclass of torch.FloatTensor and the other typed legacy constructors: calling one
    builds a CPU tensor of its dtype; isinstance checks the dtype and device."""
    dtype: Any
    is_cuda = False

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return legacy_new(cls.dtype, canonical("cpu"), args, kwargs, check_dtype=True)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, TensorImpl) and obj.dtype is cls.dtype and not obj.is_cuda

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


tensortype.__module__ = "torch"


def _typed(d: Any) -> tensortype:
    return tensortype(d.type_name + "Tensor", (), {"dtype": d, "__module__": "torch"})


# torch.FloatTensor, torch.DoubleTensor, torch.HalfTensor, torch.LongTensor, torch.IntTensor,
# torch.ShortTensor, torch.CharTensor, torch.ByteTensor, torch.BoolTensor.
TYPED_CONSTRUCTORS = {d.type_name + "Tensor": _typed(d) for d in scalar_type.DTYPE_NAMES.values()}
