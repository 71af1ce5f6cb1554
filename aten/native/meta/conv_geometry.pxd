cdef str spatial_text(tuple s, str sep=*)
cpdef tuple expand_param(object value, int n, str name)
cpdef tuple transposed_output_sizes(tuple sizes, tuple kernel, tuple stride, tuple padding, tuple dilation,
                                    tuple output_padding)
