"""Binary search and counting on CPU: searchsorted, bucketize, histc, bincount.

searchsorted is PyTorch's cus_lower_bound / cus_upper_bound (a `!(mid >= value)` bisection,
so NaN boundaries behave as in PyTorch), over boundaries and values promoted to their common
dtype. histc bins by PyTorch's linear interpolation in the input's dtype; bincount accumulates
float32 weights in float32 and other weights in float64, as PyTorch does.
"""
from libc.stdint cimport int64_t, uint8_t, int8_t, int16_t, int32_t
from libc.math cimport isnan, isinf
from c10.scalar_type cimport (ST_BOOL, ST_UINT8, ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64,
                              is_integral, is_floating)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous, wrap_number
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.meta.pointwise cimport result_type
from aten.native.cpu.index_support cimport check_kernel_dtype, check_cpu, contiguous_of
from aten.native.cpu.element_types cimport num_t
from aten.native.meta.messages cimport type_name, sizes_str
from aten.native.meta.search_checks import check_searchsorted


# ---------------------------------------------------------------------------------------------
# searchsorted, bucketize

cdef inline Py_ssize_t _lower_bound(Py_ssize_t start, Py_ssize_t end, num_t val, const num_t* bd,
                                    const int64_t* sort) noexcept nogil:
    cdef Py_ssize_t orig_start = start, mid
    cdef num_t mid_val
    while start < end:
        mid = start + ((end - start) >> 1)
        mid_val = bd[sort[mid] + orig_start] if sort != NULL else bd[mid]
        if not (mid_val >= val):
            start = mid + 1
        else:
            end = mid
    return start


cdef inline Py_ssize_t _upper_bound(Py_ssize_t start, Py_ssize_t end, num_t val, const num_t* bd,
                                    const int64_t* sort) noexcept nogil:
    cdef Py_ssize_t orig_start = start, mid
    cdef num_t mid_val
    while start < end:
        mid = start + ((end - start) >> 1)
        mid_val = bd[sort[mid] + orig_start] if sort != NULL else bd[mid]
        if not (mid_val > val):
            start = mid + 1
        else:
            end = mid
    return start


cdef void _search(const num_t* inp, const num_t* bd, const int64_t* sort, Py_ssize_t n, Py_ssize_t idim_in,
                  Py_ssize_t idim_bd, bint one_d, bint right, int64_t* out64, int32_t* out32) noexcept nogil:
    cdef Py_ssize_t i, start_bd, pos
    for i in range(n):
        start_bd = 0 if one_d else i // idim_in * idim_bd
        if right:
            pos = _upper_bound(start_bd, start_bd + idim_bd, inp[i], bd, sort) - start_bd
        else:
            pos = _lower_bound(start_bd, start_bd + idim_bd, inp[i], bd, sort) - start_bd
        if out64 != NULL:
            out64[i] = pos
        else:
            out32[i] = <int32_t>pos


def searchsorted_cpu(TensorImpl sorted_sequence not None, TensorImpl self not None, out_int32=False, right=False,
                     side=None, TensorImpl sorter=None):
    cdef TensorImpl bd = sorted_sequence, inp, srt = None, out
    cdef int common
    cdef Py_ssize_t n, idim_in, idim_bd, v, vmin, vmax, i
    cdef bint is_right, one_d
    cdef const int64_t* sp = NULL
    cdef int64_t* o64 = NULL
    cdef int32_t* o32 = NULL
    cdef char* ip
    cdef char* bp
    check_cpu(bd)
    check_cpu(self)
    if sorter is not None:
        check_cpu(sorter)
    is_right = check_searchsorted(bd, self, right, side, sorter)
    if sorter is not None:
        srt = contiguous_of(sorter)
        if srt.n_elem > 0:
            vmin = (<int64_t*>srt.data())[0]
            vmax = vmin
            for i in range(srt.n_elem):
                v = (<int64_t*>srt.data())[i]
                vmin = v if v < vmin else vmin
                vmax = v if v > vmax else vmax
            if vmin < 0 or vmax >= srt.sizes[srt.nd - 1]:
                raise RuntimeError("torch.searchsorted(): sorter index out of range")
        sp = <int64_t*>srt.data()
    out = empty_contiguous(self.nd, self.sizes, ST_INT32 if out_int32 else ST_INT64, None)
    if self.n_elem == 0:
        return out
    common = result_type((bd, self)) if bd.scalar_type != self.scalar_type else self.scalar_type
    if common == ST_BOOL:
        raise NotImplementedError("\"searchsorted_out_cpu\" not implemented for 'Bool'")
    check_kernel_dtype(self if self.scalar_type == common else bd, "searchsorted_out_cpu")
    inp = self if (self.scalar_type == common and self.contiguous) else cast_contiguous(self, common)
    bd = bd if (bd.scalar_type == common and bd.contiguous) else cast_contiguous(bd, common)
    n = inp.n_elem
    idim_in = 1 if inp.nd == 0 else inp.sizes[inp.nd - 1]
    idim_bd = bd.sizes[bd.nd - 1]
    if out_int32:
        o32 = <int32_t*>out.data()
    else:
        o64 = <int64_t*>out.data()
    ip = inp.data()
    bp = bd.data()
    one_d = bd.nd == 1
    with nogil:
        if common == ST_UINT8:
            _search(<uint8_t*>ip, <uint8_t*>bp, sp, n, idim_in, idim_bd, one_d, is_right, o64, o32)
        elif common == ST_INT8:
            _search(<int8_t*>ip, <int8_t*>bp, sp, n, idim_in, idim_bd, one_d, is_right, o64, o32)
        elif common == ST_INT16:
            _search(<int16_t*>ip, <int16_t*>bp, sp, n, idim_in, idim_bd, one_d, is_right, o64, o32)
        elif common == ST_INT32:
            _search(<int32_t*>ip, <int32_t*>bp, sp, n, idim_in, idim_bd, one_d, is_right, o64, o32)
        elif common == ST_INT64:
            _search(<int64_t*>ip, <int64_t*>bp, sp, n, idim_in, idim_bd, one_d, is_right, o64, o32)
        elif common == ST_FLOAT32:
            _search(<float*>ip, <float*>bp, sp, n, idim_in, idim_bd, one_d, is_right, o64, o32)
        else:
            _search(<double*>ip, <double*>bp, sp, n, idim_in, idim_bd, one_d, is_right, o64, o32)
    return out


def searchsorted_Scalar_cpu(TensorImpl sorted_sequence not None, self, out_int32=False, right=False, side=None,
                            TensorImpl sorter=None):
    return searchsorted_cpu(sorted_sequence, wrap_number(self), out_int32, right, side, sorter)


def bucketize_cpu(TensorImpl self not None, TensorImpl boundaries not None, out_int32=False, right=False):
    if boundaries.nd != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.nd})")
    return searchsorted_cpu(boundaries, self, out_int32, right, None, None)


def bucketize_Scalar_cpu(self, TensorImpl boundaries not None, out_int32=False, right=False):
    return bucketize_cpu(wrap_number(self), boundaries, out_int32, right)


# ---------------------------------------------------------------------------------------------
# histc

cdef void _minmax(const num_t* p, Py_ssize_t n, double* lo, double* hi) noexcept nogil:
    """min and max; NaN as soon as one element is NaN (PyTorch's aminmax)."""
    cdef num_t mn = p[0], mx = p[0], x
    cdef Py_ssize_t i
    for i in range(n):
        x = p[i]
        if x != x:
            lo[0] = x
            hi[0] = x
            return
        if x < mn:
            mn = x
        if x > mx:
            mx = x
    lo[0] = mn
    hi[0] = mx


cdef void _histc(const num_t* p, Py_ssize_t n, num_t lo, num_t hi, int64_t bins, num_t* hist) noexcept nogil:
    cdef Py_ssize_t i
    cdef int64_t pos
    cdef num_t x
    for i in range(n):
        x = p[i]
        if not (x >= lo and x <= hi):
            continue
        pos = <int64_t>((x - lo) * bins / (hi - lo))
        if pos == bins:
            pos -= 1
        hist[pos] += 1


cdef str _cpp_double(double v):
    """A double as C++'s ostream prints it (6 significant digits, "-nan" for the NaN min/max give)."""
    if isnan(v):
        return "-nan"
    return f"{v:g}"


def histc_cpu(TensorImpl self not None, bins=100, min=0, max=0):
    cdef TensorImpl src, hist
    cdef double lo = float(min), hi = float(max)
    cdef Py_ssize_t n, nb = bins, i
    cdef int st = self.scalar_type
    check_cpu(self)
    if not is_floating(st):
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{type_name(st)}'")
    check_kernel_dtype(self, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    src = contiguous_of(self)
    n = src.n_elem
    if lo == hi and n > 0:
        with nogil:
            if st == ST_FLOAT32:
                _minmax(<float*>src.data(), n, &lo, &hi)
            else:
                _minmax(<double*>src.data(), n, &lo, &hi)
    if lo == hi:
        lo -= 1
        hi += 1
    if isinf(lo) or isinf(hi) or isnan(lo) or isnan(hi):
        raise RuntimeError(f"torch.histc: range of [{_cpp_double(lo)}, {_cpp_double(hi)}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    hist = empty_contiguous(1, &nb, st, None)
    with nogil:
        if st == ST_FLOAT32:
            for i in range(nb):
                (<float*>hist.data())[i] = 0
            _histc(<float*>src.data(), n, <float>lo, <float>hi, nb, <float*>hist.data())
        else:
            for i in range(nb):
                (<double*>hist.data())[i] = 0
            _histc(<double*>src.data(), n, lo, hi, nb, <double*>hist.data())
    return hist


# ---------------------------------------------------------------------------------------------
# bincount

cdef int _bin_range(const num_t* p, Py_ssize_t n, int64_t* mn, int64_t* mx) noexcept nogil:
    cdef Py_ssize_t i
    mn[0] = <int64_t>p[0]
    mx[0] = <int64_t>p[0]
    for i in range(n):
        if p[i] < mn[0]:
            mn[0] = <int64_t>p[i]
        if p[i] > mx[0]:
            mx[0] = <int64_t>p[i]
    return 0


cdef void _bincount(const num_t* p, Py_ssize_t n, int64_t* counts, const float* wf, float* of,
                    const double* wd, double* od) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if wf != NULL:
            of[<int64_t>p[i]] += wf[i]
        elif wd != NULL:
            od[<int64_t>p[i]] += wd[i]
        else:
            counts[<int64_t>p[i]] += 1


def bincount_cpu(TensorImpl self not None, TensorImpl weights=None, minlength=0):
    cdef int st = self.scalar_type
    cdef TensorImpl src, w = None, out
    cdef int64_t mn = 0, mx = 0
    cdef Py_ssize_t n, nbins, i
    cdef char* p
    cdef int64_t* counts = NULL
    cdef const float* wf = NULL
    cdef float* of = NULL
    cdef const double* wd = NULL
    cdef double* od = NULL
    check_cpu(self)
    if not is_integral(st, False):
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{type_name(st)}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if self.nd == 1 and self.n_elem == 0:
        nbins = minlength
        out = empty_contiguous(1, &nbins, ST_INT64, None)
        for i in range(nbins):
            (<int64_t*>out.data())[i] = 0
        return out
    src = contiguous_of(self)
    n = src.n_elem
    p = src.data()
    if self.nd == 1:
        with nogil:
            if st == ST_UINT8:
                _bin_range(<uint8_t*>p, n, &mn, &mx)
            elif st == ST_INT8:
                _bin_range(<int8_t*>p, n, &mn, &mx)
            elif st == ST_INT16:
                _bin_range(<int16_t*>p, n, &mn, &mx)
            elif st == ST_INT32:
                _bin_range(<int32_t*>p, n, &mn, &mx)
            else:
                _bin_range(<int64_t*>p, n, &mn, &mx)
    if self.nd != 1 or mn < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None:
        check_cpu(weights)
        if weights.nd != 1 or weights.sizes[0] != self.sizes[0]:
            raise RuntimeError("weights should be 1-d and have the same length as input")
    nbins = mx + 1
    if nbins < minlength:
        nbins = minlength
    if weights is None:
        out = empty_contiguous(1, &nbins, ST_INT64, None)
        counts = <int64_t*>out.data()
        for i in range(nbins):
            counts[i] = 0
    elif weights.scalar_type == ST_FLOAT32:
        w = contiguous_of(weights)
        out = empty_contiguous(1, &nbins, ST_FLOAT32, None)
        wf = <float*>w.data()
        of = <float*>out.data()
        for i in range(nbins):
            of[i] = 0
    else:
        check_kernel_dtype(weights, "bincount_cpu")
        w = cast_contiguous(weights, ST_FLOAT64)
        out = empty_contiguous(1, &nbins, ST_FLOAT64, None)
        wd = <double*>w.data()
        od = <double*>out.data()
        for i in range(nbins):
            od[i] = 0
    with nogil:
        if st == ST_UINT8:
            _bincount(<uint8_t*>p, n, counts, wf, of, wd, od)
        elif st == ST_INT8:
            _bincount(<int8_t*>p, n, counts, wf, of, wd, od)
        elif st == ST_INT16:
            _bincount(<int16_t*>p, n, counts, wf, of, wd, od)
        elif st == ST_INT32:
            _bincount(<int32_t*>p, n, counts, wf, of, wd, od)
        else:
            _bincount(<int64_t*>p, n, counts, wf, of, wd, od)
    return out
