"""The Cholesky factorisation and triangular solves MultivariateNormal and the positive-definite
constraint need, as batched tensor-op loops over the matrix size (autograd flows through them).
torch.linalg's own functions are used instead when Ember has them."""
from __future__ import annotations

import torch
from torch import Tensor


def cholesky(a: Tensor) -> Tensor:
    """The lower Cholesky factor L (L L^T = a) of each matrix in a batch of symmetric positive-definite a."""
    native = getattr(torch.linalg, "cholesky", None)
    if native is not None:
        return native(a)
    lower, info = _cholesky_columns(a)
    if bool((info > 0).any()):
        order = int(info[info > 0].min())
        raise RuntimeError(f"linalg.cholesky: The factorization could not be completed because the input is not "
                           f"positive-definite (the leading minor of order {order} is not positive-definite).")
    return lower


def cholesky_info(a: Tensor) -> Tensor:
    """Per matrix: 0 when a is positive definite, else the order of the first failing leading minor."""
    native = getattr(torch.linalg, "cholesky_ex", None)
    if native is not None:
        return native(a).info
    return _cholesky_columns(a.detach())[1]


def _cholesky_columns(a: Tensor) -> tuple[Tensor, Tensor]:
    # left-looking: column j from a's column j minus the contributions of the columns already made
    n = a.shape[-1]
    batch = tuple(a.shape[:-2])
    info = torch.zeros(batch, dtype=torch.int32, device=a.device)
    columns: list[Tensor] = []
    for j in range(n):
        col = a[..., j:, j]
        if columns:
            done = torch.stack(columns, -1)  # (..., n, j)
            col = col - (done[..., j:, :] * done[..., j:j + 1, :]).sum(-1)
        pivot = col[..., 0]
        info = torch.where((info == 0) & ~(pivot > 0), torch.full_like(info, j + 1), info)
        diag = pivot.clamp(min=torch.finfo(a.dtype).tiny).sqrt()
        below = col[..., 1:] / diag.unsqueeze(-1)
        columns.append(torch.cat([a.new_zeros(batch + (j,)), diag.unsqueeze(-1), below], -1))
    return torch.stack(columns, -1), info


def solve_lower_triangular(lower: Tensor, b: Tensor) -> Tensor:
    """X with lower @ X = b, broadcasting the batch dims of a lower-triangular `lower` and b (..., n, k)."""
    native = getattr(torch.linalg, "solve_triangular", None)
    if native is not None:
        return native(lower, b, upper=False)
    batch = torch.broadcast_shapes(tuple(lower.shape[:-2]), tuple(b.shape[:-2]))
    n = lower.shape[-1]
    lower = lower.expand(batch + (n, n))
    b = b.expand(batch + tuple(b.shape[-2:]))
    rows: list[Tensor] = []
    for i in range(n):
        row = b[..., i, :]
        if rows:
            solved = torch.stack(rows, -2)  # (..., i, k)
            row = row - (lower[..., i, :i].unsqueeze(-1) * solved).sum(-2)
        rows.append(row / lower[..., i, i].unsqueeze(-1))
    return torch.stack(rows, -2)


def cholesky_inverse(lower: Tensor) -> Tensor:
    """(L L^T)^-1 from its lower Cholesky factor L."""
    eye = torch.eye(lower.shape[-1], dtype=lower.dtype, device=lower.device)
    inv_lower = solve_lower_triangular(lower, eye.expand(lower.shape))
    return inv_lower.mT @ inv_lower
