"""Complex reductions' accumulator ops for the reduction engine (aten/native/cpu/reduce.pyx):
products, one accumulator of the input's complex dtype per output (as PyTorch's CPU prod keeps
complex64 in complex64), multiplied as c10::complex multiplies; a single product in LANES
partial products, as the float prod."""
from c10.scalar_type cimport ST_COMPLEX64
from c10.complex cimport complex64_t, complex128_t, complex_t
from aten.native.cpu.reduce cimport ReduceCtx, ReduceOps
from aten.native.cpu.complex_ops cimport cmul, cmulf

cdef enum:
    LANES = 8       # independent partial products of one output, so that multiplications overlap


cdef inline complex_t _times(complex_t a, complex_t b) noexcept nogil:
    if complex_t is complex64_t:
        return cmulf(a, b)
    else:
        return cmul(a, b)


cdef inline complex_t _at(const char* src, Py_ssize_t offset, complex_t kind) noexcept nogil:
    return (<const complex_t*>(src + offset))[0]


cdef void _cprod_rows(complex_t* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                      Py_ssize_t rs) noexcept nogil:
    cdef Py_ssize_t r, c, k, m
    cdef complex_t lanes[LANES]
    if ncols == 1:
        for k in range(LANES):
            lanes[k] = 1
        m = nrows - nrows % LANES
        for r in range(0, m, 8):       # LANES (Cython needs a literal step)
            for k in range(LANES):
                lanes[k] = _times(lanes[k], _at(src, (r + k) * rs, lanes[0]))
        for r in range(m, nrows):
            lanes[0] = _times(lanes[0], _at(src, r * rs, lanes[0]))
        for k in range(1, LANES):
            lanes[0] = _times(lanes[0], lanes[k])
        acc[0] = _times(acc[0], lanes[0])
        return
    for r in range(nrows):
        for c in range(ncols):
            acc[c] = _times(acc[c], _at(src, r * rs + c * cs, acc[0]))


cdef void _cprod_leaf(char* acc, const char* src, Py_ssize_t ncols, Py_ssize_t cs, Py_ssize_t nrows,
                      Py_ssize_t rs, Py_ssize_t row0, const ReduceCtx* ctx) noexcept nogil:
    if ctx.acc_type == ST_COMPLEX64:
        _cprod_rows(<complex64_t*>acc, src, ncols, cs, nrows, rs)
    else:
        _cprod_rows(<complex128_t*>acc, src, ncols, cs, nrows, rs)


cdef void _cprod_init(char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                      const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if ctx.acc_type == ST_COMPLEX64:
            (<complex64_t*>acc)[i] = 1
        else:
            (<complex128_t*>acc)[i] = 1


cdef void _cprod_combine(char* acc, const char* other, Py_ssize_t n, const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if ctx.acc_type == ST_COMPLEX64:
            (<complex64_t*>acc)[i] = _times((<complex64_t*>acc)[i], (<const complex64_t*>other)[i])
        else:
            (<complex128_t*>acc)[i] = _times((<complex128_t*>acc)[i], (<const complex128_t*>other)[i])


cdef void _cprod_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                         const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if ctx.acc_type == ST_COMPLEX64:
            (<complex64_t*>ctx.out)[out_index + i * out_step] = (<const complex64_t*>acc)[i]
        else:
            (<complex128_t*>ctx.out)[out_index + i * out_step] = (<const complex128_t*>acc)[i]


cdef void complex_prod_ops(ReduceOps* ops, int acc_type) noexcept:
    ops.acc_size = 8 if acc_type == ST_COMPLEX64 else 16
    ops.init = _cprod_init
    ops.leaf = _cprod_leaf
    ops.combine = _cprod_combine
    ops.project = _cprod_project
