cdef str spatial_text(tuple s, str sep=*)
cpdef tuple expand_param(object value, int n, str name)
