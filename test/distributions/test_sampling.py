"""Sampling: large-sample moments of Ember's own samplers (Gamma, Beta, Dirichlet, Poisson,
Binomial) and of the composed ones, Kolmogorov-Smirnov against scipy, shapes, and rsample
gradients (gradcheck for the location-scale families, the implicit gamma gradient against the
derivative of SciPy's inverse cdf)."""
import numpy as np
import pytest
from scipy import special, stats

import torch
import torch.distributions as D
from torch.distributions import _samplers

N = 40000


def t(x):
    return torch.tensor(x, dtype=torch.float64)


def _check_moments(samples, mean, var, sigmas=5.0):
    """Sample mean within sigmas standard errors; sample variance within 5% (plus a floor)."""
    samples = np.asarray(samples, dtype=np.float64)
    mean, var = np.broadcast_to(mean, samples.shape[1:]), np.broadcast_to(var, samples.shape[1:])
    assert np.all(np.abs(samples.mean(0) - mean) <= sigmas * np.sqrt(var / len(samples)) + 1e-12), \
        (samples.mean(0), mean)
    np.testing.assert_allclose(samples.var(0), var, rtol=0.06, atol=1e-9)


@pytest.mark.parametrize("make", [
    lambda: D.Gamma(t([0.05, 0.7, 1.0, 4.0, 250.0]), t([1.0, 2.0, 0.5, 1.0, 3.0])),
    lambda: D.Beta(t([0.3, 1.0, 5.0]), t([0.6, 3.0, 2.0])),
    lambda: D.Poisson(t([0.0, 0.4, 4.0, 9.99, 10.0, 37.5, 3000.0])),
    lambda: D.Binomial(t([0.0, 1.0, 20.0, 20.0, 100.0, 1000.0, 1000.0]), t([0.4, 0.3, 0.05, 0.95, 0.5, 0.02, 0.7])),
    lambda: D.Exponential(t([0.5, 3.0])),
    lambda: D.Laplace(t([0.0, 2.0]), t([1.0, 0.3])),
    lambda: D.Uniform(t([0.0, -2.0]), t([1.0, 3.0])),
    lambda: D.Geometric(t([0.1, 0.8])),
    lambda: D.LogNormal(t([0.0, 0.5]), t([0.3, 0.6])),
    lambda: D.Bernoulli(t([0.1, 0.6])),
    lambda: D.StudentT(t([5.0, 30.0]), t([1.0, -1.0]), t([2.0, 0.5])),
    lambda: D.Chi2(t([0.5, 3.0, 40.0])),
    lambda: D.Weibull(t([1.0, 2.0]), t([0.8, 3.0])),
    lambda: D.Gumbel(t([1.0, -2.0]), t([0.5, 2.0])),
    lambda: D.Multinomial(9, t([0.2, 0.3, 0.5])),
], ids=["gamma", "beta", "poisson", "binomial", "exponential", "laplace", "uniform", "geometric", "log_normal",
        "bernoulli", "student_t", "chi2", "weibull", "gumbel", "multinomial"])
def test_large_samples_have_the_distributions_mean_and_variance(make):
    torch.manual_seed(0)
    d = make()
    samples = d.sample((N,))
    assert samples.shape == (N,) + tuple(d.batch_shape) + tuple(d.event_shape)
    assert samples.dtype == torch.float64
    assert bool(d.support.check(samples).all())
    _check_moments(samples.numpy(), d.mean.numpy(), d.variance.numpy())


def test_dirichlet_samples_lie_on_the_simplex_with_the_right_moments():
    torch.manual_seed(1)
    d = D.Dirichlet(t([[0.2, 0.5, 1.0], [3.0, 4.0, 10.0]]))
    samples = d.sample((N,))
    assert samples.shape == (N, 2, 3)
    np.testing.assert_allclose(samples.sum(-1).numpy(), 1.0, rtol=1e-12)
    _check_moments(samples.numpy(), d.mean.numpy(), d.variance.numpy())


@pytest.mark.parametrize("alpha", [0.1, 0.9, 1.0, 3.3, 70.0])
def test_gamma_samples_pass_kolmogorov_smirnov_against_scipy(alpha):
    torch.manual_seed(2)
    samples = _samplers.standard_gamma(torch.full((5000,), alpha, dtype=torch.float64)).numpy()
    assert stats.kstest(samples, stats.gamma(alpha).cdf).pvalue > 1e-3


def test_float32_parameters_give_float32_samples_and_no_zeros():
    torch.manual_seed(3)
    for d in (D.Gamma(torch.tensor([0.01]), torch.tensor([1.0])), D.Poisson(torch.tensor([3.0])),
              D.Binomial(torch.tensor([7.0]), torch.tensor([0.3])), D.Dirichlet(torch.tensor([0.05, 0.05]))):
        s = d.sample((100,))
        assert s.dtype == torch.float32
    assert bool((D.Gamma(torch.tensor([0.01]), torch.tensor([1.0])).sample((1000,)) > 0).all())


@pytest.mark.parametrize("make_dist", [
    lambda p, q: D.Normal(p, q), lambda p, q: D.Laplace(p, q), lambda p, q: D.Uniform(p - 2 * q, p + q),
    lambda p, q: D.Cauchy(p, q), lambda p, q: D.LogNormal(p, q), lambda p, q: D.Exponential(q),
    lambda p, q: D.MultivariateNormal(p, scale_tril=torch.diag_embed(q) + torch.tril(p.outer(q), -1)),
], ids=["normal", "laplace", "uniform", "cauchy", "log_normal", "exponential", "mvn"])
def test_reparameterised_samples_pass_gradcheck(make_dist):
    def draw(loc, scale):
        torch.manual_seed(4)  # gradcheck calls this many times: the same noise each time
        return make_dist(loc, scale).rsample((3,))
    loc = t([0.3, -1.2]).requires_grad_()
    scale = t([0.7, 1.9]).requires_grad_()
    assert torch.autograd.gradcheck(draw, (loc, scale))


def test_gamma_rsample_gradient_is_the_derivative_of_the_inverse_cdf():
    torch.manual_seed(5)
    alpha = t([0.05, 0.6, 1.0, 4.0, 45.0, 900.0, 5000.0]).requires_grad_()
    x = _samplers.standard_gamma(alpha.expand(50, 7))
    x.sum().backward()
    u = special.gammainc(alpha.detach().numpy(), x.detach().numpy())
    a = alpha.detach().numpy()
    h = 1e-5 * np.maximum(a, 1)
    expected = ((special.gammaincinv(a + h, u) - special.gammaincinv(a - h, u)) / (2 * h)).sum(0)
    np.testing.assert_allclose(alpha.grad.numpy(), expected, rtol=1e-3)


def test_gamma_beta_and_dirichlet_rsample_carry_gradients_to_every_parameter():
    torch.manual_seed(6)
    conc, rate = t([2.0, 0.5]).requires_grad_(), t([1.5, 3.0]).requires_grad_()
    D.Gamma(conc, rate).rsample((4,)).sum().backward()
    assert conc.grad is not None and rate.grad is not None and bool((rate.grad < 0).all())
    a, b = t([2.0]).requires_grad_(), t([3.0]).requires_grad_()
    D.Beta(a, b).rsample((8,)).sum().backward()
    assert bool(a.grad > 0) and bool(b.grad < 0)  # more heads mass -> larger samples
    c = t([1.0, 2.0, 3.0]).requires_grad_()
    D.Dirichlet(c).rsample((5,))[..., 0].sum().backward()
    assert c.grad is not None and float(c.grad[0]) > 0


def test_gamma_rsample_mean_gradient_matches_the_mean_formula_in_expectation():
    torch.manual_seed(7)
    conc, rate = t([3.0]).requires_grad_(), t([2.0]).requires_grad_()
    D.Gamma(conc, rate).rsample((N,)).mean().backward()
    np.testing.assert_allclose(conc.grad.numpy(), [1 / 2.0], rtol=0.02)      # d(a/b)/da
    np.testing.assert_allclose(rate.grad.numpy(), [-3.0 / 4.0], rtol=0.02)   # d(a/b)/db


def test_sample_shapes_follow_sample_batch_and_event_shape():
    d = D.MultivariateNormal(torch.zeros(4, 3), torch.eye(3))
    assert d.sample().shape == (4, 3)
    assert d.sample((2, 5)).shape == (2, 5, 4, 3)
    assert D.Categorical(torch.ones(2, 6)).sample((7,)).shape == (7, 2)
    assert D.OneHotCategorical(torch.ones(2, 6)).sample((7,)).shape == (7, 2, 6)
    assert D.Normal(0.0, 1.0).sample().shape == ()
    with pytest.warns(FutureWarning, match="sample_n"):
        assert D.Normal(torch.zeros(2), 1.0).sample_n(3).shape == (3, 2)


def test_one_hot_straight_through_passes_the_probs_gradient():
    probs = t([0.2, 0.3, 0.5]).requires_grad_()
    sample = D.OneHotCategoricalStraightThrough(probs).rsample()
    assert sorted(sample.detach().tolist()) == [0.0, 0.0, 1.0]
    (sample * t([1.0, 2.0, 3.0])).sum().backward()
    # through Categorical's normalisation probs / probs.sum(): w - <w, p>
    np.testing.assert_allclose(probs.grad.numpy(), [1.0 - 2.3, 2.0 - 2.3, 3.0 - 2.3], rtol=1e-12)


def test_invalid_parameters_sample_nan_instead_of_looping_for_ever():
    nan = float("nan")
    assert torch.isnan(D.Gamma(t([nan, -1.0]), t([1.0, 1.0]), validate_args=False).sample()).all()
    assert torch.isnan(D.Poisson(t([nan, float("inf")]), validate_args=False).sample()).all()
    assert torch.isnan(D.Binomial(t([5.0, 5.0]), t([nan, 1.5]), validate_args=False).sample()).all()
    assert D.Binomial(t([5.0, 5.0]), t([0.0, 1.0])).sample().tolist() == [0.0, 5.0]
