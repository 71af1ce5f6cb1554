"""torch.cuda: whether a GPU can be used (PyCUDA and a driver are imported only when asked)."""
from __future__ import annotations

from c10 import cuda as _c10_cuda


def is_available() -> bool:
    return _c10_cuda.is_available()


def device_count() -> int:
    return _c10_cuda.device_count()


def init() -> None:
    _c10_cuda.lazy_init()
