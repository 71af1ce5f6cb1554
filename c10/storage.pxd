# Storage owns (or borrows) the bytes behind one or more tensors.
cdef class Storage:
    cdef char* data                 # host address (CPU) or device address (CUDA)
    cdef Py_ssize_t size_bytes
    cdef readonly object device     # c10.device.device
    cdef int device_type            # c10.device.DeviceType value
    cdef object owner               # keeps borrowed memory alive; None when Storage allocated it
    cdef bint owns_data
    cdef Py_ssize_t view_count      # live buffer-protocol exports
    cdef int grow(self, Py_ssize_t nbytes) except -1

cdef Storage cpu_storage(Py_ssize_t nbytes)
cdef Storage borrowed_storage(Py_ssize_t address, Py_ssize_t nbytes, object owner, object device)
