"""aten::_scaled_dot_product_flash_attention_for_cpu and its backward: attention over blocks of keys
with a running softmax, as PyTorch's CPU flash kernel, never holding the whole (L, S) score matrix.

Forward: a task is a block of QBLOCK query rows of one (batch, head); the keys are taken KBLOCK
at a time: scores = Q K^T * scale (one GEMM), the causal mask (query i sees keys j <= i, PyTorch's
top-left alignment) by skipping every block past the diagonal and -inf inside it, then the
running max m, sum l and output O are rescaled and O += exp(scores - m) V (one GEMM). The result is
O / l and logsumexp = m + log(l), kept for the backward. Backward: a task is one (batch, head), its
query blocks in order (so dK and dV add up in one fixed order: the same bits on any thread count);
for each, the probabilities are recomputed from logsumexp, and dV += P^T dO, dP = dO V^T,
dS = P (dP - rowsum(dO * O)), dQ += dS K * scale, dK += dS^T Q * scale. The GEMMs are OpenBLAS's,
single-threaded inside the parallel loop; float32 and float64; float16/bfloat16 computed in float32 and
rounded once, their logsumexp kept in float32 (PyTorch's accumulate type).
"""
from cython.parallel cimport prange, threadid
from libc.math cimport INFINITY, exp, log, sqrt
from libc.string cimport memset

from c10.scalar_type cimport ST_BFLOAT16, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl, empty_contiguous
from aten.native.cpu.array_bridge cimport contiguous, num_threads, new_tensor
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.cpu.blas cimport (CBLAS_NO_TRANS, CBLAS_ROW_MAJOR, CBLAS_TRANS, blas_dgemm, blas_sgemm,
                                   blas_single_threaded, dgemm_t, sgemm_t)
from aten.native.cpu.element_types cimport floating_t
from aten.native.cpu.nn_vec cimport ember_vec, ember_vec_table
from aten.native.meta.messages cimport shape_of, type_name

cdef enum:
    QBLOCK = 64      # query rows per task
    KBLOCK = 512     # keys per score block

cdef sgemm_t _sgemm = blas_sgemm()
cdef dgemm_t _dgemm = blas_dgemm()


cdef inline void _gemm(bint ta, bint tb, Py_ssize_t m, Py_ssize_t n, Py_ssize_t k, double alpha,
                       const floating_t* a, Py_ssize_t lda, const floating_t* b, Py_ssize_t ldb, double beta,
                       floating_t* c, Py_ssize_t ldc) noexcept nogil:
    """c (m x n, row-major) = alpha * op(a) @ op(b) + beta * c."""
    if floating_t is float:
        _sgemm(CBLAS_ROW_MAJOR, CBLAS_TRANS if ta else CBLAS_NO_TRANS, CBLAS_TRANS if tb else CBLAS_NO_TRANS,
               m, n, k, <float>alpha, a, lda, b, ldb, <float>beta, c, ldc)
    else:
        _dgemm(CBLAS_ROW_MAJOR, CBLAS_TRANS if ta else CBLAS_NO_TRANS, CBLAS_TRANS if tb else CBLAS_NO_TRANS,
               m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)


cdef inline void _exp_row(const ember_vec_table* vt, floating_t* x, Py_ssize_t n) noexcept nogil:
    if floating_t is float:
        vt.exp_f(x, x, n)
    else:
        vt.exp_d(x, x, n)


cdef inline Py_ssize_t _visible(Py_ssize_t row, Py_ssize_t S, bint causal) noexcept nogil:
    """How many keys query `row` attends to."""
    if causal and row + 1 < S:
        return row + 1
    return S


cdef void _masked_scores(const floating_t* qb, const floating_t* kb, floating_t* sc, Py_ssize_t rows,
                         Py_ssize_t cols, Py_ssize_t E, double scale, Py_ssize_t r0, Py_ssize_t j0, Py_ssize_t S,
                         bint causal) noexcept nogil:
    """sc (rows x cols) = the query rows from r0 against the keys from j0, Q K^T * scale, -inf where a
    row may not see the key (so that its exp is 0 in both passes)."""
    cdef Py_ssize_t r, c, nvis
    _gemm(False, True, rows, cols, E, scale, qb, E, kb, E, 0.0, sc, cols)
    for r in range(rows):
        nvis = min(max(_visible(r0 + r, S, causal) - j0, 0), cols)
        for c in range(nvis, cols):
            sc[r * cols + c] = -INFINITY


cdef void _forward(const floating_t* q, const floating_t* k, const floating_t* v, floating_t* out,
                   floating_t* lse, floating_t* work, Py_ssize_t BH, Py_ssize_t L, Py_ssize_t S, Py_ssize_t E,
                   Py_ssize_t Ev, double scale, bint causal, int nt) noexcept nogil:
    cdef const ember_vec_table* vt = ember_vec()
    cdef Py_ssize_t qblocks = (L + QBLOCK - 1) // QBLOCK, task, bh, r0, rows, r, j0, cols, kend, c
    cdef Py_ssize_t per_thread = QBLOCK * KBLOCK + QBLOCK * 2
    cdef floating_t* sc
    cdef floating_t* m
    cdef floating_t* l
    cdef floating_t* o
    cdef floating_t* srow
    cdef floating_t mx, alpha, total
    for task in prange(BH * qblocks, num_threads=nt, schedule="dynamic", chunksize=1):
        sc = work + threadid() * per_thread
        m = sc + QBLOCK * KBLOCK
        l = m + QBLOCK
        bh = task // qblocks
        r0 = (task % qblocks) * QBLOCK
        rows = min(QBLOCK, L - r0)
        o = out + (bh * L + r0) * Ev
        for r in range(rows):
            m[r] = -INFINITY
            l[r] = 0
        memset(o, 0, rows * Ev * sizeof(floating_t))
        kend = _visible(r0 + rows - 1, S, causal)
        j0 = 0
        while j0 < kend:
            cols = min(<Py_ssize_t>KBLOCK, kend - j0)
            _masked_scores(q + (bh * L + r0) * E, k + (bh * S + j0) * E, sc, rows, cols, E, scale, r0, j0, S, causal)
            for r in range(rows):
                srow = sc + r * cols
                mx = m[r]
                for c in range(cols):
                    if srow[c] > mx:
                        mx = srow[c]
                for c in range(cols):
                    srow[c] = srow[c] - mx
                _exp_row(vt, srow, cols)
                total = 0
                for c in range(cols):
                    total = total + srow[c]
                alpha = 0
                if m[r] != -INFINITY:
                    alpha = <floating_t>exp(m[r] - mx)
                l[r] = l[r] * alpha + total
                m[r] = mx
                for c in range(Ev):
                    o[r * Ev + c] = o[r * Ev + c] * alpha
            _gemm(False, False, rows, Ev, cols, 1.0, sc, cols, v + (bh * S + j0) * Ev, Ev, 1.0, o, Ev)
            j0 = j0 + cols
        for r in range(rows):
            for c in range(Ev):
                o[r * Ev + c] = o[r * Ev + c] / l[r]
            lse[bh * L + r0 + r] = m[r] + log(l[r])


cdef void _backward(const floating_t* q, const floating_t* k, const floating_t* v, const floating_t* out,
                    const floating_t* dout, const floating_t* lse, floating_t* dq, floating_t* dk, floating_t* dv,
                    floating_t* work, Py_ssize_t BH, Py_ssize_t L, Py_ssize_t S, Py_ssize_t E, Py_ssize_t Ev,
                    double scale, bint causal, int nt) noexcept nogil:
    cdef const ember_vec_table* vt = ember_vec()
    cdef Py_ssize_t bh, r0, rows, r, j0, cols, kend, c
    cdef Py_ssize_t per_thread = 2 * QBLOCK * KBLOCK + QBLOCK
    cdef floating_t* p
    cdef floating_t* dp
    cdef floating_t* d
    cdef floating_t* prow
    cdef floating_t acc, lr
    for bh in prange(BH, num_threads=nt, schedule="dynamic", chunksize=1):
        p = work + threadid() * per_thread
        dp = p + QBLOCK * KBLOCK
        d = dp + QBLOCK * KBLOCK
        r0 = 0
        while r0 < L:
            rows = min(QBLOCK, L - r0)
            for r in range(rows):
                acc = 0
                for c in range(Ev):
                    acc = acc + dout[(bh * L + r0 + r) * Ev + c] * out[(bh * L + r0 + r) * Ev + c]
                d[r] = acc
            kend = _visible(r0 + rows - 1, S, causal)
            j0 = 0
            while j0 < kend:
                cols = min(<Py_ssize_t>KBLOCK, kend - j0)
                _masked_scores(q + (bh * L + r0) * E, k + (bh * S + j0) * E, p, rows, cols, E, scale, r0, j0, S,
                               causal)
                for r in range(rows):
                    prow = p + r * cols
                    lr = lse[bh * L + r0 + r]
                    for c in range(cols):
                        prow[c] = prow[c] - lr
                    _exp_row(vt, prow, cols)
                # dV[j] += P^T dO;  dP = dO V[j]^T;  dS = P * (dP - D)
                _gemm(True, False, cols, Ev, rows, 1.0, p, cols, dout + (bh * L + r0) * Ev, Ev, 1.0,
                      dv + (bh * S + j0) * Ev, Ev)
                _gemm(False, True, rows, cols, Ev, 1.0, dout + (bh * L + r0) * Ev, Ev, v + (bh * S + j0) * Ev, Ev,
                      0.0, dp, cols)
                for r in range(rows):
                    for c in range(cols):
                        dp[r * cols + c] = p[r * cols + c] * (dp[r * cols + c] - d[r])
                # dQ += dS K[j] * scale;  dK[j] += dS^T Q * scale
                _gemm(False, False, rows, E, cols, scale, dp, cols, k + (bh * S + j0) * E, E, 1.0,
                      dq + (bh * L + r0) * E, E)
                _gemm(True, False, cols, E, rows, scale, dp, cols, q + (bh * L + r0) * E, E, 1.0,
                      dk + (bh * S + j0) * E, E)
                j0 = j0 + cols
            r0 = r0 + rows


cdef tuple _geometry(TensorImpl query, TensorImpl key, TensorImpl value, str name):
    """(B*H, L, S, E, Ev) of 4-D (B, H, L, E) query, (B, H, S, E) key and (B, H, S, Ev) value."""
    if query.nd != 4 or key.nd != 4 or value.nd != 4:
        raise RuntimeError(f"{name}: query, key and value must be 4-D (batch, heads, length, dim), got "
                           f"{query.nd}-D, {key.nd}-D and {value.nd}-D")
    st = query.scalar_type
    if key.scalar_type != st or value.scalar_type != st:
        raise RuntimeError(f"{name}: query, key and value must have one dtype, got {type_name(st)}, "
                           f"{type_name(key.scalar_type)} and {type_name(value.scalar_type)}")
    if st not in (ST_FLOAT32, ST_FLOAT64, ST_FLOAT16, ST_BFLOAT16):
        raise NotImplementedError(f'"{name}" not implemented for \'{type_name(st)}\'')
    if (key.sizes[0], key.sizes[1]) != (query.sizes[0], query.sizes[1]) or \
            (value.sizes[0], value.sizes[1], value.sizes[2]) != (query.sizes[0], query.sizes[1], key.sizes[2]) or \
            key.sizes[3] != query.sizes[3]:
        raise RuntimeError(f"{name}: shapes do not match: query {list(shape_of(query))}, key {list(shape_of(key))}, "
                           f"value {list(shape_of(value))}")
    return query.sizes[0] * query.sizes[1], query.sizes[2], key.sizes[2], query.sizes[3], value.sizes[3]


cdef int _compute_type(int st) noexcept:
    """float16/bfloat16 attend in float32 (their logsumexp stays float32, as PyTorch's)."""
    return ST_FLOAT32 if st == ST_FLOAT16 or st == ST_BFLOAT16 else st


cdef TensorImpl _operand(TensorImpl t, int st):
    return contiguous(t) if t.scalar_type == st else cast_contiguous(t, st)


cdef TensorImpl _rounded(TensorImpl t, int st):
    return t if t.scalar_type == st else cast_contiguous(t, st)


cdef double _scale(object scale, Py_ssize_t E):
    return 1.0 / sqrt(<double>E) if scale is None else <double>scale


cdef _check_options(double dropout_p, attn_mask, str name):
    if dropout_p != 0.0:
        raise RuntimeError(f"{name}: dropout is not supported by Ember's CPU flash kernel (dropout_p={dropout_p})")
    if attn_mask is not None:
        raise RuntimeError(f"{name}: attn_mask is not supported by Ember's CPU flash kernel")


def flash_attention_cpu(TensorImpl query not None, TensorImpl key not None, TensorImpl value not None,
                        double dropout_p=0.0, bint is_causal=False, attn_mask=None, scale=None):
    cdef str name = "_scaled_dot_product_flash_attention_for_cpu"
    _check_options(dropout_p, attn_mask, name)
    cdef Py_ssize_t BH, L, S, E, Ev
    BH, L, S, E, Ev = _geometry(query, key, value, name)
    cdef int given = query.scalar_type, st = _compute_type(given)
    cdef TensorImpl out = new_tensor((query.sizes[0], query.sizes[1], L, Ev), st)
    cdef TensorImpl lse = new_tensor((query.sizes[0], query.sizes[1], L), st)
    if out.n_elem == 0 and lse.n_elem == 0:
        return _rounded(out, given), lse
    if S == 0:
        raise RuntimeError(f"{name}: no keys to attend to (key length 0)")
    cdef TensorImpl q = _operand(query, st), k = _operand(key, st), v = _operand(value, st)
    cdef int nt = min(num_threads(), BH * ((L + QBLOCK - 1) // QBLOCK))
    cdef TensorImpl work = new_tensor((nt * (QBLOCK * KBLOCK + 2 * QBLOCK),), st)
    cdef double sc = _scale(scale, E)
    blas_single_threaded(True)
    try:
        with nogil:
            if st == ST_FLOAT32:
                _forward(<const float*>q.data(), <const float*>k.data(), <const float*>v.data(), <float*>out.data(),
                         <float*>lse.data(), <float*>work.data(), BH, L, S, E, Ev, sc, is_causal, nt)
            else:
                _forward(<const double*>q.data(), <const double*>k.data(), <const double*>v.data(),
                         <double*>out.data(), <double*>lse.data(), <double*>work.data(), BH, L, S, E, Ev, sc,
                         is_causal, nt)
    finally:
        blas_single_threaded(False)
    return _rounded(out, given), lse


def flash_attention_backward_cpu(TensorImpl grad_out not None, TensorImpl query not None, TensorImpl key not None,
                                 TensorImpl value not None, TensorImpl out not None, TensorImpl logsumexp not None,
                                 double dropout_p, bint is_causal, attn_mask=None, scale=None):
    cdef str name = "_scaled_dot_product_flash_attention_for_cpu_backward"
    _check_options(dropout_p, attn_mask, name)
    cdef Py_ssize_t BH, L, S, E, Ev
    BH, L, S, E, Ev = _geometry(query, key, value, name)
    cdef int given = query.scalar_type, st = _compute_type(given)
    expected = (query.sizes[0], query.sizes[1], L, Ev)
    for t, what, shape, dtype in ((grad_out, "grad_out", expected, given), (out, "out", expected, given),
                                  (logsumexp, "logsumexp", expected[:3], st)):
        if (<TensorImpl>t).scalar_type != dtype or shape_of(<TensorImpl>t) != shape:
            raise RuntimeError(f"{name}: {what} must be {type_name(dtype)} of shape {list(shape)}, got "
                               f"{type_name((<TensorImpl>t).scalar_type)} of shape {list(shape_of(<TensorImpl>t))}")
    cdef TensorImpl dq = empty_contiguous(query.nd, query.sizes, st, None)
    cdef TensorImpl dk = empty_contiguous(key.nd, key.sizes, st, None)
    cdef TensorImpl dv = empty_contiguous(value.nd, value.sizes, st, None)
    memset(dq.data(), 0, dq.n_elem * dq.itemsize)
    memset(dk.data(), 0, dk.n_elem * dk.itemsize)
    memset(dv.data(), 0, dv.n_elem * dv.itemsize)
    if BH == 0 or L == 0 or S == 0:
        return _rounded(dq, given), _rounded(dk, given), _rounded(dv, given)
    cdef TensorImpl q = _operand(query, st), k = _operand(key, st), v = _operand(value, st)
    cdef TensorImpl o = _operand(out, st), g = _operand(grad_out, st), lse = contiguous(logsumexp)
    cdef int nt = min(num_threads(), BH)
    cdef TensorImpl work = new_tensor((nt * (2 * QBLOCK * KBLOCK + QBLOCK),), st)
    cdef double sc = _scale(scale, E)
    blas_single_threaded(True)
    try:
        with nogil:
            if st == ST_FLOAT32:
                _backward(<const float*>q.data(), <const float*>k.data(), <const float*>v.data(),
                          <const float*>o.data(), <const float*>g.data(), <const float*>lse.data(),
                          <float*>dq.data(), <float*>dk.data(), <float*>dv.data(), <float*>work.data(),
                          BH, L, S, E, Ev, sc, is_causal, nt)
            else:
                _backward(<const double*>q.data(), <const double*>k.data(), <const double*>v.data(),
                          <const double*>o.data(), <const double*>g.data(), <const double*>lse.data(),
                          <double*>dq.data(), <double*>dk.data(), <double*>dv.data(), <double*>work.data(),
                          BH, L, S, E, Ev, sc, is_causal, nt)
    finally:
        blas_single_threaded(False)
    return _rounded(dq, given), _rounded(dk, given), _rounded(dv, given)
