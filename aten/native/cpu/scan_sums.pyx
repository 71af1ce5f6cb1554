"""cumsum and cumprod on CPU (and their in-place forms).

The input is converted to the result dtype first (as PyTorch does with dtype=) and read as
(outer, n, inner) around the scanned dim; the running values live in int64 for integers and in
double for floats (PyTorch's CPU acc_type), one per inner position, so the loop over the inner
positions is contiguous and vectorises. Outer slices run on several threads when large.
"""
from cython.parallel cimport prange
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t

from c10.scalar_type cimport (opmath_type, is_integral, dtype as DType, dtype_of, ST_BOOL, ST_UINT8, ST_INT8,
                              ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32)
from c10.tensor_impl cimport TensorImpl, empty_contiguous
from aten.native.cpu.loops cimport cast_contiguous, copy_into
from aten.native.meta.messages cimport cpp_type
from aten.native.cpu.element_types cimport num_t

from aten.native.cpu import loops as _loops

cdef void scan_geometry(TensorImpl t, int d, Py_ssize_t* outer, Py_ssize_t* n, Py_ssize_t* inner) noexcept:
    """The sizes before dim d (outer), of d (n) and after it (inner) of t; d is already wrapped."""
    cdef int i
    outer[0] = n[0] = inner[0] = 1
    for i in range(t.nd):
        if i < d:
            outer[0] *= t.sizes[i]
        elif i == d:
            n[0] = t.sizes[i]
        else:
            inner[0] *= t.sizes[i]


cdef int scan_threads(Py_ssize_t n_elem, Py_ssize_t outer) except -1:
    """Threads for a scan over n_elem elements in `outer` independent slices."""
    cdef int nt = _loops.get_num_threads()
    if n_elem < PAR_MIN or outer < 2:
        return 1
    return <int>outer if nt > outer else nt


cdef void _scan_slice(num_t* out, const num_t* x, Py_ssize_t n, Py_ssize_t inner, bint prod) noexcept nogil:
    """One outer slice: out[i, j] = x[0, j] op ... op x[i, j] for i < n, j < inner (contiguous)."""
    cdef Py_ssize_t i, j, j0, w
    cdef double facc[CHUNK]
    cdef int64_t iacc[CHUNK]
    cdef double f
    cdef int64_t v
    if inner == 1:
        if num_t is float or num_t is double:
            f = 1 if prod else 0
            for i in range(n):
                if prod:
                    f *= x[i]
                else:
                    f += x[i]
                out[i] = <num_t>f
        else:
            v = 1 if prod else 0
            for i in range(n):
                if prod:
                    v *= x[i]
                else:
                    v += x[i]
                out[i] = <num_t>v
        return
    j0 = 0
    while j0 < inner:
        w = inner - j0 if inner - j0 < CHUNK else CHUNK
        if num_t is float or num_t is double:
            for j in range(w):
                facc[j] = 1 if prod else 0
            for i in range(n):
                if prod:
                    for j in range(w):
                        facc[j] *= x[i * inner + j0 + j]
                        out[i * inner + j0 + j] = <num_t>facc[j]
                else:
                    for j in range(w):
                        facc[j] += x[i * inner + j0 + j]
                        out[i * inner + j0 + j] = <num_t>facc[j]
        else:
            for j in range(w):
                iacc[j] = 1 if prod else 0
            for i in range(n):
                if prod:
                    for j in range(w):
                        iacc[j] *= x[i * inner + j0 + j]
                        out[i * inner + j0 + j] = <num_t>iacc[j]
                else:
                    for j in range(w):
                        iacc[j] += x[i * inner + j0 + j]
                        out[i * inner + j0 + j] = <num_t>iacc[j]
        j0 += CHUNK


cdef void _scan(num_t* out, const num_t* x, Py_ssize_t outer, Py_ssize_t n, Py_ssize_t inner, bint prod,
                int nt) noexcept nogil:
    cdef Py_ssize_t o
    if nt > 1:
        for o in prange(outer, schedule="static", num_threads=nt):
            _scan_slice(out + o * n * inner, x + o * n * inner, n, inner, prod)
    else:
        for o in range(outer):
            _scan_slice(out + o * n * inner, x + o * n * inner, n, inner, prod)


cdef TensorImpl _cum(TensorImpl self, object dim, object dtype, bint prod, bint inplace):
    cdef str name = "cumprod" if prod else "cumsum"
    cdef int d = self._wrap_dim(dim), st, nt
    cdef Py_ssize_t outer, n, inner
    cdef TensorImpl src, out
    if dtype is not None:
        st = (<DType?>dtype).scalar_type
    elif is_integral(self.scalar_type, True) and not inplace:
        st = ST_INT64
    else:
        st = self.scalar_type
    if inplace and st != self.scalar_type:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {cpp_type(self.scalar_type)} and output "
                           f"tensor dtype {cpp_type(st)} should match")
    if self.n_elem == 0 or self.nd == 0:  # no kernel, so none of its dtype checks (as PyTorch)
        if inplace:
            self.version_counter.version += 1
            return self
        return empty_contiguous(self.nd, self.sizes, st, None) if self.n_elem == 0 else cast_contiguous(self, st)
    if st == ST_BOOL or opmath_type(st) != st or opmath_type(self.scalar_type) != self.scalar_type:
        bad = st if st == ST_BOOL or opmath_type(st) != st else self.scalar_type
        raise NotImplementedError(f'"{name}_out_cpu" not implemented for \'{dtype_of(bad).type_name}\'')
    src = self if self.scalar_type == st and self.contiguous else cast_contiguous(self, st)
    scan_geometry(self, d, &outer, &n, &inner)
    out = empty_contiguous(self.nd, self.sizes, st, None)
    nt = scan_threads(src.n_elem, outer)
    with nogil:
        if st == ST_UINT8:
            _scan(<uint8_t*>out.data(), <const uint8_t*>src.data(), outer, n, inner, prod, nt)
        elif st == ST_INT8:
            _scan(<int8_t*>out.data(), <const int8_t*>src.data(), outer, n, inner, prod, nt)
        elif st == ST_INT16:
            _scan(<int16_t*>out.data(), <const int16_t*>src.data(), outer, n, inner, prod, nt)
        elif st == ST_INT32:
            _scan(<int32_t*>out.data(), <const int32_t*>src.data(), outer, n, inner, prod, nt)
        elif st == ST_INT64:
            _scan(<int64_t*>out.data(), <const int64_t*>src.data(), outer, n, inner, prod, nt)
        elif st == ST_FLOAT32:
            _scan(<float*>out.data(), <const float*>src.data(), outer, n, inner, prod, nt)
        else:
            _scan(<double*>out.data(), <const double*>src.data(), outer, n, inner, prod, nt)
    if inplace:
        copy_into(self, out)
        self.version_counter.version += 1
        return self
    return out


def cumsum_cpu(TensorImpl self not None, int dim, dtype=None):
    return _cum(self, dim, dtype, False, False)


def cumsum__cpu(TensorImpl self not None, int dim, dtype=None):
    return _cum(self, dim, dtype, False, True)


def cumprod_cpu(TensorImpl self not None, int dim, dtype=None):
    return _cum(self, dim, dtype, True, False)


def cumprod__cpu(TensorImpl self not None, int dim, dtype=None):
    return _cum(self, dim, dtype, True, True)
