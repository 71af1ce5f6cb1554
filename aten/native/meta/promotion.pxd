cdef int result_type(tuple inputs) except -2
