# The engine of the CPU random kernels (random_fill.pyx), for the operators in random.pyx and
# random_sampling.pyx.
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t
from c10.generator cimport Generator
from c10.scalar_type cimport ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl, MAX_DIMS

from aten.native.cpu.element_types cimport num_t

cdef struct Walk:
    int nd                        # dims after dropping size-1 ones, fastest first
    Py_ssize_t sizes[MAX_DIMS]
    Py_ssize_t strides[MAX_DIMS]  # bytes, of the strided operand

cdef enum:
    OP_UNIFORM = 0
    OP_NORMAL_SERIAL = 1
    OP_NORMAL_FILL = 2
    OP_RANDOM_FROM_TO = 3
    OP_RANDOM_FULL = 4
    OP_RANDOM = 5
    OP_EXPONENTIAL = 6
    OP_BERNOULLI_SCALAR = 7
    OP_CAUCHY = 8
    OP_LOG_NORMAL = 9
    OP_GEOMETRIC = 10

cdef struct OpArgs:
    int op
    double a                 # from / mean / lambda / p
    double b                 # to / std
    uint64_t range_
    int64_t base

cdef str _g(double x)
cdef str _type_name(int st)
cdef int _not_implemented(str op, int st) except -1
cdef void _dim_order(int nd, const Py_ssize_t* sizes, const Py_ssize_t* s_a, const Py_ssize_t* s_b,
                     int* perm) noexcept
cdef TensorImpl empty_like_cpu(TensorImpl self, int st, bint preserve)
cdef bint _walk_of(TensorImpl t, const int* perm, const Py_ssize_t* strides, Py_ssize_t itemsize,
                   Walk* w) noexcept
cdef void _walk_copy(char* base, const Walk* w, char* buf, Py_ssize_t itemsize, bint to_buf) noexcept nogil
cdef int _fill(TensorImpl self, Generator gen, OpArgs* args) except -1
cdef int _check_cpu(TensorImpl t, str op) except -1


cdef inline bint _is_float_kernel_type(int st) noexcept:
    return st == ST_FLOAT32 or st == ST_FLOAT64


cdef inline void _bump(TensorImpl t) noexcept:
    t.version_counter.version += 1
