from typing import Any, Callable

SMALL_SIZE: int
MIN_BLOCK_SIZE: int
LARGE_ROUND: int


class OutOfMemoryError(RuntimeError): ...


def round_size(nbytes: int) -> int: ...


class Block:
    address: int
    size: int
    handle: Any
    allocator: CachingAllocator
    def __int__(self) -> int: ...


class CachingAllocator:
    device: int
    _malloc: Callable[[int], tuple[int, Any]]
    _free: Callable[[Any], None]
    allocated: int
    peak_allocated: int
    reserved: int
    peak_reserved: int
    num_allocs: int
    num_frees: int
    num_driver_allocs: int
    num_retries: int
    def __init__(self, device: int, malloc: Callable[[int], tuple[int, Any]], free: Callable[[Any], None],
                 total_memory: int | None = None) -> None: ...
    def allocate(self, nbytes: int) -> Block: ...
    def empty_cache(self) -> None: ...
    def reset_peak_stats(self) -> None: ...
    def reset_accumulated_stats(self) -> None: ...
    def stats(self) -> dict[str, int]: ...
