"""Shared by the numerics tests: every dtype Ember has kernels for, and its numpy twin."""
from __future__ import annotations

import numpy as np

import torch

ALL_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.float32, torch.float64]
# computed in by the ops with complex loops (test/opinfo/complex_ops.py), not by every kernel
COMPLEX_DTYPES = [torch.complex64, torch.complex128]
NUMPY_OF = {dt: np.dtype(dt.numpy_dtype) for dt in ALL_DTYPES + COMPLEX_DTYPES}
TORCH_OF = {v: k for k, v in NUMPY_OF.items()}


def dtype_id(dt: object) -> str:
    """A short test id: 'float32' for torch.float32."""
    return str(dt).removeprefix("torch.")


def random_values(dtype: torch.dtype, shape: tuple[int, ...], rng: np.random.Generator, *,
                  int_range: tuple[int, int] = (-10, 10), float_scale: float = 4.0,
                  nonzero: bool = False) -> np.ndarray:
    """A numpy array of dtype's numpy twin: random bools, integers in int_range (clipped to the
    dtype; unsigned types start at 0), or normal floats times float_scale. `nonzero` replaces
    integer zeros with 3 (for divisors)."""
    np_dtype = NUMPY_OF[dtype]
    if np_dtype == np.bool_:
        values = rng.random(shape) < 0.5
    elif np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        values = rng.integers(max(info.min, int_range[0]), min(info.max, int_range[1]), size=shape, endpoint=True)
        if nonzero:
            values = np.where(values == 0, 3, values)
    elif np_dtype.kind == "c":
        values = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * float_scale
    else:
        values = rng.standard_normal(shape) * float_scale
    return np.asarray(values).astype(np_dtype)  # an array even for shape ()
