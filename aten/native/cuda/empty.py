"""aten::empty and aten::empty_strided on CUDA: device memory from c10.cuda's caching pool."""
from __future__ import annotations

from typing import Any

from aten.native.meta import context
from aten.native.meta.tensor_options import check_tensor_options, empty_strided_on, fill_uninitialized
from c10 import scalar_type, tensor_impl
from c10.device import canonical


def empty_cuda(size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None,
               memory_format: Any = None) -> Any:
    check_tensor_options(layout, None, memory_format)
    dt = scalar_type.get_default_dtype() if dtype is None else dtype
    out = tensor_impl.empty(tuple(size), dt, canonical(device if device is not None else "cuda"))
    return fill_uninitialized(out) if context.filling else out


def empty_strided_cuda(size: Any, stride: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                       pin_memory: Any = None) -> Any:
    return empty_strided_on(canonical(device if device is not None else "cuda"), size, stride, dtype, layout,
                            pin_memory)
