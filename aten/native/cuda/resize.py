"""aten::resize_ on CUDA: the CPU kernel's work, which changes only sizes and strides; the storage
grows in c10.storage (Storage.grow), with a block from the CUDA caching allocator."""
from __future__ import annotations

from typing import Any

import aten.native.cpu.resize as _cpu_resize


def resize_tensor_(self: Any, size: Any, memory_format: Any = None) -> Any:
    return _cpu_resize.resize_tensor_(self, size, memory_format)
