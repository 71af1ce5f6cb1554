"""What a launch needs besides its kernel: the grid for n elements, the device copy of a kernel's
shapes and strides, and the memory a view spans."""
from __future__ import annotations

from typing import Any

import numpy as np

from c10 import cuda as c10_cuda

BLOCK = 256
MAX_BLOCKS = 65535         # a grid's blocks along x at most (loops stride over the rest)

_metas: dict[tuple[int, ...], Any] = {}
_MAX_METAS = 1024
c10_cuda.at_shutdown(_metas.clear)


def grid_for(n: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(grid, block) of a grid-stride loop over n elements."""
    blocks = max(1, min((n + BLOCK - 1) // BLOCK, MAX_BLOCKS))
    return (blocks, 1, 1), (BLOCK, 1, 1)


def device_meta(values: Any) -> Any:
    """Device memory holding the int64 values (a kernel's shapes and strides): uploaded once per
    distinct list and kept, so a launch over a layout seen before copies nothing to the device."""
    key = tuple(int(v) for v in values)
    found = _metas.get(key)
    if found is None:
        if len(_metas) >= _MAX_METAS:
            _metas.clear()     # the dropped blocks are freed when no launch holds them any more
        found = _metas[key] = c10_cuda.lazy_init().drv.to_device(np.asarray(key, dtype=np.int64))
    return found


def byte_extent(t: Any) -> tuple[int, int]:
    """The first and last device addresses a view can touch (both inclusive)."""
    span = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()) if size > 0)
    return t.data_ptr(), t.data_ptr() + (span + 1) * t.element_size() - 1
