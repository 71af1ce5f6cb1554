"""Normalisation on CPU: native_layer_norm, native_batch_norm, native_group_norm.

Statistics are two-pass (mean, then the mean of squared deviations) accumulated in double,
then the output is one fused multiply-add per element, x * scale + shift, with scale and
shift per row (layer norm) or per channel (batch and group norm). Rows, channels or
(sample, group) blocks are split over OpenMP threads. Training batch norm updates the
running statistics in place with PyTorch's formulas (momentum, unbiased variance).
"""
from cython.parallel cimport prange
from libc.math cimport sqrt

from c10.scalar_type cimport ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport new_tensor, contiguous, num_threads, np_view
from aten.native.meta.messages cimport shape_of, type_name
from aten.native.meta.norm_checks cimport dtype_check, param_dtype
from aten.native.cpu.element_types cimport floating_t
from aten.native.meta.norm_checks import check_batch_norm, check_group_norm

cdef extern from "aten/native/cpu/norm_rows.h" nogil:
    void ember_ln_row_f32(const float* x, float* y, Py_ssize_t n, const float* w, const float* b, double eps,
                          float* mean_out, float* rstd_out)
    void ember_ln_row_f64(const double* x, double* y, Py_ssize_t n, const double* w, const double* b, double eps,
                          double* mean_out, double* rstd_out)
    void ember_ln_grad_row_f32(const float* g, const float* x, const float* w, float* dx, Py_ssize_t n, double mean,
                               double rstd)
    void ember_ln_grad_row_f64(const double* g, const double* x, const double* w, double* dx, Py_ssize_t n,
                               double mean, double rstd)
    void ember_ln_grad_weight_rows_f32(const float* g, const float* x, const float* mean, const float* rstd,
                                       double* acc, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t n)
    void ember_ln_grad_weight_rows_f64(const double* g, const double* x, const double* mean, const double* rstd,
                                       double* acc, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t n)

cdef enum:
    GRAIN = 32768
    WEIGHT_GRAD_PARTS = 16    # layer norm's weight gradient: row runs summed apart, fixed by the shape alone


cdef object _param(object t):
    return None if t is None else contiguous(<TensorImpl>t)


cdef inline const char* _ptr(object t) noexcept:
    return NULL if t is None else (<TensorImpl>t).data()


# ---- statistics and the affine output over one contiguous block ------------------------------

# Two functions returning values rather than one writing through pointers: a variable a prange
# body only passes by address is shared between the threads in Cython (a data race); assigned
# directly, it is private to each.
cdef inline double _mean(const floating_t* x, Py_ssize_t n) noexcept nogil:
    """In double over 8 independent accumulators (the loop vectorises), added as a tree."""
    cdef Py_ssize_t i, k, m = n - n % 8
    cdef double a[8]
    for k in range(8):
        a[k] = 0
    for i in range(0, m, 8):
        for k in range(8):
            a[k] += x[i + k]
    for i in range(m, n):
        a[i - m] += x[i]
    return (((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))) / n


cdef inline double _variance(const floating_t* x, Py_ssize_t n, double mean) noexcept nogil:
    """The biased variance (the mean of squared deviations from mean), accumulated as _mean."""
    cdef Py_ssize_t i, k, m = n - n % 8
    cdef double d
    cdef double a[8]
    for k in range(8):
        a[k] = 0
    for i in range(0, m, 8):
        for k in range(8):
            d = x[i + k] - mean
            a[k] += d * d
    for i in range(m, n):
        d = x[i] - mean
        a[i - m] += d * d
    return (((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))) / n


cdef inline void _affine(const floating_t* x, floating_t* y, Py_ssize_t n, double scale, double shift) noexcept nogil:
    # in double: x * scale + shift with shift = -mean * scale cancels exactly where x == mean
    cdef Py_ssize_t i
    for i in range(n):
        y[i] = <floating_t>(x[i] * scale + shift)


# ---- layer norm -------------------------------------------------------------------------------

cdef void _layer_norm(const floating_t* x, floating_t* y, floating_t* mean_out, floating_t* rstd_out,
                      const floating_t* w, const floating_t* b, Py_ssize_t rows, Py_ssize_t M, double eps,
                      int nt) noexcept nogil:
    cdef Py_ssize_t r
    for r in prange(rows, num_threads=nt, schedule="static"):
        if floating_t is float:
            ember_ln_row_f32(x + r * M, y + r * M, M, w, b, eps, mean_out + r, rstd_out + r)
        else:
            ember_ln_row_f64(x + r * M, y + r * M, M, w, b, eps, mean_out + r, rstd_out + r)


def native_layer_norm_cpu(TensorImpl input not None, normalized_shape, weight, bias, double eps):
    normalized_shape = tuple(normalized_shape)
    cdef int k = len(normalized_shape), i
    if k < 1:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {list(normalized_shape)}")
    if weight is not None and shape_of(<TensorImpl?>weight) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(shape_of(weight))} and normalized_shape = {list(normalized_shape)}")
    if bias is not None and shape_of(<TensorImpl?>bias) != normalized_shape:
        raise RuntimeError(f"Expected bias to be of same shape as normalized_shape, but got bias of shape "
                           f"{list(shape_of(bias))} and normalized_shape = {list(normalized_shape)}")
    cdef tuple ishape = shape_of(input)
    if input.nd < k or ishape[input.nd - k:] != normalized_shape:
        expected = "[*" + "".join([f", {s}" for s in normalized_shape]) + "]"
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with shape {expected}, "
                           f"but got input of size{list(ishape)}")
    dtype_check("LayerNormKernelImpl", input)
    param_dtype(input, weight)
    param_dtype(input, bias)
    cdef Py_ssize_t M = 1, rows = 1
    for i in range(input.nd - k, input.nd):
        M *= input.sizes[i]
    for i in range(input.nd - k):
        rows *= input.sizes[i]
    stat_shape = ishape[:input.nd - k] + (1,) * k
    cdef TensorImpl out = new_tensor(ishape, input.scalar_type)
    cdef TensorImpl mean = new_tensor(stat_shape, input.scalar_type), rstd = new_tensor(stat_shape, input.scalar_type)
    if rows == 0:
        return out, mean, rstd
    if M == 0:
        np_view(mean)[...] = float("nan")
        np_view(rstd)[...] = float("nan")
        return out, mean, rstd
    cdef TensorImpl x = contiguous(input)
    w, b = _param(weight), _param(bias)
    cdef const char* wp = _ptr(w)
    cdef const char* bp = _ptr(b)
    cdef int nt = num_threads() if input.n_elem >= GRAIN and rows > 1 else 1
    with nogil:
        if x.scalar_type == ST_FLOAT32:
            _layer_norm(<float*>x.data(), <float*>out.data(), <float*>mean.data(), <float*>rstd.data(),
                        <float*>wp, <float*>bp, rows, M, eps, nt)
        else:
            _layer_norm(<double*>x.data(), <double*>out.data(), <double*>mean.data(), <double*>rstd.data(),
                        <double*>wp, <double*>bp, rows, M, eps, nt)
    return out, mean, rstd


# ---- layer norm backward (create_graph=False: functions_manual.layer_norm_backward) -------------

cdef void _layer_norm_grad_input(const floating_t* g, const floating_t* x, const floating_t* mean,
                                 const floating_t* rstd, const floating_t* w, floating_t* dx, Py_ssize_t rows,
                                 Py_ssize_t M, int nt) noexcept nogil:
    cdef Py_ssize_t r
    for r in prange(rows, num_threads=nt, schedule="static"):
        if floating_t is float:
            ember_ln_grad_row_f32(g + r * M, x + r * M, w, dx + r * M, M, mean[r], rstd[r])
        else:
            ember_ln_grad_row_f64(g + r * M, x + r * M, w, dx + r * M, M, mean[r], rstd[r])


cdef void _layer_norm_grad_weight(const floating_t* g, const floating_t* x, const floating_t* mean,
                                  const floating_t* rstd, floating_t* dw, double* partial, Py_ssize_t rows,
                                  Py_ssize_t M, Py_ssize_t parts, int nt) noexcept nogil:
    """dw = sum over rows of g * xhat: each of `parts` runs of rows summed into its own double row of
    `partial` (any thread), then the runs added in order: the same bits on any thread count."""
    cdef Py_ssize_t t, i
    cdef double acc
    for t in prange(parts, num_threads=nt, schedule="dynamic", chunksize=1):
        for i in range(M):
            partial[t * M + i] = 0
        if floating_t is float:
            ember_ln_grad_weight_rows_f32(g, x, mean, rstd, partial + t * M, rows * t // parts,
                                          rows * (t + 1) // parts, M)
        else:
            ember_ln_grad_weight_rows_f64(g, x, mean, rstd, partial + t * M, rows * t // parts,
                                          rows * (t + 1) // parts, M)
    for i in range(M):
        acc = partial[i]
        for t in range(1, parts):
            acc = acc + partial[t * M + i]
        dw[i] = <floating_t>acc


cdef int _check_layer_norm_grad(TensorImpl grad_out, TensorImpl input, TensorImpl mean, TensorImpl rstd,
                                Py_ssize_t* rows, Py_ssize_t* M) except -1:
    """rows and row length from the statistics (one per row); every tensor of input's dtype."""
    dtype_check("LayerNormBackwardKernelImpl", input)
    for t, name in ((grad_out, "grad_out"), (mean, "mean"), (rstd, "rstd")):
        if t.scalar_type != input.scalar_type:
            raise RuntimeError(f"layer_norm backward: expected {name} of dtype {type_name(input.scalar_type)}, got "
                               f"{type_name(t.scalar_type)}")
    if shape_of(grad_out) != shape_of(input):
        raise RuntimeError(f"layer_norm backward: grad_out of shape {list(shape_of(grad_out))} does not match input of "
                           f"shape {list(shape_of(input))}")
    rows[0] = mean.n_elem
    if rstd.n_elem != rows[0] or (rows[0] and input.n_elem % rows[0]):
        raise RuntimeError(f"layer_norm backward: mean ({mean.n_elem}) and rstd ({rstd.n_elem}) must hold one value per "
                           f"row of input ({input.n_elem} elements)")
    M[0] = input.n_elem // rows[0] if rows[0] else 0
    return 0


cdef tuple _grad_operands(TensorImpl grad_out, TensorImpl input, TensorImpl mean, TensorImpl rstd, char** p):
    """grad_out, input, mean and rstd made contiguous, their data pointers in p[0..3]; the tuple
    returned keeps them alive while the kernel reads them."""
    cdef tuple kept = (contiguous(grad_out), contiguous(input), contiguous(mean), contiguous(rstd))
    cdef int i
    for i in range(4):
        p[i] = (<TensorImpl>kept[i]).data()
    return kept


def layer_norm_backward_input_cpu(TensorImpl grad_out not None, TensorImpl input not None, TensorImpl mean not None,
                                  TensorImpl rstd not None, weight):
    cdef Py_ssize_t rows, M
    _check_layer_norm_grad(grad_out, input, mean, rstd, &rows, &M)
    param_dtype(input, weight)
    if weight is not None and rows and (<TensorImpl?>weight).n_elem != M:
        raise RuntimeError(f"layer_norm backward: weight has {(<TensorImpl>weight).n_elem} elements, expected {M}")
    cdef TensorImpl out = new_tensor(shape_of(input), input.scalar_type)
    if out.n_elem == 0:
        return out
    cdef char* p[4]
    kept = _grad_operands(grad_out, input, mean, rstd, p)
    w = _param(weight)
    cdef const char* wp = _ptr(w)
    cdef int nt = num_threads() if input.n_elem >= GRAIN and rows > 1 else 1
    with nogil:
        if input.scalar_type == ST_FLOAT32:
            _layer_norm_grad_input(<float*>p[0], <float*>p[1], <float*>p[2], <float*>p[3], <float*>wp,
                                   <float*>out.data(), rows, M, nt)
        else:
            _layer_norm_grad_input(<double*>p[0], <double*>p[1], <double*>p[2], <double*>p[3], <double*>wp,
                                   <double*>out.data(), rows, M, nt)
    return out


def layer_norm_backward_weight_cpu(TensorImpl grad_out not None, TensorImpl input not None, TensorImpl mean not None,
                                   TensorImpl rstd not None, normalized_shape):
    cdef Py_ssize_t rows, M
    _check_layer_norm_grad(grad_out, input, mean, rstd, &rows, &M)
    cdef tuple shape = tuple(normalized_shape)
    cdef TensorImpl out = new_tensor(shape, input.scalar_type)
    if rows == 0 or M == 0:
        np_view(out)[...] = 0
        return out
    if out.n_elem != M:
        raise RuntimeError(f"layer_norm backward: normalized_shape {list(shape)} does not match rows of {M} elements")
    cdef char* p[4]
    kept = _grad_operands(grad_out, input, mean, rstd, p)
    cdef Py_ssize_t parts = min(rows, WEIGHT_GRAD_PARTS)
    cdef int nt = num_threads() if input.n_elem >= GRAIN and rows > 1 else 1
    cdef TensorImpl partial = new_tensor((parts * M,), ST_FLOAT64)
    with nogil:
        if input.scalar_type == ST_FLOAT32:
            _layer_norm_grad_weight(<float*>p[0], <float*>p[1], <float*>p[2], <float*>p[3], <float*>out.data(),
                                    <double*>partial.data(), rows, M, parts, nt)
        else:
            _layer_norm_grad_weight(<double*>p[0], <double*>p[1], <double*>p[2], <double*>p[3],
                                    <double*>out.data(), <double*>partial.data(), rows, M, parts, nt)
    return out


# ---- batch norm -------------------------------------------------------------------------------

cdef void _batch_norm(const floating_t* x, floating_t* y, Py_ssize_t N, Py_ssize_t C, Py_ssize_t S, const floating_t* w,
                      const floating_t* b, floating_t* rmean, floating_t* rvar, floating_t* save_mean, floating_t* save_invstd,
                      bint training, double momentum, double eps, int nt) noexcept nogil:
    cdef Py_ssize_t c, n, i
    cdef double mean, var, s, d, q, invstd, scale, shift, count = <double>N * S
    cdef const floating_t* xp
    for c in prange(C, num_threads=nt, schedule="static"):
        if training:
            s = 0
            for n in range(N):
                xp = x + (n * C + c) * S
                for i in range(S):
                    s = s + xp[i]
            mean = s / count
            q = 0
            for n in range(N):
                xp = x + (n * C + c) * S
                for i in range(S):
                    d = xp[i] - mean
                    q = q + d * d
            var = q / count
            invstd = 1.0 / sqrt(var + eps)
            save_mean[c] = <floating_t>mean
            save_invstd[c] = <floating_t>invstd
            if rmean != NULL:
                rmean[c] = <floating_t>(momentum * mean + (1 - momentum) * rmean[c])
            if rvar != NULL:
                rvar[c] = <floating_t>(momentum * q / (count - 1) + (1 - momentum) * rvar[c])
        else:
            mean = rmean[c]
            invstd = 1.0 / sqrt(rvar[c] + eps)
        scale = invstd
        if w != NULL:
            scale = invstd * w[c]
        shift = -mean * scale
        if b != NULL:
            shift = b[c] - mean * scale
        for n in range(N):
            _affine(x + (n * C + c) * S, y + (n * C + c) * S, S, scale, shift)


def native_batch_norm_cpu(TensorImpl input not None, weight, bias, running_mean, running_var, bint training,
                          double momentum, double eps):
    check_batch_norm(input, weight, bias, running_mean, running_var, training)
    cdef Py_ssize_t N = input.sizes[0], C = input.sizes[1], S = 1
    cdef int i
    for i in range(2, input.nd):
        S *= input.sizes[i]
    cdef TensorImpl out = new_tensor(shape_of(input), input.scalar_type)
    cdef TensorImpl save_mean = new_tensor((C if training else 0,), input.scalar_type)
    cdef TensorImpl save_invstd = new_tensor((C if training else 0,), input.scalar_type)
    cdef TensorImpl x = contiguous(input)
    w, b = _param(weight), _param(bias)
    # running statistics are updated in place: work on contiguous copies, then copy back
    rm = _param(running_mean)
    rv = _param(running_var)
    cdef const char* wp = _ptr(w)
    cdef const char* bp = _ptr(b)
    cdef char* rmp = <char*>_ptr(rm)
    cdef char* rvp = <char*>_ptr(rv)
    cdef int nt = num_threads() if input.n_elem >= GRAIN and C > 1 else 1
    with nogil:
        if x.scalar_type == ST_FLOAT32:
            _batch_norm(<float*>x.data(), <float*>out.data(), N, C, S, <float*>wp, <float*>bp, <float*>rmp,
                        <float*>rvp, <float*>save_mean.data(), <float*>save_invstd.data(), training, momentum, eps, nt)
        else:
            _batch_norm(<double*>x.data(), <double*>out.data(), N, C, S, <double*>wp, <double*>bp, <double*>rmp,
                        <double*>rvp, <double*>save_mean.data(), <double*>save_invstd.data(), training, momentum,
                        eps, nt)
    if training:
        # written without a version bump, as PyTorch's native_batch_norm (its schema does not mark them written):
        # a module applied twice in one forward (a shared backbone, two views of a batch) still runs its first
        # call's backward
        for stat, copy in ((running_mean, rm), (running_var, rv)):
            if stat is not None and copy is not stat:
                np_view(<TensorImpl>stat)[...] = np_view(<TensorImpl>copy)
    return out, save_mean, save_invstd


def _statistics_written(tuple args, dict kwargs):
    """The operands a call of native_batch_norm_cpu writes without a version bump: its running statistics, in
    training. The reduced-float wrapper (aten/native/meta/opmath.pyx) writes their float32 copies back, quietly."""
    bound = dict(zip(("input", "weight", "bias", "running_mean", "running_var", "training"), args))
    bound.update(kwargs)
    if not bound.get("training"):
        return ()
    return tuple([t for t in (bound.get("running_mean"), bound.get("running_var")) if t is not None])


native_batch_norm_cpu.writes_quietly = _statistics_written


# ---- group norm -------------------------------------------------------------------------------

cdef void _group_norm(const floating_t* x, floating_t* y, Py_ssize_t N, Py_ssize_t C, Py_ssize_t S, Py_ssize_t G,
                      const floating_t* w, const floating_t* b, floating_t* mean_out, floating_t* rstd_out, double eps,
                      int nt) noexcept nogil:
    cdef Py_ssize_t ng, n, g, c, D = C // G
    cdef double mean, var, rstd, scale, shift
    for ng in prange(N * G, num_threads=nt, schedule="static"):
        n = ng // G
        g = ng % G
        mean = _mean(x + (n * C + g * D) * S, D * S)
        var = _variance(x + (n * C + g * D) * S, D * S, mean)
        rstd = 1.0 / sqrt(var + eps)
        mean_out[ng] = <floating_t>mean
        rstd_out[ng] = <floating_t>rstd
        for c in range(g * D, (g + 1) * D):
            scale = rstd
            if w != NULL:
                scale = rstd * w[c]
            shift = -mean * scale
            if b != NULL:
                shift = b[c] - mean * scale
            _affine(x + (n * C + c) * S, y + (n * C + c) * S, S, scale, shift)


def native_group_norm_cpu(TensorImpl input not None, weight, bias, Py_ssize_t N, Py_ssize_t C, Py_ssize_t HxW,
                          Py_ssize_t group, double eps):
    check_group_norm(input, weight, bias, N, C, HxW, group)
    cdef TensorImpl out = new_tensor(shape_of(input), input.scalar_type)
    cdef TensorImpl mean = new_tensor((N, group), input.scalar_type), rstd = new_tensor((N, group), input.scalar_type)
    if N * group == 0:
        return out, mean, rstd
    if C // group * HxW == 0:
        np_view(mean)[...] = float("nan")
        np_view(rstd)[...] = float("nan")
        return out, mean, rstd
    cdef TensorImpl x = contiguous(input)
    w, b = _param(weight), _param(bias)
    cdef const char* wp = _ptr(w)
    cdef const char* bp = _ptr(b)
    cdef int nt = num_threads() if input.n_elem >= GRAIN and N * group > 1 else 1
    with nogil:
        if x.scalar_type == ST_FLOAT32:
            _group_norm(<float*>x.data(), <float*>out.data(), N, C, HxW, group, <float*>wp, <float*>bp,
                        <float*>mean.data(), <float*>rstd.data(), eps, nt)
        else:
            _group_norm(<double*>x.data(), <double*>out.data(), N, C, HxW, group, <double*>wp, <double*>bp,
                        <double*>mean.data(), <double*>rstd.data(), eps, nt)
    return out, mean, rstd
