"""How a tensor is summarised in printed graphs: PyTorch's short dtype names and shapes ("f32[2, 3]"),
shared by Node.format_node and the generated code's annotations."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

# PyTorch's short dtype names for verbose printouts ("f32[2, 3]"), for the dtypes this build has
_DTYPE_ABBRS_BY_NAME = {
    "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "float16": "f16", "float32": "f32",
    "float64": "f64", "complex32": "c32", "complex64": "c64", "complex128": "c128", "bool": "b8", "bfloat16": "bf16",
    "float8_e5m2": "f8e5m2", "float8_e4m3fn": "f8e4m3fn", "float8_e5m2fnuz": "f8e5m2fnuz",
    "float8_e4m3fnuz": "f8e4m3fnuz", "uint16": "u16", "uint32": "u32", "uint64": "u64",
}
dtype_abbrs: dict[Any, str] = {getattr(torch, name): abbr for name, abbr in _DTYPE_ABBRS_BY_NAME.items()
                               if hasattr(torch, name)}


def _stringify_shape(shape: Iterable[object]) -> str:
    return f"[{', '.join(str(x) for x in shape)}]"


def _tensor_summary(value: torch.Tensor) -> str:
    """'Tensor "f32[2, 3][3, 1]cpu"': dtype, sizes, strides and device, as verbose printouts show them."""
    return f'Tensor "{dtype_abbrs[value.dtype]}{_stringify_shape(value.shape)}{_stringify_shape(value.stride())}' \
           f'{value.device}"'
