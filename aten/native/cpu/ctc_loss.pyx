"""The connectionist temporal classification loss on CPU (Graves et al. 2006, in log space): the
forward variables alpha give each sample's negative log likelihood; the backward variables beta,
collected per label, give the gradient with respect to log_probs in PyTorch's form,
exp(lp) - exp(log(sum alpha*beta) + nll - lp), which is the true derivative plus exp(lp): the
two agree once log_probs come from a log_softmax, and this is what PyTorch returns.

Samples are independent, so the batch is split across threads; each sample's arithmetic is the
same on any thread count. log_probs are read through their strides; targets as int32 or int64.
"""
from cython.parallel cimport prange
from libc.math cimport exp, expf, log, logf, INFINITY
from libc.stdint cimport int32_t, int64_t

from c10.scalar_type cimport ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport contiguous, new_tensor, num_threads
from aten.native.cpu.element_types cimport floating_t
from aten.native.cpu.fill import zero_cpu_
from aten.native.meta.messages cimport type_name
from aten.native.meta.ctc_checks import check_ctc_arguments, check_target_labels

ctypedef fused label_t:
    int32_t
    int64_t


cdef inline floating_t _exp(floating_t x) noexcept nogil:
    if floating_t is float:
        return expf(x)
    return exp(x)


cdef inline floating_t _log(floating_t x) noexcept nogil:
    if floating_t is float:
        return logf(x)
    return log(x)


cdef inline int64_t _prime(const label_t* tg, int64_t offset, int64_t stride, int64_t s, int64_t blank) noexcept nogil:
    """The label of extended position s: blank at even s, the target's (s // 2)-th label at odd s."""
    if s % 2 == 0:
        return blank
    return tg[offset + stride * (s // 2)]


cdef inline floating_t _logsumexp3(floating_t a, floating_t b, floating_t c) noexcept nogil:
    cdef floating_t m = a
    if b > m:
        m = b
    if c > m:
        m = c
    if m == -INFINITY:      # all three empty: avoid -inf - -inf
        m = 0
    return _log(_exp(a - m) + _exp(b - m) + _exp(c - m)) + m


cdef inline floating_t _logaddexp(floating_t a, floating_t b) noexcept nogil:
    cdef floating_t m = a if a > b else b
    if m == -INFINITY:
        m = 0
    return _log(_exp(a - m) + _exp(b - m)) + m


cdef void _alpha(const floating_t* lp, const label_t* tg, floating_t* la, floating_t* nll, const int64_t* il,
                 const int64_t* tl, const int64_t* offsets, int64_t tg_stride, Py_ssize_t B, Py_ssize_t T,
                 Py_ssize_t S, Py_ssize_t lp_t, Py_ssize_t lp_b, Py_ssize_t lp_c, int64_t blank,
                 int nt) noexcept nogil:
    """log_alpha (B, T, S) contiguous; rows past a sample's input length and positions past its
    extended target stay -inf."""
    cdef Py_ssize_t b, t, s
    cdef int64_t n_in, n_tg, off
    cdef const floating_t* x
    cdef floating_t* a
    cdef floating_t a2, a3
    for b in prange(B, num_threads=nt, schedule="static"):
        n_in = il[b]
        n_tg = tl[b]
        off = offsets[b]
        x = lp + b * lp_b
        a = la + b * T * S
        for s in range(T * S):
            a[s] = -INFINITY
        if n_in == 0:
            nll[b] = 0 if n_tg == 0 else INFINITY
            continue
        a[0] = x[blank * lp_c]
        if n_tg > 0:
            a[1] = x[_prime(tg, off, tg_stride, 1, blank) * lp_c]
        for t in range(1, n_in):
            for s in range(2 * n_tg + 1):
                a2 = a[(t - 1) * S + s - 1] if s > 0 else -INFINITY
                if s > 1 and _prime(tg, off, tg_stride, s - 2, blank) != _prime(tg, off, tg_stride, s, blank):
                    a3 = a[(t - 1) * S + s - 2]
                else:
                    a3 = -INFINITY
                a[t * S + s] = (_logsumexp3(a[(t - 1) * S + s], a2, a3)
                                + x[t * lp_t + _prime(tg, off, tg_stride, s, blank) * lp_c])
        if n_tg == 0:
            nll[b] = -a[(n_in - 1) * S]
        else:
            nll[b] = -_logaddexp(a[(n_in - 1) * S + 2 * n_tg], a[(n_in - 1) * S + 2 * n_tg - 1])


cdef void _beta_grad(const floating_t* lp, const label_t* tg, const floating_t* la, floating_t* lb,
                     const floating_t* nll, const floating_t* gout, Py_ssize_t gout_stride, floating_t* g,
                     const int64_t* il, const int64_t* tl, const int64_t* offsets, int64_t tg_stride, Py_ssize_t B,
                     Py_ssize_t T, Py_ssize_t S, Py_ssize_t C, Py_ssize_t lp_t, Py_ssize_t lp_b, Py_ssize_t lp_c,
                     Py_ssize_t la_b, Py_ssize_t la_t, Py_ssize_t la_s, int64_t blank, bint zero_infinity,
                     int nt) noexcept nogil:
    """g (T, B, C) contiguous, filled with zeros beforehand; lb (B, T, S) contiguous scratch."""
    cdef Py_ssize_t b, t, s, c
    cdef int64_t n_in, n_tg, off, k
    cdef const floating_t* x
    cdef const floating_t* a
    cdef floating_t* beta
    cdef floating_t b2, b3, ab, lcab, gr, v
    for b in prange(B, num_threads=nt, schedule="static"):
        if zero_infinity and nll[b] == INFINITY:
            continue
        n_in = il[b]
        n_tg = tl[b]
        off = offsets[b]
        x = lp + b * lp_b
        a = la + b * la_b
        beta = lb + b * T * S
        if n_in == 0:
            continue
        for t in range(n_in):       # g's rows first hold the log of the collected alpha*beta
            for c in range(C):
                g[(t * B + b) * C + c] = -INFINITY
        for s in range(S):
            beta[(n_in - 1) * S + s] = -INFINITY
        beta[(n_in - 1) * S + 2 * n_tg] = x[(n_in - 1) * lp_t + blank * lp_c]
        g[((n_in - 1) * B + b) * C + blank] = a[(n_in - 1) * la_t + 2 * n_tg * la_s] + beta[(n_in - 1) * S + 2 * n_tg]
        if n_tg > 0:
            k = _prime(tg, off, tg_stride, 2 * n_tg - 1, blank)
            beta[(n_in - 1) * S + 2 * n_tg - 1] = x[(n_in - 1) * lp_t + k * lp_c]
            g[((n_in - 1) * B + b) * C + k] = (a[(n_in - 1) * la_t + (2 * n_tg - 1) * la_s]
                                               + beta[(n_in - 1) * S + 2 * n_tg - 1])
        for t in range(n_in - 2, -1, -1):
            for s in range(2 * n_tg, -1, -1):
                k = _prime(tg, off, tg_stride, s, blank)
                b2 = beta[(t + 1) * S + s + 1] if s < 2 * n_tg else -INFINITY
                if s < 2 * n_tg - 1 and _prime(tg, off, tg_stride, s + 2, blank) != k:
                    b3 = beta[(t + 1) * S + s + 2]
                else:
                    b3 = -INFINITY
                beta[t * S + s] = _logsumexp3(beta[(t + 1) * S + s], b2, b3) + x[t * lp_t + k * lp_c]
                ab = a[t * la_t + s * la_s] + beta[t * S + s]
                lcab = g[(t * B + b) * C + k]
                g[(t * B + b) * C + k] = ab if lcab == -INFINITY else _logaddexp(lcab, ab)
        gr = gout[b * gout_stride]
        for t in range(n_in):
            for c in range(C):
                v = x[t * lp_t + c * lp_c]
                g[(t * B + b) * C + c] = (_exp(v) - _exp(g[(t * B + b) * C + c] + nll[b] - v)) * gr


cdef tuple _lengths(input_lengths, target_lengths, offsets):
    """The per-sample lengths and target offsets as int64 arrays the loops read."""
    cdef TensorImpl il = new_tensor((len(input_lengths),), ST_INT64), tl = new_tensor((len(target_lengths),), ST_INT64)
    cdef TensorImpl of = new_tensor((len(offsets),), ST_INT64)
    cdef int64_t* p
    cdef Py_ssize_t i
    for impl, values in ((il, input_lengths), (tl, target_lengths), (of, offsets)):
        p = <int64_t*>(<TensorImpl>impl).data()
        for i in range(len(values)):
            p[i] = int(values[i])
    return il, tl, of


cdef tuple _label_range(TensorImpl targets, input_lengths, target_lengths, offsets, int64_t stride):
    """The smallest and largest label the samples' targets use."""
    cdef Py_ssize_t b, j
    cdef int64_t v, lo = 0, hi = 0
    cdef bint first = True
    cdef const char* base = targets.data()
    for b in range(len(target_lengths)):
        for j in range(int(target_lengths[b])):
            if targets.scalar_type == ST_INT32:
                v = (<const int32_t*>base)[offsets[b] + j * stride]
            else:
                v = (<const int64_t*>base)[offsets[b] + j * stride]
            if first or v < lo:
                lo = v
            if first or v > hi:
                hi = v
            first = False
    return lo, hi


cdef int _check_floating(str op, TensorImpl t) except -1:
    if t.scalar_type != ST_FLOAT32 and t.scalar_type != ST_FLOAT64:
        raise NotImplementedError(f'"{op}" not implemented for \'{type_name(t.scalar_type)}\'')
    return 0


def ctc_loss_cpu(TensorImpl log_probs not None, TensorImpl targets not None, input_lengths, target_lengths,
                 int64_t blank=0, bint zero_infinity=False):
    geometry = check_ctc_arguments(log_probs, targets, input_lengths, target_lengths, blank)
    _check_floating("ctc_loss_cpu", log_probs)
    lo, hi = _label_range(targets, input_lengths, target_lengths, geometry.target_offsets, geometry.target_stride)
    check_target_labels(lo, hi, geometry.num_labels)
    cdef Py_ssize_t T = geometry.max_input_length, B = geometry.batch_size
    cdef Py_ssize_t S = 2 * geometry.max_target_length + 1
    cdef int st = log_probs.scalar_type
    cdef TensorImpl la = new_tensor((B, T, S), st), nll = new_tensor((B,), st)
    if B == 0:
        return nll, la
    cdef TensorImpl il, tl, of
    il, tl, of = _lengths(input_lengths, target_lengths, geometry.target_offsets)
    cdef int64_t tg_stride = geometry.target_stride
    cdef Py_ssize_t lp_t = log_probs.strides[0], lp_b = log_probs.strides[1], lp_c = log_probs.strides[2]
    cdef const char* lpp = log_probs.data()
    cdef const char* tgp = targets.data()
    cdef char* lap = la.data()
    cdef char* nllp = nll.data()
    cdef const int64_t* ilp = <const int64_t*>il.data()
    cdef const int64_t* tlp = <const int64_t*>tl.data()
    cdef const int64_t* ofp = <const int64_t*>of.data()
    cdef int tst = targets.scalar_type
    cdef int nt = num_threads() if B > 1 and T * S >= 4096 else 1
    with nogil:
        if st == ST_FLOAT32 and tst == ST_INT32:
            _alpha(<const float*>lpp, <const int32_t*>tgp, <float*>lap, <float*>nllp, ilp, tlp, ofp, tg_stride,
                   B, T, S, lp_t, lp_b, lp_c, blank, nt)
        elif st == ST_FLOAT32:
            _alpha(<const float*>lpp, <const int64_t*>tgp, <float*>lap, <float*>nllp, ilp, tlp, ofp, tg_stride,
                   B, T, S, lp_t, lp_b, lp_c, blank, nt)
        elif tst == ST_INT32:
            _alpha(<const double*>lpp, <const int32_t*>tgp, <double*>lap, <double*>nllp, ilp, tlp, ofp, tg_stride,
                   B, T, S, lp_t, lp_b, lp_c, blank, nt)
        else:
            _alpha(<const double*>lpp, <const int64_t*>tgp, <double*>lap, <double*>nllp, ilp, tlp, ofp, tg_stride,
                   B, T, S, lp_t, lp_b, lp_c, blank, nt)
    return nll, la


def ctc_loss_backward_cpu(TensorImpl grad not None, TensorImpl log_probs not None, TensorImpl targets not None,
                          input_lengths, target_lengths, TensorImpl neg_log_likelihood not None,
                          TensorImpl log_alpha not None, int64_t blank, bint zero_infinity=False):
    geometry = check_ctc_arguments(log_probs, targets, input_lengths, target_lengths, blank)
    _check_floating("ctc_loss_backward_cpu", log_probs)
    cdef Py_ssize_t T = geometry.max_input_length, B = geometry.batch_size, C = geometry.num_labels
    cdef Py_ssize_t S = 2 * geometry.max_target_length + 1
    cdef int st = log_probs.scalar_type
    if grad.scalar_type != st or neg_log_likelihood.scalar_type != st or log_alpha.scalar_type != st:
        raise RuntimeError("ctc_loss_backward: grad, neg_log_likelihood and log_alpha must have log_probs' dtype")
    if grad.nd != 1:
        raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has {grad.nd}")
    if grad.n_elem != B or neg_log_likelihood.n_elem != B or tuple(log_alpha.shape) != (B, T, S):
        raise RuntimeError(f"ctc_loss_backward: expected grad and neg_log_likelihood of {B} elements and log_alpha "
                           f"of shape {[B, T, S]}")
    lo, hi = _label_range(targets, input_lengths, target_lengths, geometry.target_offsets, geometry.target_stride)
    check_target_labels(lo, hi, C)
    cdef TensorImpl out = new_tensor((T, B, C), st)
    zero_cpu_(out)
    if out.n_elem == 0:
        return out
    cdef TensorImpl lb = new_tensor((B, T, S), st)
    cdef TensorImpl il, tl, of
    il, tl, of = _lengths(input_lengths, target_lengths, geometry.target_offsets)
    cdef int64_t tg_stride = geometry.target_stride
    cdef Py_ssize_t lp_t = log_probs.strides[0], lp_b = log_probs.strides[1], lp_c = log_probs.strides[2]
    cdef Py_ssize_t la_b = log_alpha.strides[0], la_t = log_alpha.strides[1], la_s = log_alpha.strides[2]
    cdef Py_ssize_t gs = grad.strides[0]
    neg_log_likelihood = contiguous(neg_log_likelihood)     # read as nll[b]
    cdef const char* lpp = log_probs.data()
    cdef const char* tgp = targets.data()
    cdef const char* lap = log_alpha.data()
    cdef char* lbp = lb.data()
    cdef const char* nllp = neg_log_likelihood.data()
    cdef const char* gop = grad.data()
    cdef char* outp = out.data()
    cdef const int64_t* ilp = <const int64_t*>il.data()
    cdef const int64_t* tlp = <const int64_t*>tl.data()
    cdef const int64_t* ofp = <const int64_t*>of.data()
    cdef int tst = targets.scalar_type
    cdef int nt = num_threads() if B > 1 and T * S >= 4096 else 1
    with nogil:
        if st == ST_FLOAT32 and tst == ST_INT32:
            _beta_grad(<const float*>lpp, <const int32_t*>tgp, <const float*>lap, <float*>lbp, <const float*>nllp,
                       <const float*>gop, gs, <float*>outp, ilp, tlp, ofp, tg_stride, B, T, S, C, lp_t, lp_b, lp_c,
                       la_b, la_t, la_s, blank, zero_infinity, nt)
        elif st == ST_FLOAT32:
            _beta_grad(<const float*>lpp, <const int64_t*>tgp, <const float*>lap, <float*>lbp, <const float*>nllp,
                       <const float*>gop, gs, <float*>outp, ilp, tlp, ofp, tg_stride, B, T, S, C, lp_t, lp_b, lp_c,
                       la_b, la_t, la_s, blank, zero_infinity, nt)
        elif tst == ST_INT32:
            _beta_grad(<const double*>lpp, <const int32_t*>tgp, <const double*>lap, <double*>lbp, <const double*>nllp,
                       <const double*>gop, gs, <double*>outp, ilp, tlp, ofp, tg_stride, B, T, S, C, lp_t, lp_b, lp_c,
                       la_b, la_t, la_s, blank, zero_infinity, nt)
        else:
            _beta_grad(<const double*>lpp, <const int64_t*>tgp, <const double*>lap, <double*>lbp, <const double*>nllp,
                       <const double*>gop, gs, <double*>outp, ilp, tlp, ofp, tg_stride, B, T, S, C, lp_t, lp_b, lp_c,
                       la_b, la_t, la_s, blank, zero_infinity, nt)
    return out
