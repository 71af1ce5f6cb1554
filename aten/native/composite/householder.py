"""torch.linalg.householder_product (and its old name orgqr): the first n columns of the product of
k Householder reflectors H_i = I - tau_i v_i v_i^T, v_i being column i of `input` below the diagonal
with a 1 on it (LAPACK's orgqr, the form torch.geqrf returns). Composed of differentiable ops, one
reflector at a time applied to the identity's first n columns, so it runs on every device and its
gradients (input and tau) follow from the ops'."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_eye_m = find_operator("eye.m")
_arange = find_operator("arange")
_where = find_operator("where.self")
_matmul = find_operator("matmul")
_OP = "torch.linalg.householder_product"


def _check(input: Any, tau: Any) -> None:
    if input.dim() < 2:
        raise RuntimeError(f"{_OP}: input must have at least 2 dimensions.")
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError(f"{_OP}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.dim() == 0:
        raise IndexError("Dimension specified as -1 but tensor has no dimensions")
    if input.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{_OP}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if input.dim() - tau.dim() != 1:
        raise RuntimeError(f"{_OP}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {input.dim()}")
    if tuple(tau.shape[:-1]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{_OP}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype != input.dtype:
        raise RuntimeError(f"{_OP}: tau dtype {tau.dtype.type_name} does not match input dtype "
                           f"{input.dtype.type_name}")
    if input.dtype.name not in ("float32", "float64"):
        kernel = "orgqr_cuda" if input.is_cuda else "orgqr_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{input.dtype.type_name}\'')


def linalg_householder_product(input: Any, tau: Any) -> Any:
    _check(input, tau)
    m, n = input.shape[-2], input.shape[-1]
    batch = tuple(input.shape[:-2])
    q = _eye_m(m, n, dtype=input.dtype, device=input.device).expand(batch + (m, n))
    rows = _arange(m, device=input.device)
    for i in range(tau.shape[-1] - 1, -1, -1):
        column = input[..., :, i]
        v = _where(rows > i, column, (rows == i).to(input.dtype))                     # (..., m)
        q = q - tau[..., i, None, None] * _matmul(v.unsqueeze(-1), _matmul(v.unsqueeze(-2), q))
    return q.contiguous()


def orgqr(self: Any, input2: Any) -> Any:
    return linalg_householder_product(self, input2)
