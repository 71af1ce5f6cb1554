# C-level view of ScalarType: numbering is PyTorch's (c10/core/ScalarType.h), so the
# values match torch's own serialisation and error messages.
from libc.stdint cimport int64_t

cdef enum:
    ST_UINT8 = 0
    ST_INT8 = 1
    ST_INT16 = 2
    ST_INT32 = 3
    ST_INT64 = 4
    ST_FLOAT16 = 5
    ST_FLOAT32 = 6
    ST_FLOAT64 = 7
    ST_COMPLEX64 = 9
    ST_COMPLEX128 = 10
    ST_BOOL = 11
    ST_BFLOAT16 = 15
    ST_FLOAT8_E5M2 = 23
    ST_FLOAT8_E4M3FN = 24
    ST_FLOAT8_E5M2FNUZ = 25
    ST_FLOAT8_E4M3FNUZ = 26
    ST_UINT16 = 27
    ST_UINT32 = 28
    ST_UINT64 = 29
    NUM_SCALAR_TYPES = 30
    ST_UNDEFINED = -1

cdef class dtype:
    cdef readonly int scalar_type
    cdef readonly str name
    cdef readonly str type_name       # PyTorch's toString(): Float, Long, Bool ...
    cdef readonly int itemsize
    cdef readonly bint is_floating_point
    cdef readonly bint is_signed
    cdef readonly bint is_complex
    cdef readonly object numpy_dtype

cdef Py_ssize_t itemsize_of(int st) noexcept nogil
cdef bint is_floating(int st) noexcept nogil
cdef bint is_complex(int st) noexcept nogil
cdef bint has_cuda_type(int st) noexcept nogil
cdef bint is_integral(int st, bint include_bool) noexcept nogil
cdef int opmath_type(int st) noexcept nogil
cdef bint has_arithmetic(int st) noexcept nogil
cdef bint is_barebones(int st) noexcept nogil
cdef double max_finite(int st) noexcept nogil
cdef int promote(int a, int b) except? -2
cdef bint castable(int src, int dst) noexcept nogil
cdef dtype dtype_of(int st)
cdef int default_float_type() noexcept
