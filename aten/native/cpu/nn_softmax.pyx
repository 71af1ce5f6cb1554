"""aten::_softmax and aten::_log_softmax on CPU, and their gradients: one pass per row, numerically stable.

Each row (or each group of up to 256 adjacent columns when the dim is not the last) is read
for its max, then exp(x - max) is written and summed in the same pass, then scaled: the
input is read twice and the output written twice, both from cache for rows that fit. exp is
the vectorised polynomial of nn_vec.h (AVX2+FMA where the CPU has it). Rows are split over
OpenMP threads above PyTorch's grain size. The gradients (_softmax_backward_data,
_log_softmax_backward_data) read each row twice: its sum, then the formula per element.
"""
from cython.parallel cimport prange
from libc.math cimport INFINITY

from c10.scalar_type cimport dtype as DType, ST_FLOAT32, ST_FLOAT64, ST_FLOAT16, ST_BFLOAT16
from c10.tensor_impl cimport TensorImpl, empty_contiguous
from aten.native.cpu.loops cimport cast_contiguous
from aten.native.cpu.array_bridge cimport contiguous, num_threads
from aten.native.meta.messages cimport shape_of, type_name
from aten.native.cpu.nn_vec cimport ember_vec, ember_vec_table, ember_vec_level
from aten.native.cpu.element_types cimport floating_t

cdef enum:
    COLS = 256
    GRAIN = 32768


def cpu_capability():
    """The vector code path the kernels of nn_vec.h use: "avx2" or "default"."""
    return ember_vec_level().decode()


cdef inline void _around(TensorImpl t, int d, Py_ssize_t* outer, Py_ssize_t* n, Py_ssize_t* inner) noexcept:
    """The product of t's sizes before dim d, its size at d and the product after (1, 1, 1 when 0-d)."""
    cdef int i
    outer[0] = n[0] = inner[0] = 1
    if t.nd == 0:
        return
    n[0] = t.sizes[d]
    for i in range(d):
        outer[0] *= t.sizes[i]
    for i in range(d + 1, t.nd):
        inner[0] *= t.sizes[i]


cdef TensorImpl _softmax(TensorImpl self, object dim, bint half_to_float, bint log):
    cdef int d, nt
    cdef Py_ssize_t outer, n, inner, row, unit, units, blocks, o, c0, w
    cdef TensorImpl x, out
    cdef const ember_vec_table* vt = ember_vec()
    cdef char* src
    cdef char* dst
    cdef int st = self.scalar_type
    if half_to_float:
        raise RuntimeError("softmax with half to float conversion is not supported on CPU")
    d = self._wrap_dim(dim)
    lastdim = self.nd == 0 or d == self.nd - 1
    if st != ST_FLOAT32 and st != ST_FLOAT64:
        name = ("log_" if log else "") + ("softmax_lastdim_kernel_impl" if lastdim else "softmax_kernel_impl")
        raise NotImplementedError(f'"{name}" not implemented for \'{type_name(st)}\'')
    x = contiguous(self)
    out = empty_contiguous(self.nd, self.sizes, st, None)
    if out.n_elem == 0:
        return out
    _around(self, d, &outer, &n, &inner)
    nt = num_threads() if out.n_elem >= GRAIN else 1
    src = x.data()
    dst = out.data()
    with nogil:
        if inner == 1:
            for row in prange(outer, num_threads=nt, schedule="dynamic", chunksize=16):
                if st == ST_FLOAT32:
                    if log:
                        vt.log_softmax_row_f(<float*>src + row * n, <float*>dst + row * n, n)
                    else:
                        vt.softmax_row_f(<float*>src + row * n, <float*>dst + row * n, n)
                else:
                    if log:
                        vt.log_softmax_row_d(<double*>src + row * n, <double*>dst + row * n, n)
                    else:
                        vt.softmax_row_d(<double*>src + row * n, <double*>dst + row * n, n)
        else:
            blocks = (inner + COLS - 1) // COLS
            units = outer * blocks
            for unit in prange(units, num_threads=nt, schedule="static"):
                o = unit // blocks
                c0 = (unit % blocks) * COLS
                w = inner - c0
                if w > COLS:
                    w = COLS
                if st == ST_FLOAT32:
                    vt.softmax_cols_f(<float*>src + o * n * inner + c0, <float*>dst + o * n * inner + c0,
                                      n, inner, w, log)
                else:
                    vt.softmax_cols_d(<double*>src + o * n * inner + c0, <double*>dst + o * n * inner + c0,
                                      n, inner, w, log)
    return out


cdef void _zero_masked(const floating_t* x, floating_t* out, Py_ssize_t outer, Py_ssize_t n,
                        Py_ssize_t inner) noexcept nogil:
    """Zero each softmax row (n elements, inner apart) whose inputs are all -inf. Only a row whose
    first result is NaN can be one (-inf - -inf is NaN), so the others cost one comparison."""
    cdef Py_ssize_t o, c, i
    cdef const floating_t* xr
    cdef floating_t* yr
    for o in range(outer):
        for c in range(inner):
            yr = out + o * n * inner + c
            if yr[0] == yr[0]:
                continue
            xr = x + o * n * inner + c
            i = 0
            while i < n and xr[i * inner] == -INFINITY:
                i += 1
            if i == n:
                for i in range(n):
                    yr[i * inner] = 0


def safe_softmax_cpu(TensorImpl self not None, dim, dtype=None):
    """softmax, except that rows whose every element is -inf give 0 (not NaN): attention masks."""
    cdef TensorImpl x = self
    if dtype is not None and (<DType?>dtype).scalar_type != self.scalar_type:
        x = cast_contiguous(self, (<DType>dtype).scalar_type)
    cdef TensorImpl out = _softmax(x, dim, False, False)
    cdef Py_ssize_t outer, n, inner
    if out.n_elem and x.nd:
        _around(x, x._wrap_dim(dim), &outer, &n, &inner)
        x = contiguous(x)
        with nogil:
            if out.scalar_type == ST_FLOAT32:
                _zero_masked(<const float*>x.data(), <float*>out.data(), outer, n, inner)
            else:
                _zero_masked(<const double*>x.data(), <double*>out.data(), outer, n, inner)
    return out


def softmax_cpu(TensorImpl self not None, dim, bint half_to_float):
    return _softmax(self, dim, half_to_float, False)


def log_softmax_cpu(TensorImpl self not None, dim, bint half_to_float):
    return _softmax(self, dim, half_to_float, True)


cdef TensorImpl _softmax_grad(TensorImpl grad_output, TensorImpl output, object dim, object input_dtype, bint log):
    cdef str name = "_log_softmax_backward_data" if log else "_softmax_backward_data"
    cdef int st = output.scalar_type, d, nt
    cdef Py_ssize_t outer, n, inner, row, unit, units, blocks, o, c0, w
    cdef const ember_vec_table* vt = ember_vec()
    if grad_output.scalar_type != st or shape_of(grad_output) != shape_of(output):
        raise RuntimeError(f"{name}: grad_output ({type_name(grad_output.scalar_type)}, "
                           f"{list(shape_of(grad_output))}) and output ({type_name(st)}, {list(shape_of(output))}) "
                           f"must have one dtype and shape")
    if st != ST_FLOAT32 and st != ST_FLOAT64:
        raise NotImplementedError(f'"{name}" not implemented for \'{type_name(st)}\'')
    # a float16/bfloat16 softmax reaches here widened to float32 (ember_opmath), rounded back by the caller
    if (<DType?>input_dtype).scalar_type != st and not (
            st == ST_FLOAT32 and (<DType>input_dtype).scalar_type in (ST_FLOAT16, ST_BFLOAT16)):
        raise RuntimeError(f"{name}: input_dtype {type_name((<DType>input_dtype).scalar_type)} differs from the "
                           f"output's {type_name(st)} (half to float is not supported on CPU)")
    d = output._wrap_dim(dim)
    cdef TensorImpl g = contiguous(grad_output), y = contiguous(output)
    cdef TensorImpl out = empty_contiguous(output.nd, output.sizes, st, None)
    if out.n_elem == 0:
        return out
    _around(output, d, &outer, &n, &inner)
    nt = num_threads() if out.n_elem >= GRAIN else 1
    cdef char* gp = g.data()
    cdef char* yp = y.data()
    cdef char* dp = out.data()
    blocks = (inner + COLS - 1) // COLS
    units = outer * blocks
    with nogil:
        for unit in prange(units, num_threads=nt, schedule="dynamic", chunksize=16):
            o = unit // blocks
            c0 = (unit % blocks) * COLS
            w = min(inner - c0, <Py_ssize_t>COLS)
            row = o * n * inner + c0
            if st == ST_FLOAT32:
                vt.softmax_grad_f(<float*>gp + row, <float*>yp + row, <float*>dp + row, n, inner, w, log)
            else:
                vt.softmax_grad_d(<double*>gp + row, <double*>yp + row, <double*>dp + row, n, inner, w, log)
    return out


def softmax_backward_data_cpu(TensorImpl grad_output not None, TensorImpl output not None, dim, input_dtype):
    return _softmax_grad(grad_output, output, dim, input_dtype, False)


def log_softmax_backward_data_cpu(TensorImpl grad_output not None, TensorImpl output not None, dim, input_dtype):
    return _softmax_grad(grad_output, output, dim, input_dtype, True)
