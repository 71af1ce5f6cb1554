"""kl_divergence: the closed forms against Monte Carlo estimates (NumPy/SciPy log densities of
SciPy samples) and SciPy quadrature, dispatch by subclass, register_kl, and the errors for
unregistered pairs."""
import warnings

import numpy as np
import pytest
from scipy import integrate, stats

import torch
import torch.distributions as D

RNG = np.random.default_rng(0)
A, B = np.array([0.7, 2.0]), np.array([1.3, 0.6])


def t(x):
    return torch.tensor(x, dtype=torch.float64)


def _monte_carlo(p, q, n=200000):
    x = p.rvs(size=(n,) + np.shape(p.mean()), random_state=RNG)
    return np.mean(p.logpdf(x) - q.logpdf(x), axis=0)


PAIRS = [
    ("normal", D.Normal(t(A), t(B)), D.Normal(t(B), t(A)), stats.norm(A, B), stats.norm(B, A)),
    ("laplace", D.Laplace(t(A), t(B)), D.Laplace(t(B), t(A)), stats.laplace(A, B), stats.laplace(B, A)),
    ("exponential", D.Exponential(t(A)), D.Exponential(t(B)), stats.expon(scale=1 / A), stats.expon(scale=1 / B)),
    ("gamma", D.Gamma(t(A), t(B)), D.Gamma(t(B), t(A)), stats.gamma(A, scale=1 / B), stats.gamma(B, scale=1 / A)),
    ("beta", D.Beta(t(A), t(B)), D.Beta(t(B), t(A)), stats.beta(A, B), stats.beta(B, A)),
    ("normal_laplace", D.Normal(t(A), t(B)), D.Laplace(t(B), t(A)), stats.norm(A, B), stats.laplace(B, A)),
    ("gamma_normal", D.Gamma(t(A), t(B)), D.Normal(t(B), t(A)), stats.gamma(A, scale=1 / B), stats.norm(B, A)),
    ("uniform_normal", D.Uniform(t(A - 1), t(A)), D.Normal(t(B), t(A)), stats.uniform(A - 1, 1), stats.norm(B, A)),
    ("log_normal", D.LogNormal(t(A), t(B)), D.LogNormal(t(B), t(A)), stats.lognorm(B, scale=np.exp(A)),
     stats.lognorm(A, scale=np.exp(B))),
]


@pytest.mark.parametrize("name, p, q, sp, sq", PAIRS, ids=[x[0] for x in PAIRS])
def test_continuous_kl_matches_a_monte_carlo_estimate(name, p, q, sp, sq):
    estimate = _monte_carlo(sp, sq)
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), estimate, rtol=0.03, atol=0.01)


def test_discrete_kl_matches_the_sum_over_the_support():
    k = np.arange(0, 200)
    np.testing.assert_allclose(D.kl_divergence(D.Poisson(t(A)), D.Poisson(t(B))).numpy(),
                               [np.sum(stats.poisson(a).pmf(k) * (stats.poisson(a).logpmf(k)
                                                                  - stats.poisson(b).logpmf(k))) for a, b in zip(A, B)],
                               rtol=1e-9)
    p, q = np.array([0.2, 0.3, 0.5]), np.array([0.1, 0.6, 0.3])
    assert np.isclose(float(D.kl_divergence(D.Categorical(t(p)), D.Categorical(t(q)))), stats.entropy(p, q))
    pb, qb = np.array([0.2, 0.9]), np.array([0.6, 0.3])
    np.testing.assert_allclose(D.kl_divergence(D.Bernoulli(t(pb)), D.Bernoulli(t(qb))).numpy(),
                               [stats.entropy([x, 1 - x], [y, 1 - y]) for x, y in zip(pb, qb)], rtol=1e-10)


def test_dirichlet_kl_matches_quadrature_for_two_components():
    p, q = D.Dirichlet(t([2.0, 3.0])), D.Dirichlet(t([1.5, 0.8]))
    sp, sq = stats.beta(2.0, 3.0), stats.beta(1.5, 0.8)
    expected = integrate.quad(lambda x: sp.pdf(x) * (sp.logpdf(x) - sq.logpdf(x)), 0, 1)[0]
    np.testing.assert_allclose(float(D.kl_divergence(p, q)), expected, rtol=1e-7)


def test_multivariate_normal_kl_matches_the_closed_form_in_numpy():
    cov_p = np.array([[1.0, 0.3], [0.3, 2.0]])
    cov_q = np.array([[0.5, -0.1], [-0.1, 1.0]])
    mu_p, mu_q = np.array([0.0, 1.0]), np.array([1.0, -1.0])
    inv_q = np.linalg.inv(cov_q)
    expected = 0.5 * (np.trace(inv_q @ cov_p) + (mu_q - mu_p) @ inv_q @ (mu_q - mu_p) - 2
                      + np.log(np.linalg.det(cov_q) / np.linalg.det(cov_p)))
    kl = D.kl_divergence(D.MultivariateNormal(t(mu_p), t(cov_p)),
                         D.MultivariateNormal(t(mu_q), precision_matrix=t(inv_q)))
    np.testing.assert_allclose(float(kl), expected, rtol=1e-10)


def test_independent_and_transformed_pairs_reduce_to_their_bases():
    p, q = D.Normal(t(A), t(B)), D.Normal(t(B), t(A))
    base = D.kl_divergence(p, q)
    assert torch.allclose(D.kl_divergence(D.Independent(p, 1), D.Independent(q, 1)), base.sum())
    exp = D.ExpTransform()
    assert torch.allclose(D.kl_divergence(D.TransformedDistribution(p, exp), D.TransformedDistribution(q, exp)), base)
    with pytest.raises(NotImplementedError):
        D.kl_divergence(D.TransformedDistribution(p, exp), D.TransformedDistribution(q, D.SigmoidTransform()))


def test_kl_is_infinite_where_q_misses_part_of_ps_support():
    assert torch.isinf(D.kl_divergence(D.Normal(0.0, 1.0), D.Exponential(1.0)))
    assert D.kl_divergence(D.Uniform(t([0.0, 0.0]), t([1.0, 1.0])),
                           D.Uniform(t([-1.0, 0.5]), t([2.0, 2.0]))).isinf().tolist() == [False, True]


def test_unregistered_pairs_raise_not_implemented_error():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Categorical and "
                                                  "q type Normal"):
        D.kl_divergence(D.Categorical(torch.ones(2)), D.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="cannot"):
        D.kl_divergence(D.Bernoulli(0.5), D.Normal(0.0, 1.0))  # only the ExponentialFamily fallback matches


def test_register_kl_takes_the_most_specific_registration_for_subclasses():
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        return torch.tensor(42.0)

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 42.0
    assert D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 1.0)).item() == 0.0
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        D.register_kl(int, D.Normal)


def test_ambiguous_registrations_warn():
    class P(D.Normal):
        pass

    class Q(D.Normal):
        pass

    D.register_kl(P, D.Normal)(lambda p, q: torch.tensor(1.0))
    D.register_kl(D.Normal, Q)(lambda p, q: torch.tensor(2.0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        D.kl_divergence(P(0.0, 1.0), Q(0.0, 1.0))
    assert any("Ambiguous kl_divergence(P, Q)" in str(w.message) for w in caught)
