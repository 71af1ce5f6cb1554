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

Compiled (Cython), so handing out and taking back a block costs no Python frames: every CUDA
tensor made goes through here. Its state changes only in C statements under the GIL, so neither a
lock nor a list of returned blocks is needed: a Block collected in the middle of allocate() (the
driver's malloc may run the collector) puts its memory straight back.

Statistics follow torch.cuda's names: allocated bytes (blocks handed out, at their class size)
and reserved bytes (everything obtained from the driver, cached or not), current and peak.
"""

cimport cython

cdef enum:
    _SMALL = 1 << 20          # requests up to this many bytes are rounded to _MIN_BLOCK
    _MIN_BLOCK = 512
    _LARGE_ROUND = 2 << 20    # larger requests are rounded to multiples of this

SMALL_SIZE, MIN_BLOCK_SIZE, LARGE_ROUND = _SMALL, _MIN_BLOCK, _LARGE_ROUND


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (also torch.cuda.OutOfMemoryError)."""

    __module__ = "torch"


cpdef Py_ssize_t round_size(Py_ssize_t nbytes):
    """The size class of a request of nbytes (at least one small block)."""
    if nbytes <= _MIN_BLOCK:
        return _MIN_BLOCK
    if nbytes <= _SMALL:
        return (nbytes + _MIN_BLOCK - 1) // _MIN_BLOCK * _MIN_BLOCK
    return (nbytes + _LARGE_ROUND - 1) // _LARGE_ROUND * _LARGE_ROUND


def _format(nbytes):
    """PyTorch's format_size: bytes, KiB, MiB or GiB with two decimals."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.2f} {unit}"
    return f"{nbytes} bytes"


@cython.no_gc      # it reaches no cycle; and the collector must not clear its allocator before it is freed
cdef class Block:
    """One allocation handed out: its device address; returns itself to the cache when the last
    reference (the Storage that owns it) goes away."""

    cdef readonly Py_ssize_t address
    cdef readonly Py_ssize_t size
    cdef readonly object handle
    cdef readonly CachingAllocator allocator
    cdef object __weakref__

    def __int__(self):
        return self.address

    def __dealloc__(self):
        if self.allocator is not None:
            self.allocator._give_back(self.address, self.size, self.handle)


cdef class CachingAllocator:
    """Blocks of one device, cached by size class (see the module docstring)."""

    cdef readonly int device
    cdef public object _malloc, _free
    cdef object _total
    cdef dict _cached
    cdef public Py_ssize_t allocated, peak_allocated, reserved, peak_reserved
    cdef public Py_ssize_t num_allocs, num_frees, num_driver_allocs, num_retries

    def __init__(self, int device, malloc, free, total_memory=None):
        self.device = device
        self._malloc, self._free = malloc, free
        self._total = total_memory
        self._cached = {}
        self.allocated = self.peak_allocated = 0
        self.reserved = self.peak_reserved = 0
        self.num_allocs = self.num_frees = self.num_driver_allocs = self.num_retries = 0

    cpdef Block allocate(self, Py_ssize_t nbytes):
        cdef Py_ssize_t size = round_size(nbytes)
        cdef Block block = Block.__new__(Block)
        cdef list free_list = self._cached.get(size)
        if free_list:
            block.address, block.handle = free_list.pop()
        else:
            block.address, block.handle = self._from_driver(size, nbytes)
        block.size = size
        block.allocator = self
        self.allocated += size
        if self.allocated > self.peak_allocated:
            self.peak_allocated = self.allocated
        self.num_allocs += 1
        return block

    cdef int _give_back(self, Py_ssize_t address, Py_ssize_t size, object handle) except -1:
        free_list = self._cached.get(size)
        if free_list is None:
            free_list = self._cached[size] = []
        free_list.append((address, handle))
        self.allocated -= size
        self.num_frees += 1
        return 0

    cdef tuple _from_driver(self, Py_ssize_t size, Py_ssize_t requested):
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
        if self.reserved > self.peak_reserved:
            self.peak_reserved = self.reserved
        self.num_driver_allocs += 1
        return tuple(found)

    def _out_of_memory(self, requested):
        capacity = f" GPU {self.device} has a total capacity of {_format(self._total)}." if self._total else ""
        return OutOfMemoryError(
            f"CUDA out of memory. Tried to allocate {_format(requested)}.{capacity} Of the allocated memory "
            f"{_format(self.allocated)} is allocated by PyTorch, and {_format(self.reserved - self.allocated)} is "
            "reserved by PyTorch but unallocated.")

    cdef _release_cached(self):
        cached, self._cached = self._cached, {}
        for size, blocks in cached.items():
            for _, handle in blocks:
                self._free(handle)
                self.reserved -= size

    def empty_cache(self):
        """Return every cached (unused) block to the driver; blocks in use stay."""
        self._release_cached()

    def reset_peak_stats(self):
        self.peak_allocated, self.peak_reserved = self.allocated, self.reserved

    def reset_accumulated_stats(self):
        """Zero the counters that only grow (allocations, frees, retries, driver allocations)."""
        self.num_allocs = self.num_frees = self.num_retries = self.num_driver_allocs = 0

    def stats(self):
        """A subset of torch.cuda.memory_stats(), under PyTorch's keys."""
        return {"allocated_bytes.all.current": self.allocated, "allocated_bytes.all.peak": self.peak_allocated,
                "reserved_bytes.all.current": self.reserved, "reserved_bytes.all.peak": self.peak_reserved,
                "allocation.all.allocated": self.num_allocs, "allocation.all.freed": self.num_frees,
                "num_alloc_retries": self.num_retries, "segment.all.allocated": self.num_driver_allocs}
