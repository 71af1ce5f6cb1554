"""The CPU allocator's cache of large blocks (c10/cpu_allocator.pyx): a freed block of 128 KiB or more is
handed out again for the same size class instead of fresh, page-faulting memory; the cache is bounded,
can be emptied, and never changes what tensors hold."""
from __future__ import annotations

import gc
import os

import numpy as np
import pytest

import torch
from c10 import cpu_allocator

MIB = 1 << 20


@pytest.fixture(autouse=True)
def fresh_cache():
    gc.collect()
    cpu_allocator.empty_cache()
    old = cpu_allocator.set_cache_limit(64 * MIB)
    yield
    cpu_allocator.set_cache_limit(old)
    cpu_allocator.empty_cache()


def test_a_freed_large_block_is_reused_for_the_next_tensor_of_its_size_class():
    first = torch.empty(MIB // 2)                      # 2 MiB of float32
    address = first.data_ptr()
    del first
    assert cpu_allocator.cached_bytes() == 2 * MIB
    again = torch.empty(MIB // 2 - 100)               # a little smaller: the same class
    assert again.data_ptr() == address
    assert cpu_allocator.cached_bytes() == 0


def test_a_freed_block_of_a_quarter_mebibyte_is_reused_rather_than_faulted_in_again():
    # glibc maps such blocks fresh or trims them off its heap's top when freed: each reuse would fault its pages
    first = torch.empty(MIB // 16)                     # 256 KiB of float32
    address = first.data_ptr()
    del first
    assert cpu_allocator.cached_bytes() == MIB // 4
    assert torch.empty(MIB // 16).data_ptr() == address


def test_small_blocks_go_straight_back_to_the_c_library():
    torch.empty(1000)                                 # made and dropped
    assert cpu_allocator.cached_bytes() == 0


def test_the_cache_keeps_at_most_its_limit_evicting_the_oldest_block():
    cpu_allocator.set_cache_limit(3 * MIB)
    tensors = [torch.empty(MIB // 4, dtype=torch.float32) for _ in range(5)]
    newest = tensors[-1].data_ptr()
    while tensors:
        tensors.pop(0)                                  # freed in order: the last one last
    assert cpu_allocator.cached_bytes() == 3 * MIB
    assert torch.empty(MIB // 4).data_ptr() == newest          # the most recently freed goes out first


def test_emptying_the_cache_and_a_zero_limit_keep_nothing():
    torch.empty(2 * MIB)
    assert cpu_allocator.cached_bytes() > 0
    cpu_allocator.empty_cache()
    assert cpu_allocator.cached_bytes() == 0
    cpu_allocator.set_cache_limit(0)
    torch.empty(2 * MIB)
    assert cpu_allocator.cached_bytes() == 0


def test_reused_memory_never_shows_through_what_tensors_hold():
    n = MIB
    dirty = torch.full((n,), 7.0)
    del dirty
    assert torch.equal(torch.zeros(n), torch.from_numpy(np.zeros(n, np.float32)))
    torch.full((n,), 7.0)
    a = torch.arange(n, dtype=torch.float32)
    np.testing.assert_array_equal((a + 1).numpy(), np.arange(n, dtype=np.float32) + 1)


def test_a_storage_grows_out_of_a_cached_block_keeping_its_bytes():
    t = torch.arange(MIB // 4, dtype=torch.float32)
    t.resize_(MIB)
    np.testing.assert_array_equal(t[:MIB // 4].numpy(), np.arange(MIB // 4, dtype=np.float32))
    assert cpu_allocator.cached_bytes() == MIB          # the old block, kept for reuse


def test_an_impossible_allocation_still_fails_with_pytorchs_error_after_emptying_the_cache():
    torch.empty(2 * MIB)
    with pytest.raises(RuntimeError, match="DefaultCPUAllocator: can't allocate memory: you tried to allocate"):
        torch.empty(1 << 60, dtype=torch.uint8)
    assert cpu_allocator.cached_bytes() == 0


def _vm_flags(address: int) -> list[str]:
    """The VmFlags of the mapping holding address, from /proc/self/smaps."""
    inside = False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                low, high = (int(x, 16) for x in head.split("-"))
                inside = low <= address < high
            elif inside and head == "VmFlags:":
                return line.split()[1:]
    raise AssertionError(f"no mapping holds {address:#x}")


@pytest.mark.skipif(not os.path.exists("/sys/kernel/mm/transparent_hugepage"),
                    reason="a kernel with transparent huge pages")
def test_a_block_from_4_mib_is_aligned_to_and_advised_for_2_mib_pages():
    # a memory-bound loop over 4 KiB pages pays a TLB miss per page and its prefetch stops at each one
    large = torch.empty(4 * MIB)                      # 16 MiB of float32
    assert large.data_ptr() % (2 * MIB) == 0
    assert "hg" in _vm_flags(large.data_ptr())
    small = torch.empty(MIB // 2)                     # 2 MiB: an ordinary block
    assert small.data_ptr() % 64 == 0
