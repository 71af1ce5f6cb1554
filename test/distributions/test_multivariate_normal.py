"""MultivariateNormal's linear algebra: the batched Cholesky factor and triangular solve it uses
(torch.distributions._linalg) against NumPy, gradients through them, and batch broadcasting
between loc and the matrix parameter."""
import numpy as np
import pytest

import torch
import torch.distributions as D
from torch.distributions import _linalg

RNG = np.random.default_rng(3)


def _spd(batch, n):
    a = RNG.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def test_cholesky_and_triangular_solve_match_numpy_over_a_batch():
    a = _spd((2, 3), 4)
    lower = _linalg.cholesky(torch.tensor(a))
    np.testing.assert_allclose(lower.numpy(), np.linalg.cholesky(a), rtol=1e-12, atol=1e-12)
    b = RNG.standard_normal((3, 4, 2))  # broadcasts against the (2, 3) batch
    x = _linalg.solve_lower_triangular(lower, torch.tensor(b))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(np.linalg.cholesky(a), b), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_linalg.cholesky_inverse(lower).numpy(), np.linalg.inv(a), rtol=1e-10, atol=1e-12)


def test_cholesky_of_a_matrix_that_is_not_positive_definite_raises_with_the_failing_minor():
    with pytest.raises(RuntimeError, match="the leading minor of order 2 is not positive-definite"):
        _linalg.cholesky(torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=torch.float64))


def test_log_prob_gradients_through_the_covariance_pass_gradcheck():
    cov = torch.tensor(_spd((), 3)).requires_grad_()
    loc = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64).requires_grad_()
    x = torch.tensor([[0.0, 0.0, 0.0], [1.0, -2.0, 0.3]], dtype=torch.float64)

    def log_prob(loc, cov):
        symmetric = (cov + cov.mT) / 2  # gradcheck perturbs one entry at a time
        return D.MultivariateNormal(loc, symmetric, validate_args=False).log_prob(x)
    assert torch.autograd.gradcheck(log_prob, (loc, cov))


def test_loc_and_matrix_batches_broadcast():
    cov = torch.tensor(_spd((2, 1), 3))
    d = D.MultivariateNormal(torch.zeros(4, 3, dtype=torch.float64), cov)
    assert (d.batch_shape, d.event_shape) == ((2, 4), (3,))
    assert d.log_prob(torch.zeros(5, 2, 4, 3, dtype=torch.float64)).shape == (5, 2, 4)
    assert d.covariance_matrix.shape == (2, 4, 3, 3) and d.scale_tril.shape == (2, 4, 3, 3)
    assert d.entropy().shape == (2, 4)
    with pytest.raises(ValueError, match="loc must be at least one-dimensional."):
        D.MultivariateNormal(torch.tensor(0.0), torch.eye(1))


def test_mvn_samples_have_the_covariance():
    torch.manual_seed(0)
    cov = np.array([[2.0, 0.8], [0.8, 1.0]])
    samples = D.MultivariateNormal(torch.tensor([1.0, -1.0], dtype=torch.float64),
                                   torch.tensor(cov)).sample((40000,)).numpy()
    np.testing.assert_allclose(np.cov(samples.T), cov, rtol=0.05, atol=0.02)
    np.testing.assert_allclose(samples.mean(0), [1.0, -1.0], atol=0.03)
