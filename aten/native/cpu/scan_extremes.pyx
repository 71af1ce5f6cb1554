"""cummax, cummin and logcumsumexp on CPU (and their out= forms).

They iterate as cumsum/cumprod do (aten/native/cpu/scan_sums.pxd): a contiguous copy read as
(outer, n, inner) around the scanned dim, CHUNK inner positions scanned together with their
running values in L1, outer slices over threads when large.

cummax/cummin follow PyTorch's CPU rule: a new element wins when it is NaN, or when the running
value is not NaN and the element is >= (<= for cummin) it, so among equal values the LAST index
wins and a NaN, once seen, stays (each later NaN taking over the index). Integers compare in
int64, floats in double (both exact); bool runs as uint8.

logcumsumexp accumulates as PyTorch's CPU kernel: in its acc type (double for float32 and
float64, float for float16), adding each element with log1p(exp(min - max)) + max, where a NaN
accumulator stays NaN and two equal infinities give the new element (so -inf, -inf is -inf and
+inf, +inf is +inf).
"""
from cython.parallel cimport prange
from libc.math cimport exp, expf, log1p, log1pf, isfinite, INFINITY
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t

from c10.scalar_type cimport (opmath_type, has_arithmetic, dtype_of, is_floating, ST_BOOL, ST_UINT8, ST_INT8,
                              ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32)
from c10.tensor_impl cimport TensorImpl, empty_contiguous
from aten.native.cpu.loops cimport cast_contiguous, copy_into, resize_output
from aten.native.cpu.scan_sums cimport CHUNK, scan_geometry, scan_threads
from aten.native.cpu.element_types cimport num_t


ctypedef fused fdata_t:
    float
    double

ctypedef fused acc_t:
    float
    double


# -- cummax / cummin -------------------------------------------------------------------------------

cdef inline bint _takes_f(double v, double best, bint is_max) noexcept nogil:
    if v != v:
        return True
    if best != best:
        return False
    return v >= best if is_max else v <= best


cdef inline bint _takes_i(int64_t v, int64_t best, bint is_max) noexcept nogil:
    return v >= best if is_max else v <= best


cdef void _ext_row(num_t* out, int64_t* ind, const num_t* x, Py_ssize_t n, bint is_max) noexcept nogil:
    """A contiguous row. While the running value is not NaN, "v is NaN or v >= best" is exactly
    "not (v < best)": one comparison; after a NaN only NaNs take over."""
    cdef Py_ssize_t i = 0, k = 0
    cdef num_t best = x[0], v
    if is_max:
        while i < n:
            v = x[i]
            if not (v < best):
                best = v
                k = i
                if (num_t is float or num_t is double) and v != v:
                    break
            out[i] = best
            ind[i] = k
            i += 1
    else:
        while i < n:
            v = x[i]
            if not (v > best):
                best = v
                k = i
                if (num_t is float or num_t is double) and v != v:
                    break
            out[i] = best
            ind[i] = k
            i += 1
    while i < n:                        # the running value is NaN
        v = x[i]
        if v != v:
            k = i
        out[i] = best
        ind[i] = k
        i += 1


cdef void _ext_slice(num_t* out, int64_t* ind, const num_t* x, Py_ssize_t n, Py_ssize_t inner,
                     bint is_max) noexcept nogil:
    """One outer slice: out[i, j] = the max (min) of x[0..i, j], ind[i, j] where it was taken."""
    cdef Py_ssize_t i, j, j0, w, p
    cdef double fbest[CHUNK]
    cdef int64_t ibest[CHUNK]
    cdef int64_t where[CHUNK]
    cdef double fv
    cdef int64_t iv
    if inner == 1:
        _ext_row(out, ind, x, n, is_max)
        return
    j0 = 0
    while j0 < inner:
        w = inner - j0 if inner - j0 < CHUNK else CHUNK
        for j in range(w):
            where[j] = 0
            if num_t is float or num_t is double:
                fbest[j] = x[j0 + j]
            else:
                ibest[j] = x[j0 + j]
        for i in range(n):
            p = i * inner + j0
            if num_t is float or num_t is double:
                for j in range(w):
                    fv = x[p + j]
                    if _takes_f(fv, fbest[j], is_max):
                        fbest[j] = fv
                        where[j] = i
                    out[p + j] = <num_t>fbest[j]
                    ind[p + j] = where[j]
            else:
                for j in range(w):
                    iv = x[p + j]
                    if _takes_i(iv, ibest[j], is_max):
                        ibest[j] = iv
                        where[j] = i
                    out[p + j] = <num_t>ibest[j]
                    ind[p + j] = where[j]
        j0 += CHUNK


cdef void _ext(num_t* out, int64_t* ind, const num_t* x, Py_ssize_t outer, Py_ssize_t n, Py_ssize_t inner,
               bint is_max, int nt) noexcept nogil:
    cdef Py_ssize_t o
    if nt > 1:
        for o in prange(outer, schedule="static", num_threads=nt):
            _ext_slice(out + o * n * inner, ind + o * n * inner, x + o * n * inner, n, inner, is_max)
    else:
        for o in range(outer):
            _ext_slice(out + o * n * inner, ind + o * n * inner, x + o * n * inner, n, inner, is_max)


cdef tuple _cum_extreme(TensorImpl self, object dim, bint is_max):
    cdef int d, nt, st = self.scalar_type
    cdef Py_ssize_t outer, n, inner
    cdef TensorImpl src, values, indices
    cdef int64_t* ip
    if self.nd == 0:
        if dim != 0 and dim != -1:
            raise IndexError(f"{'cummax' if is_max else 'cummin'}(): Expected reduction dim -1 or 0 for scalar "
                             f"but got {dim}")
    values = empty_contiguous(self.nd, self.sizes, st, None)
    indices = empty_contiguous(self.nd, self.sizes, ST_INT64, None)
    if self.n_elem == 0:     # PyTorch checks no dim here
        return values, indices
    d = self._wrap_dim(dim) if self.nd > 0 else 0
    src = self if self.contiguous else cast_contiguous(self, st)
    scan_geometry(self, d, &outer, &n, &inner)
    nt = scan_threads(src.n_elem, outer)
    ip = <int64_t*>indices.data()
    with nogil:
        if st == ST_UINT8 or st == ST_BOOL:
            _ext(<uint8_t*>values.data(), ip, <const uint8_t*>src.data(), outer, n, inner, is_max, nt)
        elif st == ST_INT8:
            _ext(<int8_t*>values.data(), ip, <const int8_t*>src.data(), outer, n, inner, is_max, nt)
        elif st == ST_INT16:
            _ext(<int16_t*>values.data(), ip, <const int16_t*>src.data(), outer, n, inner, is_max, nt)
        elif st == ST_INT32:
            _ext(<int32_t*>values.data(), ip, <const int32_t*>src.data(), outer, n, inner, is_max, nt)
        elif st == ST_INT64:
            _ext(<int64_t*>values.data(), ip, <const int64_t*>src.data(), outer, n, inner, is_max, nt)
        elif st == ST_FLOAT32:
            _ext(<float*>values.data(), ip, <const float*>src.data(), outer, n, inner, is_max, nt)
        else:
            _ext(<double*>values.data(), ip, <const double*>src.data(), outer, n, inner, is_max, nt)
    return values, indices


cdef int _check_out_dtype(TensorImpl out, int expected) except -1:
    """PyTorch's check_scalar_type_device_layout_equal for an out= tensor."""
    if out.scalar_type != expected:
        raise RuntimeError(f"expected scalar_type {dtype_of(expected).type_name} but found "
                           f"{dtype_of(out.scalar_type).type_name}")
    return 0


cdef int _write_out(TensorImpl out, TensorImpl result) except -1:
    resize_output(out, result.nd, result.sizes)
    copy_into(out, result)
    out.version_counter.version += 1
    return 0


def cummax_cpu(TensorImpl self not None, dim):
    return _cum_extreme(self, dim, True)


def cummin_cpu(TensorImpl self not None, dim):
    return _cum_extreme(self, dim, False)


cdef tuple _cum_extreme_out(object kernel, TensorImpl self, object dim, TensorImpl values, TensorImpl indices):
    _check_out_dtype(values, self.scalar_type)
    _check_out_dtype(indices, ST_INT64)
    v, i = kernel(self, dim)
    _write_out(values, v)
    _write_out(indices, i)
    return values, indices


def cummax_out_cpu(TensorImpl self not None, dim, TensorImpl values not None, TensorImpl indices not None):
    return _cum_extreme_out(cummax_cpu, self, dim, values, indices)


def cummin_out_cpu(TensorImpl self not None, dim, TensorImpl values not None, TensorImpl indices not None):
    return _cum_extreme_out(cummin_cpu, self, dim, values, indices)


# -- logcumsumexp ----------------------------------------------------------------------------------

cdef inline acc_t _log_add_exp(acc_t x, acc_t y) noexcept nogil:
    """x (the new element) log-added to y (the running value), as PyTorch's CPU helper."""
    cdef acc_t lo, hi
    if y != y:
        lo = hi = y
    else:
        lo = y if y < x else x     # std::min(x, y): x when either is NaN
        hi = y if x < y else x     # std::max(x, y)
    if lo != hi or isfinite(lo):
        if acc_t is float:
            return log1pf(expf(lo - hi)) + hi
        else:
            return log1p(exp(lo - hi)) + hi
    return x


cdef void _lcse_slice(fdata_t* out, const fdata_t* x, Py_ssize_t n, Py_ssize_t inner, acc_t unused) noexcept nogil:
    cdef Py_ssize_t i, j, j0, w, p
    cdef double acc[CHUNK]      # acc_t values (a float is exact in a double)
    cdef acc_t a
    if inner == 1:
        a = -INFINITY
        for i in range(n):
            a = _log_add_exp(<acc_t>x[i], a)
            out[i] = <fdata_t>a
        return
    j0 = 0
    while j0 < inner:
        w = inner - j0 if inner - j0 < CHUNK else CHUNK
        for j in range(w):
            acc[j] = -INFINITY
        for i in range(n):
            p = i * inner + j0
            for j in range(w):
                a = _log_add_exp(<acc_t>x[p + j], <acc_t>acc[j])
                acc[j] = a
                out[p + j] = <fdata_t>a
        j0 += CHUNK


cdef void _lcse(fdata_t* out, const fdata_t* x, Py_ssize_t outer, Py_ssize_t n, Py_ssize_t inner, acc_t unused,
                int nt) noexcept nogil:
    cdef Py_ssize_t o
    if nt > 1:
        for o in prange(outer, schedule="static", num_threads=nt):
            _lcse_slice(out + o * n * inner, x + o * n * inner, n, inner, unused)
    else:
        for o in range(outer):
            _lcse_slice(out + o * n * inner, x + o * n * inner, n, inner, unused)


def logcumsumexp_cpu(TensorImpl self not None, dim):
    cdef int d = self._wrap_dim(dim), nt, st = self.scalar_type
    cdef Py_ssize_t outer, n, inner
    cdef TensorImpl src, out
    cdef float f_acc = 0
    cdef double d_acc = 0
    if not is_floating(st) or not has_arithmetic(st):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{dtype_of(st).type_name}'")
    if self.n_elem == 0:
        return empty_contiguous(self.nd, self.sizes, st, None)
    if self.nd == 0:
        return cast_contiguous(self, st)
    # float16 and bfloat16 run on a float32 copy, accumulating in float (PyTorch's acc type for them).
    cdef bint reduced = opmath_type(st) != st
    src = self if self.contiguous and not reduced else cast_contiguous(self, opmath_type(st))
    scan_geometry(self, d, &outer, &n, &inner)
    out = empty_contiguous(self.nd, self.sizes, src.scalar_type, None)
    nt = scan_threads(src.n_elem, outer)
    with nogil:
        if reduced:
            _lcse(<float*>out.data(), <const float*>src.data(), outer, n, inner, f_acc, nt)
        elif st == ST_FLOAT32:
            _lcse(<float*>out.data(), <const float*>src.data(), outer, n, inner, d_acc, nt)
        else:
            _lcse(<double*>out.data(), <const double*>src.data(), outer, n, inner, d_acc, nt)
    return cast_contiguous(out, st) if reduced else out


def logcumsumexp_out_cpu(TensorImpl self not None, dim, TensorImpl out not None):
    _check_out_dtype(out, self.scalar_type)
    _write_out(out, logcumsumexp_cpu(self, dim))
    return out
