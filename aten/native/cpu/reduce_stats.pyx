"""var, std, var_mean, std_mean, linalg_vector_norm and logsumexp on CPU (over reduce.pyx).

var takes two passes, both pairwise sums in double (PyTorch's CPU var accumulates in double too):
the mean, then the sum of squared deviations from it, divided by max(0, N - correction).
logsumexp takes the maximum first and sums exp(x - max) (a max of +-inf counts as 0, as PyTorch).
Vector norms sum |x|, x*x, |x|**p or x != 0 in the input's float type (pairwise), or take the
max/min of |x| for p = +-inf.
"""
import warnings

from libc.math cimport sqrt, pow, log, INFINITY, NAN

from c10.scalar_type cimport (is_floating, promote, dtype as DType, dtype_of, default_float_type, ST_FLOAT32,
                              ST_FLOAT64)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.cpu.reduce cimport (ReduceCtx, ReduceOps, DimSet, parse_dims, reduce, reduced_count,
                                     result_shape, check_dtype_kernel, dims_given)
from aten.native.cpu.reduce_sum cimport fsum_ops, F_SUM, F_ABS, F_SQ, F_POW, F_NZ, F_SQDEV, F_EXPDEV
from aten.native.cpu.reduce_minmax cimport value_ops, V_MAX, V_ABSMAX, V_ABSMIN
from aten.native.meta.errors import output_shape_error


cdef inline void _store(const ReduceCtx* ctx, Py_ssize_t o, double v) noexcept nogil:
    """Write v to output element o in the input's float type (the result dtype of these ops)."""
    if ctx.in_type == ST_FLOAT32:
        (<float*>ctx.out)[o] = <float>v
    else:
        (<double*>ctx.out)[o] = v


cdef inline double _acc(const char* acc, Py_ssize_t i, const ReduceCtx* ctx) noexcept nogil:
    if ctx.mode >= F_SQDEV:
        return (<const double*>acc)[2 * i + 1]
    if ctx.acc_type == ST_FLOAT32:
        return (<const float*>acc)[i]
    return (<const double*>acc)[i]


# ---------------------------------------------------------------------------------------------
# var and std

cdef void _mean_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                        const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        (<double*>ctx.out)[out_index + i * out_step] = (<const double*>acc)[i] / <double>ctx.count


cdef void _var_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                       const ReduceCtx* ctx) noexcept nogil:
    """Sum of squared deviations / max(0, N - correction); its square root for std (ctx.p == 1)."""
    cdef Py_ssize_t i
    cdef double v
    for i in range(n):
        v = (<const double*>acc)[2 * i + 1] / ctx.divisor
        _store(ctx, out_index + i * out_step, sqrt(v) if ctx.p == 1 else v)


cdef tuple _var(TensorImpl self, object dim, object correction, bint keepdim, bint take_sqrt, str name,
                bint with_mean):
    """(var or std, mean) in the input's dtype; the mean is None unless with_mean."""
    cdef DimSet dims
    cdef ReduceCtx ctx
    cdef ReduceOps ops
    cdef TensorImpl mean, result
    cdef double c
    cdef Py_ssize_t n, n_out, sizes[MAX_DIMS]
    cdef int nd
    if not is_floating(self.scalar_type):
        if with_mean:
            raise RuntimeError(f"{name} only support floating point and complex dtypes")
        raise RuntimeError("std and var only support floating point and complex dtypes")
    check_dtype_kernel(self.scalar_type, name + "_cpu")
    parse_dims(self, dim, True, &dims)
    c = 1.0 if correction is None else float(correction)
    n = reduced_count(self, &dims)
    nd = result_shape(self, &dims, keepdim, sizes)
    n_out = 1
    for d in range(nd):
        n_out *= sizes[d]
    if (n if n_out != 0 else 0) - c <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                      "reduction factor (input numel divided by output numel).", UserWarning, stacklevel=2)
    # Pass 1: the mean, in double.
    ctx.in_type = self.scalar_type
    ctx.acc_type = ST_FLOAT64
    ctx.mode = F_SUM
    ctx.centers = NULL
    ctx.out2 = NULL
    ops = fsum_ops(&ctx)
    ops.project = _mean_project
    mean = reduce(self, &dims, keepdim, ST_FLOAT64, &ops, &ctx)
    # Pass 2: squared deviations from it.
    ctx.mode = F_SQDEV
    ctx.centers = mean.data()
    ctx.centers_itemsize = 8
    ctx.divisor = max(0.0, n - c) if n != 0 else 0.0        # nothing reduced: nan, whatever the correction
    ctx.p = 1 if take_sqrt else 0
    ops = fsum_ops(&ctx)
    ops.project = _var_project
    result = reduce(self, &dims, keepdim, self.scalar_type, &ops, &ctx)
    if with_mean:
        return (result, mean if self.scalar_type == ST_FLOAT64 else cast_contiguous(mean, self.scalar_type))
    return (result, None)


def var_cpu(TensorImpl self not None, dim=None, correction=None, bint keepdim=False):
    return _var(self, dim, correction, keepdim, False, "var", False)[0]


def std_cpu(TensorImpl self not None, dim=None, correction=None, bint keepdim=False):
    return _var(self, dim, correction, keepdim, True, "std", False)[0]


def var_mean_cpu(TensorImpl self not None, dim=None, correction=None, bint keepdim=False):
    return _var(self, dim, correction, keepdim, False, "var_mean", True)


def std_mean_cpu(TensorImpl self not None, dim=None, correction=None, bint keepdim=False):
    return _var(self, dim, correction, keepdim, True, "std_mean", True)


# ---------------------------------------------------------------------------------------------
# Vector norms

cdef void _norm_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                        const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    cdef double v
    for i in range(n):
        v = _acc(acc, i, ctx)
        if ctx.mode == F_SQ:
            v = sqrt(v)
        elif ctx.mode == F_POW:
            v = pow(v, 1.0 / ctx.p) if ctx.p == ctx.p else NAN      # ord=nan: nan, as PyTorch
        _store(ctx, out_index + i * out_step, v)


cdef str _scalar_text(double v):
    """A double as C++ streams print it (PyTorch's messages): 2 not 2.0, inf, -1.5."""
    return f"{v:g}"


def linalg_vector_norm_cpu(TensorImpl self not None, ord=2, dim=None, bint keepdim=False, dtype=None):
    cdef DimSet dims
    cdef ReduceCtx ctx
    cdef ReduceOps ops
    cdef TensorImpl src = self
    cdef double p = float(ord)
    cdef int d
    if not is_floating(self.scalar_type):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {dtype_of(self.scalar_type).type_name}")
    if dtype is not None:
        d = (<DType?>dtype).scalar_type
        if not is_floating(d):
            raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex, but got "
                               f"{dtype_of(d).type_name}")
        if promote(self.scalar_type, d) != d:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({dtype_of(self.scalar_type).type_name}) "
                               f"should be convertible without narrowing to the specified dtype "
                               f"({dtype_of(d).type_name})")
        check_dtype_kernel(d, "linalg_vector_norm_cpu")
    check_dtype_kernel(self.scalar_type, "linalg_vector_norm_cpu")
    if dtype is not None:
        src = self if self.scalar_type == d else cast_contiguous(self, d)
    parse_dims(self, dim, True, &dims)
    if self.n_elem == 0 and (p < 0 or p == INFINITY):
        if not dims_given(dim):
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_scalar_text(p)} norm on an empty tensor "
                               "because the operation does not have an identity")
        for d in range(self.nd):
            if dims.reduce[d] and self.sizes[d] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_scalar_text(p)} norm on the dimension "
                                   f"{d}because this dimension is empty and the operation does not have an identity")
    ctx.in_type = src.scalar_type
    ctx.acc_type = src.scalar_type
    ctx.centers = NULL
    ctx.out2 = NULL
    ctx.p = p
    if p == INFINITY or p == -INFINITY:
        ctx.mode = V_ABSMAX if p > 0 else V_ABSMIN
        ops = value_ops(&ctx)
    else:
        if p == 0:
            ctx.mode = F_NZ
        elif p == 1:
            ctx.mode = F_ABS
        elif p == 2:
            ctx.mode = F_SQ
        else:
            ctx.mode = F_POW
        ops = fsum_ops(&ctx)
        ops.project = _norm_project
    return reduce(src, &dims, keepdim, src.scalar_type, &ops, &ctx)


# ---------------------------------------------------------------------------------------------
# logsumexp

cdef void _lse_project(const char* acc, Py_ssize_t n, Py_ssize_t out_index, Py_ssize_t out_step,
                       const ReduceCtx* ctx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        _store(ctx, out_index + i * out_step,
               log((<const double*>acc)[2 * i + 1]) + (<const double*>acc)[2 * i])


def logsumexp_cpu(TensorImpl self not None, dim, bint keepdim=False):
    cdef DimSet dims
    cdef ReduceCtx ctx
    cdef ReduceOps ops
    cdef TensorImpl src = self, maxes = None
    if dim is None:
        raise TypeError('logsumexp() missing 1 required positional arguments: "dim"')
    if not is_floating(self.scalar_type):
        src = cast_contiguous(self, default_float_type())
    check_dtype_kernel(src.scalar_type, "logsumexp_cpu")
    if not dims_given(dim) and not keepdim and self.nd > 0 and self.n_elem != 0:
        # PyTorch 2.x: an empty dim list reduces every dim but its output check then fails.
        raise output_shape_error([], [1] * self.nd)
    parse_dims(src, dim, True, &dims)
    ctx.in_type = src.scalar_type
    ctx.out2 = NULL
    ctx.centers = NULL
    if src.n_elem != 0:
        ctx.acc_type = src.scalar_type
        ctx.mode = V_MAX
        ops = value_ops(&ctx)
        maxes = reduce(src, &dims, keepdim, src.scalar_type, &ops, &ctx)
        ctx.centers = maxes.data()
        ctx.centers_itemsize = maxes.itemsize
    ctx.acc_type = ST_FLOAT64
    ctx.mode = F_EXPDEV
    ops = fsum_ops(&ctx)
    ops.project = _lse_project
    return reduce(src, &dims, keepdim, src.scalar_type, &ops, &ctx)
