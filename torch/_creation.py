"""torch.tensor, torch.from_numpy, torch.is_tensor, torch.result_type."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from c10 import scalar_type
from c10 import tensor_impl
from c10.device import canonical
from c10.tensor_impl import TensorImpl
from torch._C._tensor_new import tensor_from_python
from torch._C.arg_parser import get_default_device
from torch.csrc.autograd import graph

_FLOAT32 = scalar_type.dtype_from_name("float32")

_PYTHON_DATA = (list, tuple, float, int, bool)

if TYPE_CHECKING:
    from torch._tensor import Tensor


def infer_nested(data: Any, dim: int, shape: list[int], kinds: set[Any], leaf_dim: list[int],
                 for_index: bool = False) -> bool:
    """Record the nested sequence's shape and the scalar kinds it holds ("bool", "int", "float"
    for Python numbers; the dtype of numpy scalars, nested arrays and one-element tensors);
    leaf_dim holds the depth at which scalars were found (PyTorch's errors for ragged nesting).
    Returns whether a tensor was found (torch.tensor then reads it as a number).

    for_index: the rules of a list used as an index (torch/_indexing.py, PyTorch's
    sequenceToVariable): any sequence nests, a 0-d numpy array is a scalar, and the errors
    speak of indexing; otherwise torch.tensor's rules (lists and tuples nest, and so do numpy
    arrays, as leaves of their own dtype)."""
    if isinstance(data, TensorImpl):
        if for_index:
            raise TypeError("indexing with a list holding tensors is not supported by Ember; use torch.stack")
        if data.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        _leaf(dim, shape, leaf_dim)
        kinds.add(data.dtype)
        return True
    if for_index:
        if isinstance(data, np.ndarray) and data.ndim == 0:
            data = data.item()
        nests = not isinstance(data, (str, bytes, np.ndarray)) and hasattr(data, "__len__") and hasattr(data, "__getitem__")
    else:
        if isinstance(data, np.ndarray) and data.ndim > 0:
            if shape[dim:dim + data.ndim] != list(data.shape)[:len(shape) - dim]:
                raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {data.shape[0]})")
            shape[len(shape):] = list(data.shape)[len(shape) - dim:]
            _leaf(dim + data.ndim, shape, leaf_dim)
            kinds.add(scalar_type.dtype_from_numpy(data.dtype))
            return False
        nests = isinstance(data, (list, tuple))
    if nests:
        if leaf_dim and dim >= leaf_dim[0]:
            wanted = "a real number" if "float" in kinds and not for_index else "an integer"
            raise TypeError(f"'{type(data).__name__}' object cannot be interpreted as {wanted}")
        if dim == len(shape):
            shape.append(len(data))
        elif shape[dim] != len(data):
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})")
        found = False
        for item in data:
            found = infer_nested(item, dim + 1, shape, kinds, leaf_dim, for_index) or found
        return found
    _leaf(dim, shape, leaf_dim)
    if isinstance(data, (bool, np.bool_)):
        kinds.add("bool")
    elif isinstance(data, (np.integer, np.floating, np.complexfloating)) and not for_index:   # before float
        kinds.add(scalar_type.dtype_from_numpy(data.dtype))
    elif isinstance(data, (int, float, np.integer, np.floating)):
        kinds.add("int" if isinstance(data, (int, np.integer)) else "float")
    elif isinstance(data, complex) and not for_index:
        kinds.add("complex")
    else:
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    return False


def _leaf(dim: int, shape: list[int], leaf_dim: list[int]) -> None:
    if dim < len(shape):
        raise TypeError("not a sequence")
    if not leaf_dim:
        leaf_dim.append(dim)


def _inferred_dtype(kinds: set[Any]) -> Any:
    """PyTorch's infer_scalar_type over a sequence: the promotion of every element's type, a
    Python float being the default dtype, an int int64 and a bool bool."""
    names = {"float": scalar_type.get_default_dtype(), "int": scalar_type.dtype_from_name("int64"),
             "bool": scalar_type.dtype_from_name("bool"), "complex": scalar_type.get_default_dtype().to_complex()}
    result = None
    for kind in kinds:
        dt = names[kind] if isinstance(kind, str) else kind
        result = dt if result is None else scalar_type.promote_types(result, dt)
    return scalar_type.get_default_dtype() if result is None else result


def _items(data: Any) -> Any:
    """data with every tensor replaced by its Python number (nested lists keep their shape)."""
    if isinstance(data, TensorImpl):
        return data.item()
    if isinstance(data, (list, tuple)):
        return [_items(v) for v in data]
    return data


# Python numbers must fit the integral dtype they are stored in (c10's `overflows`): uint8 lets
# negatives down to -255 wrap, as two's complement.
_INT_RANGES = {"uint8": (-255, 255), "int8": (-128, 127), "int16": (-(1 << 15), (1 << 15) - 1),
               "int32": (-(1 << 31), (1 << 31) - 1), "uint16": (-65535, 65535),
               "uint32": (-((1 << 32) - 1), (1 << 32) - 1)}


def _check_fits(array: np.ndarray, dt: Any) -> None:
    limits = _INT_RANGES.get(dt.name)
    if limits is None or array.size == 0:
        return
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
    # c10::overflows: integers wrap into an unsigned type down to -max; floating values do not
    low = 0 if array.dtype.kind == "f" and dt.name.startswith("uint") else limits[0]
    if array.min() < low or array.max() > limits[1]:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


def _unsigned_64(data: Any) -> Any:
    """Python data checked as PyTorch unpacks uint64 elements: integers in [0, 2**64) only."""
    if isinstance(data, (list, tuple)):
        return [_unsigned_64(item) for item in data]
    if isinstance(data, bool):
        return int(data)
    if not isinstance(data, int):
        raise TypeError("an integer is required")
    if data < 0:
        raise OverflowError("can't convert negative int to unsigned")
    if data >= 1 << 64:
        raise OverflowError("int too big to convert")
    return data


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of data (nested lists or tuples of numbers, a number, or an array)."""
    if device is None:
        device = get_default_device()
    if type(data) in _PYTHON_DATA and device is None:
        out = tensor_from_python(data, dtype)       # the common case, in C; None: not that case
        if out is not None:
            return _set_requires_grad(out, requires_grad) if requires_grad else out
    if isinstance(data, TensorImpl):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                      "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        copy = data.detach().to(dtype=dtype, device=device, copy=True)  # type: ignore[attr-defined]
        return copy.requires_grad_(True) if requires_grad else copy
    if isinstance(data, (np.ndarray, np.generic)):
        inferred = scalar_type.dtype_from_numpy(data.dtype)
    else:
        shape: list[int] = []
        kinds: set[Any] = set()
        if infer_nested(data, 0, shape, kinds, []):
            data = _items(data)
        inferred = _inferred_dtype(kinds)
    dt = inferred if dtype is None else dtype
    if isinstance(dt, type) and dt in (float, int, bool, complex):     # Python's types name dtypes too
        dt = scalar_type.dtype_from_name({float: "float64", int: "int64", bool: "bool", complex: "complex128"}[dt])
    if not isinstance(dt, scalar_type.dtype):
        raise TypeError(f"tensor(): argument 'dtype' must be torch.dtype, not {type(dt).__name__}")
    if dt.name == "uint64" and not isinstance(data, (np.ndarray, np.generic)):
        unsigned = _unsigned_64(data)      # PyTorch's own errors for values outside [0, 2**64)
    try:
        # Convert as the data's own kind first, then cast: like PyTorch, -1 becomes 255 in uint8
        # and 1.7 becomes 1 in int64.
        widest = np.complex128 if inferred.is_complex else np.float64 if inferred.is_floating_point else (
            np.int64 if inferred.name != "bool" else np.bool_)
        from_python = not isinstance(data, (np.ndarray, np.generic))
        if from_python and inferred.is_complex and not dt.is_complex:
            raise TypeError("must be real number, not complex")
        if from_python and dt.name == "uint64":
            array = np.asarray(unsigned, dtype=np.uint64)     # the whole range, as PyTorch unpacks it
        else:
            array = np.asarray(data, dtype=None if not from_python else widest)
        if from_python:
            _check_fits(array, dt)
        # A dtype without a NumPy twin (bfloat16) is filled as float32, then rounded by Ember's cast.
        stored = dt if dt.numpy_dtype is not None else _FLOAT32
        with np.errstate(over="ignore"):             # too large for a float dtype is inf, silently
            if from_python and dt.is_floating_point and dt.itemsize < 4 and array.dtype == np.float64:
                array = array.astype(np.float32)     # double -> float -> half, as c10::Half converts
            array = array.astype(stored.numpy_dtype)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    out = tensor_impl.empty(array.shape, stored, None)
    out._numpy_view()[...] = array
    if stored is not dt:
        out = out.to(dt)
    if device is not None and canonical(device).type == "cuda":
        from aten.native.cuda.runtime.transfer import to_device
        out = to_device(out, dt)
    return _set_requires_grad(out, requires_grad) if requires_grad else out


def _set_requires_grad(out: Any, requires_grad: bool) -> Any:
    if not (out.dtype.is_floating_point or out.dtype.is_complex):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    graph.set_requires_grad_flag(out, True)
    return out


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Any:
    """data as a tensor, sharing memory where it can: a tensor of the same dtype and device is
    returned as is, and a numpy array of a supported dtype is wrapped without a copy."""
    if device is None:
        device = get_default_device()
    if isinstance(data, TensorImpl):
        return data if dtype is None and device is None else data.to(dtype=dtype, device=device)  # type: ignore[attr-defined]
    if isinstance(data, np.ndarray) and data.dtype.isnative and data.dtype.kind in "biuf":
        try:
            shared = tensor_impl.from_numpy(data)
        except TypeError:     # a numpy dtype Ember has no tensors of: torch.tensor reports it
            return tensor(data, dtype=dtype, device=device)
        return shared if dtype is None and device is None else shared.to(dtype=dtype, device=device)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool = False) -> Any:
    """obj as a tensor: a tensor, a NumPy array or an object with the buffer protocol shares its
    memory unless copy=True or a dtype/device change needs a copy (copy=False then raises);
    sequences and numbers are copied (copy=False raises). requires_grad is set on the result."""
    if device is None:
        device = get_default_device()
    if isinstance(obj, TensorImpl):
        out = _asarray_tensor(obj, dtype, device, copy)
    elif _is_storage(obj):        # its bytes as elements of dtype (the default dtype when none), shared
        dt = scalar_type.get_default_dtype() if dtype is None else dtype
        count = obj.nbytes() // dt.itemsize
        out = _asarray_tensor(tensor_impl.over_storage(obj._storage, dt, [count], [1], 0), None, device, copy)
    elif isinstance(obj, (np.ndarray, np.generic)) or _has_buffer(obj):
        array = obj if isinstance(obj, (np.ndarray, np.generic)) else \
            np.frombuffer(obj, dtype=(scalar_type.get_default_dtype() if dtype is None else dtype).numpy_dtype)
        out = _asarray_tensor(as_tensor(np.asarray(array), device="cpu"), dtype, device, copy)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Any:
    """A 1-D tensor of dtype over an object's buffer (count elements from byte offset), sharing it."""
    view = memoryview(buffer).cast("B")
    length = view.nbytes
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    size = dtype.itemsize
    if count < 0:
        if (length - offset) % size != 0:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({size})")
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({length} bytes)")
    if view.readonly:
        warnings.warn("The given buffer is not writable, and Ember does not support non-writable tensors. This means "
                      "you can write to the underlying (supposedly non-writable) buffer using the tensor. You may "
                      "want to copy the buffer to protect its data or make it writable before converting it to a "
                      "tensor.", UserWarning, stacklevel=2)
    array = np.frombuffer(view, dtype=np.uint8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # (the read-only case was reported above, in frombuffer's words)
        storage = tensor_impl.from_numpy(array)._untyped_storage.byte_range(offset, offset + count * size)
    out = tensor_impl.over_storage(storage, dtype, [count], [1], 0)
    return _set_requires_grad(out, requires_grad) if requires_grad else out


def _is_storage(obj: Any) -> bool:
    from torch.storage import UntypedStorage
    return isinstance(obj, UntypedStorage)


def _has_buffer(obj: Any) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


def _asarray_tensor(t: Any, dtype: Any, device: Any, copy: bool | None) -> Any:
    dtype = t.dtype if dtype is None else dtype
    device = t.device if device is None else canonical(device)
    if dtype is t.dtype and device == t.device and not copy:
        return t
    if copy is False:
        what = f"dtype '{t.dtype.type_name}' into dtype '{dtype.type_name}'" if dtype is not t.dtype else \
            f"device '{t.device}' into device '{device}'"
        raise ValueError(f"can't alias tensor with {what}.")
    return t.to(dtype=dtype, device=device, copy=True)


def from_numpy(array: Any) -> Tensor:
    """A tensor sharing memory with a numpy array."""
    return tensor_impl.from_numpy(array)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, TensorImpl)


def result_type(a: Any, b: Any) -> Any:
    from aten.native.meta.pointwise import result_type_of
    wrap = tensor_impl.scalar_to_tensor
    return result_type_of(a if isinstance(a, TensorImpl) else wrap(a), b if isinstance(b, TensorImpl) else wrap(b))
