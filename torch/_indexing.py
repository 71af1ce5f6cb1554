"""The NumPy side of Tensor indexing (torch/_C/_indexing.pyx, which may not import numpy):
numpy's integer and array types, and PyTorch's sequenceToVariable - a list, nested lists or a
numpy array used as an index become a bool or uint8 tensor when their data is, else int64
(floats truncate, as indexing_tensor_from_data converts with kLong)."""
from __future__ import annotations

from typing import Any

import numpy as np

from c10.tensor_impl import from_numpy
from torch._C import _indexing
from torch._creation import infer_nested


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
    kinds: set[Any] = set()
    infer_nested(seq, 0, shape, kinds, [], for_index=True)
    if kinds == {"bool"}:
        array = np.array(seq, dtype=np.bool_)
    else:
        try:
            array = np.array(seq, dtype=np.float64 if "float" in kinds else np.int64).astype(np.int64)
        except OverflowError:
            raise ValueError("Overflow when unpacking long long") from None
    return from_numpy(np.ascontiguousarray(array).reshape(shape))


_indexing.install(np.integer, np.ndarray, sequence_to_index)
