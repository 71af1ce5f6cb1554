"""The CPU allocator: 64-byte aligned blocks from the C library, and a bounded cache of large ones.

A large block the C library hands out is freshly mapped memory: its first touch costs a page
fault and a zeroed page per 4 KiB, which for a 64 MiB result is ten times the arithmetic that
fills it (an add of 2^24 float32 into a new tensor: 60 ms against 5 ms into an existing one, on
this project's 2-core machine). Blocks from 128 KiB (glibc's first mmap threshold) fault the
same way when smaller: glibc maps them fresh, or carves them from the top of its heap, which it
gives back to the kernel whenever a free leaves more than its trim threshold unused there. A
compiled char_gpt step, whose graph holds its activations until the backward frees them together,
faulted ~700 pages a step that way (7.4 ms a step; 5.9 ms with those blocks cached). Freed blocks
of at least CACHE_MIN bytes are therefore kept, by size class (a size rounded up to an eighth of
its power of two, so at most 12.5% is unused), and handed out again for the same class; the
cache holds at most EMBER_CPU_CACHE_MB mebibytes (default 1024; 0 turns it off) in at most SLOTS
blocks, evicting the oldest first, and is emptied, and the allocation retried, before an
allocation is refused. Reused memory holds old bytes, as any `torch.empty` result may.

Blocks from 4 MiB are aligned to 2 MiB and advised for transparent huge pages (as NumPy does; PyTorch
only with THP_MEM_ALLOC_ENABLE=1): a memory-bound loop over 4 KiB pages pays a TLB miss per page and
its hardware prefetch stops at every page boundary (an add of 2^24 float32 into an existing tensor,
one thread: 9.4-10.4 ms on 4 KiB pages, 7.5-8.2 ms on 2 MiB ones, here), and a fresh block faults
once per 2 MiB instead of once per 4 KiB.
"""
from libc.stdlib cimport free
from libc.string cimport strerror

import os as _os

cdef extern from "stdlib.h" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef extern from "sys/mman.h" nogil:
    int madvise(void* addr, size_t length, int advice)
    int MADV_HUGEPAGE

cdef enum:
    ALIGNMENT = 64          # a cache line; also what AVX-512 loads like
    CACHE_MIN = 1 << 17     # blocks from 128 KiB are cached
    SLOTS = 128
    HUGE_MIN = 1 << 22      # blocks from 4 MiB are aligned to, and advised for, 2 MiB pages
    HUGE_PAGE = 1 << 21

cdef char* _blocks[SLOTS]
cdef Py_ssize_t _classes[SLOTS]
cdef int _count = 0
cdef Py_ssize_t _cached = 0
cdef Py_ssize_t _limit = int(_os.environ.get("EMBER_CPU_CACHE_MB", "1024")) << 20


cdef inline Py_ssize_t _size_class(Py_ssize_t nbytes) noexcept:
    """nbytes rounded up to a multiple of an eighth of its highest power of two (sizes no machine
    has, from 2^48, as they are: no rounding can overflow)."""
    cdef Py_ssize_t step = 1
    if nbytes >= (<Py_ssize_t>1) << 48:
        return nbytes
    while step <= nbytes // 16:
        step <<= 1
    return (nbytes + step - 1) & ~(step - 1)


cdef int _aligned(void** p, Py_ssize_t nbytes) noexcept:
    """posix_memalign's error code (0: *p holds the block)."""
    p[0] = NULL
    cdef bint huge = nbytes >= HUGE_MIN
    cdef int err = posix_memalign(p, HUGE_PAGE if huge else ALIGNMENT, <size_t>(nbytes if nbytes > 0 else 1))
    if err == 0 and p[0] != NULL and huge:
        madvise(p[0], <size_t>nbytes & ~(<size_t>HUGE_PAGE - 1), MADV_HUGEPAGE)
    return err if err != 0 or p[0] != NULL else 12


cdef void _take(int slot) noexcept:
    """Drop slot from the cache (its block now belongs to the caller), keeping the rest in age order."""
    global _count, _cached
    cdef int i
    _cached -= _classes[slot]
    for i in range(slot, _count - 1):
        _blocks[i] = _blocks[i + 1]
        _classes[i] = _classes[i + 1]
    _count -= 1


cdef char* cpu_alloc(Py_ssize_t nbytes) except NULL:
    """nbytes (at least 1) aligned to ALIGNMENT; PyTorch's RuntimeError with the size on failure
    (not MemoryError: callers of PyTorch catch RuntimeError for an allocation too large)."""
    cdef void* p
    cdef Py_ssize_t size = nbytes
    cdef int i, err
    if nbytes < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension: {nbytes} bytes requested")
    if nbytes >= CACHE_MIN and _limit > 0:
        size = _size_class(nbytes)
        for i in range(_count - 1, -1, -1):         # the most recently freed first: still in cache
            if _classes[i] == size:
                p = _blocks[i]
                _take(i)
                return <char*>p
    err = _aligned(&p, size)
    if err != 0 and _count:
        empty_cache()
        err = _aligned(&p, size)
    if err != 0:
        raise RuntimeError(f"DefaultCPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes. "
                           f"Error code {err} ({strerror(err).decode()})")
    return <char*>p


cdef void cpu_free(char* data, Py_ssize_t nbytes) noexcept:
    """Give back a block cpu_alloc(nbytes) returned: kept for reuse when large, else freed."""
    global _count, _cached
    cdef Py_ssize_t size
    if data == NULL:
        return
    if nbytes < CACHE_MIN or _limit <= 0 or _size_class(nbytes) > _limit:
        free(data)
        return
    size = _size_class(nbytes)
    while _count and (_count == SLOTS or _cached + size > _limit):
        free(_blocks[0])
        _take(0)
    _blocks[_count] = data
    _classes[_count] = size
    _count += 1
    _cached += size


def empty_cache():
    """Free every cached block back to the C library."""
    while _count:
        free(_blocks[0])
        _take(0)


def cached_bytes():
    """The bytes the cache holds now."""
    return _cached


def set_cache_limit(Py_ssize_t nbytes):
    """Cache at most nbytes from now on (0: no caching), evicting what no longer fits; returns the old limit."""
    global _limit
    old, _limit = _limit, nbytes
    while _count and _cached > _limit:
        free(_blocks[0])
        _take(0)
    return old
