from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.loop_types cimport loop_fn

cdef int run_loop(loop_fn fn, TensorImpl out, tuple inputs, const void* extra) except -1
cdef TensorImpl pointwise(loop_fn fn, tuple inputs, int compute_type, int out_type, const void* extra)
cdef TensorImpl cast_contiguous(TensorImpl src, int scalar_type)
cdef int copy_into(TensorImpl dst, TensorImpl src) except -1
cdef TensorImpl pointwise_out(loop_fn fn, tuple inputs, int compute_type, int out_type, const void* extra,
                              TensorImpl out, bint inplace)
cdef int resize_output(TensorImpl out, int ndim, const Py_ssize_t* sizes) except -1
cdef bint any_zero(TensorImpl t) except -1
