"""Portable kernels for the matrix-vector and batched-add products: dot, vdot, mv, addmv, baddbmm
and addbmm written over mm/bmm (which every device has), registered as CompositeExplicitAutograd
beside the CPU kernels as in portable.py. The checks are the device-neutral ones (aten/native/meta/linalg_checks.pyx).
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.linalg_checks import check_addbmm, check_addmv, check_baddbmm, check_dot, check_mv

_mm = find_operator("mm")
_bmm = find_operator("bmm")
_mul = find_operator("mul.Tensor")
_add = find_operator("add.Tensor")
_to = find_operator("to.dtype")
_reshape = find_operator("reshape")
_permute = find_operator("permute")
_unsqueeze = find_operator("unsqueeze")


def _scaled_sum(product: Any, self: Any, beta: Any, alpha: Any) -> Any:
    """alpha * product + beta * self in product's dtype; beta == 0 ignores self (NaN in it too)."""
    out = product if alpha == 1 else _mul(product, alpha)
    if beta != 0:
        out = _add(out, self if beta == 1 else _mul(self, beta))
    return out if out.dtype is product.dtype else _to(out, product.dtype)


def dot(self: Any, tensor: Any) -> Any:
    check_dot("dot", self, tensor)
    return _reshape(_mm(_unsqueeze(self, 0), _unsqueeze(tensor, 1)), ())


def vdot(self: Any, other: Any) -> Any:
    """Real dtypes only: the conjugate is the identity, so vdot is dot."""
    return dot(self, other)


def mv(self: Any, vec: Any) -> Any:
    check_mv(self, vec)
    return _reshape(_mm(self, _unsqueeze(vec, 1)), (self.shape[0],))


def addmv(self: Any, mat: Any, vec: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    check_addmv(self, mat, vec)
    return _scaled_sum(_reshape(_mm(mat, _unsqueeze(vec, 1)), (mat.shape[0],)), self, beta, alpha)


def baddbmm(self: Any, batch1: Any, batch2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    check_baddbmm(self, batch1, batch2)
    return _scaled_sum(_bmm(batch1, batch2), self, beta, alpha)


def addbmm(self: Any, batch1: Any, batch2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    """The batch's products summed: one (m, b*k) @ (b*k, n) product."""
    check_addbmm(self, batch1, batch2)
    b, m, k = batch1.shape
    n = batch2.shape[2]
    left = _reshape(_permute(batch1, (1, 0, 2)), (m, b * k))
    return _scaled_sum(_mm(left, _reshape(batch2, (b * k, n))), self, beta, alpha)
