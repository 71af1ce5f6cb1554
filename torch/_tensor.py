"""torch.Tensor: the user-facing tensor. Its data and metadata are c10's TensorImpl (its base
class); its methods are generated bindings, attached lazily on first access."""
from __future__ import annotations

import importlib
from typing import Any

from c10.tensor_impl import TensorImpl, set_tensor_type
from torch import _tensor_conversions
from torch._C import _gen_index
from torch import _indexing as _indexing_setup  # noqa: F401  (gives the Cython indexing numpy's types)
from torch._C._indexing import getitem as _getitem, setitem as _setitem
from torch._size import Size


class Tensor(TensorImpl):
    __module__ = "torch"

    @property
    def shape(self) -> Size:
        return Size(self._sizes())

    def size(self, dim: int | None = None) -> Any:
        return Size(self._sizes()) if dim is None else self._size_at(dim)

    def numpy(self) -> Any:
        """A numpy array sharing this tensor's memory (CPU tensors only)."""
        return self._numpy_view()

    def tolist(self) -> Any:
        return self._host_view().tolist()

    def item(self) -> Any:
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        return self._host_view().reshape(()).item()

    def _host_view(self) -> Any:
        if self.is_cuda:
            from c10 import cuda as c10_cuda
            import numpy as np
            host = np.empty(self._sizes(), dtype=self.dtype.numpy_dtype)
            if not self.is_contiguous():
                raise NotImplementedError("reading a non-contiguous CUDA tensor needs Tensor.contiguous()")
            c10_cuda.lazy_init()["drv"].memcpy_dtoh(host, self.data_ptr())
            return host
        return self._numpy_view()

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return int(self._size_at(0))

    # Indexing is Cython (torch/_C/_indexing.pyx): basic indices build one view in C.
    __getitem__ = _getitem
    __setitem__ = _setitem

    def __delitem__(self, index: Any) -> None:
        raise TypeError("Tensor does not support deleting items")

    def __iter__(self) -> Any:
        # As PyTorch: rows are views (unbind along dim 0), made up front.
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __repr__(self) -> str:
        from torch._tensor_str import tensor_repr
        return tensor_repr(self)

    __hash__ = object.__hash__

    # Operators: the methods are generated; reflected forms call the function with the number first.
    def __add__(self, other: Any) -> Any:
        return self.add(other)

    def __radd__(self, other: Any) -> Any:
        return _function("add")(other, self)

    def __sub__(self, other: Any) -> Any:
        return self.sub(other)

    def __rsub__(self, other: Any) -> Any:
        return _function("sub")(other, self)

    def __mul__(self, other: Any) -> Any:
        return self.mul(other)

    def __rmul__(self, other: Any) -> Any:
        return _function("mul")(other, self)

    def __truediv__(self, other: Any) -> Any:
        return self.div(other)

    def __rtruediv__(self, other: Any) -> Any:
        return _function("div")(other, self)

    def __neg__(self) -> Any:
        return self.neg()


def _function(name: str) -> Any:
    return getattr(importlib.import_module(_gen_index.FUNCTIONS[name]), name)


class _LazyMethod:
    """A Tensor method that imports its generated binding on first access, then replaces itself."""

    def __init__(self, name: str, module: str, attr: str) -> None:
        self.name, self.module, self.attr = name, module, attr

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        fn = getattr(importlib.import_module(self.module), self.attr)
        setattr(Tensor, self.name, fn)
        return fn if obj is None else fn.__get__(obj, cls)


for _name, _method in _tensor_conversions.METHODS.items():
    setattr(Tensor, _name, _method)

for _name, (_module, _attr) in _gen_index.METHODS.items():
    if _name not in Tensor.__dict__:
        setattr(Tensor, _name, _LazyMethod(_name, _module, _attr))

set_tensor_type(Tensor)
