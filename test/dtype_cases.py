"""Shared by the numerics tests: every dtype Ember has kernels for, and its numpy twin."""
from __future__ import annotations

import numpy as np

import torch

ALL_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
              torch.float32, torch.float64]
NUMPY_OF = {dt: np.dtype(dt.numpy_dtype) for dt in ALL_DTYPES}
TORCH_OF = {v: k for k, v in NUMPY_OF.items()}


def dtype_id(dt: object) -> str:
    """A short test id: 'float32' for torch.float32."""
    return str(dt).removeprefix("torch.")
