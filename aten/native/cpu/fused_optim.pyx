"""Multi-tensor optimizer steps on CPU: one call updates every parameter of a group (PyTorch's
_fused_adam_, _fused_adamw_ and _fused_sgd_), and _foreach_add_.Scalar for the step counters.

Each element goes through the same float operations, in the same order and rounded at the same
points, as the optimizer's single-tensor update (torch/optim/adam.py, sgd.py): lerp_, mul_,
addcmul_, sqrt, div, add_ and addcdiv_, each with its scalar rounded to the tensor's dtype. So the
multi-tensor step gives the for-loop's bits, read once and written once instead of once per op.
(PyTorch's own fused kernels round differently from its for-loop; Ember keeps one numerics.)
The work is cut into chunks of at most the grain size, run across threads; each element's result
does not depend on the cut, so any thread count gives the same bits.
"""
from cython.parallel cimport prange
from libc.stdlib cimport malloc, free

from c10.scalar_type cimport dtype_of, ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl, wrap_number
from aten.native.cpu.array_bridge cimport num_threads
from aten.native.meta.optim_constants import ADAM, ADAMW, adam_constants, lr_value, sgd_constants

cdef extern from "aten/native/cpu/optim_step.h" nogil:
    enum:
        EMBER_ADAM_L2, EMBER_ADAM_DECOUPLED, EMBER_ADAM_AMSGRAD, EMBER_ADAM_SCALED, EMBER_ADAM_MAXIMIZE
        EMBER_SGD_DECAY, EMBER_SGD_MOMENTUM, EMBER_SGD_FIRST, EMBER_SGD_NESTEROV, EMBER_SGD_SCALED
        EMBER_SGD_MAXIMIZE
    void ember_adam_f32(float* p, float* g, float* m, float* v, float* vmax, Py_ssize_t begin, Py_ssize_t end,
                        const double* c, int flags)
    void ember_adam_f64(double* p, double* g, double* m, double* v, double* vmax, Py_ssize_t begin,
                        Py_ssize_t end, const double* c, int flags)
    void ember_sgd_f32(float* p, float* g, float* buf, Py_ssize_t begin, Py_ssize_t end, const double* c, int flags)
    void ember_sgd_f64(double* p, double* g, double* buf, Py_ssize_t begin, Py_ssize_t end, const double* c,
                       int flags)

ctypedef fused real_t:
    float
    double

cdef enum:
    CHUNK = 32768          # elements per unit of parallel work (PyTorch's GRAIN_SIZE)


# A run of one parameter's elements with the constants of its update, in double.
cdef struct Span:
    char* p
    char* g
    char* m              # Adam: exp_avg; SGD: the momentum buffer
    char* v              # Adam: exp_avg_sq
    char* vmax           # Adam with amsgrad: max_exp_avg_sq
    Py_ssize_t begin
    Py_ssize_t end
    double c[8]          # the update's scalars, in optim_step.h's order


cdef int _check_lists(str op, list lists, list names) except -1:
    """Every list as long as the first; every tensor a dense CPU float32/float64 tensor of the
    parameter's dtype and size."""
    cdef Py_ssize_t n = len(lists[0]), i, k
    cdef TensorImpl p, t
    for k in range(1, len(lists)):
        if len(lists[k]) != n:
            raise RuntimeError(f"{op}: Tensor lists must have the same number of tensors, got {n} and "
                               f"{len(lists[k])}")
    for i in range(n):
        p = <TensorImpl?>lists[0][i]
        for k in range(len(lists)):
            t = <TensorImpl?>lists[k][i]
            if t.device_type != 0:
                raise RuntimeError(f"{op}: expected all tensors on the CPU, but {names[k]}[{i}] is on "
                                   f"{t.device_obj}")
            if t.scalar_type != ST_FLOAT32 and t.scalar_type != ST_FLOAT64:
                raise NotImplementedError(f'"{op}" not implemented for \'{dtype_of(t.scalar_type).type_name}\'')
            if t.scalar_type != p.scalar_type:
                raise RuntimeError(f"{op}: expected {names[k]}[{i}] to have dtype "
                                   f"{dtype_of(p.scalar_type).type_name}, got {dtype_of(t.scalar_type).type_name}")
            if t.n_elem != p.n_elem:
                raise RuntimeError(f"{op}: {names[k]}[{i}] has {t.n_elem} elements, its parameter {p.n_elem}")
            if not t.contiguous:
                raise RuntimeError(f"{op}: {names[k]}[{i}] must be contiguous")
    return 0


cdef double _step_value(object step, Py_ssize_t i) except? -1:
    cdef TensorImpl s = <TensorImpl?>step
    if s.n_elem != 1 or s.device_type != 0:
        raise RuntimeError(f"state_steps[{i}] must be a one-element CPU tensor")
    if s.scalar_type == ST_FLOAT32:
        return (<float*>s.data())[0]
    if s.scalar_type == ST_FLOAT64:
        return (<double*>s.data())[0]
    raise RuntimeError(f"state_steps[{i}] must be a float32 or float64 tensor, got {dtype_of(s.scalar_type).type_name}")


cdef bint _skipped(object found_inf) except -1:
    """True when GradScaler found an inf or NaN: the step is skipped, as PyTorch's fused kernels do."""
    cdef TensorImpl f
    if found_inf is None:
        return False
    f = <TensorImpl?>found_inf
    if f.n_elem != 1 or f.scalar_type != ST_FLOAT32:
        raise RuntimeError("found_inf must be a one-element float32 tensor")
    return (<float*>f.data())[0] == 1.0


cdef double _grad_scale(object grad_scale) except? -1:
    cdef TensorImpl s
    if grad_scale is None:
        return 0
    s = <TensorImpl?>grad_scale
    if s.n_elem != 1 or s.scalar_type != ST_FLOAT32:
        raise RuntimeError("grad_scale must be a one-element float32 tensor")
    return (<float*>s.data())[0]


cdef Span* _spans(list lists, Py_ssize_t* count) except NULL:
    """The parameters cut into runs of at most CHUNK elements (pointers filled, constants not)."""
    cdef Py_ssize_t n = len(lists[0]), i, b, total = 0
    cdef TensorImpl p
    cdef Span* spans
    for i in range(n):
        total += ((<TensorImpl>lists[0][i]).n_elem + CHUNK - 1) // CHUNK
    spans = <Span*>malloc((total + 1) * sizeof(Span))
    if spans == NULL:
        raise MemoryError()
    count[0] = 0
    for i in range(n):
        p = <TensorImpl>lists[0][i]
        for b in range(0, p.n_elem, CHUNK):
            spans[count[0]].p = p.data()
            spans[count[0]].g = (<TensorImpl>lists[1][i]).data()
            spans[count[0]].m = (<TensorImpl>lists[2][i]).data() if len(lists) > 2 else NULL
            spans[count[0]].v = (<TensorImpl>lists[3][i]).data() if len(lists) > 3 else NULL
            spans[count[0]].vmax = (<TensorImpl>lists[4][i]).data() if len(lists) > 4 else NULL
            spans[count[0]].begin = b
            spans[count[0]].end = min(b + CHUNK, p.n_elem)
            count[0] += 1
    return spans


cdef int _bump(list lists) except -1:
    cdef list tensors
    for tensors in lists:
        for t in tensors:
            (<TensorImpl>t).version_counter.version += 1
    return 0


cdef int _threads(Py_ssize_t spans) except -1:
    return max(1, min(<Py_ssize_t>num_threads(), spans))


# ---------------------------------------------------------------------------------------------
# Adam and AdamW (the constants' order: optim_step.h)

cdef void _adam_spans(const Span* s, Py_ssize_t count, bint dbl, int flags, int threads) noexcept nogil:
    cdef Py_ssize_t k
    for k in prange(count, num_threads=threads, schedule="static"):
        if dbl:
            ember_adam_f64(<double*>s[k].p, <double*>s[k].g, <double*>s[k].m, <double*>s[k].v, <double*>s[k].vmax,
                           s[k].begin, s[k].end, s[k].c, flags)
        else:
            ember_adam_f32(<float*>s[k].p, <float*>s[k].g, <float*>s[k].m, <float*>s[k].v, <float*>s[k].vmax,
                           s[k].begin, s[k].end, s[k].c, flags)


cdef int _adam(str op, int mode, list params, list grads, list exp_avgs, list exp_avg_sqs, list max_exp_avg_sqs,
               list state_steps, double lr, double beta1, double beta2, double weight_decay, double eps,
               bint amsgrad, bint maximize, object grad_scale, object found_inf) except -1:
    cdef list lists = [params, grads, exp_avgs, exp_avg_sqs]
    cdef list names = ["params", "grads", "exp_avgs", "exp_avg_sqs"]
    cdef Py_ssize_t count = 0, k, i = -1, j
    cdef double scale = _grad_scale(grad_scale)
    cdef bint dbl
    cdef int threads, flags
    cdef Span* spans
    if amsgrad:
        lists.append(max_exp_avg_sqs)
        names.append("max_exp_avg_sqs")
    if len(state_steps) != len(params):
        raise RuntimeError(f"{op}: Tensor lists must have the same number of tensors, got {len(params)} and "
                           f"{len(state_steps)}")
    _check_lists(op, lists, names)
    if _skipped(found_inf) or len(params) == 0:
        return 0
    steps = [_step_value(state_steps[j], j) for j in range(len(params))]
    constants = {step: adam_constants(mode, lr, beta1, beta2, weight_decay, eps, step, scale) for step in set(steps)}
    spans = _spans(lists, &count)
    try:
        for k in range(count):
            if spans[k].begin == 0:
                i += 1
                values = constants[steps[i]]
            for j in range(8):
                spans[k].c[j] = values[j]
        dbl = (<TensorImpl>params[0]).scalar_type == ST_FLOAT64
        threads = _threads(count)
        flags = ((EMBER_ADAM_L2 if mode == ADAM and weight_decay != 0 else EMBER_ADAM_DECOUPLED)
                 | (EMBER_ADAM_AMSGRAD if amsgrad else 0) | (EMBER_ADAM_SCALED if scale != 0 else 0)
                 | (EMBER_ADAM_MAXIMIZE if maximize else 0))
        with nogil:
            _adam_spans(spans, count, dbl, flags, threads)
    finally:
        free(spans)
    _bump(lists if grad_scale is not None else [params] + lists[2:])
    return 0


def _fused_adam_kernel_cpu_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr,
                            double beta1, double beta2, double weight_decay, double eps, bint amsgrad,
                            bint maximize, grad_scale=None, found_inf=None):
    """_fused_adam_ and its .tensor_lr overload (lr a number or a 1-element tensor)."""
    _adam("_fused_adam_", ADAM, list(self), list(grads), list(exp_avgs), list(exp_avg_sqs), list(max_exp_avg_sqs),
          list(state_steps), lr_value(lr), beta1, beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf)


def _fused_adamw_kernel_cpu_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr,
                             double beta1, double beta2, double weight_decay, double eps, bint amsgrad,
                             bint maximize, grad_scale=None, found_inf=None):
    """_fused_adamw_ and its .tensor_lr overload."""
    _adam("_fused_adamw_", ADAMW, list(self), list(grads), list(exp_avgs), list(exp_avg_sqs),
          list(max_exp_avg_sqs), list(state_steps), lr_value(lr), beta1, beta2, weight_decay, eps, amsgrad, maximize,
          grad_scale, found_inf)


# ---------------------------------------------------------------------------------------------
# SGD

cdef void _sgd_spans(const Span* s, Py_ssize_t count, bint dbl, int flags, int threads) noexcept nogil:
    cdef Py_ssize_t k
    for k in prange(count, num_threads=threads, schedule="static"):
        if dbl:
            ember_sgd_f64(<double*>s[k].p, <double*>s[k].g, <double*>s[k].m, s[k].begin, s[k].end, s[k].c, flags)
        else:
            ember_sgd_f32(<float*>s[k].p, <float*>s[k].g, <float*>s[k].m, s[k].begin, s[k].end, s[k].c, flags)


def _fused_sgd_kernel_cpu_(self, grads, momentum_buffer_list, double weight_decay, double momentum, lr,
                           double dampening, bint nesterov, bint maximize, bint is_first_step, grad_scale=None,
                           found_inf=None):
    """_fused_sgd_ and its .tensor_lr overload (lr a number or a 1-element tensor)."""
    cdef double rate = lr_value(lr)
    cdef list lists = [list(self), list(grads)]
    cdef Py_ssize_t count = 0, k, j
    cdef double scale = _grad_scale(grad_scale)
    cdef bint dbl
    cdef int threads, flags
    cdef Span* spans
    if momentum != 0:
        lists.append(list(momentum_buffer_list))
    _check_lists("_fused_sgd_", lists, ["params", "grads", "momentum_buffer_list"])
    if _skipped(found_inf) or len(lists[0]) == 0:
        return
    spans = _spans(lists, &count)
    try:
        values = sgd_constants(weight_decay, momentum, rate, dampening, scale)
        for k in range(count):
            for j in range(5):
                spans[k].c[j] = values[j]
        dbl = (<TensorImpl>lists[0][0]).scalar_type == ST_FLOAT64
        threads = _threads(count)
        flags = ((EMBER_SGD_DECAY if weight_decay != 0 else 0) | (EMBER_SGD_SCALED if scale != 0 else 0)
                 | (EMBER_SGD_MAXIMIZE if maximize else 0))
        if momentum != 0:
            flags |= (EMBER_SGD_MOMENTUM | (EMBER_SGD_FIRST if is_first_step else 0)
                      | (EMBER_SGD_NESTEROV if nesterov else 0))
        with nogil:
            _sgd_spans(spans, count, dbl, flags, threads)
    finally:
        free(spans)
    _bump(lists if grad_scale is not None else [lists[0]] + lists[2:])


# ---------------------------------------------------------------------------------------------

cdef void _add_in_place(real_t* x, Py_ssize_t n, real_t value) noexcept nogil:
    """add_'s formula, x + 1 * value, with the scalar already in x's dtype."""
    cdef Py_ssize_t i
    for i in range(n):
        x[i] = x[i] + value


def _foreach_add__Scalar_cpu(self, scalar):
    """t.add_(scalar) for each t; float32 and float64 tensors in one C loop each (the step counters),
    any other tensor through add_'s own kernel."""
    from aten.native.cpu._gen_add import add__Tensor_cpu
    cdef TensorImpl t
    # Through double, as add_ takes a Python number: exact for integers below 2**53.
    cdef bint direct = type(scalar) is float or (type(scalar) is int and abs(scalar) < 2 ** 53)
    wrapped = None
    for item in self:
        t = <TensorImpl?>item
        if t.device_type != 0:                 # a list mixing devices: that tensor's own add_
            item.add_(scalar)
            continue
        if direct and t.contiguous and (t.scalar_type == ST_FLOAT32 or t.scalar_type == ST_FLOAT64):
            if t.scalar_type == ST_FLOAT32:
                _add_in_place(<float*>t.data(), t.n_elem, <float>(<double>scalar))
            else:
                _add_in_place(<double*>t.data(), t.n_elem, <double>scalar)
            t.version_counter.version += 1
            continue
        if wrapped is None:
            wrapped = wrap_number(scalar)
        add__Tensor_cpu(t, wrapped)

