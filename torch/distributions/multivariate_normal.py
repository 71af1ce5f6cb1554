"""torch.distributions.multivariate_normal: the multivariate normal, parametrised by a covariance
matrix, a precision matrix or a lower Cholesky factor of the covariance."""
from __future__ import annotations

import math

import torch
from torch import Tensor
from torch.distributions import _linalg, constraints
from torch.distributions.distribution import Distribution
from torch.distributions.utils import ShapeLike, _standard_normal, lazy_property

__all__ = ["MultivariateNormal"]


class _PositiveDefinite(type(constraints.positive_definite)):  # type: ignore[misc]
    """constraints.positive_definite (same repr) checked with _linalg's Cholesky: Ember's
    torch.linalg may lack cholesky_ex, which the shared constraint needs."""

    def check(self, value: Tensor) -> Tensor:
        symmetric = constraints.symmetric.check(value)
        if not bool(symmetric.all()):
            return symmetric
        return _linalg.cholesky_info(value).eq(0)


_positive_definite = _PositiveDefinite()


def _batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    return torch.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL: Tensor, bx: Tensor) -> Tensor:
    """x^T (L L^T)^-1 x over the batch dims of bx, which end with (a broadcast of) bL's."""
    solved = _linalg.solve_lower_triangular(bL, bx.unsqueeze(-1)).squeeze(-1)
    return solved.pow(2).sum(-1)


def _precision_to_scale_tril(precision: Tensor) -> Tensor:
    # P = U U^T with U upper (from the Cholesky of P with rows and columns reversed); then the
    # covariance P^-1 = U^-T U^-1, whose lower Cholesky factor is U^-T
    lf = _linalg.cholesky(torch.flip(precision, (-2, -1)))
    l_inv = torch.transpose(torch.flip(lf, (-2, -1)), -2, -1)
    eye = torch.eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return _linalg.solve_lower_triangular(l_inv, eye.expand(l_inv.shape))


class MultivariateNormal(Distribution):
    """MultivariateNormal(loc, covariance_matrix=, precision_matrix= or scale_tril=): exactly one
    of the three. Everything is computed from the lower Cholesky factor of the covariance."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": _positive_definite,
                       "precision_matrix": _positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        if scale_tril is not None:
            if scale_tril.dim() < 2:
                raise ValueError("scale_tril matrix must be at least two-dimensional, with optional leading batch "
                                 "dimensions")
            batch_shape = torch.broadcast_shapes(scale_tril.shape[:-2], loc.shape[:-1])
            self.scale_tril = scale_tril.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            if covariance_matrix.dim() < 2:
                raise ValueError("covariance_matrix must be at least two-dimensional, with optional leading batch "
                                 "dimensions")
            batch_shape = torch.broadcast_shapes(covariance_matrix.shape[:-2], loc.shape[:-1])
            self.covariance_matrix = covariance_matrix.expand(batch_shape + (-1, -1))
        else:
            assert precision_matrix is not None
            if precision_matrix.dim() < 2:
                raise ValueError("precision_matrix must be at least two-dimensional, with optional leading batch "
                                 "dimensions")
            batch_shape = torch.broadcast_shapes(precision_matrix.shape[:-2], loc.shape[:-1])
            self.precision_matrix = precision_matrix.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _linalg.cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: ShapeLike, _instance: MultivariateNormal | None = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = torch.Size(batch_shape)
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(batch_shape + self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        return self._finish_expand(new, batch_shape, self.event_shape)

    def _matrix_shape(self) -> torch.Size:
        return self._batch_shape + self._event_shape + self._event_shape

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        lower = self._unbroadcasted_scale_tril
        return torch.matmul(lower, lower.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        return _linalg.cholesky_inverse(self._unbroadcasted_scale_tril).expand(self._matrix_shape())

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape: ShapeLike = torch.Size()) -> Tensor:
        eps = _standard_normal(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def _half_log_det(self) -> Tensor:
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        m = _batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self) -> Tensor:
        h = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h if len(self._batch_shape) == 0 else h.expand(self._batch_shape)
