"""aten::sum.dim_IntList on CPU: sum over some dimensions (all when dim is None or empty).

Accumulates in int64 for integral and bool inputs (as PyTorch, whose result is int64) and in
double for floating inputs, then writes the result dtype.
"""
from libc.stdint cimport int64_t
from c10.scalar_type cimport (is_integral, is_floating, dtype as DType, ST_INT64, ST_FLOAT32, ST_FLOAT64)
from c10.tensor_impl cimport TensorImpl, MAX_DIMS, empty_contiguous
from aten.native.cpu.loops cimport cast_contiguous

ctypedef fused scalar_t:
    float
    double
    int64_t


cdef void _reduce(scalar_t* src_type_tag, const char* base, int nkeep, const Py_ssize_t* keep_sizes,
                  const Py_ssize_t* keep_strides, int nred, const Py_ssize_t* red_sizes,
                  const Py_ssize_t* red_strides, scalar_t* out, Py_ssize_t nout) noexcept nogil:
    """out[j] = sum over the reduced dims at kept index j (strides in elements; innermost dim last)."""
    cdef const scalar_t* src = <const scalar_t*>base
    cdef Py_ssize_t kc[MAX_DIMS]
    cdef Py_ssize_t rc[MAX_DIMS]
    cdef Py_ssize_t j, off, roff, i, inner_n, inner_s, total_inner, outer
    cdef int d
    cdef double facc
    cdef int64_t iacc
    inner_n = red_sizes[nred - 1] if nred > 0 else 1
    inner_s = red_strides[nred - 1] if nred > 0 else 0
    total_inner = 1
    for d in range(nred - 1):
        total_inner *= red_sizes[d]
    for d in range(nkeep):
        kc[d] = 0
    for j in range(nout):
        off = 0
        for d in range(nkeep):
            off += kc[d] * keep_strides[d]
        facc = 0
        iacc = 0
        for d in range(nred):
            rc[d] = 0
        for outer in range(total_inner):
            roff = off
            for d in range(nred - 1):
                roff += rc[d] * red_strides[d]
            if scalar_t is int64_t:
                for i in range(inner_n):
                    iacc += src[roff + i * inner_s]
            else:
                for i in range(inner_n):
                    facc += src[roff + i * inner_s]
            for d in range(nred - 2, -1, -1):
                rc[d] += 1
                if rc[d] < red_sizes[d]:
                    break
                rc[d] = 0
        if scalar_t is int64_t:
            out[j] = iacc
        else:
            out[j] = <scalar_t>facc
        for d in range(nkeep - 1, -1, -1):
            kc[d] += 1
            if kc[d] < keep_sizes[d]:
                break
            kc[d] = 0


cdef list _reduced_dims(TensorImpl t, object dim):
    cdef int ndim = t.nd
    cdef list flags = [False] * (ndim if ndim > 0 else 1)
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return [True] * ndim
    if isinstance(dim, int):
        dim = (dim,)
    for d in dim:
        w = t._wrap_dim(d)
        if flags[w]:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        flags[w] = True
    return flags[:ndim]


def sum_dim_cpu(TensorImpl self not None, dim=None, bint keepdim=False, dtype=None):
    cdef int out_type, acc_type, d, nkeep = 0, nred = 0, nout_dims = 0
    cdef Py_ssize_t keep_sizes[MAX_DIMS]
    cdef Py_ssize_t keep_strides[MAX_DIMS]
    cdef Py_ssize_t red_sizes[MAX_DIMS]
    cdef Py_ssize_t red_strides[MAX_DIMS]
    cdef Py_ssize_t out_sizes[MAX_DIMS]
    cdef TensorImpl src, acc_out, result
    cdef list flags = _reduced_dims(self, dim)
    if dtype is not None:
        out_type = (<DType?>dtype).scalar_type
    elif is_integral(self.scalar_type, True):
        out_type = ST_INT64
    else:
        out_type = self.scalar_type
    acc_type = ST_INT64 if not is_floating(out_type) else (ST_FLOAT32 if out_type == ST_FLOAT32 else ST_FLOAT64)
    src = self if self.scalar_type == acc_type else cast_contiguous(self, acc_type)
    for d in range(src.nd):
        if flags[d]:
            red_sizes[nred] = src.sizes[d]
            red_strides[nred] = src.strides[d]
            nred += 1
            if keepdim:
                out_sizes[nout_dims] = 1
                nout_dims += 1
        else:
            keep_sizes[nkeep] = src.sizes[d]
            keep_strides[nkeep] = src.strides[d]
            out_sizes[nout_dims] = src.sizes[d]
            nkeep += 1
            nout_dims += 1
    acc_out = empty_contiguous(nout_dims, out_sizes, acc_type, None)
    with nogil:
        if acc_type == ST_INT64:
            _reduce(<int64_t*>NULL, src.data(), nkeep, keep_sizes, keep_strides, nred, red_sizes, red_strides,
                    <int64_t*>acc_out.data(), acc_out.n_elem)
        elif acc_type == ST_FLOAT32:
            _reduce(<float*>NULL, src.data(), nkeep, keep_sizes, keep_strides, nred, red_sizes, red_strides,
                    <float*>acc_out.data(), acc_out.n_elem)
        else:
            _reduce(<double*>NULL, src.data(), nkeep, keep_sizes, keep_strides, nred, red_sizes, red_strides,
                    <double*>acc_out.data(), acc_out.n_elem)
    if acc_type == out_type:
        return acc_out
    return cast_contiguous(acc_out, out_type)
