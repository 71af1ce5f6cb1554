# View metadata shared by the view kernels (views.pyx) and the copy kernels (shape.pyx).
from c10.tensor_impl cimport TensorImpl

cdef int wrap_dim(Py_ssize_t dim, int ndim, bint wrap_scalar=*) except -1
cdef TensorImpl alias_with(TensorImpl base, int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                           Py_ssize_t offset)
cdef TensorImpl narrow_view(TensorImpl self, int dim, Py_ssize_t start, Py_ssize_t length)
cdef void dense_strides_like(TensorImpl t, Py_ssize_t* out) noexcept
cdef int format_strides(TensorImpl t, object memory_format, str op, Py_ssize_t* out) except -1
cdef void contiguous_strides(int ndim, const Py_ssize_t* sizes, Py_ssize_t* out) noexcept
cdef Py_ssize_t read_index(TensorImpl t) except? -1


# -- the geometry of select, slice and unsqueeze, in place on sizes/strides arrays ----------------
# Inline (compiled into each module that cimports them): views.pyx builds its views with them and
# torch/_C/_indexing.pyx folds a whole basic index into one view with them, in C. Callers check
# the dim and the index first, with their own messages.

cdef inline bint index_in_range(Py_ssize_t index, Py_ssize_t size) noexcept nogil:
    """select's bounds: -size <= index < size."""
    return size > -1 - index and size > index


cdef inline Py_ssize_t select_in_place(int ndim, Py_ssize_t* sizes, Py_ssize_t* strides, int dim,
                                       Py_ssize_t index) noexcept nogil:
    """select(dim, index) (index in range, negative from the end): dim removed from the ndim sizes
    and strides; returns the offset of the selected element."""
    cdef int i
    cdef Py_ssize_t delta
    if index < 0:
        index += sizes[dim]
    delta = index * strides[dim]
    for i in range(dim, ndim - 1):
        sizes[i] = sizes[i + 1]
        strides[i] = strides[i + 1]
    return delta


cdef inline Py_ssize_t slice_in_place(Py_ssize_t* sizes, Py_ssize_t* strides, int dim, Py_ssize_t start,
                                      Py_ssize_t stop, Py_ssize_t step) noexcept nogil:
    """slice(dim, start, stop, step) (step > 0): start and stop counted from the end when negative,
    then clamped to the dim as PyTorch does; returns the offset of the first element."""
    cdef Py_ssize_t n = sizes[dim]
    if start < 0:
        start += n
    if stop < 0:
        stop += n
    if start < 0:
        start = 0
    elif start >= n:
        start = n
    if stop < start:
        stop = start
    elif stop >= n:
        stop = n
    sizes[dim] = (stop - start + step - 1) // step
    n = start * strides[dim]
    strides[dim] *= step
    return n


cdef inline void unsqueeze_in_place(int ndim, Py_ssize_t* sizes, Py_ssize_t* strides, int dim) noexcept nogil:
    """unsqueeze(dim) (0 <= dim <= ndim, room for ndim + 1): a size-1 dim inserted at dim."""
    cdef int i
    for i in range(ndim, dim, -1):
        sizes[i] = sizes[i - 1]
        strides[i] = strides[i - 1]
    sizes[dim] = 1
    strides[dim] = 1 if dim >= ndim else sizes[dim + 1] * strides[dim + 1]
