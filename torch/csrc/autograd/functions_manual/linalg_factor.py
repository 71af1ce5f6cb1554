"""Backward formulas' helpers for torch.linalg's factorizations and solvers: PyTorch's
FunctionsManual.cpp formulas for real matrices (inverse, det, slogdet, solve, triangular solve,
Cholesky, eigh, SVD, QR, lstsq, LU), written with differentiable ops so they differentiate again."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_solve_ex = find_operator("linalg_solve_ex")
_solve_triangular = find_operator("linalg_solve_triangular")
_inv_ex = find_operator("linalg_inv_ex")
_svd = find_operator("linalg_svd")
_det = find_operator("linalg_det")
_pinv = find_operator("linalg_pinv.atol_rtol_float")
_eye = find_operator("eye")
_zeros_like = find_operator("zeros_like")
_cat = find_operator("cat")
_ones_like = find_operator("ones_like")
_where = find_operator("where.self")
_lu_unpack = find_operator("lu_unpack")
_stack = find_operator("stack")
_cross = find_operator("linalg_cross")

__all__ = ["inv_backward", "linalg_det_backward", "slogdet_backward", "linalg_solve_backward_A",
           "linalg_solve_backward_B", "solve_triangular_backward_A", "solve_triangular_backward_B",
           "cholesky_backward", "eigh_backward", "svd_backward", "linalg_qr_backward", "lstsq_backward_A",
           "lstsq_backward_B", "lu_factor_ex_backward", "lu_unpack_backward", "linalg_lu_solve_LU"]


def _identity_like(A: Any) -> Any:
    return _eye(A.shape[-1], dtype=A.dtype, device=A.device)


def inv_backward(grad: Any, inverse: Any) -> Any:
    if grad is None:
        return None
    ih = inverse.mH
    return -(ih @ (grad @ ih))


def _prod_except_each(S: Any) -> Any:
    """prod_{j != i} S_j for each i along the last dim, without dividing (S may hold zeros)."""
    ones = _ones_like(S[..., :1])
    before = _cat([ones, S[..., :-1].cumprod(-1)], -1)
    after = _cat([ones, S.flip(-1)[..., :-1].cumprod(-1)], -1).flip(-1)
    return before * after


def _cofactors_small(A: Any) -> Any:
    """The cofactor matrix of 1x1, 2x2 and 3x3 matrices (3x3: its rows are cross products of A's)."""
    n = A.shape[-1]
    if n == 1:
        return _ones_like(A)
    if n == 2:
        first = _stack([A[..., 1, 1], -A[..., 1, 0]], -1)
        second = _stack([-A[..., 0, 1], A[..., 0, 0]], -1)
        return _stack([first, second], -2)
    rows = [A[..., i, :] for i in range(3)]
    return _stack([_cross(rows[1], rows[2]), _cross(rows[2], rows[0]), _cross(rows[0], rows[1])], -2)


def linalg_det_backward(grad: Any, det: Any, A: Any) -> Any:
    """det(A) A^-H where A is invertible; through the SVD where det(A) = 0 (the cofactor matrix
    U diag(prod_{j != i} S_j) Vh times det(U) det(Vh)), as PyTorch."""
    if grad is None:
        return None
    if A.shape[-1] == 0:
        return _zeros_like(A)
    if A.device.type != "cpu" and A.shape[-1] <= 3:    # no inverse kernel there: the cofactors written out
        return grad.unsqueeze(-1).unsqueeze(-1) * _cofactors_small(A)
    d = (grad * det).unsqueeze(-1).unsqueeze(-1)
    gA = d * _inv_ex(A)[0].mH
    singular = det == 0
    if bool(singular.any()):
        U, S, Vh = _svd(A, False)
        alpha = (_det(U) * _det(Vh) * grad).unsqueeze(-1)
        cofactor = (U * (alpha * _prod_except_each(S)).unsqueeze(-2)) @ Vh
        gA = _where(singular.unsqueeze(-1).unsqueeze(-1), cofactor, gA)
    return gA


def slogdet_backward(grad_logabsdet: Any, A: Any) -> Any:
    if grad_logabsdet is None:
        return None
    return grad_logabsdet.unsqueeze(-1).unsqueeze(-1) * _inv_ex(A)[0].mH


def _vector_case(X: Any, A: Any) -> bool:
    return X.dim() == A.dim() - 1


def linalg_solve_backward_B(gX: Any, A: Any, left: bool) -> Any:
    if gX is None:
        return None
    return _solve_ex(A.mH, gX, left=left)[0]


def linalg_solve_backward_A(gX: Any, X: Any, A: Any, left: bool) -> Any:
    if gX is None:
        return None
    gB = _solve_ex(A.mH, gX, left=left)[0]
    if _vector_case(X, A):
        return -(gB.unsqueeze(-1) @ X.unsqueeze(-1).mH)
    return -(gB @ X.mH) if left else -(X.mH @ gB)


def _triangle(gA: Any, upper: bool, unitriangular: bool) -> Any:
    if upper:
        return gA.triu(1 if unitriangular else 0)
    return gA.tril(-1 if unitriangular else 0)


def solve_triangular_backward_B(grad: Any, A: Any, upper: bool, left: bool, unitriangular: bool) -> Any:
    if grad is None:
        return None
    return _solve_triangular(A.mH, grad, upper=not upper, left=left, unitriangular=unitriangular)


def solve_triangular_backward_A(grad: Any, X: Any, A: Any, upper: bool, left: bool, unitriangular: bool) -> Any:
    if grad is None:
        return None
    gB = _solve_triangular(A.mH, grad, upper=not upper, left=left, unitriangular=unitriangular)
    gA = -(gB @ X.mH) if left else -(X.mH @ gB)
    return _triangle(gA, upper, unitriangular)


def cholesky_backward(gL: Any, upper: bool, L: Any) -> Any:
    """A = L L^H: gA = L^-H Phi(L^H gL) L^-1 with Phi the lower triangle, its diagonal halved, made
    Hermitian (Murray 2016), as PyTorch."""
    if gL is None:
        return None
    if upper:
        L, gL = L.mH, gL.mH
    gA = (L.mH @ gL).tril()
    gA = 0.5 * (gA + gA.tril(-1).mH)
    gA = _solve_triangular(L.mH, gA, upper=True, left=True)
    return _solve_triangular(L, gA, upper=False, left=False)


def _off_diagonal_reciprocal_difference(values: Any) -> Any:
    """E_ij = values_j - values_i off the diagonal, 1 on it (the divisor of the vectors' term)."""
    E = values.unsqueeze(-2) - values.unsqueeze(-1)
    eye = _identity_like(E)
    return E * (1 - eye) + eye


def eigh_backward(gL: Any, gV: Any, L: Any, V: Any) -> Any:
    """gA = V (diag(gL) + skew(V^H gV) / E) V^H, with E_ij = L_j - L_i (PyTorch's linalg_eig_backward
    for Hermitian input)."""
    if gL is None and gV is None:
        return None
    if gV is None:
        return (V * gL.unsqueeze(-2)) @ V.mH
    VhgV = V.mH @ gV
    inner = 0.5 * (VhgV - VhgV.mH) / _off_diagonal_reciprocal_difference(L)
    eye = _identity_like(inner)
    inner = inner * (1 - eye)
    if gL is not None:
        inner = inner + gL.diag_embed()
    return V @ (inner @ V.mH)


def svd_backward(gU: Any, gS: Any, gVh: Any, U: Any, S: Any, Vh: Any) -> Any:
    """PyTorch's svd_backward for real input (reduced factors; full ones narrowed to k first)."""
    if gU is None and gS is None and gVh is None:
        return None
    m, n, k = U.shape[-2], Vh.shape[-1], S.shape[-1]
    U, Vh = U[..., :k], Vh[..., :k, :]
    gU = None if gU is None else gU[..., :k]
    gVh = None if gVh is None else gVh[..., :k, :]
    if gU is None and gVh is None:
        return (U * gS.unsqueeze(-2)) @ Vh
    S2 = S * S
    E = _off_diagonal_reciprocal_difference(S2)
    eye = _identity_like(E)
    UhgU = None if gU is None else (lambda X: X - X.mH)(U.mH @ gU)
    VhgV = None if gVh is None else (lambda X: X - X.mH)(Vh @ gVh.mH)
    if UhgU is not None and VhgV is not None:
        gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    elif UhgU is not None:
        gA = (UhgU / E) * S.unsqueeze(-2)
    else:
        gA = S.unsqueeze(-1) * (VhgV / E)
    gA = gA * (1 - eye)
    if gS is not None:
        gA = gA + gS.diag_embed()
    if m > n and gU is not None:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (U.mH @ gUSinv)
        return gA @ Vh
    if m < n and gVh is not None:
        gA = gA @ Vh
        SinvgVh = gVh / S.unsqueeze(-1)
        gA = gA + SinvgVh - (SinvgVh @ Vh.mH) @ Vh
        return U @ gA
    return U @ (gA @ Vh) if m >= n else (U @ gA) @ Vh


def _qr_backward_tall(gQ: Any, gR: Any, Q: Any, R: Any) -> Any:
    """m >= n, reduced: gA = (gQ + Q copyltu(M)) R^-H with M = R gR^H - gQ^H Q."""
    M: Any = -(gQ.mH @ Q) if gQ is not None else None
    if gR is not None:
        M = R @ gR.mH if M is None else M + R @ gR.mH
    lower = M.tril(-1)
    sym = lower + lower.mH + M.diagonal(0, -2, -1).diag_embed()
    b = Q @ sym if gQ is None else gQ + Q @ sym
    return _solve_triangular(R.mH, b, upper=False, left=False)


def check_qr_differentiable(A: Any, mode: str) -> None:
    """PyTorch's errors for the QR decompositions that have no derivative."""
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                           "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    if mode == "complete" and A.shape[-2] > A.shape[-1]:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")


def linalg_qr_backward(gQ: Any, gR: Any, A: Any, Q: Any, R: Any, mode: str) -> Any:
    if gQ is None and gR is None:
        return None
    check_qr_differentiable(A, mode)
    m, n = A.shape[-2], A.shape[-1]
    if m >= n:
        return _qr_backward_tall(gQ, gR, Q, R)
    # m < n: A = [X | Y] with X = Q U square; Y = Q V contributes through gV (TensorFlow's QrGrad)
    Y = A[..., m:]
    gU = None if gR is None else gR[..., :m]
    gV = None if gR is None else gR[..., m:]
    gQ_total = gQ if gV is None else (Y @ gV.mH if gQ is None else gQ + Y @ gV.mH)
    gX = _qr_backward_tall(gQ_total, gU, Q, R[..., :m])
    gY = Q @ gV if gV is not None else _zeros_like(Y)
    return _cat([gX, gY], -1)


def _pinv_backward(grad: Any, pinvA: Any, A: Any) -> Any:
    """PyTorch's pinv_backward: the gradient of A from the gradient of pinv(A)."""
    m, n = A.shape[-2], A.shape[-1]
    pinvAh, gradh = pinvA.mH, grad.mH
    if m <= n:
        K = gradh @ pinvA
        KpinvAh = K @ pinvAh
        return -(pinvA @ K).mH + KpinvAh - (A @ pinvA) @ KpinvAh + (pinvAh @ pinvA) @ (gradh - K @ A)
    K = pinvA @ gradh
    pinvAhK = pinvAh @ K
    return -(K @ pinvA).mH + pinvAhK - (pinvAhK @ pinvA) @ A + (gradh - A @ K) @ (pinvA @ pinvAh)


def _as_matrix(b: Any, A: Any) -> Any:
    return b.unsqueeze(-1) if b.dim() == A.dim() - 1 else b


def lstsq_backward_A(gX: Any, A: Any, B: Any) -> Any:
    if gX is None:
        return None
    pinvA = _pinv(A)
    return _pinv_backward(_as_matrix(gX, A) @ _as_matrix(B, A).mH, pinvA, A)


def lstsq_backward_B(gX: Any, A: Any, B: Any) -> Any:
    if gX is None:
        return None
    g = _pinv(A).mH @ _as_matrix(gX, A)
    return g.squeeze(-1) if B.dim() == A.dim() - 1 else g


def lu_factor_ex_backward(gLU: Any, LU: Any, pivots: Any) -> Any:
    """A = P L U (square): gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H, gL and gU the parts of
    gLU below and on/above the diagonal."""
    if gLU is None:
        return None
    m, n = LU.shape[-2], LU.shape[-1]
    if m != n:
        raise NotImplementedError("linalg.lu_factor: the derivative of the LU of a non-square matrix is not "
                                  "implemented in Ember")
    P, L, U = _lu_unpack(LU, pivots)
    gR = (L.mH @ gLU.tril(-1)).tril(-1) + (gLU.triu() @ U.mH).triu()
    gA = _solve_triangular(L.mH, gR, upper=True, left=True, unitriangular=True)
    gA = _solve_triangular(U.mH, gA, upper=False, left=False)
    return P @ gA


def lu_unpack_backward(gL: Any, gU: Any, sizes: Any) -> Any:
    """L (m x k) is LU's strict lower part with a unit diagonal, U (k x n) its upper part: each
    gradient lands in its part of the m x n LU."""
    m, n = int(sizes[-2]), int(sizes[-1])
    parts = [g for g in (None if gL is None else gL.tril(-1), None if gU is None else gU.triu()) if g is not None]
    if not parts:
        return None
    total = None
    for part in parts:
        rows, cols = part.shape[-2], part.shape[-1]
        if rows < m:
            part = _cat([part, _zeros_like(part[..., :1, :]).expand(*part.shape[:-2], m - rows, cols)], -2)
        if cols < n:
            part = _cat([part, _zeros_like(part[..., :, :1]).expand(*part.shape[:-2], m, n - cols)], -1)
        total = part if total is None else total + part
    return total


def linalg_lu_solve_LU(gX: Any, LU: Any, pivots: Any, X: Any, left: bool, adjoint: bool) -> Any:
    """The gradient of lu_solve's X with respect to the packed factors (PyTorch's linalg_lu_solve_LU):
    the strictly lower part belongs to L (unit diagonal), the rest to U."""
    P, L, U = _lu_unpack(LU, pivots, True, left == adjoint)
    if left != adjoint:
        # gR = U^-H op(-gX) op(X)^H, gL = (L^-H gR U^H) strictly lower
        rhs = -((gX @ X.mH) if left else (gX.mH @ X))
        gR = _solve_triangular(U.mH, rhs, upper=False)
        gL = _solve_triangular(L.mH, gR @ U.mH, upper=True, left=True, unitriangular=True).tril(-1)
        return gL + gR.triu()
    # gR = -P^T op(X) op(gX)^H P, solved against L^H from the right, then U's part against U^H
    gR = -(P.mT @ (X if left else X.mH) @ (gX.mH if left else gX) @ P)
    gR = _solve_triangular(L.mH, gR, upper=True, left=False, unitriangular=True)
    gU = _solve_triangular(U.mH, L.mH @ gR, upper=False, left=False).triu()
    return gR.tril(-1) + gU
