"""The CUDA caching allocator: device memory kept for reuse instead of returned to the driver.

cudaMalloc and cudaFree synchronise the device and cost tens of microseconds, so, as PyTorch's
CUDACachingAllocator, freed blocks go back to a free list of their size class and the next
request of that class takes one from there. Sizes are rounded up to a class: multiples of
512 bytes up to 1 MiB, multiples of 2 MiB above (at most 2 MiB of slack on a large block, none
worth a segment of its own on a small one). Every kernel runs on the default stream, so a block
freed by the host can be handed out again at once: work using its old contents is ordered before
any work using the new ones.

The driver is two callables, so that this module needs neither PyCUDA nor a GPU (the tests give
it a fake one): `malloc(nbytes) -> (address, handle)`, raising MemoryError when the device is out
of memory, and `free(handle)`. When malloc fails, the cache is returned to the driver and the
request tried once more before torch.cuda.OutOfMemoryError (a RuntimeError) is raised with
PyTorch's wording.

Statistics follow torch.cuda's names: allocated bytes (blocks handed out, at their class size)
and reserved bytes (everything obtained from the driver, cached or not), current and peak.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

SMALL_SIZE = 1 << 20          # requests up to this many bytes are rounded to MIN_BLOCK_SIZE
MIN_BLOCK_SIZE = 512
LARGE_ROUND = 2 << 20         # larger requests are rounded to multiples of this


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (also torch.cuda.OutOfMemoryError)."""

    __module__ = "torch"


def round_size(nbytes: int) -> int:
    """The size class of a request of nbytes (at least one small block)."""
    if nbytes <= MIN_BLOCK_SIZE:
        return MIN_BLOCK_SIZE
    if nbytes <= SMALL_SIZE:
        return -(-nbytes // MIN_BLOCK_SIZE) * MIN_BLOCK_SIZE
    return -(-nbytes // LARGE_ROUND) * LARGE_ROUND


def _format(nbytes: int) -> str:
    """PyTorch's format_size: bytes, KiB, MiB or GiB with two decimals."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} bytes"


class Block:
    """One allocation handed out: its device address; returns itself to the cache when the last
    reference (the Storage that owns it) goes away."""

    __slots__ = ("address", "size", "handle", "allocator", "__weakref__")

    def __init__(self, address: int, size: int, handle: Any, allocator: "CachingAllocator") -> None:
        self.address, self.size, self.handle, self.allocator = address, size, handle, allocator

    def __int__(self) -> int:
        return self.address

    def __del__(self) -> None:
        allocator = self.allocator
        if allocator is not None:
            # no lock here: the collector can run this inside allocate(), which holds it; the
            # block waits in a list (append is atomic) until the next call under the lock
            allocator._returned.append((self.address, self.size, self.handle))


class CachingAllocator:
    """Blocks of one device, cached by size class (see the module docstring)."""

    def __init__(self, device: int, malloc: Callable[[int], tuple[int, Any]], free: Callable[[Any], None],
                 total_memory: int | None = None) -> None:
        self.device = device
        self._malloc, self._free = malloc, free
        self._total = total_memory
        self._lock = threading.Lock()
        self._cached: dict[int, list[tuple[int, Any]]] = {}
        self._returned: list[tuple[int, int, Any]] = []
        self.allocated = self.peak_allocated = 0
        self.reserved = self.peak_reserved = 0
        self.num_allocs = self.num_frees = self.num_driver_allocs = self.num_retries = 0

    def allocate(self, nbytes: int) -> Block:
        size = round_size(int(nbytes))
        with self._lock:
            if self._returned:
                self._take_returned()
            free_list = self._cached.get(size)
            if free_list:
                address, handle = free_list.pop()
            else:
                address, handle = self._from_driver(size, int(nbytes))
            self.allocated += size
            if self.allocated > self.peak_allocated:
                self.peak_allocated = self.allocated
            self.num_allocs += 1
        return Block(address, size, handle, self)

    def _from_driver(self, size: int, requested: int) -> tuple[int, Any]:
        try:
            found = self._malloc(size)
        except MemoryError:
            self.num_retries += 1
            self._release_cached()
            try:
                found = self._malloc(size)
            except MemoryError:
                raise self._out_of_memory(requested) from None
        self.reserved += size
        self.peak_reserved = max(self.peak_reserved, self.reserved)
        self.num_driver_allocs += 1
        return found

    def _out_of_memory(self, requested: int) -> OutOfMemoryError:
        capacity = f" GPU {self.device} has a total capacity of {_format(self._total)}." if self._total else ""
        return OutOfMemoryError(
            f"CUDA out of memory. Tried to allocate {_format(requested)}.{capacity} Of the allocated memory "
            f"{_format(self.allocated)} is allocated by PyTorch, and {_format(self.reserved - self.allocated)} is "
            "reserved by PyTorch but unallocated.")

    def _take_returned(self) -> None:
        """Blocks given back since the last call go to their free lists (under the lock)."""
        while self._returned:
            address, size, handle = self._returned.pop()
            self._cached.setdefault(size, []).append((address, handle))
            self.allocated -= size
            self.num_frees += 1

    def _release_cached(self) -> None:
        self._take_returned()
        cached, self._cached = self._cached, {}
        for size, blocks in cached.items():
            for _, handle in blocks:
                self._free(handle)
                self.reserved -= size

    def empty_cache(self) -> None:
        """Return every cached (unused) block to the driver; blocks in use stay."""
        with self._lock:
            self._release_cached()

    def reset_peak_stats(self) -> None:
        with self._lock:
            self._take_returned()
            self.peak_allocated, self.peak_reserved = self.allocated, self.reserved

    def reset_accumulated_stats(self) -> None:
        """Zero the counters that only grow (allocations, frees, retries, driver allocations)."""
        with self._lock:
            self._take_returned()
            self.num_allocs = self.num_frees = self.num_retries = self.num_driver_allocs = 0

    def stats(self) -> dict[str, int]:
        """A subset of torch.cuda.memory_stats(), under PyTorch's keys."""
        with self._lock:
            self._take_returned()
            return {"allocated_bytes.all.current": self.allocated, "allocated_bytes.all.peak": self.peak_allocated,
                    "reserved_bytes.all.current": self.reserved, "reserved_bytes.all.peak": self.peak_reserved,
                    "allocation.all.allocated": self.num_allocs, "allocation.all.freed": self.num_frees,
                    "num_alloc_retries": self.num_retries, "segment.all.allocated": self.num_driver_allocs}
