cimport cython
from libc.stdint cimport uint64_t

cdef enum:
    P_TENSOR = 0
    P_OPT_TENSOR = 1
    P_SCALAR = 2
    P_OPT_SCALAR = 3
    P_INT = 4
    P_OPT_INT = 5
    P_FLOAT = 6
    P_OPT_FLOAT = 7
    P_BOOL = 8
    P_OPT_BOOL = 9
    P_INT_LIST = 10
    P_OPT_INT_LIST = 11
    P_DTYPE = 12
    P_OPT_DTYPE = 13
    P_LAYOUT = 14
    P_DEVICE = 15
    P_MEMORY_FORMAT = 16
    P_STRING = 17
    P_OPT_STRING = 18
    P_TENSOR_LIST = 19
    P_OPT_TENSOR_LIST = 20
    P_FLOAT_LIST = 21
    P_GENERATOR = 22
    P_BOOL_LIST = 23

cdef class Param:
    cdef readonly str name
    cdef readonly int type
    cdef readonly bint kwonly
    cdef readonly bint has_default
    cdef readonly object default
    cdef readonly bint allow_numbers
    cdef readonly tuple numpy_names

cdef class Signature:
    cdef readonly str name
    cdef readonly str display
    cdef list params
    cdef int npositional
    cdef bint allow_numbers
    cdef list parse(self, tuple args, dict kwargs, list errors, bint numbers)

@cython.final
cdef class ArgParser:
    cdef readonly str name
    cdef list signatures
    cdef bint allow_numbers
    cpdef tuple parse(self, tuple args, dict kwargs)
    cpdef tuple parse_self(self, object obj, tuple args, dict kwargs)

cdef uint64_t device_keys(object device) noexcept
cdef uint64_t list_keys(object tensors) noexcept
cdef object set_requires_grad(object result, object flag)
cdef int check_out_options(object out, object dtype, object layout, object device) except -1
cpdef object handle_torch_function(object public_api, list overloaded, tuple args, dict kwargs)
cpdef bint overrides_torch_function(object obj)
cdef bint torch_function_wanted(object obj)
cpdef list overloaded_among(tuple objs)
