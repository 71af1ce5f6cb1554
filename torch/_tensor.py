"""torch.Tensor: the user-facing tensor. Its data and metadata are c10's TensorImpl (its base
class); its methods are generated bindings, attached lazily on first access."""
from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

from c10.layout import strided
from c10.scalar_type import get_default_dtype
from c10.tensor_impl import TensorImpl, set_tensor_type
from c10.tensor_impl import empty as _empty, from_numpy as _from_numpy
from torch import _tensor_autograd, _tensor_conversions
from torch._C import _gen_index
from torch import _indexing as _indexing_setup  # noqa: F401  (gives the Cython indexing numpy's types)
from torch import _indexing_autograd  # noqa: F401  (indexing of tensors that require grad records history)
from torch._C._indexing import getitem as _getitem, setitem as _setitem
from torch._C.arg_parser import DisableTorchFunctionSubclass, set_torch_function_support
from torch._size import Size  # noqa: F401  (registers torch.Size as the type of `shape`)


def _binary(op: Any) -> Callable[[Tensor, Any], Tensor]:
    """A binary operator method: a TypeError from the binding becomes NotImplemented."""
    def method(self: Any, other: Any) -> Any:
        try:
            return op(self, other)
        except TypeError:
            return NotImplemented
    return method


if TYPE_CHECKING:
    # Types only: the generated methods' stubs (torchgen/templates/stubs_tensor.pyi.j2, build output).
    from torch._C._gen_tensor_base import TensorBase as _TensorBase
else:
    _TensorBase = TensorImpl


class Tensor(_TensorBase):
    __module__ = "torch"

    if TYPE_CHECKING:
        # TensorImpl builds these in C (c10/tensor_impl.pyx); their types as torch.Size.
        @property
        def shape(self) -> Size: ...

        @overload  # type: ignore[override]   # TensorImpl's stub says Any; these are its real types
        def size(self, dim: None = None) -> Size: ...

        @overload
        def size(self, dim: int) -> int: ...

        def size(self, dim: int | None = None) -> Size | int: ...

        # Autograd state and methods, attached from torch/_tensor_autograd.py.
        requires_grad: bool
        grad: Tensor | None
        grad_fn: Any
        is_leaf: bool
        retains_grad: bool
        output_nr: int
        _requires_grad: bool
        _grad_fn: Any
        _output_nr: int
        _retains_grad: bool

        def requires_grad_(self, requires_grad: bool = True) -> Tensor: ...
        def retain_grad(self) -> None: ...
        def register_hook(self, hook: Any) -> Any: ...
        def register_post_accumulate_grad_hook(self, hook: Any) -> Any: ...
        def detach_(self) -> Tensor: ...

        def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                     create_graph: bool = False, inputs: Any = None) -> None: ...

    def numpy(self, *, force: bool = False) -> Any:
        """A numpy array sharing this tensor's memory (CPU tensors only); force=True copies a CUDA
        tensor to the host and drops requires_grad first, as PyTorch's."""
        if force:
            if self.dtype.numpy_dtype is None:
                return self._numpy_view()       # PyTorch's TypeError for a dtype NumPy lacks (bfloat16)
            return self.detach()._host_view()
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self._numpy_view()

    def _host_view(self) -> Any:
        """The values as a NumPy array on the host (for printing): a copy from a CUDA tensor, and
        float32 values for a dtype NumPy lacks (bfloat16 widens exactly)."""
        if self.dtype.numpy_dtype is None:
            return self.float()._host_view()
        if self.is_cuda:
            from c10 import cuda as c10_cuda
            import numpy as np
            if not self.is_contiguous():        # print(x.t()), tolist(), item() of any view
                return self.contiguous()._host_view()
            host = np.empty(self._sizes(), dtype=self.dtype.numpy_dtype)
            c10_cuda.copy_to_host(host, self.data_ptr())
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
        if self._is_batched():
            raise RuntimeError("vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
                               "flow. We don't support that yet, please file an issue at "
                               "https://github.com/pytorch/pytorch/issues .")
        if self.numel() != 1:
            amount = "no values" if self.numel() == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {amount} is ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return float(self.item())

    def __int__(self) -> int:
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __repr__(self) -> str:
        from torch._tensor_str import tensor_repr
        return tensor_repr(self)

    def __hash__(self) -> int:
        return id(self)   # identity, as PyTorch's

    # -- construction, aliases and metadata (PyTorch's python_variable.cpp properties) -------
    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """The legacy constructor: torch.Tensor(), torch.Tensor(*sizes), torch.Tensor(data),
        torch.Tensor(other) (see torch/_legacy.py). Kernels make tensors without calling this."""
        if args and not kwargs and all(type(a) is int for a in args):    # torch.Tensor(2, 3): the common form
            return _empty(args, get_default_dtype())
        from torch._legacy import legacy_new
        return legacy_new(get_default_dtype(), None, args, kwargs, check_dtype=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass   # all the work is in __new__ (TensorImpl.__init__ refuses direct construction)

    def new(self, *args: Any, **kwargs: Any) -> Any:
        """The legacy constructor in self's dtype and on self's device."""
        from torch._legacy import legacy_new
        return legacy_new(self.dtype, self.device, args, kwargs, check_dtype=True)

    def new_tensor(self, data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
                   layout: Any = None, pin_memory: bool = False) -> Any:
        """A copy of data, by default in self's dtype and on self's device."""
        from torch._creation import tensor
        if isinstance(data, TensorImpl):
            warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                          "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                          "tensor.new_tensor(sourceTensor).", UserWarning, stacklevel=2)
            copy: Any = data
            copy = copy.detach().to(dtype=dtype or self.dtype, device=device or self.device, copy=True)
            return copy.requires_grad_(requires_grad) if requires_grad else copy
        return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    @property
    def data(self) -> Any:
        """An alias of this tensor that does not require grad and has its own version counter."""
        return self._variable_data()

    @data.setter
    def data(self, new: Any) -> None:
        if not isinstance(new, TensorImpl):
            raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
        self._shallow_copy_from(new)

    def detach(self) -> Any:
        return _function("detach")(self)

    @property
    def T(self) -> Any:
        if self.dim() == 2:
            return self.t()
        if self.dim() == 0:
            warnings.warn("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.",
                          UserWarning, stacklevel=2)
        elif self.dim() > 2:
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated "
                          "and it will throw an error in a future release. Consider `x.mT` to transpose batches of "
                          "matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a "
                          "tensor.", UserWarning, stacklevel=2)
        return self.permute(tuple(range(self.dim() - 1, -1, -1)))

    @property
    def mT(self) -> Any:
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def real(self) -> Any:
        """The real parts of a complex tensor (a view; assigning writes them); a real tensor itself."""
        return importlib.import_module("torch").real(self)

    @real.setter
    def real(self, value: Any) -> None:
        _write(importlib.import_module("torch").real(self), value)

    @property
    def imag(self) -> Any:
        """The imaginary parts of a complex tensor (a view; assigning writes them)."""
        return importlib.import_module("torch").imag(self)

    @imag.setter
    def imag(self, value: Any) -> None:
        _write(importlib.import_module("torch").imag(self), value)

    def _refuse_conjugate(self, name: str) -> None:
        if self.dtype.is_complex:
            raise NotImplementedError(f"Tensor.{name} of a complex tensor needs its conjugate, which Ember does not "
                                      "compute yet")

    @property
    def H(self) -> Any:
        # for real tensors the conjugate transpose is the transpose
        self._refuse_conjugate("H")
        if self.dim() == 0:
            warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
            return self.alias()
        if self.dim() != 2:
            extra = " For batches of matrices, consider using tensor.mH" if self.dim() > 2 else ""
            raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.dim()}-D tensor.{extra}")
        return self.t()

    @property
    def mH(self) -> Any:
        self._refuse_conjugate("mH")
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @property
    def itemsize(self) -> int:
        return int(self.element_size())

    @property
    def nbytes(self) -> int:
        return int(self.numel() * self.element_size())

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        """The default for Tensor subclasses: run func as for plain tensors, then give the results
        the subclass (PyTorch's _convert)."""
        if kwargs is None:
            kwargs = {}
        if not all(issubclass(cls, t) for t in types):
            return NotImplemented
        with DisableTorchFunctionSubclass():
            result = func(*args, **kwargs)
        return _convert(result, cls)

    def as_subclass(self, cls: type) -> Any:
        """A cls instance over the same data, attached to the same autograd graph (an alias)."""
        if not (isinstance(cls, type) and issubclass(cls, Tensor)):
            raise TypeError(f"as_subclass(): argument 'cls' must be a subclass of torch.Tensor, not {cls!r}")
        with DisableTorchFunctionSubclass():
            alias = self.alias()
        alias.__class__ = cls
        return alias

    def untyped_storage(self) -> Any:
        from torch.storage import UntypedStorage
        return UntypedStorage._wrap(self._untyped_storage)

    def share_memory_(self) -> Tensor:
        """Move the storage to shared memory (other processes then see its writes); a no-op for a
        storage already there, and for CUDA tensors, as in PyTorch."""
        self.untyped_storage().share_memory_()
        return self

    def is_shared(self) -> bool:
        return bool(self.untyped_storage().is_shared())

    @property
    def is_cpu(self) -> bool:
        return bool(self.device.type == "cpu")

    # Devices and layouts Ember has no tensors on: PyTorch's predicates, answered for every tensor here.
    is_xpu = is_mps = is_meta = is_ipu = is_xla = is_vulkan = is_mtia = is_maia = property(lambda self: False)
    is_sparse = is_sparse_csr = is_quantized = is_mkldnn = is_nested = property(lambda self: False)

    @property
    def layout(self) -> Any:
        return strided

    def get_device(self) -> int:
        return -1 if self.device.type == "cpu" else int(self.device.index or 0)

    # Python-level methods over the bindings, as PyTorch's torch/_tensor.py and python_variable_methods.
    def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
        from torch import functional
        return functional.norm(self, p, dim, keepdim, dtype=dtype)

    def unique(self, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
               dim: Any = None) -> Any:
        from torch import functional
        return functional.unique(self, sorted, return_inverse, return_counts, dim)

    def unique_consecutive(self, return_inverse: bool = False, return_counts: bool = False, dim: Any = None) -> Any:
        from torch import functional
        return functional.unique_consecutive(self, return_inverse, return_counts, dim)

    def nonzero(self, *, as_tuple: bool = False) -> Any:
        from torch import functional
        return functional.nonzero(self, as_tuple=as_tuple)

    def __format__(self, spec: str) -> str:
        if self.dim() == 0:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __long__(self) -> int:
        return int(self.item())

    def __nonzero__(self) -> bool:
        return self.__bool__()

    def __complex__(self) -> complex:
        return complex(self.item())

    def __reversed__(self) -> Any:
        return self if self.dim() == 0 else self.flip(0)

    def __contains__(self, element: Any) -> bool:
        if isinstance(element, (TensorImpl, bool, int, float)):
            return bool((self == element).any().item())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a {type(element)}.")

    __array_priority__ = 1000

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype, copy=False)

    def __array_wrap__(self, array: Any, context: Any = None, return_scalar: bool = False) -> Any:
        """A NumPy ufunc applied to a tensor gives a tensor (a bool result comes back as uint8,
        as PyTorch's)."""
        if array.dtype == bool:
            array = array.astype("uint8")
        return _from_numpy(array)

    # DLPack (torch/_dlpack.py does the work; loaded on first use).
    def __dlpack__(self, *, stream: Any = -1, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[Any, int] | None = None, copy: bool | None = None) -> Any:
        from torch._dlpack import tensor_dlpack
        return tensor_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self) -> tuple[Any, int]:
        from torch._dlpack import dl_device_of
        return dl_device_of(self.device)

    # Operators: the methods are generated; reflected forms of commutative ops are the method
    # itself (PyTorch binds __radd__ to add), the others call the function with the number first. As PyTorch's, a TypeError from the binding becomes NotImplemented (`t == None` is False,
    # `t + "a"` is Python's unsupported-operand error).
    __add__ = _binary(lambda a, b: a.add(b))
    __radd__ = _binary(lambda a, b: a.add(b))
    __iadd__ = _binary(lambda a, b: a.add_(b))
    __sub__ = _binary(lambda a, b: a.sub(b))
    __rsub__ = _binary(lambda a, b: _function("sub")(b, a))
    __isub__ = _binary(lambda a, b: a.sub_(b))
    __mul__ = _binary(lambda a, b: a.mul(b))
    __rmul__ = _binary(lambda a, b: a.mul(b))
    __imul__ = _binary(lambda a, b: a.mul_(b))
    __truediv__ = _binary(lambda a, b: a.div(b))
    # As PyTorch (torch/_tensor.py __rdiv__): a number divided by a tensor is reciprocal * number,
    # which rounds differently from a true division.
    __rtruediv__ = _binary(lambda a, b: a.reciprocal() * b)
    __itruediv__ = _binary(lambda a, b: a.div_(b))
    __floordiv__ = _binary(lambda a, b: a.floor_divide(b))
    __rfloordiv__ = _binary(lambda a, b: _function("floor_divide")(b, a))
    __ifloordiv__ = _binary(lambda a, b: a.floor_divide_(b))
    __mod__ = _binary(lambda a, b: a.remainder(b))
    __rmod__ = _binary(lambda a, b: _function("remainder")(b, a))
    __imod__ = _binary(lambda a, b: a.remainder_(b))
    __pow__ = _binary(lambda a, b: a.pow(b))
    __rpow__ = _binary(lambda a, b: _function("pow")(b, a))
    __ipow__ = _binary(lambda a, b: a.pow_(b))
    __matmul__ = _binary(lambda a, b: a.matmul(b))
    __rmatmul__ = _binary(lambda a, b: _function("matmul")(b, a))
    __and__ = _binary(lambda a, b: a.bitwise_and(b))
    __rand__ = _binary(lambda a, b: a.bitwise_and(b))
    __iand__ = _binary(lambda a, b: a.bitwise_and_(b))
    __or__ = _binary(lambda a, b: a.bitwise_or(b))
    __ror__ = _binary(lambda a, b: a.bitwise_or(b))
    __ior__ = _binary(lambda a, b: a.bitwise_or_(b))
    __xor__ = _binary(lambda a, b: a.bitwise_xor(b))
    __rxor__ = _binary(lambda a, b: a.bitwise_xor(b))
    __ixor__ = _binary(lambda a, b: a.bitwise_xor_(b))
    __lshift__ = _binary(lambda a, b: a.bitwise_left_shift(b))
    __rlshift__ = _binary(lambda a, b: _function("bitwise_left_shift")(b, a))
    __ilshift__ = _binary(lambda a, b: a.bitwise_left_shift_(b))
    __rshift__ = _binary(lambda a, b: a.bitwise_right_shift(b))
    __rrshift__ = _binary(lambda a, b: _function("bitwise_right_shift")(b, a))
    __irshift__ = _binary(lambda a, b: a.bitwise_right_shift_(b))
    __eq__ = _binary(lambda a, b: a.eq(b))  # type: ignore[assignment]
    __ne__ = _binary(lambda a, b: a.ne(b))  # type: ignore[assignment]
    __lt__ = _binary(lambda a, b: a.lt(b))
    __le__ = _binary(lambda a, b: a.le(b))
    __gt__ = _binary(lambda a, b: a.gt(b))
    __ge__ = _binary(lambda a, b: a.ge(b))

    # Python 2 names PyTorch still defines.
    __div__, __rdiv__, __idiv__ = __truediv__, __rtruediv__, __itruediv__

    def __neg__(self) -> Any:
        return self.neg()

    def __pos__(self) -> Any:
        if self.dtype.name == "bool":
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def __abs__(self) -> Any:
        return self.abs()

    def __invert__(self) -> Any:
        # PyTorch's THPVariable_invert: the operator itself refuses other dtypes, with a TypeError
        if self.dtype.is_floating_point or self.dtype.is_complex:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        return self.bitwise_not()

    # -- pickling (issue 7, serialization branch): PyTorch's pickle of a tensor, through the rebuild
    # functions of torch/_utils.py, so pickles and checkpoints are interchangeable with PyTorch's.
    def __reduce_ex__(self, proto: Any) -> Any:
        from torch._utils import _tensor_reduce
        return _tensor_reduce(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        """A copy with its own memory; tensors sharing a storage in one deepcopy share the copy's."""
        from torch._utils import _tensor_deepcopy
        return _tensor_deepcopy(self, memo)

    # -- aliases (issue 5, aliases branch): PyTorch's Python-level names for metadata queries --
    def nelement(self) -> int:
        return self.numel()

    def ndimension(self) -> int:
        return self.dim()


def _convert(result: Any, cls: type) -> Any:
    """result with its tensors made cls instances (aliases, as PyTorch's _convert makes them)."""
    if cls is Tensor:
        return result
    if isinstance(result, Tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    if isinstance(result, (tuple, list)):
        converted = [_convert(r, cls) for r in result]
        return type(result)._make(converted) if hasattr(result, "_make") else type(result)(converted)
    return result


def _dispatch_torch_function(public_api: Any, overloaded: Any, args: Any, kwargs: Any) -> Any:
    return importlib.import_module("torch.overrides").dispatch(public_api, overloaded, args, kwargs)


_FUNCTIONS: dict[str, Any] = {}


def _function(name: str) -> Any:
    """The generated torch function `name` (looked up once: import_module cost a method call a microsecond)."""
    fn = _FUNCTIONS.get(name)
    if fn is None:
        fn = _FUNCTIONS[name] = getattr(importlib.import_module(_gen_index.FUNCTIONS[name]), name)
    return fn


class _LazyMethod:
    """A Tensor method that imports its generated binding on first access, then replaces itself."""

    def __init__(self, name: str, module: str, attr: str) -> None:
        self.name, self.module, self.attr = name, module, attr

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        fn = getattr(importlib.import_module(self.module), self.attr)
        fn.__name__ = self.name         # Tensor_add is Tensor.add to __torch_function__ and modes
        setattr(Tensor, self.name, fn)
        return fn if obj is None else fn.__get__(obj, cls)


for _name, _method in {**_tensor_conversions.METHODS, **_tensor_autograd.METHODS,
                        **_tensor_autograd.PROPERTIES, **_tensor_autograd.DEFAULTS}.items():
    setattr(Tensor, _name, _method)

for _name, (_module, _attr) in _gen_index.METHODS.items():
    if _name not in Tensor.__dict__:
        setattr(Tensor, _name, _LazyMethod(_name, _module, _attr))

_getitem.__name__, _setitem.__name__ = "__getitem__", "__setitem__"
set_tensor_type(Tensor)
set_torch_function_support(Tensor, _dispatch_torch_function)


def _write(part: Any, value: Any) -> None:
    """Tensor.real / .imag assignment: a tensor is copied in, a number fills."""
    if isinstance(value, Tensor):
        if value.requires_grad and importlib.import_module("torch").is_grad_enabled():
            raise RuntimeError("Tensor.real/.imag assignment: Ember does not differentiate through complex tensors "
                               "yet (the value requires grad)")
        part.copy_(value)
    else:
        part.fill_(value)
