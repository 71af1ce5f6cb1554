"""torch.nn.utils.parametrizations: weight_norm, spectral_norm and orthogonal as parametrizations
(PyTorch's torch/nn/utils/parametrizations.py contract), registered with
torch.nn.utils.parametrize.register_parametrization."""
from __future__ import annotations

from typing import Any

import torch
from torch import Tensor
from torch.nn import functional as F
from torch.nn.modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from torch.nn.modules.module import Module
from torch.nn.utils import parametrize
from torch.nn.utils.weight_norm import _norm_except_dim, _weight_norm

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.size(-2), Q.size(-1)
    identity = torch.eye(k, dtype=Q.dtype, device=Q.device)
    return torch.allclose(Q.mH @ Q, identity, atol=10.0 * n * torch.finfo(Q.dtype).eps)


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A = QR (A tall) with R's diagonal made non-negative."""
    X, tau = torch.geqrf(A)
    Q = torch.linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):
    """Maps an unconstrained (batch of) matrix to an orthogonal one: the exponential or the Cayley
    transform of its skew-symmetric part, or the product of the Householder reflectors its lower
    triangle holds. With use_trivialization, the result is `base @ Q`, base being the orthogonal
    matrix last assigned (so assigning does not need to invert the map)."""
    base: Tensor

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()            # n k - k (k - 1) / 2 free parameters
            if n != k:
                X = torch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH            # skew-symmetric
            if self.orthogonal_map == "matrix_exp":
                Q = torch.matrix_exp(A)
            else:                   # the Cayley retraction (I + A/2)(I - A/2)^-1
                identity = torch.eye(n, dtype=A.dtype, device=A.device)
                Q = torch.linalg.solve(torch.add(identity, A, alpha=-0.5), torch.add(identity, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = torch.linalg.householder_product(A, tau)
            # X's diagonal holds the signs (1 or -1), neither differentiated nor updated: hence the int cast
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    @torch.no_grad()
    def right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in ("matrix_exp", "cayley"):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            A, tau = torch.geqrf(Q)
            # geqrf's R diagonal signs become the parameters' diagonal; a reflection LAPACK skipped
            # (tau exactly 0) flips its sign back
            A.diagonal(dim1=-2, dim2=-1).sign_()
            A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
            return A.mT if transpose else A
        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:                       # complete Q to an n x n orthogonal matrix
            N = torch.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(torch.cat([Q, N], dim=-1))
        self.base = Q
        neg_identity = torch.zeros_like(Q_init)
        neg_identity.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_identity


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain module.<name> to be an orthogonal matrix (or batch of them), through
    "matrix_exp" (the default for square matrices), "cayley" or "householder" (the default
    otherwise); the current value is projected onto the orthogonal matrices on registration."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    """weight = original1 * original0 / ||original1|| (original0 = g, original1 = v)."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize module.<name> by its magnitude (`parametrizations.<name>.original0`) and
    direction (`original1`); state dicts of the legacy weight_norm (`<name>_g`, `<name>_v`) load.

    Args:
        name: the parameter. dim: the dimension the norm is kept over (None: the whole tensor).
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def load_legacy_names(state_dict: Any, prefix: str, local_metadata: Any, strict: bool, missing_keys: list[str],
                          unexpected_keys: list[str], error_msgs: list[str]) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    # Stored bare: the loader calls it without the module (PyTorch's with_module=False).
    module._add_hook(module._load_state_dict_pre_hooks, load_legacy_names, False)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight as a matrix (dim first),
    estimated by power iteration on the buffers `_u` and `_v` (run only in training)."""

    _u: Tensor
    _v: Tensor

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # Start from a good estimate (PyTorch runs 15 iterations here).
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # In place on the buffers, which must not be part of the autograd graph.
        with torch.no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(torch.mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(torch.mv(weight_mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # Clones: the next forward updates the buffers in place, which backward must not see.
        u = self._u.clone(memory_format=torch.contiguous_format)
        v = self._v.clone(memory_format=torch.contiguous_format)
        sigma = torch.vdot(u, torch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    """Divide module.<name> by its spectral norm, estimated by power iteration in each training
    forward (buffers `parametrizations.<name>.0._u` and `_v`).

    Args:
        n_power_iterations: iterations per forward. eps: for numerical stability in normalising.
        dim: the output dimension (default 0, or 1 for ConvTranspose modules).
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
