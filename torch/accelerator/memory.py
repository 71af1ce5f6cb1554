"""torch.accelerator.memory: the accelerator's memory statistics (torch.cuda's caching allocator)."""
from __future__ import annotations

from typing import Any

from torch.accelerator._backend import cuda, device_of, require

__all__ = ["empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats"]


def empty_cache() -> None:
    require()
    cuda().empty_cache()


def empty_host_cache() -> None:
    """Release cached pinned host memory: Ember pins none (pin_memory is refused), so there is none."""
    require()


def memory_stats(device_index: Any = None, /) -> dict[str, Any]:
    require()
    return cuda().memory_stats(device_of(device_index))


def memory_allocated(device_index: Any = None, /) -> int:
    require()
    return cuda().memory_allocated(device_of(device_index))


def max_memory_allocated(device_index: Any = None, /) -> int:
    require()
    return cuda().max_memory_allocated(device_of(device_index))


def memory_reserved(device_index: Any = None, /) -> int:
    require()
    return cuda().memory_reserved(device_of(device_index))


def max_memory_reserved(device_index: Any = None, /) -> int:
    require()
    return cuda().max_memory_reserved(device_of(device_index))


def reset_peak_memory_stats(device_index: Any = None, /) -> None:
    require()
    cuda().reset_peak_memory_stats(device_of(device_index))


def reset_accumulated_memory_stats(device_index: Any = None, /) -> None:
    """Ember's allocator keeps no accumulated counters beyond the peaks: resets those."""
    require()
    cuda().reset_peak_memory_stats(device_of(device_index))


def get_memory_info(device_index: Any = None, /) -> tuple[int, int]:
    """(free, total) bytes of the device, from the driver."""
    require()
    return cuda().mem_get_info(device_of(device_index))
