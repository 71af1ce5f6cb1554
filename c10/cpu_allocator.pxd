# The CPU allocator: 64-byte aligned blocks, large ones kept for reuse (cpu_allocator.pyx).
# Callers hold the GIL: the cache is module state guarded by it.
cdef char* cpu_alloc(Py_ssize_t nbytes) except NULL
cdef void cpu_free(char* data, Py_ssize_t nbytes) noexcept
