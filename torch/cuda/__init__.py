"""torch.cuda: whether a GPU can be used and its memory (PyCUDA and a driver are imported only when asked)."""
from __future__ import annotations

from typing import Any

from c10 import cuda as _c10_cuda
from c10.cuda import Event
from c10.cuda.caching_allocator import OutOfMemoryError
from torch.cuda.memory import (empty_cache, max_memory_allocated, max_memory_reserved, memory_allocated,
                               memory_reserved, memory_stats, reset_peak_memory_stats)

__all__ = ["is_available", "is_initialized", "device_count", "init", "current_device", "synchronize", "get_device_name",
           "Event", "OutOfMemoryError", "manual_seed", "manual_seed_all", "initial_seed",
           "empty_cache", "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_peak_memory_stats"]


def is_available() -> bool:
    return _c10_cuda.is_available()


def is_initialized() -> bool:
    return _c10_cuda.is_initialized()


def device_count() -> int:
    return _c10_cuda.device_count()


def init() -> None:
    _c10_cuda.lazy_init()


def current_device() -> int:
    """The device new CUDA tensors go to: 0 (Ember drives device 0 only so far)."""
    _c10_cuda.lazy_init()
    return 0


def synchronize(device: Any = None) -> None:
    """Wait until the GPU has finished all the work queued so far."""
    _c10_cuda.synchronize()


def get_device_name(device: Any = None) -> str:
    from torch.cuda.memory import _device_index
    return _c10_cuda.device_name(_device_index(device))


def manual_seed(seed: int) -> None:
    """Seed the CUDA generator (Philox; no device is needed to set it)."""
    _c10_cuda.manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    _c10_cuda.manual_seed(int(seed))


def initial_seed() -> int:
    return _c10_cuda.initial_seed()
