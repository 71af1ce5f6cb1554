cdef int broadcast_shape(tuple inputs, Py_ssize_t* out_sizes) except -1
