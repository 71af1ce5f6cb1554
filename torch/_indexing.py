"""The NumPy side of Tensor indexing (torch/_C/_indexing.pyx, which may not import numpy):
numpy's integer and array types, and PyTorch's sequenceToVariable - a list, nested lists or a
numpy array used as an index become a bool or uint8 tensor when their data is, else int64
(floats truncate, as indexing_tensor_from_data converts with kLong)."""
from __future__ import annotations

from typing import Any

import numpy as np

from c10.tensor_impl import TensorImpl, from_numpy
from torch._C import _indexing


def _infer(data: Any, dim: int, shape: list[int], kinds: set[str], leaf_dim: list[int]) -> None:
    """The nested sequence's shape and scalar kinds, with torch.tensor's errors."""
    if isinstance(data, TensorImpl):
        raise TypeError("indexing with a list holding tensors is not supported by Ember; use torch.stack")
    if isinstance(data, np.ndarray) and data.ndim == 0:
        data = data.item()
    if not isinstance(data, (str, bytes, np.ndarray)) and hasattr(data, "__len__") and hasattr(data, "__getitem__"):
        if leaf_dim and dim >= leaf_dim[0]:
            raise TypeError(f"'{type(data).__name__}' object cannot be interpreted as an integer")
        if dim == len(shape):
            shape.append(len(data))
        elif shape[dim] != len(data):
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})")
        for item in data:
            _infer(item, dim + 1, shape, kinds, leaf_dim)
        return
    if dim < len(shape):
        raise TypeError("not a sequence")
    if not leaf_dim:
        leaf_dim.append(dim)
    if isinstance(data, (bool, np.bool_)):
        kinds.add("bool")
    elif isinstance(data, (int, np.integer)):
        kinds.add("int")
    elif isinstance(data, (float, np.floating)):
        kinds.add("float")
    else:
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")


def sequence_to_index(seq: Any) -> Any:
    if isinstance(seq, np.ndarray):
        kind = seq.dtype.kind
        if kind == "b":
            array = np.array(seq, dtype=np.bool_, order="C")
        elif seq.dtype == np.uint8:
            array = np.array(seq, dtype=np.uint8, order="C")
        elif kind in "iuf":
            array = np.array(seq, dtype=np.int64, order="C")
        else:
            raise TypeError(f"can't convert np.ndarray of type numpy.{seq.dtype.type.__name__}. The only supported "
                            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
                            "uint64, uint32, uint16, uint8, and bool.")
        return from_numpy(array)
    shape: list[int] = []
    kinds: set[str] = set()
    _infer(seq, 0, shape, kinds, [])
    if kinds == {"bool"}:
        array = np.array(seq, dtype=np.bool_)
    else:
        try:
            array = np.array(seq, dtype=np.float64 if "float" in kinds else np.int64).astype(np.int64)
        except OverflowError:
            raise ValueError("Overflow when unpacking long long") from None
    return from_numpy(np.ascontiguousarray(array).reshape(shape))


_indexing.install(np.integer, np.ndarray, sequence_to_index)
