"""The matrix factorizations and solvers of torch.linalg on the CPU: LAPACK through NumPy
(np.linalg: inv, solve, det, slogdet, cholesky, eigh, svd, qr, lstsq) on views of the operands,
and, where NumPy stops (a singular matrix, a failed Cholesky, an LU with its pivots, a triangular
solve), small Cython loops that finish the job as LAPACK would: getrf's partial pivoting with
1-based pivots and an info per matrix, forward/back substitution that lets a zero diagonal give
inf/nan, as PyTorch's kernels return them.

Every kernel takes batches (..., m, n) of float32 or float64 matrices; float16 and bfloat16 are
refused with PyTorch's message, as LAPACK has no such routines."""
import numpy as np

from libc.math cimport fabs, sqrt

from c10.scalar_type cimport ST_BFLOAT16, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64, ST_INT32, ST_INT64
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport np_view, tensor_of
from aten.native.meta.messages cimport shape_of, type_name
from aten.native.meta import linalg_errors

ctypedef fused real:
    float
    double


# ---- checks ----------------------------------------------------------------------------------------

cdef inline Py_ssize_t _dim(object array, int k):
    """array.shape[k] for a negative k (the module compiles without wraparound)."""
    return array.shape[array.ndim + k]


cdef inline tuple _lead(tuple shape):
    """The batch dims: all but the last two."""
    return shape[:len(shape) - 2]


cdef inline tuple _tail(tuple shape, int k):
    return shape[len(shape) - k:]


cdef inline tuple _tail_dropped(tuple shape):
    return shape[:len(shape) - 1]


cdef object _stacked(object array, int trailing):
    """array with its leading (batch) dims merged into one: (batch, *last trailing dims); the batch
    count is explicit, as reshape cannot infer it when a matrix is empty."""
    cdef tuple shape = array.shape
    cdef Py_ssize_t batch = 1
    for size in shape[:len(shape) - trailing]:
        batch *= size
    return array.reshape((batch,) + _tail(shape, trailing))


cdef int _check_matrix(str op, TensorImpl A, bint square=True, str kernel="") except -1:
    """PyTorch's checks, in its order; float16/bfloat16 are refused as its kernel refuses them: by its
    dispatch name (kernel) where it has no check of its own."""
    if A.scalar_type == ST_FLOAT16 or A.scalar_type == ST_BFLOAT16:
        if kernel:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{type_name(A.scalar_type)}\'')
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {type_name(A.scalar_type)}")
    if A.scalar_type != ST_FLOAT32 and A.scalar_type != ST_FLOAT64:
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{type_name(A.scalar_type)}")
    if A.nd < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if square and A.sizes[A.nd - 1] != A.sizes[A.nd - 2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.sizes[A.nd - 2]} by "
                           f"{A.sizes[A.nd - 1]} matrices")
    return 0


cdef object _batched(TensorImpl A):
    """A's matrices as a C-contiguous (batch, m, n) float array (a copy: the loops write into it)."""
    a = np_view(A)
    return np.array(_stacked(a, 2), dtype=a.dtype, order="C", copy=True)


# ---- LU with partial pivoting (LAPACK getrf, unblocked) ----------------------------------------------

cdef int _lu_one(real[:, ::1] a, int[::1] piv) noexcept nogil:
    """a = P L U in place (L unit lower below the diagonal, U on and above it); piv[k] the 1-based row
    swapped with row k; returns LAPACK's info: 0, or the 1-based index of the first zero pivot."""
    cdef Py_ssize_t m = a.shape[0], n = a.shape[1], k, i, j, p
    cdef Py_ssize_t steps = m if m < n else n
    cdef int info = 0
    cdef real best, tmp, f
    for k in range(steps):
        p = k
        best = fabs(a[k, k])
        for i in range(k + 1, m):
            if fabs(a[i, k]) > best:
                best = fabs(a[i, k])
                p = i
        piv[k] = <int>(p + 1)
        if a[p, k] == 0:
            if info == 0:
                info = <int>(k + 1)
            continue
        if p != k:
            for j in range(n):
                tmp = a[k, j]
                a[k, j] = a[p, j]
                a[p, j] = tmp
        for i in range(k + 1, m):
            a[i, k] = a[i, k] / a[k, k]
        for i in range(k + 1, m):
            f = a[i, k]
            if f != 0:
                for j in range(k + 1, n):
                    a[i, j] = a[i, j] - f * a[k, j]
    return info


cdef tuple _lu(object batch):
    """(LU, pivots (batch, min(m, n)) int32, info (batch,) int32) of a (batch, m, n) array, in place."""
    cdef Py_ssize_t b, count = batch.shape[0]
    pivots = np.zeros((count, min(batch.shape[1], batch.shape[2])), dtype=np.int32)
    info = np.zeros(count, dtype=np.int32)
    for b in range(count):
        if batch.dtype == np.float32:
            info[b] = _lu_one[float](batch[b], pivots[b])
        else:
            info[b] = _lu_one[double](batch[b], pivots[b])
    return batch, pivots, info


def linalg_lu_factor_ex_cpu(TensorImpl A not None, bint pivot=True, bint check_errors=False):
    _check_matrix("torch.lu_factor", A, False, "lu_cpu")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lead = _lead(shape_of(A))
    lu, pivots, info = _lu(_batched(A))
    k = min(A.sizes[A.nd - 2], A.sizes[A.nd - 1])
    if check_errors:
        linalg_errors.raise_for_info("torch.linalg.lu_factor_ex", "lu_factor", info)
    return (tensor_of(lu.reshape(shape_of(A)), A.scalar_type),
            tensor_of(pivots.reshape(lead + (k,)), ST_INT32), tensor_of(info.reshape(lead), ST_INT32))


# ---- triangular solves -------------------------------------------------------------------------------

cdef void _trsm_one(const real[:, ::1] a, real[:, ::1] x, bint upper, bint unit) noexcept nogil:
    """x = a^-1 x for a triangular a (only its upper or lower triangle read), in place."""
    cdef Py_ssize_t n = a.shape[0], k = x.shape[1], i, j, c
    cdef real s
    if upper:
        for i in range(n - 1, -1, -1):
            for c in range(k):
                s = x[i, c]
                for j in range(i + 1, n):
                    s = s - a[i, j] * x[j, c]
                x[i, c] = s if unit else s / a[i, i]
    else:
        for i in range(n):
            for c in range(k):
                s = x[i, c]
                for j in range(i):
                    s = s - a[i, j] * x[j, c]
                x[i, c] = s if unit else s / a[i, i]


cdef object _trsm(object a, object x, bint upper, bint unit):
    """x (batch, n, k) solved in place against the batch of triangular a (batch, n, n)."""
    cdef Py_ssize_t b
    for b in range(a.shape[0]):
        if a.dtype == np.float32:
            _trsm_one[float](a[b], x[b], upper, unit)
        else:
            _trsm_one[double](a[b], x[b], upper, unit)
    return x


cdef tuple _broadcast_pair(object a, object b):
    """Batch dims of a (..., n, n) and b (..., n, k) broadcast, each as a C-contiguous 3-d copy."""
    lead = np.broadcast_shapes(_lead(a.shape), _lead(b.shape))
    a = _stacked(np.ascontiguousarray(np.broadcast_to(a, lead + _tail(a.shape, 2))), 2)
    b = _stacked(np.array(np.broadcast_to(b, lead + _tail(b.shape, 2)), order="C", copy=True), 2)
    return lead, a, b


def linalg_solve_triangular_cpu(TensorImpl self not None, TensorImpl B not None, bint upper, bint left=True,
                                bint unitriangular=False):
    _check_matrix("linalg.solve_triangular", self, True, "triangular_solve_cpu")
    if B.nd < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    if self.scalar_type != B.scalar_type:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{type_name(self.scalar_type)} and B of type {type_name(B.scalar_type)} instead")
    a, b = np_view(self), np_view(B)
    n = _dim(a, -1)
    if (_dim(b, -2) if left else _dim(b, -1)) != n:
        shape_a = f"{n}x{n}"
        shape_b = f"{_dim(b, -2)}x{_dim(b, -1)}"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({shape_a} and {shape_b})")
    if not left:        # X A = B  <=>  A^T X^T = B^T, the other triangle
        a, b, upper = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not upper
    lead, a3, b3 = _broadcast_pair(a, b)
    x = _trsm(a3, b3, upper, unitriangular).reshape(lead + _tail(b.shape, 2))
    if not left:
        x = np.swapaxes(x, -1, -2)
    return tensor_of(x, self.scalar_type)


# ---- solve, inverse, determinants ----------------------------------------------------------------------

cdef object _lu_solve_arrays(object lu, object pivots, object rhs):
    """rhs (batch, n, k) overwritten with A^-1 rhs for A = P L U (getrs)."""
    cdef Py_ssize_t b, i
    for b in range(lu.shape[0]):
        for i in range(pivots.shape[1]):
            p = pivots[b, i] - 1
            if p != i:
                rhs[b, [i, p]] = rhs[b, [p, i]]
    _trsm(lu, rhs, False, True)
    return _trsm(lu, rhs, True, False)


cdef tuple _solve_arrays(object a, object b):
    """(x, info) of a x = b for batches a (..., n, n), b (..., n, k): LAPACK's gesv through NumPy, and
    on a singular matrix our LU, whose substitution returns inf/nan as LAPACK's kernels leave them."""
    lead, a3, b3 = _broadcast_pair(a, b)
    try:
        x = np.linalg.solve(a3, b3)
        info = np.zeros(a3.shape[0], dtype=np.int32)
    except np.linalg.LinAlgError:
        lu, pivots, info = _lu(np.array(a3, copy=True))
        with np.errstate(all="ignore"):
            x = _lu_solve_arrays(lu, pivots, b3)
    return x.reshape(lead + _tail(b.shape, 2)), info.reshape(lead)


cdef bint _vector_case(TensorImpl A, TensorImpl B):
    """linalg.solve's rule: B is a vector (batch) when 1-d, or when it has A's batch shape plus n."""
    return B.nd == 1 or (B.nd == A.nd - 1 and shape_of(B) == _tail_dropped(shape_of(A)))


def linalg_solve_ex_cpu(TensorImpl A not None, TensorImpl B not None, bint left=True, bint check_errors=False):
    _check_matrix("linalg.solve", A, True, "lu_cpu")
    if A.scalar_type != B.scalar_type:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{type_name(A.scalar_type)} and B of type {type_name(B.scalar_type)} instead")
    vector = _vector_case(A, B)
    a, b = np_view(A), np_view(B)
    n = _dim(a, -1)
    if vector:
        b = b[..., None]
    if not left:
        a, b = np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)
    if _dim(b, -2) != n:
        eq = "AX = B" if left else "XA = B"
        rows = _dim(b, -2) if left else _dim(b, -1)
        cols = _dim(b, -1) if left else _dim(b, -2)
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {eq} ({n}x{n} and "
                           f"{rows}x{cols})")
    x, info = _solve_arrays(a, b)
    if not left:
        x = np.swapaxes(x, -1, -2)
    if vector:
        x = x[..., 0]
    if check_errors:
        linalg_errors.raise_for_info("torch.linalg.solve_ex", "solve", info)
    return tensor_of(x, A.scalar_type), tensor_of(info, ST_INT32)


def linalg_inv_ex_cpu(TensorImpl A not None, bint check_errors=False):
    _check_matrix("linalg.inv", A)
    a = np_view(A)
    n = _dim(a, -1)
    x, info = _solve_arrays(a, np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape))
    if check_errors:
        linalg_errors.raise_for_info("linalg.inv_ex", "inv", info)
    return tensor_of(x, A.scalar_type), tensor_of(info, ST_INT32)


def linalg_det_cpu(TensorImpl A not None):
    _check_matrix("linalg.det", A, True, "lu_cpu")
    a = np_view(A)
    if _dim(a, -1) == 0:
        return tensor_of(np.ones(_lead(a.shape), dtype=a.dtype), A.scalar_type)
    return tensor_of(np.linalg.det(a), A.scalar_type)


def linalg_slogdet_cpu(TensorImpl A not None):
    _check_matrix("linalg.slogdet", A, True, "lu_cpu")
    sign, logabsdet = np.linalg.slogdet(np_view(A))
    return tensor_of(np.asarray(sign), A.scalar_type), tensor_of(np.asarray(logabsdet), A.scalar_type)


# ---- Cholesky --------------------------------------------------------------------------------------------

cdef int _cholesky_one(real[:, ::1] a) noexcept nogil:
    """The lower factor in place (potrf, reading the lower triangle); info: the order of the first
    leading minor that is not positive-definite, 0 when none."""
    cdef Py_ssize_t n = a.shape[0], i, j, k
    cdef real s
    for j in range(n):
        s = a[j, j]
        for k in range(j):
            s = s - a[j, k] * a[j, k]
        if not s > 0:
            return <int>(j + 1)
        a[j, j] = sqrt(s)
        for i in range(j + 1, n):
            s = a[i, j]
            for k in range(j):
                s = s - a[i, k] * a[j, k]
            a[i, j] = s / a[j, j]
    return 0


def linalg_cholesky_ex_cpu(TensorImpl A not None, bint upper=False, bint check_errors=False):
    _check_matrix("linalg.cholesky", A, True, "cholesky_cpu")
    a = np_view(A)
    if upper:       # potrf with uplo='U' reads the upper triangle: the lower one of the transpose
        a = np.swapaxes(a, -1, -2)
    lead = _lead(a.shape)
    try:
        factor = np.linalg.cholesky(a)
        info = np.zeros(lead, dtype=np.int32)
    except np.linalg.LinAlgError:
        batch = np.array(_stacked(a, 2), order="C", copy=True)
        info = np.zeros(batch.shape[0], dtype=np.int32)
        for b in range(batch.shape[0]):
            info[b] = _cholesky_one[float](batch[b]) if batch.dtype == np.float32 else _cholesky_one[double](batch[b])
        factor = np.tril(batch).reshape(a.shape)
        info = info.reshape(lead)
    if check_errors:
        linalg_errors.raise_for_info("linalg.cholesky_ex", "cholesky", info)
    if upper:
        factor = np.swapaxes(factor, -1, -2)
    return tensor_of(factor, A.scalar_type), tensor_of(info, ST_INT32)


# ---- eigh, svd, qr, lstsq --------------------------------------------------------------------------------

def linalg_eigh_cpu(TensorImpl A not None, str UPLO="L"):
    _check_matrix("linalg.eigh", A, True, "linalg_eigh_cpu")
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    values, vectors = np.linalg.eigh(np_view(A), UPLO=UPLO)
    return tensor_of(values, A.scalar_type), tensor_of(vectors, A.scalar_type)


def linalg_svd_cpu(TensorImpl A not None, bint full_matrices=True, driver=None):
    _check_matrix("linalg.svd", A, False, "linalg_svd_cpu")
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                           "cuSOLVER backend.")
    a = np_view(A)
    if a.size == 0:
        # NumPy refuses empty input: identity factors and no singular values, as LAPACK's shapes
        m, n = _tail(a.shape, 2)
        k = min(m, n)
        cols, rows = (m, n) if full_matrices else (k, k)
        u = np.broadcast_to(np.eye(m, cols, dtype=a.dtype), _lead(a.shape) + (m, cols))
        vh = np.broadcast_to(np.eye(rows, n, dtype=a.dtype), _lead(a.shape) + (rows, n))
        s = np.zeros(_lead(a.shape) + (k,), dtype=a.dtype)
    else:
        u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return tensor_of(u, A.scalar_type), tensor_of(s, A.scalar_type), tensor_of(vh, A.scalar_type)


def linalg_qr_cpu(TensorImpl A not None, str mode="reduced"):
    _check_matrix("linalg.qr", A, False, "linalg_qr_cpu")
    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    a = np_view(A)
    if mode == "r":
        r = np.linalg.qr(a, mode="r")
        return tensor_of(np.zeros((0,), dtype=a.dtype), A.scalar_type), tensor_of(r, A.scalar_type)
    q, r = np.linalg.qr(a, mode=mode)
    return tensor_of(q, A.scalar_type), tensor_of(r, A.scalar_type)


def linalg_lstsq_cpu(TensorImpl self not None, TensorImpl b not None, rcond=None, driver=None):
    _check_matrix("torch.linalg.lstsq", self, False, "linalg_lstsq_cpu")
    if self.scalar_type != b.scalar_type:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {type_name(self.scalar_type)} and other's dtype {type_name(b.scalar_type)}")
    driver = "gelsy" if driver is None else driver
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    a, rhs = np_view(self), np_view(b)
    vector = b.nd == self.nd - 1
    if vector:
        rhs = rhs[..., None]
    if _dim(rhs, -2) != _dim(a, -2):
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    lead, a3, b3 = _broadcast_pair(a, rhs)
    m, n = a3.shape[1], a3.shape[2]
    eps = np.finfo(a3.dtype).eps
    cond = (eps * max(m, n)) if rcond is None else rcond
    solutions, ranks, values, residuals = [], [], [], []
    for i in range(a3.shape[0]):
        x, res, rank, sv = np.linalg.lstsq(a3[i], b3[i], rcond=cond)
        solutions.append(x)
        ranks.append(rank)
        values.append(sv)
        residuals.append(res)
    x = np.stack(solutions).reshape(lead + (n, b3.shape[2])) if solutions else \
        np.zeros(lead + (n, b3.shape[2]), a3.dtype)
    if vector:
        x = x[..., 0]
    full_rank = all(r == min(m, n) for r in ranks)
    if m > n and full_rank and driver != "gelsy" and residuals:
        res = np.stack([r if r.size else np.zeros(b3.shape[2], a3.dtype) for r in residuals]).reshape(
            lead + ((b3.shape[2],) if not vector else ()))
    else:
        res = np.zeros((0,), dtype=a3.dtype)
    rank = np.array(ranks, dtype=np.int64).reshape(lead) if driver != "gels" else np.zeros((0,), np.int64)
    sv = np.zeros((0,), a3.dtype)
    if driver in ("gelsd", "gelss"):
        sv = np.stack(values).reshape(lead + (min(m, n),)) if values else np.zeros(lead + (min(m, n),), a3.dtype)
    return (tensor_of(x, self.scalar_type), tensor_of(res, self.scalar_type), tensor_of(rank, ST_INT64),
            tensor_of(sv, self.scalar_type))


def linalg_lu_solve_cpu(TensorImpl LU not None, TensorImpl pivots not None, TensorImpl B not None, bint left=True,
                        bint adjoint=False):
    _check_matrix("linalg.lu_solve", LU, True, "lu_cpu")
    if pivots.scalar_type != ST_INT32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    lu, piv, b = np_view(LU), np_view(pivots), np_view(B)
    n = _dim(lu, -1)
    if not left:        # X A = B  <=>  A^T X^T = B^T
        b = np.swapaxes(b, -1, -2)
        adjoint = not adjoint
    lead = np.broadcast_shapes(_lead(lu.shape), _lead(b.shape))
    lu3 = _stacked(np.ascontiguousarray(np.broadcast_to(lu, lead + _tail(lu.shape, 2))), 2)
    piv2 = _stacked(np.ascontiguousarray(np.broadcast_to(piv, lead + _tail(piv.shape, 1))), 1)
    x = _stacked(np.array(np.broadcast_to(b, lead + _tail(b.shape, 2)), order="C", copy=True), 2)
    with np.errstate(all="ignore"):
        if not adjoint:
            x = _lu_solve_arrays(lu3, piv2, x)
        else:           # A^T = U^T L^T P^T: solve U^T, then L^T, then undo the row swaps backwards
            lut = np.ascontiguousarray(np.swapaxes(lu3, -1, -2))
            _trsm(lut, x, False, False)
            _trsm(lut, x, True, True)
            for bi in range(x.shape[0]):
                for i in range(n - 1, -1, -1):
                    p = piv2[bi, i] - 1
                    if p != i:
                        x[bi, [i, p]] = x[bi, [p, i]]
    x = x.reshape(lead + _tail(b.shape, 2))
    if not left:
        x = np.swapaxes(x, -1, -2)
    return tensor_of(x, LU.scalar_type)


def geqrf_cpu(TensorImpl self not None):
    """LAPACK's geqrf through NumPy's raw QR: R on and above the diagonal, the Householder vectors
    below it, and their scales tau (the input of linalg.householder_product)."""
    if self.nd < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if self.scalar_type != ST_FLOAT32 and self.scalar_type != ST_FLOAT64:
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{type_name(self.scalar_type)}\'')
    a = np_view(self)
    m, n = a.shape[a.ndim - 2], a.shape[a.ndim - 1]
    lead = a.shape[:a.ndim - 2]
    if a.size == 0:
        return tensor_of(np.zeros(a.shape, a.dtype), self.scalar_type), \
            tensor_of(np.zeros(lead + (min(m, n),), a.dtype), self.scalar_type)
    h, tau = np.linalg.qr(a, mode="raw")        # h holds the factors transposed, as LAPACK leaves them in memory
    return tensor_of(np.ascontiguousarray(np.swapaxes(h, -1, -2)), self.scalar_type), \
        tensor_of(np.ascontiguousarray(tau), self.scalar_type)
