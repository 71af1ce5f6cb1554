"""torch.accelerator: the device-neutral API over the current accelerator. Ember's one accelerator
backend is CUDA, so each call is torch.cuda's when a GPU is available; with none, the queries answer
(is_available() False, device_count() 0, current_accelerator() None) and every other call raises
PyTorch's "Cannot access accelerator device when none is available."."""
from __future__ import annotations

from typing import Any

from torch.accelerator import memory
from torch.accelerator.memory import (empty_cache, empty_host_cache, get_memory_info, max_memory_allocated,
                                      max_memory_reserved, memory_allocated, memory_reserved, memory_stats,
                                      reset_accumulated_memory_stats, reset_peak_memory_stats)
from torch.accelerator._backend import cuda, device_of, require

__all__ = ["Graph", "current_accelerator", "current_device_idx", "current_device_index", "get_device_capability",
           "current_stream", "device_count", "device_index", "empty_cache", "empty_host_cache", "get_memory_info",
           "is_available", "max_memory_allocated", "max_memory_reserved", "memory", "memory_allocated",
           "memory_reserved", "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
           "set_device_idx", "set_device_index", "set_stream", "synchronize"]


def is_available() -> bool:
    return cuda().is_available()


def device_count() -> int:
    return cuda().device_count() if is_available() else 0


def current_accelerator(check_available: bool = False) -> Any:
    """The accelerator this build can drive: torch.device("cuda") where Ember's CUDA backend is
    installed (PyCUDA), else None; with check_available, also None when no GPU is available."""
    from torch.backends.cuda import is_built
    if not is_built() or (check_available and not is_available()):
        return None
    from c10.device import canonical
    return canonical("cuda")


def current_device_index() -> int:
    require()
    return cuda().current_device()


current_device_idx = current_device_index


def set_device_index(device: Any, /) -> None:
    require()
    cuda().set_device(device_of(device))


set_device_idx = set_device_index


def current_stream(device: Any = None, /) -> Any:
    require()
    return cuda().current_stream(device_of(device))


def set_stream(stream: Any) -> None:
    """Make stream current: Ember queues all CUDA work on one stream, so only that stream is accepted."""
    require()
    if stream != cuda().current_stream():
        raise RuntimeError("Ember runs CUDA work on one stream; other streams cannot be made current yet")


def synchronize(device: Any = None, /) -> None:
    require()
    cuda().synchronize(device_of(device))


def get_device_capability(device: Any = None, /) -> dict[str, Any]:
    """What the device supports: its dtypes (every dtype Ember's CUDA kernels store)."""
    require()
    import torch
    dtypes = {getattr(torch, name) for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                                "bfloat16", "float32", "float64")}
    return {"supported_dtypes": dtypes}


class device_index:
    """`with torch.accelerator.device_index(i):` the accelerator's current device is i inside
    (None: a no-op, usable without an accelerator)."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc: Any) -> None:
        if self.idx is not None:
            set_device_index(self.prev_idx)


class Graph:
    """Accelerator graph capture (CUDA graphs): Ember cannot capture or replay graphs yet."""

    def __init__(self, keep_graph: bool = False, *, pool: Any = None, capture_error_mode: str = "default") -> None:
        require()
        raise RuntimeError("torch.accelerator.Graph: Ember does not support CUDA graph capture yet")
