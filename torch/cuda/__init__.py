"""torch.cuda: whether a GPU can be used and its memory (PyCUDA and a driver are imported only when asked)."""
from __future__ import annotations

from typing import Any

from c10 import cuda as _c10_cuda
from c10.cuda import Event
from c10.cuda.caching_allocator import OutOfMemoryError
from c10.generator import default_cuda_generator
from torch.cuda.graphs import (CUDAGraph, graph, graph_pool_handle, is_current_stream_capturing,
                               make_graphed_callables)
from torch.cuda.memory import (empty_cache, max_memory_allocated, max_memory_reserved, mem_get_info,
                               memory_allocated, memory_reserved, memory_stats, reset_accumulated_memory_stats,
                               reset_peak_memory_stats)
from torch.cuda.streams import Stream, StreamContext, current_stream, default_stream, stream

__all__ = ["is_available", "is_initialized", "device_count", "init", "current_device", "synchronize", "get_device_name",
           "Event", "OutOfMemoryError", "manual_seed", "manual_seed_all", "initial_seed", "seed", "seed_all",
           "get_rng_state", "set_rng_state", "get_rng_state_all", "set_rng_state_all", "default_generators",
           "empty_cache", "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_peak_memory_stats", "reset_accumulated_memory_stats", "mem_get_info", "Stream",
           "StreamContext", "current_stream", "default_stream", "stream", "get_device_properties",
           "get_device_capability", "set_device", "device", "is_bf16_supported", "CUDAGraph", "graph",
           "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"]


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


# torch.cuda.default_generators: one Philox generator per device (Ember drives device 0)
default_generators = (default_cuda_generator,)


def manual_seed(seed: int) -> None:
    """Seed the CUDA generator (Philox; no device is needed to set it)."""
    default_cuda_generator.manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    default_cuda_generator.manual_seed(int(seed))


def seed() -> None:
    """Seed the CUDA generator from a non-deterministic source."""
    default_generators[0].seed()


def seed_all() -> None:
    default_generators[0].seed()


def initial_seed() -> int:
    return int(default_cuda_generator.initial_seed())


def get_rng_state(device: Any = "cuda") -> Any:
    """The CUDA generator's state: a uint8 CPU tensor of its seed and Philox offset (16 bytes)."""
    return default_generators[0].get_state()


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    default_generators[0].set_state(new_state)


def get_rng_state_all() -> list[Any]:
    return [get_rng_state()]


def set_rng_state_all(new_states: Any) -> None:
    for state in new_states:
        set_rng_state(state)


class _CudaDeviceProperties:
    """What torch.cuda.get_device_properties gives: name, major, minor, total_memory (bytes),
    multi_processor_count."""

    def __init__(self, properties: dict[str, Any]) -> None:
        self.name: str = properties["name"]
        self.major: int = properties["major"]
        self.minor: int = properties["minor"]
        self.total_memory: int = properties["total_memory"]
        self.multi_processor_count: int = properties["multi_processor_count"]

    def __repr__(self) -> str:
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1 << 20)}MB, multi_processor_count={self.multi_processor_count})")


def get_device_properties(device: Any = None) -> _CudaDeviceProperties:
    from torch.cuda.memory import _device_index
    return _CudaDeviceProperties(_c10_cuda.device_properties(_device_index(device)))


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether CUDA computes in bfloat16 here: natively from compute capability 8.0, and on any device
    Ember's kernels run on, since they convert bfloat16 in software (including_emulation)."""
    if not is_available():
        return False
    return including_emulation or get_device_capability()[0] >= 8


def get_device_capability(device: Any = None) -> tuple[int, int]:
    properties = get_device_properties(device)
    return properties.major, properties.minor


def set_device(device: Any) -> None:
    """Make device the current one: only device 0 exists for Ember so far."""
    from torch.cuda.memory import _device_index
    index = _device_index(device)
    if index != 0:
        _c10_cuda.allocator(index)       # PyTorch's invalid-ordinal error, or Ember's device-0-only one


class device:
    """`with torch.cuda.device(i):` CUDA work inside goes to device i (0, the only one so far)."""

    __module__ = "torch.cuda"

    def __init__(self, device: Any) -> None:
        self.index = device

    def __enter__(self) -> None:
        if self.index is not None and not (isinstance(self.index, int) and self.index < 0):
            set_device(self.index)

    def __exit__(self, *exc: Any) -> None:
        return None


def __getattr__(name: str) -> Any:
    if name == "amp":     # imported on first use: it needs torch.amp, which torch.cuda itself does not
        import importlib
        return importlib.import_module("torch.cuda.amp")
    raise AttributeError(f"module 'torch.cuda' has no attribute '{name}'")
