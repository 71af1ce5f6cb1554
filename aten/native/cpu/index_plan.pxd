# The loop nest that every CPU indexing kernel runs (index_plan.pyx): dims of `self` before the indexed
# ones (pre), the indexed block flattened to one position b with an offset into self per b, and the dims
# after (post). The other operand (result, source or values) has its own pre/post strides and offset per b.
from libc.stdint cimport int64_t
from c10.tensor_impl cimport TensorImpl, MAX_DIMS

cdef enum:
    M_GATHER = 0     # other[pre, b, post] = self[pre, soff(b), post]
    M_COPY = 1       # self[pre, soff(b), post] = other[pre, b, post]
    M_ADD = 2        # self[pre, soff(b), post] += alpha * other[pre, b, post]


cdef struct Plan3:
    int npre
    int npost
    Py_ssize_t pre_sizes[MAX_DIMS]
    Py_ssize_t post_sizes[MAX_DIMS]
    Py_ssize_t s_pre[MAX_DIMS]       # self strides (elements)
    Py_ssize_t s_post[MAX_DIMS]
    Py_ssize_t o_pre[MAX_DIMS]       # other strides
    Py_ssize_t o_post[MAX_DIMS]
    Py_ssize_t nb
    # self's offset of position b: slin[b], or (without slin) sidx[b] (wrapped by swrap when
    # negative) times sstride, so that one index tensor needs no offsets buffer
    const int64_t* slin
    const int64_t* sidx
    Py_ssize_t sstride
    Py_ssize_t swrap
    # the other operand's offset of position b: olin[b], or b * ostride
    const int64_t* olin
    Py_ssize_t ostride
    # threads for gathers (each position writes its own rows; copies and adds may collide)
    int nthreads


cdef int run3(int st, int mode, char* s, char* o, Plan3* p, TensorImpl alpha) except -1


cdef class Offsets:
    cdef int64_t* data
    cdef Py_ssize_t n

cdef Offsets new_offsets(Py_ssize_t n)
cdef int check_in_bounds(TensorImpl idx, Py_ssize_t n, Py_ssize_t size, bint allow_negative, int d, type error,
                         str prefix=*) except -1
