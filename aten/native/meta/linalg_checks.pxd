from c10.tensor_impl cimport TensorImpl

cdef int check_expand(TensorImpl t, tuple target) except -1
cdef int refuse_bool(str op, TensorImpl t) except -1
cpdef int check_bmm(TensorImpl batch1, TensorImpl batch2) except -1
cpdef int check_baddbmm(TensorImpl self, TensorImpl batch1, TensorImpl batch2) except -1
cpdef int check_addbmm(TensorImpl self, TensorImpl batch1, TensorImpl batch2) except -1
cpdef int check_addmv(TensorImpl self, TensorImpl mat, TensorImpl vec) except -1
cpdef int check_mv(TensorImpl self, TensorImpl vec) except -1
cpdef int check_dot(str op, TensorImpl self, TensorImpl other) except -1
