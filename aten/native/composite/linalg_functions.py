"""torch.linalg's functions composed of its factorizations (aten/native/cpu/linalg_factor.pyx): the
error-raising forms of the *_ex kernels, the old names (inverse, det, svd, qr, cholesky, ...), and
pinv, matrix_rank, matrix_power, matrix_exp, vecdot, multi_dot and lu/lu_unpack, with PyTorch's
checks and messages. They run on any device where their ops do."""
from __future__ import annotations

import math
import warnings
from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.linalg_errors import raise_for_info

_inv_ex = find_operator("linalg_inv_ex")
_det = find_operator("linalg_det")
_slogdet = find_operator("linalg_slogdet")
_solve_ex = find_operator("linalg_solve_ex")
_cholesky_ex = find_operator("linalg_cholesky_ex")
_eigh = find_operator("linalg_eigh")
_svd = find_operator("linalg_svd")
_qr = find_operator("linalg_qr")
_lu_factor_ex = find_operator("linalg_lu_factor_ex")
_lu_unpack = find_operator("lu_unpack")
_eye = find_operator("eye")
_eye_m = find_operator("eye.m")
_ones = find_operator("ones")
_zeros = find_operator("zeros")
_where = find_operator("where.self")
_full_like = find_operator("full_like")
_matmul = find_operator("matmul")
_stack = find_operator("stack")
_arange = find_operator("arange")


def _square(op: str, A: Any) -> None:
    if A.dim() < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {A.shape[-2]} by "
                           f"{A.shape[-1]} matrices")


def _floating(op: str, A: Any) -> None:
    if not A.is_floating_point():
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {A.dtype.type_name}")


# ---- the raising forms and the old names ---------------------------------------------------------------

def linalg_inv(A: Any) -> Any:
    inverse, info = _inv_ex(A)
    raise_for_info("linalg.inv", "inv", info)
    return inverse


def inverse(self: Any) -> Any:
    return linalg_inv(self)


def det(self: Any) -> Any:
    return _det(self)


def linalg_det_small(A: Any) -> Any:
    """The determinant written out for matrices up to 3x3 (any device; the CPU kernel takes the rest)."""
    _floating("linalg.det", A)
    _square("linalg.det", A)
    n = A.shape[-1]
    if n == 0:
        return _ones(A.shape[:-2], dtype=A.dtype, device=A.device)
    if n == 1:
        return A[..., 0, 0].clone()
    if n == 2:
        return A[..., 0, 0] * A[..., 1, 1] - A[..., 0, 1] * A[..., 1, 0]
    if n == 3:
        a = [[A[..., i, j] for j in range(3)] for i in range(3)]
        return (a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]))
    raise NotImplementedError(f"linalg.det on {A.device.type}: Ember has no LU kernel there yet, so it computes "
                              "determinants of matrices up to 3x3 only")


def slogdet(self: Any) -> Any:
    return _slogdet(self)


def logdet(self: Any) -> Any:
    """log(det): NaN where the determinant is negative (-inf where it is 0), as PyTorch."""
    if self.dtype.name in ("float16", "bfloat16"):
        raise RuntimeError(f"logdet: Low precision dtypes not supported. Got {self.dtype.type_name}")
    sign, logabsdet = _slogdet(self)
    return _where(sign < 0, _full_like(logabsdet, math.nan), logabsdet)


def linalg_solve(A: Any, B: Any, left: bool = True) -> Any:
    result, info = _solve_ex(A, B, left=left)
    raise_for_info("torch.linalg.solve", "solve", info)
    return result


def linalg_cholesky(self: Any, upper: bool = False) -> Any:
    L, info = _cholesky_ex(self, upper=upper)
    raise_for_info("linalg.cholesky", "cholesky", info)
    return L


_cholesky_warned = [False]


def cholesky(self: Any, upper: bool = False) -> Any:
    if not _cholesky_warned[0]:
        _cholesky_warned[0] = True
        warnings.warn("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                      "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)"
                      "\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced with\n"
                      "U = torch.linalg.cholesky(A).mH", stacklevel=2)
    return linalg_cholesky(self, upper=upper)


def linalg_eigvalsh(self: Any, UPLO: str = "L") -> Any:
    return _eigh(self, UPLO)[0]


def linalg_svdvals(A: Any, driver: Any = None) -> Any:
    return _svd(A, False, driver=driver)[1]


def svd(self: Any, some: bool = True, compute_uv: bool = True) -> Any:
    """The old torch.svd: V rather than Vh; without compute_uv, U and V zero-filled (m x m, n x n)."""
    U, S, Vh = _svd(self, not some)
    if not compute_uv:
        m, n = self.shape[-2], self.shape[-1]
        lead = tuple(self.shape[:-2])
        return (_zeros(lead + (m, m), dtype=self.dtype, device=self.device), S,
                _zeros(lead + (n, n), dtype=self.dtype, device=self.device))
    return U, S, Vh.mH


def qr(self: Any, some: bool = True) -> Any:
    return _qr(self, "reduced" if some else "complete")


# ---- LU ---------------------------------------------------------------------------------------------------

def linalg_lu_factor(A: Any, pivot: bool = True) -> Any:
    LU, pivots, info = _lu_factor_ex(A, pivot=pivot)
    raise_for_info("torch.linalg.lu_factor", "lu_factor", info)
    return LU, pivots


def _permutation(pivots: Any, m: int, like: Any) -> Any:
    """P (..., m, m) with A = P L U from LAPACK's 1-based row swaps, applied to every matrix at once
    (one gather/scatter per pivot step)."""
    lead = tuple(pivots.shape[:-1])
    steps = pivots.shape[-1]
    batch = 1
    for size in lead:
        batch *= size
    swaps = pivots.reshape(batch, steps).long() - 1
    order = _arange(m, dtype=swaps.dtype, device=swaps.device).expand(batch, m).clone()
    for i in range(steps):
        target = swaps[:, i:i + 1]
        here = order[:, i:i + 1].clone()
        order[:, i:i + 1] = order.gather(1, target)
        order.scatter_(1, target, here)
    eye = _eye(m, dtype=like.dtype, device=like.device)
    # row i of P^T is e_{order[i]}
    return eye.index_select(0, order.reshape(-1)).reshape(batch, m, m).mT.reshape(lead + (m, m))


def lu_unpack(LU_data: Any, LU_pivots: Any, unpack_data: bool = True, unpack_pivots: bool = True) -> Any:
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = min(m, n)
    empty = _zeros((0,), dtype=LU_data.dtype, device=LU_data.device)
    if unpack_data:
        L = LU_data[..., :k].tril(-1) + _eye_m(m, k, dtype=LU_data.dtype, device=LU_data.device)
        U = LU_data[..., :k, :].triu()
    else:
        L, U = empty, empty
    P = _permutation(LU_pivots, m, LU_data) if unpack_pivots else empty
    return P, L, U


def linalg_lu(A: Any, pivot: bool = True) -> Any:
    LU, pivots, _ = _lu_factor_ex(A, pivot=pivot)
    return _lu_unpack(LU, pivots)


# ---- pinv, matrix_rank --------------------------------------------------------------------------------------

def _tolerance(values: Any, A: Any, atol: Any, rtol: Any) -> Any:
    """max(atol, rtol * largest value), rtol defaulting to eps * max(m, n) when atol is not given."""
    if rtol is None:
        rtol = 0.0 if (atol is not None and atol > 0) else _eps(A) * max(A.shape[-2], A.shape[-1])
    largest = values.abs().amax(-1, keepdim=True) if values.shape[-1] else values.sum(-1, keepdim=True)
    tol = largest * rtol
    if atol is not None:
        tol = tol.clamp_min(atol)
    return tol


def _eps(A: Any) -> float:
    return 1.1920928955078125e-07 if A.dtype.name in ("float32", "float16", "bfloat16") else 2.220446049250313e-16


def linalg_pinv_atol_rtol_float(self: Any, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Any:
    if self.dim() < 2 or self.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"linalg.pinv({self.dtype.type_name}{{{list(self.shape)}}}): expected a tensor with 2 or "
                           "more dimensions of float, double, cfloat or cdouble types")
    if hermitian:
        values, vectors = _eigh(self)
        tol = _tolerance(values, self, atol, rtol)
        inverse = _where(values.abs() > tol, 1 / values, _zeros((), dtype=values.dtype, device=values.device))
        return (vectors * inverse.unsqueeze(-2)) @ vectors.mH
    U, S, Vh = _svd(self, False)
    tol = _tolerance(S, self, atol, rtol)
    inverse = _where(S > tol, 1 / S, _zeros((), dtype=S.dtype, device=S.device))
    return (Vh.mH * inverse.unsqueeze(-2)) @ U.mH


def linalg_pinv(self: Any, rcond: float, hermitian: bool = False) -> Any:
    return linalg_pinv_atol_rtol_float(self, atol=0.0, rtol=rcond, hermitian=hermitian)


def pinverse(self: Any, rcond: float = 1e-15) -> Any:
    return linalg_pinv(self, rcond)


def linalg_matrix_rank_atol_rtol_float(input: Any, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Any:
    if input.dtype.name not in ("float32", "float64"):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if input.dim() < 2:
        raise RuntimeError("linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    values = _eigh(input)[0].abs() if hermitian else _svd(input, False)[1]
    return (values > _tolerance(values, input, atol, rtol)).sum(-1)


def linalg_matrix_rank(self: Any, tol: float, hermitian: bool = False) -> Any:
    return linalg_matrix_rank_atol_rtol_float(self, atol=tol, rtol=0.0, hermitian=hermitian)


# ---- powers and the exponential -------------------------------------------------------------------------------

def linalg_matrix_power(self: Any, n: int) -> Any:
    _square("linalg.matrix_power", self)
    if n == 0:       # a copy of self overwritten, as PyTorch's: its (zero) derivatives stay connected to self
        return self.clone().copy_(_eye(self.shape[-1], dtype=self.dtype, device=self.device).expand(self.shape))
    base = linalg_inv(self) if n < 0 else self
    n = abs(n)
    result: Any = None
    while n:         # binary exponentiation, as PyTorch
        if n & 1:
            result = base if result is None else _matmul(result, base)
        n >>= 1
        if n:
            base = _matmul(base, base)
    return result if result is not self else self.clone()


def matrix_power(self: Any, n: int) -> Any:
    return linalg_matrix_power(self, n)


# Pade [13/13] coefficients (Higham 2005, "The scaling and squaring method for the matrix exponential revisited")
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
           10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def linalg_matrix_exp(self: Any) -> Any:
    _square("linalg.matrix_exp", self)
    _floating("linalg.matrix_exp", self)
    n = self.shape[-1]
    if self.numel() == 0:
        return self.clone()
    if n == 1:
        return self.exp()
    norm = float(self.abs().sum(-2).amax())
    # non-finite input has no scaling that helps: the Pade step propagates its inf/nan, as PyTorch's
    squarings = max(0, math.ceil(math.log2(norm / _THETA13))) if math.isfinite(norm) and norm > _THETA13 else 0
    A = self / (2 ** squarings)
    eye = _eye(n, dtype=self.dtype, device=self.device)
    A2 = _matmul(A, A)
    A4 = _matmul(A2, A2)
    A6 = _matmul(A4, A2)
    b = _PADE13
    U = _matmul(A, _matmul(A6, b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
    V = _matmul(A6, b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * eye
    X = linalg_solve(V - U, V + U)
    for _ in range(squarings):
        X = _matmul(X, X)
    return X


def matrix_exp(self: Any) -> Any:
    return linalg_matrix_exp(self)


# ---- vecdot, multi_dot ------------------------------------------------------------------------------------

def linalg_vecdot(x: Any, y: Any, dim: int = -1) -> Any:
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x.dtype.type_name} and y of type {y.dtype.type_name} instead")
    return (x * y).sum(dim)     # real dtypes only: conj is the identity


def _multi_dot_order(shapes: list[tuple[int, int]]) -> list[list[int]]:
    """split[i][j]: where the cheapest product of matrices i..j splits (the chain-order DP)."""
    n = len(shapes)
    dims = [shapes[0][0]] + [s[1] for s in shapes]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] < 0 or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def linalg_multi_dot(tensors: Any) -> Any:
    tensors = list(tensors)
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0].dim(), tensors[-1].dim()
    if first not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first}D")
    if last not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last}D")
    for i in range(1, n - 1):
        if tensors[i].dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {tensors[i].dim()}D")
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype != tensors[0].dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{tensors[0].dtype.cpp_name} and tensor {i} {t.dtype.cpp_name}")
    mats = list(tensors)
    if first == 1:
        mats[0] = mats[0].unsqueeze(0)
    if last == 1:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(n - 1):
        if mats[i].shape[-1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes {list(tensors[i].shape)} and "
                               f"{list(tensors[i + 1].shape)} cannot be multiplied")
    split = _multi_dot_order([tuple(m.shape) for m in mats])

    def product(i: int, j: int) -> Any:
        if i == j:
            return mats[i]
        k = split[i][j]
        return _matmul(product(i, k), product(k + 1, j))
    out = product(0, n - 1)
    if first == 1:
        out = out.squeeze(0)
    if last == 1:
        out = out.squeeze(-1)
    return out
