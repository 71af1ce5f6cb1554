# Shared by the indexing and sorting kernels: element types, argument checks and conversions.
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from c10.tensor_impl cimport TensorImpl, MAX_DIMS

from aten.native.cpu.element_types cimport num_t

cdef int check_kernel_dtype(TensorImpl t, str op) except -1
cdef int check_cpu(TensorImpl t) except -1
cdef TensorImpl clone_contiguous(TensorImpl t)
cdef TensorImpl contiguous_of(TensorImpl t)
cdef TensorImpl int64_contiguous(TensorImpl t)
cdef TensorImpl scalar_tensor_of(object value, int st)
cdef void bump_version(TensorImpl t)
cdef TensorImpl fresh(TensorImpl t)
cdef Py_ssize_t first_out_of_range(const int64_t* idx, Py_ssize_t n, Py_ssize_t size, bint allow_negative) noexcept nogil
cdef TensorImpl flattened(TensorImpl t)


cdef inline void next_pos2(int nd, const Py_ssize_t* sizes, Py_ssize_t* cnt, const Py_ssize_t* st0,
                           const Py_ssize_t* st1, Py_ssize_t* off0, Py_ssize_t* off1) noexcept nogil:
    """Step a row-major multi-index over nd dims (last fastest), updating two offsets."""
    cdef int d = nd - 1
    while d >= 0:
        cnt[d] += 1
        off0[0] += st0[d]
        off1[0] += st1[d]
        if cnt[d] < sizes[d]:
            return
        off0[0] -= st0[d] * sizes[d]
        off1[0] -= st1[d] * sizes[d]
        cnt[d] = 0
        d -= 1


cdef inline void next_pos3(int nd, const Py_ssize_t* sizes, Py_ssize_t* cnt, const Py_ssize_t* st0,
                           const Py_ssize_t* st1, const Py_ssize_t* st2, Py_ssize_t* off0, Py_ssize_t* off1,
                           Py_ssize_t* off2) noexcept nogil:
    """Step a row-major multi-index over nd dims (last fastest), updating three offsets."""
    cdef int d = nd - 1
    while d >= 0:
        cnt[d] += 1
        off0[0] += st0[d]
        off1[0] += st1[d]
        off2[0] += st2[d]
        if cnt[d] < sizes[d]:
            return
        off0[0] -= st0[d] * sizes[d]
        off1[0] -= st1[d] * sizes[d]
        off2[0] -= st2[d] * sizes[d]
        cnt[d] = 0
        d -= 1


cdef inline int width_of(int st) noexcept nogil:
    """The byte width of an element of scalar type st (for moves by width)."""
    if st == 0 or st == 1 or st == 11:      # uint8, int8, bool
        return 1
    if st == 2 or st == 5:                  # int16, float16
        return 2
    if st == 3 or st == 6:                  # int32, float32
        return 4
    return 8


cdef inline bint isnan_t(num_t x) noexcept nogil:
    """x is NaN (always False for integer types, decided at compile time)."""
    if num_t is float or num_t is double:
        return x != x
    else:
        return False
