"""c10.cuda's caching allocator over a fake driver (no PyCUDA, no GPU needed): blocks reused by
size class, PyTorch's statistics, empty_cache, and the out-of-memory retry and error."""
from __future__ import annotations

import gc

import pytest

import torch
from c10.cuda.caching_allocator import CachingAllocator, OutOfMemoryError, round_size


class FakeDriver:
    """Hands out increasing addresses; refuses past `capacity` bytes in use."""

    def __init__(self, capacity: int = 1 << 40) -> None:
        self.capacity, self.used, self.next, self.live = capacity, 0, 0x10000, {}
        self.mallocs = self.frees = 0

    def malloc(self, nbytes: int):
        if self.used + nbytes > self.capacity:
            raise MemoryError("out of memory")
        address, self.next = self.next, self.next + nbytes
        self.used += nbytes
        self.live[address] = nbytes
        self.mallocs += 1
        return address, address

    def free(self, handle) -> None:
        self.used -= self.live.pop(handle)
        self.frees += 1


def _allocator(capacity: int = 1 << 40):
    driver = FakeDriver(capacity)
    return CachingAllocator(0, driver.malloc, driver.free, total_memory=capacity), driver


@pytest.mark.parametrize("request_bytes, size_class", [(0, 512), (1, 512), (512, 512), (513, 1024), (1 << 20, 1 << 20),
                                                       ((1 << 20) + 1, 2 << 20), (5 << 20, 6 << 20)])
def test_requests_round_up_to_their_size_class(request_bytes, size_class):
    assert round_size(request_bytes) == size_class


def test_a_freed_block_is_reused_by_the_next_request_of_its_class():
    alloc, driver = _allocator()
    block = alloc.allocate(1000)
    address = block.address
    del block
    again = alloc.allocate(700)                # same class (1024 bytes)
    assert again.address == address and driver.mallocs == 1
    other = alloc.allocate(5000)               # another class: a new block from the driver
    assert other.address != address and driver.mallocs == 2


def test_statistics_count_allocated_and_reserved_bytes_with_peaks():
    alloc, _ = _allocator()
    a, b = alloc.allocate(1000), alloc.allocate(3 << 20)
    stats = alloc.stats()
    assert stats["allocated_bytes.all.current"] == 1024 + (4 << 20) == stats["reserved_bytes.all.current"]
    del b
    stats = alloc.stats()
    assert stats["allocated_bytes.all.current"] == 1024
    assert stats["allocated_bytes.all.peak"] == 1024 + (4 << 20)
    assert stats["reserved_bytes.all.current"] == 1024 + (4 << 20)       # cached, still reserved
    alloc.reset_peak_stats()
    assert alloc.stats()["allocated_bytes.all.peak"] == 1024
    assert stats["allocation.all.allocated"] == 2 and stats["allocation.all.freed"] == 1
    del a


def test_empty_cache_returns_unused_blocks_to_the_driver_only():
    alloc, driver = _allocator()
    kept, dropped = alloc.allocate(100), alloc.allocate(100)
    del dropped
    alloc.empty_cache()
    assert driver.frees == 1 and driver.live == {kept.address: 512}
    assert alloc.stats()["reserved_bytes.all.current"] == 512


def test_out_of_memory_frees_the_cache_and_retries_once():
    alloc, driver = _allocator(capacity=4 << 20)
    cached = alloc.allocate(3 << 20)           # 4 MiB class
    del cached
    big = alloc.allocate(3 << 20 | 1)          # same class: reused, no driver call
    del big
    small = alloc.allocate(2 << 20)            # another class: the 4 MiB cached block is in the way
    assert driver.frees == 1 and alloc.stats()["num_alloc_retries"] == 1
    with pytest.raises(OutOfMemoryError) as info:
        alloc.allocate(3 << 20)
    assert str(info.value).startswith("CUDA out of memory. Tried to allocate 3.00 MiB. GPU 0 has a total capacity "
                                      "of 4.00 MiB.")
    assert isinstance(info.value, RuntimeError)
    del small


def test_blocks_return_when_their_storage_is_collected():
    alloc, _ = _allocator()
    holder = [alloc.allocate(100)]
    holder.append(holder)                      # a reference cycle: freed by the collector
    del holder
    gc.collect()
    assert alloc.stats()["allocated_bytes.all.current"] == 0


def test_torch_cuda_memory_functions_without_a_gpu_initialise_nothing():
    assert torch.cuda.memory_allocated() == 0 and torch.cuda.max_memory_reserved("cuda:0") == 0
    assert torch.cuda.memory_stats() == {} or torch.cuda.is_initialized()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    assert torch.OutOfMemoryError is torch.cuda.OutOfMemoryError
    with pytest.raises(ValueError, match="Expected a cuda device"):
        torch.cuda.memory_allocated("cpu")


def test_a_block_collected_while_the_allocator_is_busy_does_not_deadlock():
    # PyCUDA's mem_alloc runs the collector when the device is full; a block freed then (here one
    # held only by a reference cycle) must not wait for the lock allocate() holds
    import threading
    alloc, driver = _allocator()

    def malloc_collecting(nbytes):
        gc.collect()
        return driver.malloc(nbytes)

    alloc._malloc = malloc_collecting
    cycle = [alloc.allocate(100)]
    cycle.append(cycle)
    del cycle
    done, kept = threading.Event(), []
    worker = threading.Thread(target=lambda: (kept.append(alloc.allocate(5000)), done.set()), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert done.is_set(), "allocate() deadlocked on a block collected inside it"
    assert alloc.stats()["allocation.all.freed"] == 1
