"""torch.cuda's memory statistics and cache control, over c10.cuda's caching allocator.

As PyTorch's, asking for statistics before CUDA is initialised initialises nothing: the
counters are zero and empty_cache does nothing."""
from __future__ import annotations

from typing import Any

from c10 import cuda as _c10_cuda
from c10.device import device as _device

__all__ = ["memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
           "reset_peak_memory_stats", "reset_accumulated_memory_stats", "mem_get_info", "empty_cache"]


def _device_index(device: Any) -> int:
    """None (the current device, 0), an int, "cuda[:i]" or a torch.device of type cuda."""
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    d = _device(device) if isinstance(device, str) else device
    if d.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {d}")
    return d.index or 0


def memory_stats(device: Any = None) -> dict[str, Any]:
    """A subset of PyTorch's statistics (allocated/reserved bytes, current and peak; counts)."""
    index = _device_index(device)
    return _c10_cuda.allocator(index).stats() if _c10_cuda.is_initialized() else {}


def memory_allocated(device: Any = None) -> int:
    """Bytes of device memory held by tensors (at their size class)."""
    return int(memory_stats(device).get("allocated_bytes.all.current", 0))


def max_memory_allocated(device: Any = None) -> int:
    return int(memory_stats(device).get("allocated_bytes.all.peak", 0))


def memory_reserved(device: Any = None) -> int:
    """Bytes obtained from the driver: held by tensors or cached for reuse."""
    return int(memory_stats(device).get("reserved_bytes.all.current", 0))


def max_memory_reserved(device: Any = None) -> int:
    return int(memory_stats(device).get("reserved_bytes.all.peak", 0))


def reset_peak_memory_stats(device: Any = None) -> None:
    if _c10_cuda.is_initialized():
        _c10_cuda.allocator(_device_index(device)).reset_peak_stats()


def reset_accumulated_memory_stats(device: Any = None) -> None:
    """Zero the counters of allocations, frees, retries and driver allocations."""
    if _c10_cuda.is_initialized():
        _c10_cuda.allocator(_device_index(device)).reset_accumulated_stats()


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """(free, total) bytes of the device's memory, from the driver."""
    return _c10_cuda.mem_get_info(_device_index(device))


def empty_cache() -> None:
    """Return the cached blocks no tensor uses to the driver."""
    if _c10_cuda.is_initialized():
        _c10_cuda.allocator(0).empty_cache()
