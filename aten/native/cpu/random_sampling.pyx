# distutils: extra_compile_args = -ffp-contract=off
"""The CPU random operators that sample into new tensors: normal with tensor mean/std, the *_like
factories, randperm, multinomial and native_dropout, each PyTorch's CPU kernel bit for bit
through the engine in random_fill.pyx and the in-place distributions of random.pyx.
"""
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t
from libc.math cimport isnan, INFINITY
from cpython.mem cimport PyMem_Malloc, PyMem_Free

from c10.generator cimport Generator, MT19937, mt_random, mt_random64, mt_uniform_double, generator_or_default
from c10.scalar_type cimport (opmath_type, has_arithmetic, dtype as DType, promote, is_floating, ST_UINT8, ST_INT8,
                              ST_INT16, ST_INT32, ST_INT64, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_BOOL)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous

from aten.native.cpu.random_fill cimport (Walk, OpArgs, OP_EXPONENTIAL, _type_name, _not_implemented,
                                          _is_float_kernel_type, _dim_order, empty_like_cpu, _walk_of, _walk_copy,
                                          _fill, _check_cpu)
from aten.native.cpu.random cimport _check_normal_std, _normal_inplace, _bernoulli_scalar, _expand_strides

from c10 import layout as _layout
from aten.native.cpu.random import normal_cpu, random_from_cpu, uniform_cpu
from aten.native.meta.errors import output_cast_error
from aten.native.meta.random_checks cimport check_randperm
from aten.native.cpu.element_types cimport num_t


# ==== normal with tensor mean/std ======================================================================

cdef inline double _load_d(const char* p, int st) noexcept nogil:
    if st == ST_FLOAT64:
        return (<const double*>p)[0]
    if st == ST_FLOAT32:
        return (<const float*>p)[0]
    if st == ST_INT64:
        return <double>(<const int64_t*>p)[0]
    if st == ST_INT32:
        return (<const int32_t*>p)[0]
    if st == ST_INT16:
        return (<const int16_t*>p)[0]
    if st == ST_INT8:
        return (<const int8_t*>p)[0]
    return (<const uint8_t*>p)[0]


cdef inline float _load_f(const char* p, int st) noexcept nogil:
    """The element converted straight to float (as PyTorch's cast to a float computation)."""
    if st == ST_FLOAT64:
        return <float>(<const double*>p)[0]
    if st == ST_FLOAT32:
        return (<const float*>p)[0]
    if st == ST_INT64:
        return <float>(<const int64_t*>p)[0]
    if st == ST_INT32:
        return <float>(<const int32_t*>p)[0]
    if st == ST_INT16:
        return (<const int16_t*>p)[0]
    if st == ST_INT8:
        return (<const int8_t*>p)[0]
    return (<const uint8_t*>p)[0]


cdef int _combine(TensorImpl ret, TensorImpl other, bint multiply) except -1:
    """ret (contiguous float32/float64) *= or += other broadcast to ret's shape, computed in
    promote(ret, other) and written back in ret's dtype (an in-place binary op)."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int perm[MAX_DIMS]
    cdef Walk w
    cdef TensorImpl buf
    cdef Py_ssize_t i, n = ret.n_elem
    cdef int ost = other.scalar_type, k
    cdef int common = promote(ret.scalar_type, ost)
    cdef float* rf
    cdef double* rd
    cdef const char* src
    if n == 0:
        return 0
    if not is_floating(common) and common != ret.scalar_type:
        raise output_cast_error(_type_name(common), _type_name(ret.scalar_type))
    _expand_strides(other, ret, strides)
    # ret is contiguous: walk other in ret's logical order (row-major).
    for k in range(ret.nd):
        perm[k] = ret.nd - 1 - k
    _walk_of(ret, perm, strides, other.itemsize, &w)
    buf = empty_contiguous(1, &n, ost, None)
    with nogil:
        _walk_copy(other.data(), &w, buf.data(), other.itemsize, True)
        src = buf.data()
        if ret.scalar_type == ST_FLOAT32 and common == ST_FLOAT32:
            rf = <float*>ret.data()
            for i in range(n):
                if multiply:
                    rf[i] = rf[i] * _load_f(src + i * other.itemsize, ost)
                else:
                    rf[i] = rf[i] + _load_f(src + i * other.itemsize, ost)
        elif ret.scalar_type == ST_FLOAT32:
            rf = <float*>ret.data()
            for i in range(n):
                if multiply:
                    rf[i] = <float>(<double>rf[i] * _load_d(src + i * other.itemsize, ost))
                else:
                    rf[i] = <float>(<double>rf[i] + _load_d(src + i * other.itemsize, ost))
        else:
            rd = <double*>ret.data()
            for i in range(n):
                if multiply:
                    rd[i] = rd[i] * _load_d(src + i * other.itemsize, ost)
                else:
                    rd[i] = rd[i] + _load_d(src + i * other.itemsize, ost)
    return 0


cdef int _check_normal_tensor_std(TensorImpl std) except -1:
    """CHECK_NORMAL_TENSOR_STD: every element >= 0 (a NaN fails)."""
    cdef TensorImpl flat
    cdef Py_ssize_t i, n = std.n_elem
    cdef int perm[MAX_DIMS]
    cdef Walk w
    cdef bint ok = True
    cdef const char* p
    if n == 0:
        return 0
    for i in range(std.nd):
        perm[i] = std.nd - 1 - i
    _walk_of(std, perm, std.strides, std.itemsize, &w)
    flat = empty_contiguous(1, &n, std.scalar_type, None)
    with nogil:
        _walk_copy(std.data(), &w, flat.data(), std.itemsize, True)
        p = flat.data()
        for i in range(n):
            if not (_load_d(p + i * std.itemsize, std.scalar_type) >= 0):
                ok = False
                break
    if not ok:
        raise RuntimeError("normal expects all elements of std >= 0.0")
    return 0


def normal_tensor_float_cpu(TensorImpl mean not None, double std=1, generator=None):
    """aten::normal.Tensor_float: normal(0, std) like mean (contiguous), plus mean."""
    cdef Generator gen = generator_or_default(generator)
    cdef TensorImpl ret
    _check_cpu(mean, "normal")
    _check_normal_std(std)
    ret = empty_contiguous(mean.nd, mean.sizes, mean.scalar_type, None)
    _normal_inplace(ret, 0.0, std, gen)
    _combine(ret, mean, False)
    return ret


def normal_float_tensor_cpu(double mean, TensorImpl std not None, generator=None):
    """aten::normal.float_Tensor: normal(0, 1) like std (contiguous), times std, plus mean."""
    cdef Generator gen = generator_or_default(generator)
    cdef TensorImpl ret, mean_t
    cdef Py_ssize_t one = 1
    _check_cpu(std, "normal")
    _check_normal_tensor_std(std)
    ret = empty_contiguous(std.nd, std.sizes, std.scalar_type, None)
    _normal_inplace(ret, 0.0, 1.0, gen)
    _combine(ret, std, True)
    # full({}, mean, ret.options()): mean rounded to ret's dtype first
    mean_t = empty_contiguous(0, &one, ret.scalar_type, None)
    if ret.scalar_type == ST_FLOAT32:
        (<float*>mean_t.data())[0] = <float>mean
    else:
        (<double*>mean_t.data())[0] = mean
    _combine(ret, mean_t, False)
    return ret


def normal_tensor_tensor_cpu(TensorImpl mean not None, TensorImpl std not None, generator=None):
    """aten::normal.Tensor_Tensor: normal(0, 1) of the broadcast shape (mean's dtype), times std, plus mean."""
    cdef Generator gen = generator_or_default(generator)
    cdef TensorImpl ret
    cdef Py_ssize_t sizes[MAX_DIMS]
    cdef int nd, d, a, b
    cdef Py_ssize_t sa, sb
    _check_cpu(mean, "normal")
    _check_cpu(std, "normal")
    _check_normal_tensor_std(std)
    nd = mean.nd if mean.nd > std.nd else std.nd
    for d in range(nd - 1, -1, -1):
        a = d - (nd - mean.nd)
        b = d - (nd - std.nd)
        sa = mean.sizes[a] if a >= 0 else 1
        sb = std.sizes[b] if b >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                               f"non-singleton dimension {d}")
        sizes[d] = sa if sb == 1 else sb
    ret = empty_contiguous(nd, sizes, mean.scalar_type, None)
    _normal_inplace(ret, 0.0, 1.0, gen)
    _combine(ret, std, True)
    _combine(ret, mean, False)
    return ret


# ==== *_like factories ==================================================================================

cdef TensorImpl _like(TensorImpl self, object dtype, object layout, object device, object pin_memory,
                      object memory_format, str op):
    """empty_like(self, dtype, ...) on CPU: preserve_format unless contiguous_format is asked."""
    cdef int st = self.scalar_type if dtype is None else (<DType?>dtype).scalar_type
    _check_cpu(self, op)
    if layout is not None and layout is not _layout.strided:
        raise RuntimeError(f"Ember supports only the strided layout, got {layout!r}")
    if pin_memory:
        raise RuntimeError("pin_memory=True needs CUDA, which this CPU kernel cannot use")
    if device is not None and device.type != "cpu":
        raise RuntimeError(f"{op}: Ember has random kernels for CPU tensors only, got device '{device}'")
    if memory_format is not None and memory_format is not _layout.preserve_format \
            and memory_format is not _layout.contiguous_format:
        raise RuntimeError(f"{op}: unsupported memory format {memory_format!r} (preserve or contiguous only)")
    return empty_like_cpu(self, st, memory_format is not _layout.contiguous_format)


def rand_like_cpu(TensorImpl self not None, dtype=None, layout=None, device=None, pin_memory=None,
                  memory_format=None):
    """aten::rand_like"""
    return uniform_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "rand_like"), 0.0, 1.0, None)


def rand_like_generator_cpu(TensorImpl self not None, generator=None, dtype=None, layout=None, device=None,
                            pin_memory=None, memory_format=None):
    """aten::rand_like.generator"""
    return uniform_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "rand_like"), 0.0, 1.0,
                       generator)


def randn_like_cpu(TensorImpl self not None, dtype=None, layout=None, device=None, pin_memory=None,
                   memory_format=None):
    """aten::randn_like"""
    return normal_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randn_like"), 0.0, 1.0, None)


def randn_like_generator_cpu(TensorImpl self not None, generator=None, dtype=None, layout=None, device=None,
                             pin_memory=None, memory_format=None):
    """aten::randn_like.generator"""
    return normal_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randn_like"), 0.0, 1.0,
                      generator)


def randint_like_cpu(TensorImpl self not None, int64_t high, dtype=None, layout=None, device=None, pin_memory=None,
                     memory_format=None):
    """aten::randint_like: [0, high)"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), 0, high,
                           None)


def randint_like_generator_cpu(TensorImpl self not None, int64_t high, generator=None, dtype=None, layout=None,
                               device=None, pin_memory=None, memory_format=None):
    """aten::randint_like.generator"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), 0, high,
                           generator)


cdef int64_t _scalar_high(TensorImpl high) except? -1:
    if high.nd != 0 or high.n_elem != 1 or high.device_type != 0:
        raise RuntimeError("high must be a scalar tensor and on CPU")
    return <int64_t>high.item()


def randint_like_tensor_cpu(TensorImpl self not None, TensorImpl high not None, dtype=None, layout=None,
                            device=None, pin_memory=None, memory_format=None):
    """aten::randint_like.Tensor: high given as a 0-dim CPU tensor"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), 0,
                           _scalar_high(high), None)


def randint_like_tensor_generator_cpu(TensorImpl self not None, TensorImpl high not None, generator=None, dtype=None,
                                      layout=None, device=None, pin_memory=None, memory_format=None):
    """aten::randint_like.Tensor_generator"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), 0,
                           _scalar_high(high), generator)


def randint_like_low_cpu(TensorImpl self not None, int64_t low, int64_t high, dtype=None, layout=None, device=None,
                         pin_memory=None, memory_format=None):
    """aten::randint_like.low_dtype: [low, high)"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), low, high,
                           None)


def randint_like_low_generator_cpu(TensorImpl self not None, int64_t low, int64_t high, generator=None, dtype=None,
                                   layout=None, device=None, pin_memory=None, memory_format=None):
    """aten::randint_like.low_generator_dtype"""
    return random_from_cpu(_like(self, dtype, layout, device, pin_memory, memory_format, "randint_like"), low, high,
                           generator)


# ==== randperm ===========================================================================================

cdef void _k_randperm(num_t* r, Py_ssize_t stride, int64_t n, MT19937* e) noexcept nogil:
    """randperm_cpu: Fisher-Yates with 32-bit words for n < 2**32 / 20, else the inside-out
    variant with 64-bit words."""
    cdef int64_t i, z
    cdef num_t save
    if n < 214748364:
        for i in range(n):
            r[i * stride] = <num_t>i
        for i in range(n - 1):
            z = <int64_t>(mt_random(e) % <uint64_t>(n - i))
            save = r[i * stride]
            r[i * stride] = r[(z + i) * stride]
            r[(z + i) * stride] = save
        return
    for i in range(n):
        z = <int64_t>(mt_random64(e) % <uint64_t>(i + 1))
        r[i * stride] = r[z * stride]
        r[z * stride] = <num_t>i


def randperm_generator_cpu(int64_t n, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    """aten::randperm.generator: a random permutation of 0..n-1 (int64 unless dtype says otherwise)."""
    cdef Generator gen = generator_or_default(generator)
    cdef int st = ST_INT64 if dtype is None else (<DType?>dtype).scalar_type
    cdef TensorImpl out
    cdef Py_ssize_t size = n
    cdef MT19937* e
    cdef char* data
    if layout is not None and layout is not _layout.strided:
        raise RuntimeError(f"Ember supports only the strided layout, got {layout!r}")
    if pin_memory:
        raise RuntimeError("pin_memory=True needs CUDA, which this CPU kernel cannot use")
    if device is not None and device.type != "cpu":
        raise RuntimeError(f"randperm: Ember has random kernels for CPU tensors only, got device '{device}'")
    check_randperm(n, st)
    out = empty_contiguous(1, &size, st, None)
    data = out.data()
    e = &gen.engine
    with nogil:
        gen.lock()
        if st == ST_UINT8:
            _k_randperm(<uint8_t*>data, 1, n, e)
        elif st == ST_INT8:
            _k_randperm(<int8_t*>data, 1, n, e)
        elif st == ST_INT16:
            _k_randperm(<int16_t*>data, 1, n, e)
        elif st == ST_INT32:
            _k_randperm(<int32_t*>data, 1, n, e)
        elif st == ST_INT64:
            _k_randperm(<int64_t*>data, 1, n, e)
        elif st == ST_FLOAT32:
            _k_randperm(<float*>data, 1, n, e)
        else:
            _k_randperm(<double*>data, 1, n, e)
        gen.unlock()
    return out


# ==== multinomial ==========================================================================================

cdef int _multinomial_replacement(const char* base, int st, Py_ssize_t s0, Py_ssize_t s1, int64_t n_dist,
                                  int64_t n_cat, int64_t n_sample, int64_t* result, char* cum,
                                  MT19937* e) noexcept nogil:
    """multinomial_with_replacement_apply: per row, check it and build the normalised cumulative
    sum in the input dtype, then binary-search one 53-bit uniform per sample. Returns 0, or the
    first failing check (1: entry < 0 or NaN, 2: infinite entry, 3: sum <= 0): like PyTorch,
    earlier rows have drawn their samples by then."""
    cdef int64_t i, j, left, right, mid
    cdef float fsum, fv
    cdef double dsum, dv, u
    cdef float* cf = <float*>cum
    cdef double* cd = <double*>cum
    cdef bint is_f = st == ST_FLOAT32
    for i in range(n_dist):
        if is_f:
            fsum = 0
            for j in range(n_cat):
                fv = (<const float*>(base + i * s0 + j * s1))[0]
                if not (fv >= 0):
                    return 1
                if not (fv - fv == 0):
                    return 2
                fsum += fv
                cf[j] = fsum
            if not (fsum > 0):
                return 3
            for j in range(n_cat):
                cf[j] /= fsum
        else:
            dsum = 0
            for j in range(n_cat):
                dv = (<const double*>(base + i * s0 + j * s1))[0]
                if not (dv >= 0):
                    return 1
                if not (dv - dv == 0):
                    return 2
                dsum += dv
                cd[j] = dsum
            if not (dsum > 0):
                return 3
            for j in range(n_cat):
                cd[j] /= dsum
        for j in range(n_sample):
            u = mt_uniform_double(e)
            left = 0
            right = n_cat
            if is_f:
                cf[n_cat - 1] = 1
            else:
                cd[n_cat - 1] = 1
            while right - left > 0:
                mid = left + (right - left) // 2
                if (<double>cf[mid] if is_f else cd[mid]) < u:
                    left = mid + 1
                else:
                    right = mid
            result[i * n_sample + j] = left
    return 0


cdef inline bint _gt_nan_max(double a, double b) noexcept nogil:
    """a ranks above b in argmax/topk order (NaN is the largest)."""
    if isnan(a):
        return not isnan(b)
    return a > b


cdef int _check_multinomial_rows(const char* base, int st, Py_ssize_t s0, Py_ssize_t s1, int64_t n_dist,
                                 int64_t n_cat) except -1:
    """The fast path's checks: no inf/nan/negative entry, then no all-zero row."""
    cdef int64_t i, j
    cdef double v
    cdef bint any_nonzero
    for i in range(n_dist):
        for j in range(n_cat):
            v = _load_d(base + i * s0 + j * s1, st)
            if not (v >= 0 and v < INFINITY):
                raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    for i in range(n_dist):
        any_nonzero = False
        for j in range(n_cat):
            if _load_d(base + i * s0 + j * s1, st) != 0:
                any_nonzero = True
                break
        if not any_nonzero:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return 0


cdef void _multinomial_topk(const char* base, int st, Py_ssize_t s0, Py_ssize_t s1, const char* qbase,
                            Py_ssize_t qs0, Py_ssize_t qs1, int64_t n_dist, int64_t n_cat, int64_t k,
                            int64_t* res, double* keys, int64_t* idx) noexcept nogil:
    """Per row: keys p / q in the input dtype, then the k largest, descending (argmax for k = 1:
    the first maximum; ties otherwise go to the lower index)."""
    cdef int64_t i, j, m, pos
    cdef double key
    for i in range(n_dist):
        for j in range(n_cat):
            if st == ST_FLOAT32:
                keys[j] = <double>((<const float*>(base + i * s0 + j * s1))[0]
                                   / (<const float*>(qbase + i * qs0 + j * qs1))[0])
            else:
                keys[j] = ((<const double*>(base + i * s0 + j * s1))[0]
                           / (<const double*>(qbase + i * qs0 + j * qs1))[0])
        m = 0
        for j in range(n_cat):
            key = keys[j]
            if m == k and not _gt_nan_max(key, keys[idx[k - 1]]):
                continue
            pos = m if m < k else k - 1
            while pos > 0 and _gt_nan_max(key, keys[idx[pos - 1]]):
                idx[pos] = idx[pos - 1]
                pos -= 1
            idx[pos] = j
            if m < k:
                m += 1
        for j in range(k):
            res[i * k + j] = idx[j]


def multinomial_cpu(TensorImpl self not None, int64_t num_samples, bint replacement=False, generator=None):
    """aten::multinomial: num_samples category indices per row of self (1 or 2 dims).

    Without replacement (or for one sample) PyTorch's fast path: q ~ Exp(1) like self, then the
    top num_samples of self / q per row; with replacement, inverse-CDF sampling per row."""
    cdef Generator gen = generator_or_default(generator)
    cdef int64_t n_cat, n_dist
    cdef Py_ssize_t out_sizes[2]
    cdef Py_ssize_t s0, s1, qs0, qs1, ncat_sz
    cdef TensorImpl result, q, cum
    cdef int64_t* res
    cdef int st = self.scalar_type
    cdef int bad
    cdef const char* base
    cdef double* keys
    cdef int64_t* idx
    cdef OpArgs args
    _check_cpu(self, "multinomial")
    if not (self.nd > 0 and self.nd <= 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not is_floating(st):
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_type_name(st)}")
    if not has_arithmetic(st):
        raise NotImplementedError(f"\"multinomial\" not implemented for '{_type_name(st)}'")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = self.sizes[self.nd - 1]
    if not (replacement or num_samples <= n_cat):
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_cat > (1 << 24):
        raise RuntimeError("number of categories cannot exceed 2^24")
    n_dist = self.sizes[0] if self.nd == 2 else 1
    if self.nd == 1:
        out_sizes[0] = num_samples
    else:
        out_sizes[0] = n_dist
        out_sizes[1] = num_samples
    result = empty_contiguous(self.nd, out_sizes, ST_INT64, None)
    if result.n_elem == 0:
        return result
    if opmath_type(st) != st:       # PyTorch 2.13 samples these; Ember's sampler reads float and double only
        raise RuntimeError(f"multinomial is not implemented for {'half' if st == ST_FLOAT16 else 'bfloat16'} on CPU")
    s1 = self.strides[self.nd - 1] * self.itemsize
    s0 = self.strides[0] * self.itemsize if self.nd == 2 else 0
    base = self.data()
    res = <int64_t*>result.data()
    if not replacement or num_samples == 1:
        _check_multinomial_rows(base, st, s0, s1, n_dist, n_cat)
        q = empty_like_cpu(self, st, True)
        args.op = OP_EXPONENTIAL
        args.a = 1.0
        _fill(q, gen, &args)
        qs1 = q.strides[q.nd - 1] * q.itemsize
        qs0 = q.strides[0] * q.itemsize if self.nd == 2 else 0
        keys = <double*>PyMem_Malloc(n_cat * sizeof(double))
        idx = <int64_t*>PyMem_Malloc(num_samples * sizeof(int64_t))
        if keys == NULL or idx == NULL:
            PyMem_Free(keys)
            PyMem_Free(idx)
            raise MemoryError()
        with nogil:
            _multinomial_topk(base, st, s0, s1, q.data(), qs0, qs1, n_dist, n_cat, num_samples, res, keys, idx)
        PyMem_Free(keys)
        PyMem_Free(idx)
        return result
    ncat_sz = n_cat
    cum = empty_contiguous(1, &ncat_sz, st, None)
    with nogil:
        gen.lock()
        bad = _multinomial_replacement(base, st, s0, s1, n_dist, n_cat, num_samples, res, cum.data(), &gen.engine)
        gen.unlock()
    if bad == 1:
        raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
    if bad == 2:
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    if bad == 3:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    return result


# ==== native_dropout ==========================================================================================

def native_dropout_cpu(TensorImpl input not None, double p, train=None):
    """aten::native_dropout: (input * mask * (1 / (1 - p)), mask) with a bool mask like input."""
    cdef TensorImpl mask, output
    cdef double p1m, scale
    cdef Py_ssize_t n = input.n_elem, i
    cdef int st = input.scalar_type
    cdef int perm[MAX_DIMS]
    cdef Walk w_in, w_mask
    cdef TensorImpl xin, mflat
    cdef float fscale
    cdef float* of
    cdef double* od
    cdef const uint8_t* mk
    _check_cpu(input, "native_dropout")
    if n == 0:
        return input, empty_like_cpu(input, st, True)
    if train is None or train:
        p1m = 1.0 - p
        scale = 0.0 if p1m == 0 else 1.0 / p1m
        mask = empty_like_cpu(input, ST_BOOL, True)
        _bernoulli_scalar(mask, p1m, generator_or_default(None))
        if not _is_float_kernel_type(st):
            if is_floating(st):
                _not_implemented("mul_cpu", st)
            raise output_cast_error("Float", _type_name(st))
        # output = input.mul(mask).mul_(scale): like input (mask shares its layout), in input's dtype
        output = empty_like_cpu(input, st, True)
        _dim_order(input.nd, input.sizes, input.strides, NULL, perm)
        _walk_of(input, perm, input.strides, input.itemsize, &w_in)
        _walk_of(input, perm, mask.strides, 1, &w_mask)
        xin = empty_contiguous(1, &n, st, None)
        mflat = empty_contiguous(1, &n, ST_BOOL, None)
        with nogil:
            _walk_copy(input.data(), &w_in, xin.data(), input.itemsize, True)
            _walk_copy(mask.data(), &w_mask, mflat.data(), 1, True)
            mk = <const uint8_t*>mflat.data()
            if st == ST_FLOAT32:
                fscale = <float>scale
                of = <float*>xin.data()
                for i in range(n):
                    of[i] = (of[i] * <float>mk[i]) * fscale
            else:
                od = <double*>xin.data()
                for i in range(n):
                    od[i] = (od[i] * <double>mk[i]) * scale
            _walk_copy(output.data(), &w_in, xin.data(), input.itemsize, False)
        return output, mask
    mask = empty_like_cpu(input, ST_BOOL, True)
    _fill_ones_bool(mask)
    output = empty_like_cpu(input, st, True)
    _copy_same_layout(output, input)
    return output, mask


cdef void _fill_ones_bool(TensorImpl t) noexcept:
    cdef Py_ssize_t i, span = 1
    cdef uint8_t* d = <uint8_t*>t.data()
    cdef int k
    for k in range(t.nd):
        span += (t.sizes[k] - 1) * t.strides[k]
    for i in range(span):
        d[i] = 1


cdef int _copy_same_layout(TensorImpl dst, TensorImpl src) except -1:
    """dst (empty_like(src)) = src, element by element in src's memory order."""
    cdef int perm[MAX_DIMS]
    cdef Walk ws, wd
    cdef Py_ssize_t n = src.n_elem
    cdef TensorImpl flat = empty_contiguous(1, &n, src.scalar_type, None)
    _dim_order(src.nd, src.sizes, src.strides, NULL, perm)
    _walk_of(src, perm, src.strides, src.itemsize, &ws)
    _walk_of(src, perm, dst.strides, dst.itemsize, &wd)
    with nogil:
        _walk_copy(src.data(), &ws, flat.data(), src.itemsize, True)
        _walk_copy(dst.data(), &wd, flat.data(), src.itemsize, False)
    return 0
