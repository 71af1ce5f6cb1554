cdef int result_type(tuple inputs) except -2
cdef int broadcast_shape(tuple inputs, Py_ssize_t* out_sizes) except -1
cdef int check_scalar_fits(object value, int st) except -1
cdef int store_scalar(char* slot, int scalar_type, object value, str arg_name) except -1
