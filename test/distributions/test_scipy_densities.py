"""log_prob, cdf, icdf, entropy, mean and variance in float64 against scipy.stats, for every
distribution over a batch of parameters."""
import numpy as np
import pytest
from scipy import stats

import torch
import torch.distributions as D

A = np.array([0.3, 1.0, 2.5, 7.0])
B = np.array([0.8, 2.0, 0.5, 3.0])
X = np.array([0.2, 0.5, 0.9, 0.05])


def t(x):
    return torch.tensor(x, dtype=torch.float64)


# (name, Ember distribution, scipy frozen distribution, values, has cdf, has icdf)
CONTINUOUS = [
    ("normal", lambda: D.Normal(t(A - 1), t(B)), stats.norm(A - 1, B), X * 4 - 1, True, True),
    ("laplace", lambda: D.Laplace(t(A), t(B)), stats.laplace(A, B), X * 4, True, True),
    ("exponential", lambda: D.Exponential(t(A)), stats.expon(scale=1 / A), X * 3, True, True),
    ("uniform", lambda: D.Uniform(t(-A), t(B)), stats.uniform(-A, A + B), X * B, True, True),
    ("gamma", lambda: D.Gamma(t(A), t(B)), stats.gamma(A, scale=1 / B), X * 5, True, False),
    ("beta", lambda: D.Beta(t(A), t(B)), stats.beta(A, B), X, False, False),
    ("log_normal", lambda: D.LogNormal(t(A - 1), t(B)), stats.lognorm(B, scale=np.exp(A - 1)), X * 3, True, True),
    ("cauchy", lambda: D.Cauchy(t(A), t(B)), stats.cauchy(A, B), X * 4, True, True),
    ("student_t", lambda: D.StudentT(t(A + 2), t(A), t(B)), stats.t(A + 2, A, B), X * 4, False, False),
    ("chi2", lambda: D.Chi2(t(A)), stats.chi2(A), X * 3, True, False),
    ("half_normal", lambda: D.HalfNormal(t(B)), stats.halfnorm(scale=B), X * 2, True, True),
    ("gumbel", lambda: D.Gumbel(t(A), t(B)), stats.gumbel_r(A, B), X * 4, True, True),
    ("pareto", lambda: D.Pareto(t(B), t(A + 2)), stats.pareto(A + 2, scale=B), B + X, True, True),
    ("weibull", lambda: D.Weibull(t(B), t(A)), stats.weibull_min(A, scale=B), X * 2, True, True),
]


@pytest.mark.parametrize("name, make, ref, values, has_cdf, has_icdf", CONTINUOUS, ids=[c[0] for c in CONTINUOUS])
def test_continuous_log_prob_cdf_and_entropy_match_scipy(name, make, ref, values, has_cdf, has_icdf):
    d = make()
    np.testing.assert_allclose(d.log_prob(t(values)).numpy(), ref.logpdf(values), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10, atol=1e-12)
    if has_cdf:
        np.testing.assert_allclose(d.cdf(t(values)).numpy(), ref.cdf(values), rtol=1e-9, atol=1e-12)
    if has_icdf:
        np.testing.assert_allclose(d.icdf(t(X)).numpy(), ref.ppf(X), rtol=1e-9, atol=1e-12)
    if name != "cauchy":
        np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10)
        np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)
        np.testing.assert_allclose(d.stddev.numpy(), ref.std(), rtol=1e-10)


DISCRETE = [
    ("poisson", lambda: D.Poisson(t(A)), stats.poisson(A), np.array([0.0, 1.0, 3.0, 9.0])),
    ("bernoulli", lambda: D.Bernoulli(t(X)), stats.bernoulli(X), np.array([0.0, 1.0, 1.0, 0.0])),
    ("binomial", lambda: D.Binomial(t([5.0, 10.0, 10.0, 30.0]), t(X)), stats.binom([5, 10, 10, 30], X),
     np.array([0.0, 4.0, 10.0, 2.0])),
    ("geometric", lambda: D.Geometric(t(X)), stats.geom(X, loc=-1), np.array([0.0, 2.0, 1.0, 30.0])),
]


@pytest.mark.parametrize("name, make, ref, values", DISCRETE, ids=[c[0] for c in DISCRETE])
def test_discrete_log_prob_and_moments_match_scipy(name, make, ref, values):
    d = make()
    np.testing.assert_allclose(d.log_prob(t(values)).numpy(), ref.logpmf(values), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)
    if name not in ("poisson", "binomial"):  # no Poisson entropy in PyTorch; Binomial's needs one total_count
        np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-9)


def test_binomial_entropy_sums_over_the_support_for_one_total_count():
    np.testing.assert_allclose(D.Binomial(12, t(X)).entropy().numpy(), stats.binom(12, X).entropy(), rtol=1e-10)
    np.testing.assert_allclose(D.Binomial(12, t(X)).enumerate_support().shape, (13, 4))


def test_binomial_entropy_needs_one_total_count():
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count not supported by `entropy`."):
        D.Binomial(t([5.0, 10.0]), t([0.5, 0.5])).entropy()


def test_categorical_and_one_hot_log_prob_and_entropy_match_scipy():
    probs = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    d = D.Categorical(t(probs))
    np.testing.assert_allclose(d.log_prob(t([2.0, 1.0])).numpy(), np.log([0.7, 0.25]), rtol=1e-12)
    np.testing.assert_allclose(d.entropy().numpy(), [stats.entropy(p) for p in probs], rtol=1e-12)
    one_hot = D.OneHotCategorical(logits=t(np.log(probs)))
    np.testing.assert_allclose(one_hot.log_prob(t([[0, 0, 1], [1, 0, 0]])).numpy(), np.log([0.7, 0.5]), rtol=1e-12)
    np.testing.assert_allclose(one_hot.mean.numpy(), probs, rtol=1e-12)


def test_multinomial_log_prob_entropy_and_moments_match_scipy():
    p = np.array([0.2, 0.3, 0.5])
    d, ref = D.Multinomial(7, t(p)), stats.multinomial(7, p)
    x = np.array([[1.0, 2.0, 4.0], [7.0, 0.0, 0.0]])
    np.testing.assert_allclose(d.log_prob(t(x)).numpy(), ref.logpmf(x), rtol=1e-12)
    # PyTorch takes lgamma(total_count) of an integer tensor, in float32
    np.testing.assert_allclose(float(d.entropy()), ref.entropy(), rtol=1e-6)
    np.testing.assert_allclose(d.mean.numpy(), 7 * p, rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), np.diag(ref.cov()), rtol=1e-12)


def test_dirichlet_log_prob_entropy_and_moments_match_scipy():
    alpha = np.array([0.5, 2.0, 3.5])
    x = np.array([0.2, 0.3, 0.5])
    d = D.Dirichlet(t(alpha))
    ref = stats.dirichlet(alpha)
    np.testing.assert_allclose(float(d.log_prob(t(x))), ref.logpdf(x), rtol=1e-12)
    np.testing.assert_allclose(float(d.entropy()), ref.entropy(), rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-12)


def test_exponential_family_entropy_by_autograd_matches_the_closed_form():
    for d in (D.Normal(t(A), t(B)), D.Gamma(t(A), t(B)), D.Exponential(t(A)), D.Bernoulli(t(X))):
        closed = type(d).entropy(d)
        bregman = D.ExponentialFamily.entropy(d)
        np.testing.assert_allclose(bregman.detach().numpy(), closed.detach().numpy(), rtol=1e-10)


def test_multivariate_normal_matches_scipy_for_each_parametrisation():
    cov = np.array([[2.0, 0.6, 0.2], [0.6, 1.0, -0.3], [0.2, -0.3, 0.8]])
    loc = np.array([1.0, -1.0, 0.5])
    x = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, -1.0]])
    ref = stats.multivariate_normal(loc, cov)
    for kwargs in ({"covariance_matrix": t(cov)}, {"precision_matrix": t(np.linalg.inv(cov))},
                   {"scale_tril": t(np.linalg.cholesky(cov))}):
        d = D.MultivariateNormal(t(loc), **kwargs)
        np.testing.assert_allclose(d.log_prob(t(x)).numpy(), ref.logpdf(x), rtol=1e-10)
        np.testing.assert_allclose(float(d.entropy()), ref.entropy(), rtol=1e-10)
        np.testing.assert_allclose(d.covariance_matrix.numpy(), cov, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(d.precision_matrix.numpy(), np.linalg.inv(cov), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(d.variance.numpy(), np.diag(cov), rtol=1e-10)


def test_gamma_cdf_matches_scipy_far_into_both_tails():
    a = np.array([0.01, 0.5, 3.0, 40.0, 400.0])
    x = np.array([1e-30, 1e-3, 12.0, 80.0, 330.0])
    np.testing.assert_allclose(D.Gamma(t(a), t(np.ones(5))).cdf(t(x)).numpy(), stats.gamma(a).cdf(x),
                               rtol=1e-9, atol=1e-300)
