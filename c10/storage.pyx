"""Storage: the bytes of tensors, from the CPU allocator (cpu_allocator.pyx) or borrowed from an owner."""
from libc.string cimport memcpy
from cpython.buffer cimport PyBUF_WRITABLE

import os as _os

from c10 import device as _device_mod
from c10.cpu_allocator cimport cpu_alloc, cpu_free

_CPU = _device_mod.CPU


cdef class Storage:
    """The bytes of a tensor: a device, a size in bytes, and who frees them."""

    def __dealloc__(self):
        if self.owns_data and self.data != NULL:
            cpu_free(self.data, self.size_bytes)
            self.data = NULL
        elif type(self.owner) is Storage:       # a byte range of another storage: no longer viewing it
            (<Storage>self.owner).view_count -= 1

    def nbytes(self):
        return self.size_bytes

    def data_ptr(self):
        return <Py_ssize_t>self.data

    def __len__(self):
        return self.size_bytes

    def __repr__(self):
        return f"<Storage of {self.size_bytes} bytes on {self.device}>"

    cdef int grow(self, Py_ssize_t nbytes) except -1:
        """Reallocate to nbytes (more than now), keeping the old bytes; every tensor over this
        storage sees the new block (as c10's resizable storages)."""
        cdef char* fresh
        if nbytes <= self.size_bytes:
            return 0
        if self.device_type != 0 and self.owner is not None:
            from c10 import cuda as _cuda
            moved = _cuda.regrow(self.owner, self.size_bytes, nbytes, self.device)
            if moved is not None:
                self.data = <char*><Py_ssize_t>moved[0]
                self.owner = moved[1]
                self.size_bytes = nbytes
                return 0
        if not self.owns_data or self.device_type != 0:
            raise RuntimeError("Trying to resize storage that is not resizable")
        if self.view_count > 0:
            raise RuntimeError("cannot resize a storage while NumPy arrays or buffers view its memory")
        fresh = cpu_alloc(nbytes)
        memcpy(fresh, self.data, self.size_bytes)
        cpu_free(self.data, self.size_bytes)
        self.data = fresh
        self.size_bytes = nbytes
        return 0

    def is_shared(self):
        """Whether the bytes live in shared memory (a SharedBlock), visible to other processes."""
        return isinstance(self.owner, SharedBlock)

    def byte_range(self, Py_ssize_t start, Py_ssize_t stop):
        """A storage over bytes [start, stop) of this one, sharing them (it keeps this one alive)."""
        if not 0 <= start <= stop <= self.size_bytes:
            raise IndexError(f"byte range [{start}, {stop}) out of range for a storage of {self.size_bytes} bytes")
        part = borrowed_storage(<Py_ssize_t>self.data + start, stop - start, self, self.device)
        self.view_count += 1      # while it lives, this storage's memory must stay where it is
        return part

    def shared_block(self):
        """The SharedBlock holding the bytes, or None."""
        return self.owner if isinstance(self.owner, SharedBlock) else None

    def lender(self):
        """The object whose memory these bytes are (the NumPy array torch.from_numpy borrowed them from), or None
        where the storage allocated them, shares memory or views another storage."""
        return None if self.owns_data or isinstance(self.owner, (Storage, SharedBlock)) else self.owner

    def _move_to_shared(self, block):
        """Copy the bytes into block (a SharedBlock of at least this size) and use it from now on:
        every tensor over this storage then reads and writes the shared memory."""
        if self.device_type != 0:
            raise RuntimeError(f"share_memory_: only CPU storages move to shared memory here, not {self.device}")
        if self.view_count > 0:
            raise RuntimeError("cannot move a storage to shared memory while NumPy arrays, buffers or byte-range "
                               "storages view its memory")
        if block.nbytes < self.size_bytes:
            raise ValueError(f"shared block of {block.nbytes} bytes is too small for {self.size_bytes}")
        if self.size_bytes:
            memcpy(<char*><Py_ssize_t>block.address, self.data, self.size_bytes)
        if self.owns_data and self.data != NULL:
            cpu_free(self.data, self.size_bytes)
        self.data = <char*><Py_ssize_t>block.address
        self.owner = block
        self.owns_data = False

    def __reduce__(self):
        # By value: Cython's automatic pickling would copy the raw pointer and free it twice.
        if self.device_type != 0:
            raise TypeError(f"cannot pickle a {self.device} storage; copy the tensor to the CPU first")
        return (_storage_from_bytes, (bytes(self),))

    # Buffer protocol (CPU only): numpy views and tolist() read through it, without copying.
    def __getbuffer__(self, Py_buffer* buf, int flags):
        if self.device_type != 0:
            raise BufferError(f"cannot expose {self.device} memory to the buffer protocol; copy it to the CPU first")
        buf.buf = self.data
        buf.obj = self
        buf.len = self.size_bytes
        buf.readonly = 0
        buf.itemsize = 1
        buf.format = "B"
        buf.ndim = 1
        buf.shape = &self.size_bytes
        buf.strides = NULL
        buf.suboffsets = NULL
        buf.internal = NULL
        self.view_count += 1

    def __releasebuffer__(self, Py_buffer* buf):
        self.view_count -= 1


cdef Storage cpu_storage(Py_ssize_t nbytes):
    cdef Storage s = Storage.__new__(Storage)
    s.data = cpu_alloc(nbytes)
    s.size_bytes = nbytes
    s.device = _CPU
    s.device_type = 0
    s.owner = None
    s.owns_data = True
    return s


cdef Storage borrowed_storage(Py_ssize_t address, Py_ssize_t nbytes, object owner, object device):
    cdef Storage s = Storage.__new__(Storage)
    s.data = <char*>address
    s.size_bytes = nbytes
    s.device = device
    s.device_type = int(device._device_type)
    s.owner = owner
    s.owns_data = False
    return s



class SharedBlock:
    """Memory other processes can map: an anonymous memory file (memfd) mapped here. It stays
    mapped while a storage holds this block; the file lives while any process maps it or holds
    a descriptor of it (what tensors sent through torch.multiprocessing queues carry). The block
    owns fd (closed with it, or at once if mapping fails); Python's mmap holds a second one."""

    def __init__(self, nbytes, fd=None):
        import ctypes
        import mmap
        self.nbytes = nbytes
        self.fd = None
        try:
            if fd is None:
                fd = _os.memfd_create("ember-tensor", _os.MFD_CLOEXEC)
                _os.ftruncate(fd, max(nbytes, 1))
            self._map = mmap.mmap(fd, max(nbytes, 1))
        except BaseException:
            if fd is not None:
                _os.close(fd)
            raise
        self.fd = fd
        self._anchor = ctypes.c_char.from_buffer(self._map)     # holds the mapping's address steady
        self.address = ctypes.addressof(self._anchor)

    def __del__(self):
        if getattr(self, "fd", None) is not None:
            _os.close(self.fd)
            self.fd = None


def _storage_from_bytes(bytes data):
    """Unpickle a CPU Storage: a fresh allocation holding a copy of data."""
    cdef Storage s = cpu_storage(len(data))
    if len(data):
        memcpy(s.data, <const char*>data, len(data))
    return s
