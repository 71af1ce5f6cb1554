cdef str spatial_text(tuple s, str sep=*)
