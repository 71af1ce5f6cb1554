# distutils: extra_compile_args = -ffp-contract=off
"""The CPU random operators that fill a tensor in place: uniform_, normal_, random_, exponential_,
bernoulli_, cauchy_, log_normal_, geometric_ (and their float16 paths), each PyTorch's CPU
kernel bit for bit through the engine in random_fill.pyx (this module is compiled with
-ffp-contract=off too, so that the C compiler fuses nothing).
"""
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t, INT64_MIN, INT64_MAX

from c10.generator cimport Generator, MT19937, mt_uniform_float, mt_uniform_double, generator_or_default
from c10.scalar_type cimport (is_floating, is_complex, opmath_type, max_finite, dtype_of, ST_UINT8, ST_INT8,
                              ST_INT16, ST_INT32, ST_INT64, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_BOOL)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous, wrap_number
from aten.native.cpu.loops cimport cast_contiguous, copy_into

from aten.native.cpu.element_types cimport num_t
from aten.native.cpu.random_fill cimport (Walk, OpArgs, OP_UNIFORM, OP_NORMAL_SERIAL, OP_RANDOM_FROM_TO,
                                          OP_RANDOM_FULL, OP_RANDOM, OP_EXPONENTIAL, OP_BERNOULLI_SCALAR, OP_CAUCHY,
                                          OP_LOG_NORMAL, OP_GEOMETRIC, _g, _type_name, _not_implemented,
                                          _is_float_kernel_type, _dim_order, empty_like_cpu, _walk_of, _walk_copy,
                                          _fill, _bump, _check_cpu)

import math
import warnings

from aten.native.meta.messages cimport cpp_type
from aten.native.meta import views as _views

from c10.scalar_type import float_limits

cdef int64_t _INT64_MIN = INT64_MIN
cdef int64_t _INT64_MAX = INT64_MAX


cdef Py_ssize_t _k_bernoulli_tensor(num_t* out, const char* p, bint p_double, Py_ssize_t n,
                                    MT19937* e) noexcept nogil:
    """bernoulli with a probability per element: a double p draws 53 bits, a float p 24 bits.
    Returns the index of the first p outside [0, 1] (PyTorch stops there), or -1."""
    cdef Py_ssize_t i
    cdef double pd
    cdef float pf
    if p_double:
        for i in range(n):
            pd = (<const double*>p)[i]
            if not (pd >= 0 and pd <= 1):
                return i
            out[i] = <num_t>(1 if mt_uniform_double(e) < pd else 0)
    else:
        for i in range(n):
            pf = (<const float*>p)[i]
            if not (pf >= 0 and pf <= 1):
                return i
            out[i] = <num_t>(1 if mt_uniform_float(e) < pf else 0)
    return -1


# ==== Operators: in-place distributions ===============================================================

def uniform_cpu(TensorImpl self not None, double from_=0, double to=1, generator=None):
    """aten::uniform_"""
    if is_complex(self.scalar_type):       # as PyTorch: both parts uniform, through the (..., 2) real view
        uniform_cpu(_views.view_as_real(self), from_, to, generator)
        return self
    if opmath_type(self.scalar_type) != self.scalar_type:
        return _uniform_reduced(self, from_, to, generator)
    cdef Generator gen = generator_or_default(generator)
    cdef int st = self.scalar_type
    cdef OpArgs args
    cdef double lo, hi, limit
    cdef str name
    _check_cpu(self, "uniform_")
    if not _is_float_kernel_type(st):
        _not_implemented("check_uniform_bounds", st)
    if st == ST_FLOAT32:
        lo, hi, name = -3.4028234663852886e+38, 3.4028234663852886e+38, "float"
    else:
        lo, hi, name = -1.7976931348623157e+308, 1.7976931348623157e+308, "double"
    if not (from_ >= lo and from_ <= hi):
        raise RuntimeError(f"from is out of bounds for {name}")
    if not (to >= lo and to <= hi):
        raise RuntimeError(f"to is out of bounds for {name}")
    if not (from_ <= to):
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(from_)} > to={_g(to)}")
    if not ((to - from_) <= hi):
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{_type_name(st)}>::max(), but found "
                           f"to={_g(to)} and from={_g(from_)} which result in to-from to exceed the limit")
    if self.n_elem == 0:
        return self
    args.op = OP_UNIFORM
    args.a = from_
    args.b = to
    _fill(self, gen, &args)
    _bump(self)
    return self


cdef int _check_normal_std(double std) except -1:
    if not (std >= 0.0):
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    return 0


cdef int _normal_inplace(TensorImpl self, double mean, double std, Generator gen) except -1:
    """normal_impl_ + normal_kernel (std already checked)."""
    cdef OpArgs args
    if self.n_elem == 0:
        return 0
    if not _is_float_kernel_type(self.scalar_type):
        _not_implemented("normal_kernel_cpu", self.scalar_type)
    args.op = OP_NORMAL_SERIAL
    args.a = mean
    args.b = std
    _fill(self, gen, &args)
    _bump(self)
    return 0


def normal_cpu(TensorImpl self not None, double mean=0, double std=1, generator=None):
    """aten::normal_"""
    cdef Generator gen = generator_or_default(generator)
    _check_cpu(self, "normal_")
    _check_normal_std(std)
    if is_complex(self.scalar_type):       # as PyTorch: each part with half the variance, in the real view
        _normal_inplace(_views.view_as_real(self), mean, std / math.sqrt(2), gen)
        return self
    _normal_inplace(self, mean, std, gen)
    return self


cdef int _check_bounds(int64_t from_, int64_t to_inc, int st) except -1:
    """check_from_to_in_range, with PyTorch's precision warnings for floating dtypes."""
    cdef double lo, hi
    cdef int digits
    cdef int64_t lim
    cdef str name = cpp_type(st)
    if st == ST_FLOAT32 or st == ST_FLOAT64:
        if st == ST_FLOAT32:
            lo, hi, digits = -3.4028234663852886e+38, 3.4028234663852886e+38, 24
        else:
            lo, hi, digits = -1.7976931348623157e+308, 1.7976931348623157e+308, 53
        if not (<double>from_ >= lo and <double>from_ <= hi):
            raise RuntimeError(f"from is out of bounds for {name}")
        if not (<double>to_inc >= lo and <double>to_inc <= hi):
            raise RuntimeError(f"to - 1 is out of bounds for {name}")
        lim = (<int64_t>1) << digits
        for var, what in ((from_, "from"), (to_inc, "to - 1")):
            if var < -lim or var > lim:
                warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                              f"{name} can support discrete uniform distribution only within this range. This warning "
                              "will become an error in version 1.7 release, please fix the code in advance",
                              UserWarning, stacklevel=3)
        return 0
    lo_i, hi_i = _int_limits(st)
    if not (from_ >= lo_i and from_ <= hi_i):
        raise RuntimeError(f"from is out of bounds for {name}")
    if not (to_inc >= lo_i and to_inc <= hi_i):
        raise RuntimeError(f"to - 1 is out of bounds for {name}")
    return 0


cdef tuple _int_limits(int st):
    if st == ST_BOOL:
        return 0, 1
    if st == ST_UINT8:
        return 0, 255
    if st == ST_INT8:
        return -128, 127
    if st == ST_INT16:
        return -32768, 32767
    if st == ST_INT32:
        return -2147483648, 2147483647
    return _INT64_MIN, _INT64_MAX


cdef int64_t _update_from(int64_t from_, int st) noexcept:
    """Move `from` right to the next value that stays >= from after the cast to a float dtype."""
    cdef int64_t from_plus_1, f
    cdef int n = 0
    cdef int digits = 24 if st == ST_FLOAT32 else 53
    if st == ST_FLOAT32:
        from_plus_1 = <int64_t>(<float>(from_ + 1))
    else:
        from_plus_1 = <int64_t>(<double>(from_ + 1))
    if from_plus_1 < from_:
        f = from_ + 1
        f = -f if f < 0 else f
        f >>= 1
        while f:
            n += 1
            f >>= 1
        from_ = from_plus_1 + ((<int64_t>1) << (n - digits + 1))
    return from_


cdef int64_t _update_to(int64_t to, int st) noexcept:
    """Move `to` left to the previous value that stays < to after the cast to a float dtype."""
    cdef int64_t to_minus_1, t
    cdef int n = 0
    cdef int digits = 24 if st == ST_FLOAT32 else 53
    if st == ST_FLOAT32:
        to_minus_1 = <int64_t>(<float>(to - 1))
    else:
        to_minus_1 = <int64_t>(<double>(to - 1))
    if to_minus_1 >= to:
        t = to - 1
        t = -t if t < 0 else t
        t >>= 1
        while t:
            n += 1
            t >>= 1
        to = to_minus_1 - ((<int64_t>1) << (n - digits + 1))
    return to


cdef int _random_dtype_ok(int st) except -1:
    if opmath_type(st) != st:
        _not_implemented("random_from_to_kernel_cpu", st)
    return 0


cdef int _random_from_to(TensorImpl self, int64_t from_, object to_opt, Generator gen) except -1:
    """random_from_to_impl."""
    cdef int st = self.scalar_type
    cdef int64_t to, to_inc
    cdef OpArgs args
    _random_dtype_ok(st)
    if to_opt is not None:
        to = to_opt
        if not from_ < to:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
        if _is_float_kernel_type(st):
            from_ = _update_from(from_, st)
            to = _update_to(to, st)
            if not from_ < to:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                                   f"but got from={from_} >= to={to}")
        _check_bounds(from_, to - 1, st)
        if self.n_elem == 0:
            return 0
        args.op = OP_RANDOM_FROM_TO
        args.range_ = <uint64_t>to - <uint64_t>from_
        args.base = from_
    elif from_ != _INT64_MIN:
        if _is_float_kernel_type(st):
            to_inc = (<int64_t>1) << (24 if st == ST_FLOAT32 else 53)
            from_ = _update_from(from_, st)
            if not from_ < to_inc:
                raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                                   f"casted to dtype, but got from={from_} > to_inc={to_inc}")
        elif st == ST_BOOL:
            to_inc = 1
        else:
            to_inc = _int_limits(st)[1]
        _check_bounds(from_, to_inc, st)
        if self.n_elem == 0:
            return 0
        args.op = OP_RANDOM_FROM_TO
        args.range_ = <uint64_t>to_inc - <uint64_t>from_ + 1
        args.base = from_
    else:
        if self.n_elem == 0:
            return 0
        if not (st == ST_INT64 or st == ST_FLOAT32 or st == ST_FLOAT64):
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
        args.op = OP_RANDOM_FULL
    _fill(self, gen, &args)
    _bump(self)
    return 0


def random_from_cpu(TensorImpl self not None, int64_t from_, to=None, generator=None):
    """aten::random_.from: [from, to), or [from, max of the dtype] when to is None."""
    _check_cpu(self, "random_")
    if opmath_type(self.scalar_type) != self.scalar_type:
        return _random_reduced(self, from_, to, generator)
    _random_from_to(self, from_, to, generator_or_default(generator))
    return self


def random_to_cpu(TensorImpl self not None, int64_t to, generator=None):
    """aten::random_.to: [0, to)."""
    return random_from_cpu(self, 0, to, generator)


cdef int _digits(int st) except -1:
    """The integers a reduced float holds exactly go up to 2**digits (11 for float16, 8 for bfloat16)."""
    return round(-math.log2(float_limits(dtype_of(st))[1])) + 1


def _uniform_reduced(TensorImpl self, double from_, double to, generator):
    """PyTorch's Half and BFloat16 uniform_: draw in float, round to the dtype, and give `from`
    where the rounding reached `to` (the range stays [from, to)); bounds are the dtype's."""
    cdef int st = self.scalar_type
    cdef double limit = max_finite(st)
    if not -limit <= from_ <= limit:
        raise RuntimeError(f"from is out of bounds for {cpp_type(st)}")
    if not -limit <= to <= limit:
        raise RuntimeError(f"to is out of bounds for {cpp_type(st)}")
    if not (from_ <= to):
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(from_)} > to={_g(to)}")
    if not ((to - from_) <= limit):
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{dtype_of(st).type_name}>::max(), but "
                           f"found to={_g(to)} and from={_g(from_)} which result in to-from to exceed the limit")
    if self.n_elem == 0:
        return self
    import numpy as np
    cdef TensorImpl wide = cast_contiguous(self, ST_FLOAT32)
    uniform_cpu(wide, from_, to, generator)
    wide = cast_contiguous(cast_contiguous(wide, st), ST_FLOAT32)      # the values self will hold
    values = wide._numpy_view()
    values[values == _rounded(to, st)] = _rounded(from_, st)
    _store_rounded(self, wide)
    return self


cdef float _rounded(double value, int st):
    """value as the reduced dtype st rounds it (through float, as c10 converts)."""
    cdef TensorImpl t = cast_contiguous(cast_contiguous(cast_contiguous(wrap_number(value), ST_FLOAT32), st),
                                        ST_FLOAT32)
    return (<float*>t.data())[0]


cdef int _store_rounded(TensorImpl self, TensorImpl wide) except -1:
    copy_into(self, wide)
    self.version_counter.version += 1
    return 0


def _random_reduced(TensorImpl self, int64_t from_, to, generator):
    """PyTorch's Half and BFloat16 random_: integers drawn in float, bounded by the dtype's range and
    warned about beyond the integers it holds exactly (2**digits)."""
    cdef int st = self.scalar_type
    cdef double limit = max_finite(st)
    cdef int digits = _digits(st)
    cdef str name = cpp_type(st)
    if to is None:
        if from_ == _INT64_MIN:
            if st != ST_FLOAT16:       # PyTorch draws these for bfloat16; Ember has no such loop yet
                raise NotImplementedError(f"random_(from=-2**63) over the full 64-bit range is not implemented in "
                                          f"Ember for {dtype_of(st).type_name}")
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16")
        to_inc = 1 << digits
        if not from_ < to_inc:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                               f"to dtype, but got from={from_} > to_inc={to_inc}")
        to = to_inc + 1
    elif not from_ < to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    if not -limit <= from_ <= limit:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not -limit <= to - 1 <= limit:
        raise RuntimeError(f"to - 1 is out of bounds for {name}")
    for var, what in ((from_, "from"), (to - 1, "to - 1")):
        if abs(var) > 1 << digits:
            warnings.warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision "
                          f"limitations {name} can support discrete uniform distribution only within this range. "
                          "This warning will become an error in version 1.7 release, please fix the code in advance",
                          UserWarning, stacklevel=3)
    return _random_from_to_widened(self, from_, to, generator)


cdef TensorImpl _random_from_to_widened(TensorImpl self, int64_t from_, to, generator):
    cdef TensorImpl wide = cast_contiguous(self, ST_FLOAT32)
    _random_from_to(wide, from_, to, generator_or_default(generator))
    _store_rounded(self, wide)
    return self


def random_cpu(TensorImpl self not None, generator=None):
    """aten::random_: [0, max] for integer dtypes, [0, 2**mantissa] for floating ones."""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "random_")
    if self.n_elem == 0:
        return self
    if opmath_type(self.scalar_type) != self.scalar_type:
        _not_implemented("random_kernel_cpu", self.scalar_type)
    args.op = OP_RANDOM
    _fill(self, gen, &args)
    _bump(self)
    return self


def exponential_cpu(TensorImpl self not None, double lambd=1, generator=None):
    """aten::exponential_"""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "exponential_")
    if not (lambd > 0.0):
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    if self.n_elem == 0:
        return self
    if not is_floating(self.scalar_type):
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_type_name(self.scalar_type)}")
    if not _is_float_kernel_type(self.scalar_type):
        _not_implemented("exponential_cpu", self.scalar_type)
    args.op = OP_EXPONENTIAL
    args.a = lambd
    _fill(self, gen, &args)
    _bump(self)
    return self


def cauchy_cpu(TensorImpl self not None, double median=0, double sigma=1, generator=None):
    """aten::cauchy_"""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "cauchy_")
    if not (sigma > 0.0):
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")
    if not is_floating(self.scalar_type):
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {cpp_type(self.scalar_type)}")
    if self.n_elem == 0:
        return self
    if not _is_float_kernel_type(self.scalar_type):
        _not_implemented("cauchy_cpu", self.scalar_type)
    args.op = OP_CAUCHY
    args.a = median
    args.b = sigma
    _fill(self, gen, &args)
    _bump(self)
    return self


def log_normal_cpu(TensorImpl self not None, double mean=1, double std=2, generator=None):
    """aten::log_normal_"""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "log_normal_")
    if not (std > 0.0):
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    if self.n_elem == 0:
        return self
    if not _is_float_kernel_type(self.scalar_type):
        _not_implemented("log_normal_cpu", self.scalar_type)
    args.op = OP_LOG_NORMAL
    args.a = mean
    args.b = std
    _fill(self, gen, &args)
    _bump(self)
    return self


def geometric_cpu(TensorImpl self not None, double p, generator=None):
    """aten::geometric_: the number of Bernoulli(p) trials up to the first success (every dtype)."""
    cdef Generator gen = generator_or_default(generator)
    cdef OpArgs args
    _check_cpu(self, "geometric_")
    if not (0 < p and p < 1):
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    if self.n_elem == 0:
        return self
    if opmath_type(self.scalar_type) != self.scalar_type or self.scalar_type == ST_BOOL:
        _not_implemented("geometric_cpu", self.scalar_type)
    args.op = OP_GEOMETRIC
    args.a = p
    _fill(self, gen, &args)
    _bump(self)
    return self


cdef int _bernoulli_scalar(TensorImpl self, double p, Generator gen) except -1:
    cdef OpArgs args
    if not (0 <= p and p <= 1):
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    if self.n_elem == 0:
        return 0
    if opmath_type(self.scalar_type) != self.scalar_type:
        _not_implemented("bernoulli_scalar_cpu_", self.scalar_type)
    args.op = OP_BERNOULLI_SCALAR
    args.a = p
    _fill(self, gen, &args)
    _bump(self)
    return 0


def bernoulli_float_cpu(TensorImpl self not None, double p=0.5, generator=None):
    """aten::bernoulli_.float"""
    _check_cpu(self, "bernoulli_")
    _bernoulli_scalar(self, p, generator_or_default(generator))
    return self


cdef int _expand_strides(TensorImpl src, TensorImpl to, Py_ssize_t* strides) except -1:
    """src's strides broadcast to `to`'s shape (expand_inplace's check and message)."""
    cdef int nd = to.nd, d, sd
    if src.nd > nd:
        raise RuntimeError(f"expand: the number of sizes provided ({nd}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({src.nd})")
    for d in range(nd - 1, -1, -1):           # from the last dimension, as PyTorch reports
        sd = d - (nd - src.nd)
        if sd < 0:
            strides[d] = 0
        elif src.sizes[sd] == to.sizes[d]:
            strides[d] = src.strides[sd]
        elif src.sizes[sd] == 1:
            strides[d] = 0
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({to.sizes[d]}) must match the existing size ({src.sizes[sd]}) at "
                f"non-singleton dimension {d}.  Target sizes: {list(to._sizes())}.  Tensor sizes: "
                f"{list(src._sizes())}")
    return 0


cdef Py_ssize_t _bernoulli_tensor_run(int st, char* out, const char* p, bint p_double, Py_ssize_t n,
                                      MT19937* e) noexcept nogil:
    if st == ST_UINT8 or st == ST_BOOL:
        return _k_bernoulli_tensor(<uint8_t*>out, p, p_double, n, e)
    elif st == ST_INT8:
        return _k_bernoulli_tensor(<int8_t*>out, p, p_double, n, e)
    elif st == ST_INT16:
        return _k_bernoulli_tensor(<int16_t*>out, p, p_double, n, e)
    elif st == ST_INT32:
        return _k_bernoulli_tensor(<int32_t*>out, p, p_double, n, e)
    elif st == ST_INT64:
        return _k_bernoulli_tensor(<int64_t*>out, p, p_double, n, e)
    elif st == ST_FLOAT32:
        return _k_bernoulli_tensor(<float*>out, p, p_double, n, e)
    else:
        return _k_bernoulli_tensor(<double*>out, p, p_double, n, e)


cdef int _bernoulli_tensor(TensorImpl self, TensorImpl p, Generator gen) except -1:
    """bernoulli_impl_ with a tensor p broadcast to self (TensorIterator over self and p)."""
    cdef Py_ssize_t p_strides[MAX_DIMS]
    cdef int perm[MAX_DIMS]
    cdef Walk out_walk, p_walk
    cdef TensorImpl out_buf = None, p_buf = None
    cdef char* out_data
    cdef const char* p_data
    cdef bint out_linear, p_linear, p_double
    cdef Py_ssize_t n = self.n_elem, bad
    cdef int st = self.scalar_type
    if n == 0:
        return 0
    if opmath_type(st) != st:
        _not_implemented("bernoulli_tensor_cpu_self_", st)
    _check_cpu(p, "bernoulli_")
    _expand_strides(p, self, p_strides)
    if not _is_float_kernel_type(p.scalar_type):
        _not_implemented("bernoulli_tensor_cpu_p_", p.scalar_type)
    p_double = p.scalar_type == ST_FLOAT64
    _dim_order(self.nd, self.sizes, self.strides, p_strides, perm)
    out_linear = _walk_of(self, perm, self.strides, self.itemsize, &out_walk)
    p_linear = _walk_of(self, perm, p_strides, p.itemsize, &p_walk)
    if out_linear:
        out_data = self.data()
    else:
        # gathered first, so that elements after a bad p keep their values, as in PyTorch
        out_buf = empty_contiguous(1, &n, st, None)
        out_data = out_buf.data()
        _walk_copy(self.data(), &out_walk, out_data, self.itemsize, True)
    if p_linear:
        p_data = p.data()
    else:
        p_buf = empty_contiguous(1, &n, p.scalar_type, None)
        p_data = p_buf.data()
    with nogil:
        if p_buf is not None:
            _walk_copy(p.data(), &p_walk, p_buf.data(), p.itemsize, True)
        gen.lock()
        bad = _bernoulli_tensor_run(st, out_data, p_data, p_double, n, &gen.engine)
        gen.unlock()
        if out_buf is not None:
            _walk_copy(self.data(), &out_walk, out_data, self.itemsize, False)
    _bump(self)
    if bad >= 0:
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    return 0


def bernoulli_tensor_cpu(TensorImpl self not None, TensorImpl p not None, generator=None):
    """aten::bernoulli_.Tensor"""
    _check_cpu(self, "bernoulli_")
    _bernoulli_tensor(self, p, generator_or_default(generator))
    return self


def bernoulli_cpu(TensorImpl self not None, generator=None):
    """aten::bernoulli: a 0/1 tensor like self (contiguous), each element drawn with probability self."""
    cdef TensorImpl result
    _check_cpu(self, "bernoulli")
    result = empty_like_cpu(self, self.scalar_type, False)
    _bernoulli_tensor(result, self, generator_or_default(generator))
    return result


def bernoulli_p_cpu(TensorImpl self not None, double p, generator=None):
    """aten::bernoulli.p: a 0/1 tensor like self (contiguous), each element 1 with probability p."""
    cdef TensorImpl result
    _check_cpu(self, "bernoulli")
    result = empty_like_cpu(self, self.scalar_type, False)
    _bernoulli_scalar(result, p, generator_or_default(generator))
    return result
