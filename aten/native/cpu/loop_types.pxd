# The C contract between the loop engine and every CPU inner loop (handwritten or generated).
#
# data[0] is the output, data[1..] the inputs; strides are in bytes for the innermost dimension;
# extra points at the op's scalar arguments, one 16-byte slot each, already converted to the
# compute dtype (see aten/native/meta/pointwise.pyx, store_scalar).
ctypedef void (*loop_fn)(char** data, const Py_ssize_t* strides, Py_ssize_t n, const void* extra) noexcept nogil

cdef enum:
    MAX_OPERANDS = 4        # output + up to 3 inputs
    SCALAR_SLOT = 8         # bytes per scalar argument in `extra`
    MAX_SCALARS = 4
