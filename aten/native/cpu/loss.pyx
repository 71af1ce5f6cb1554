"""Losses on CPU: nll_loss_forward, nll_loss2d_forward, mse_loss, binary_cross_entropy,
binary_cross_entropy_with_logits. `reduction` is upstream's enum: 0 none, 1 mean, 2 sum.

nll validates every target (IndexError "Target k is out of bounds.") before its nogil loop,
and accumulates in double. The elementwise losses are NumPy expressions on views of
broadcast operands, reduced with NumPy's pairwise sums.
"""
import numpy as np

from libc.stdint cimport int64_t

from c10.scalar_type cimport (dtype_of, is_floating, promote, ST_UINT8, ST_INT64, ST_FLOAT32, ST_FLOAT64)
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.cpu.array_bridge cimport np_view, new_tensor, contiguous, reject_half
from aten.native.meta.messages cimport shape_of, type_name
from aten.native.meta.loss_checks cimport (NONE, MEAN, SUM, check_reduction, broadcast_pair, check_nll_loss2d,
                                          check_binary_cross_entropy)
from aten.native.cpu.element_types cimport floating_t
from aten.native.meta.errors import output_cast_error, output_shape_error

# ---- negative log likelihood --------------------------------------------------------------

cdef int _nll(const floating_t* x, const int64_t* t, const floating_t* w, floating_t* out, Py_ssize_t N, Py_ssize_t C,
              Py_ssize_t S, int reduction, int64_t ignore_index, double* sum_out, double* weight_out) noexcept nogil:
    """x (N, C, S) contiguous, t (N, S): out (N, S) for reduction none, else the sums."""
    cdef Py_ssize_t n, s
    cdef int64_t k
    cdef double wk, total = 0, wsum = 0, v
    for n in range(N):
        for s in range(S):
            k = t[n * S + s]
            if k == ignore_index:
                if reduction == NONE:
                    out[n * S + s] = 0
                continue
            wk = w[k] if w != NULL else 1.0
            v = -wk * x[(n * C + k) * S + s]
            if reduction == NONE:
                out[n * S + s] = <floating_t>v
            else:
                total += v
                wsum += wk
    sum_out[0] = total
    weight_out[0] = wsum
    return 0


cdef tuple _nll_forward(TensorImpl self, TensorImpl target, object weight, int reduction, int64_t ignore_index,
                        Py_ssize_t N, Py_ssize_t C, Py_ssize_t S, tuple none_shape):
    cdef TensorImpl w
    cdef int st = self.scalar_type
    check_reduction(reduction)
    if target.scalar_type != ST_INT64 and target.scalar_type != ST_UINT8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {type_name(target.scalar_type)}")
    if weight is not None:
        w = <TensorImpl?>weight
        if w.nd != 1 or w.n_elem != C:
            raise RuntimeError(f"weight tensor should be defined either for all {C} classes or no classes but got "
                               f"weight tensor of shape: {list(shape_of(w))}")
        if w.scalar_type != st:
            raise RuntimeError(f"expected scalar type {type_name(st)} but found {type_name(w.scalar_type)}")
    if st != ST_FLOAT32 and st != ST_FLOAT64:
        raise NotImplementedError(f'"nll_loss_out_frame" not implemented for \'{type_name(st)}\'')
    cdef TensorImpl t = target if target.scalar_type == ST_INT64 and target.contiguous else \
        cast_contiguous(target, ST_INT64)
    tv = np_view(t)
    if t.n_elem:
        bad = (tv != ignore_index) & ((tv < 0) | (tv >= C))
        if bad.any():
            raise IndexError(f"Target {int(tv[bad].flat[0])} is out of bounds.")
    cdef TensorImpl x = contiguous(self)
    cdef TensorImpl wc = contiguous(<TensorImpl>weight) if weight is not None else None
    cdef TensorImpl out = new_tensor(none_shape if reduction == NONE else (), st)
    cdef TensorImpl total_weight = new_tensor((), st)
    cdef double total = 0, wsum = 0
    cdef const char* wp = wc.data() if wc is not None else NULL
    with nogil:
        if st == ST_FLOAT32:
            _nll(<float*>x.data(), <int64_t*>t.data(), <float*>wp, <float*>out.data(), N, C, S, reduction,
                 ignore_index, &total, &wsum)
        else:
            _nll(<double*>x.data(), <int64_t*>t.data(), <double*>wp, <double*>out.data(), N, C, S, reduction,
                 ignore_index, &total, &wsum)
    np_view(total_weight)[()] = wsum if reduction != NONE else 0
    if reduction == MEAN:
        np_view(out)[()] = total / wsum if wsum != 0 else float("nan")
    elif reduction == SUM:
        np_view(out)[()] = total
    return out, total_weight


def nll_loss_forward_cpu(TensorImpl self not None, TensorImpl target not None, weight, int reduction,
                         int64_t ignore_index):
    if self.nd < 1 or self.nd > 2:
        raise RuntimeError("input tensor should be 1D or 2D")
    if target.nd > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    no_batch = self.nd == 1 and target.nd == 0
    if not no_batch and (target.nd == 0 or self.sizes[0] != target.sizes[0]):
        raise RuntimeError(f"size mismatch (got input: {list(shape_of(self))}, target: {list(shape_of(target))})")
    cdef Py_ssize_t C = self.sizes[self.nd - 1]
    cdef Py_ssize_t N = 1 if self.nd == 1 else self.sizes[0]
    return _nll_forward(self, target, weight, reduction, ignore_index, N, C, 1,
                        (N,) if self.nd == 2 else ())


def nll_loss2d_forward_cpu(TensorImpl self not None, TensorImpl target not None, weight, int reduction,
                           int64_t ignore_index):
    check_nll_loss2d(self, target)
    return _nll_forward(self, target, weight, reduction, ignore_index, self.sizes[0], self.sizes[1],
                        self.sizes[2] * self.sizes[3], shape_of(target))


# ---- elementwise losses --------------------------------------------------------------------

cdef TensorImpl _reduce(object loss, int reduction, int st):
    """The loss array reduced as asked, as a new tensor of dtype st."""
    cdef TensorImpl out
    if reduction == NONE:
        out = new_tensor(loss.shape, st)
        if out.n_elem:
            np_view(out)[...] = loss
        return out
    out = new_tensor((), st)
    if reduction == SUM:
        np_view(out)[()] = loss.sum(dtype=loss.dtype) if loss.size else 0
    else:
        np_view(out)[()] = loss.mean(dtype=loss.dtype) if loss.size else float("nan")
    return out


def mse_loss_cpu(TensorImpl self not None, TensorImpl target not None, int reduction=MEAN):
    check_reduction(reduction)
    shape = broadcast_pair(self, target)
    cdef int st = promote(self.scalar_type, target.scalar_type)
    if st != ST_FLOAT32 and st != ST_FLOAT64:
        raise NotImplementedError(f'"mse_cpu" not implemented for \'{type_name(st)}\'')
    np_dt = dtype_of(st).numpy_dtype
    d = np.subtract(np_view(self), np_view(target), dtype=np_dt)
    return _reduce(np.multiply(d, d, out=d), reduction, st)


def binary_cross_entropy_cpu(TensorImpl self not None, TensorImpl target not None, weight=None, int reduction=MEAN):
    check_binary_cross_entropy(self, target, weight, reduction)
    cdef int st = self.scalar_type
    if st != ST_FLOAT32 and st != ST_FLOAT64:
        raise NotImplementedError(f'"binary_cross_entropy" not implemented for \'{type_name(st)}\'')
    x = np_view(self)
    t = np_view(target)
    if x.size and not ((x >= 0) & (x <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):
        log_x = np.maximum(np.log(x), -100)
        log_1mx = np.maximum(np.log1p(-x), -100)
    loss = (t - 1) * log_1mx - t * log_x
    if weight is not None:
        loss = loss * np_view(<TensorImpl>weight).astype(x.dtype, copy=False)
    if np.broadcast_shapes(loss.shape, shape_of(self)) != shape_of(self):
        raise output_shape_error(shape_of(self), np.broadcast_shapes(loss.shape, shape_of(self)))
    loss = np.broadcast_to(loss, shape_of(self)).astype(x.dtype, copy=False)
    return _reduce(loss, reduction, st)


def binary_cross_entropy_with_logits_cpu(TensorImpl self not None, TensorImpl target not None, weight=None,
                                         pos_weight=None, int reduction=MEAN):
    check_reduction(reduction)
    # upstream computes (1 - target).mul_(input).sub_(log_sigmoid(input)): the loss has target's
    # shape and dtype, and input must broadcast to it
    shape = broadcast_pair(target, self)
    if shape != shape_of(target):
        raise output_shape_error(shape_of(target), shape)
    if not is_floating(self.scalar_type):
        raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for \'{type_name(self.scalar_type)}\'')
    reject_half("binary_cross_entropy_with_logits", self)
    if not is_floating(target.scalar_type):
        raise output_cast_error("Float", type_name(target.scalar_type))
    reject_half("binary_cross_entropy_with_logits", target)
    cdef int st = target.scalar_type
    ct = np.float64 if ST_FLOAT64 in (self.scalar_type, target.scalar_type) else np.float32
    x = np_view(self).astype(ct, copy=False)
    t = np_view(target).astype(ct, copy=False)
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), stable for large |x|
    log_sig = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    if pos_weight is not None:
        pw = np_view(<TensorImpl?>pos_weight).astype(ct, copy=False)
        log_sig = log_sig * ((pw - 1) * t + 1)
    loss = (1 - t) * x - log_sig
    if weight is not None:
        w = np_view(<TensorImpl?>weight).astype(ct, copy=False)
        broadcast_pair(target, <TensorImpl>weight)
        loss = loss * w
    if np.broadcast_shapes(loss.shape, shape_of(target)) != shape_of(target):
        raise output_shape_error(shape_of(target), np.broadcast_shapes(loss.shape, shape_of(target)))
    loss = np.broadcast_to(loss, shape_of(target))
    return _reduce(loss.astype(dtype_of(st).numpy_dtype, copy=False), reduction, st)
