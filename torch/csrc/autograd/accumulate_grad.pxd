cdef int accumulate(object variable, tuple grads) except -1
