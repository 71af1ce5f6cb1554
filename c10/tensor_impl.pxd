# TensorImpl: sizes and strides (in elements), storage offset, dtype, device, version counter.
from libc.stdint cimport uint64_t
from c10.storage cimport Storage

cdef enum:
    MAX_DIMS = 16

cdef class VersionCounter:
    cdef public Py_ssize_t version

cdef class TensorImpl:
    cdef Storage storage
    cdef Py_ssize_t offset
    cdef int nd
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t n_elem
    cdef int scalar_type
    cdef Py_ssize_t itemsize
    cdef uint64_t key_set
    cdef int device_type
    cdef object device_obj
    cdef VersionCounter version_counter
    cdef bint is_wrapped_number
    cdef bint contiguous
    cdef TensorImpl view_base         # the tensor this one is a view of (views of views: the first), or None

    cdef inline char* data(self) noexcept nogil:
        return self.storage.data + self.offset * self.itemsize

    cdef int refresh_metadata(self) except -1
    cdef int resize(self, int ndim, const Py_ssize_t* sizes) except -1
    cpdef int _wrap_dim(self, object dim) except -1

cdef TensorImpl make_tensor(Storage storage, Py_ssize_t offset, int ndim, const Py_ssize_t* sizes,
                            const Py_ssize_t* strides, int scalar_type, VersionCounter version=*)
cdef TensorImpl make_view(TensorImpl base, Py_ssize_t offset, int ndim, const Py_ssize_t* sizes,
                          const Py_ssize_t* strides, int scalar_type)
cdef TensorImpl empty_contiguous(int ndim, const Py_ssize_t* sizes, int scalar_type, object device)
cdef TensorImpl empty_with_strides(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides, int scalar_type,
                                   object device)
# Geometry arithmetic, overflow-checked as c10's (safe_compute_numel, computeStorageNbytes*):
# every size, stride and byte count that enters a tensor goes through one of these.
cdef Py_ssize_t checked_numel(int ndim, const Py_ssize_t* sizes) except? -1
cdef Py_ssize_t contiguous_layout(int ndim, const Py_ssize_t* sizes, Py_ssize_t* strides,
                                  Py_ssize_t itemsize, Py_ssize_t offset) except -1
cdef Py_ssize_t strided_nbytes(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides,
                               Py_ssize_t itemsize, Py_ssize_t offset) except -1
cdef str sizes_text(int ndim, const Py_ssize_t* values)
cdef bint non_overlapping_and_dense(int ndim, const Py_ssize_t* sizes, const Py_ssize_t* strides) noexcept
cdef Storage storage_for(Py_ssize_t nbytes, object device)
cdef int sizes_from_sequence(object seq, Py_ssize_t* out, str what) except -1
cdef TensorImpl wrap_number(object value)
cpdef long long unpack_long(object value) except? -1
