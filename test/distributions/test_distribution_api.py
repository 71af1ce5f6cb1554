"""The Distribution API around the densities: validate_args and its default, expand, batch and
event shapes, enumerate_support, mode, perplexity, lazy probs/logits, Independent and reprs."""
import math

import pytest

import torch
import torch.distributions as D
from torch.distributions import constraints


@pytest.fixture
def validation_default():
    before = D.Distribution._validate_args
    yield
    D.Distribution.set_default_validate_args(before)


def test_set_default_validate_args_turns_parameter_checks_off_and_on(validation_default):
    D.Distribution.set_default_validate_args(False)
    D.Normal(0.0, -1.0)  # no error
    D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match=r"Expected parameter scale \(Tensor of shape \(\)\) of distribution "
                                         r"Normal\(loc: 0.0, scale: -1.0\) to satisfy the constraint "
                                         r"GreaterThan\(lower_bound=0.0\), but found invalid values:\n-1.0$"):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")


def test_validate_args_false_skips_both_parameter_and_sample_checks():
    d = D.Exponential(torch.tensor([-1.0]), validate_args=False)
    assert d.log_prob(torch.tensor([-2.0])).shape == (1,)


def test_log_prob_rejects_a_value_that_is_not_a_tensor():
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        D.Normal(0.0, 1.0).log_prob(0.5)


def test_log_prob_rejects_a_wrong_event_shape():
    d = D.Dirichlet(torch.ones(3))
    with pytest.raises(ValueError, match=r"The right-most size of value must match event_shape: "
                                         r"torch.Size\(\[2\]\) vs torch.Size\(\[3\]\)."):
        d.log_prob(torch.tensor([0.5, 0.5]))


def test_only_given_parameter_is_validated_and_the_other_is_derived_lazily():
    d = D.Bernoulli(logits=torch.tensor([-20.0, 0.0, 3.0]))
    assert "probs" not in d.__dict__
    assert repr(d) == "Bernoulli(logits: torch.Size([3]))"
    assert d.probs.tolist() == torch.sigmoid(torch.tensor([-20.0, 0.0, 3.0])).tolist()
    assert "probs" in d.__dict__
    assert repr(d) == "Bernoulli(probs: torch.Size([3]), logits: torch.Size([3]))"
    assert isinstance(D.Bernoulli.__dict__["probs"], D.utils.lazy_property)


def test_expand_broadcasts_parameters_without_copying_and_keeps_validation():
    d = D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]), validate_args=False)
    e = d.expand((3, 2))
    assert e.batch_shape == (3, 2) and e.loc.shape == (3, 2)
    assert e._validate_args is False
    assert e.loc.stride() == (0, 1)
    for dist in (D.Categorical(torch.ones(4)), D.Dirichlet(torch.ones(3)), D.Beta(1.0, 2.0), D.Gamma(1.0, 2.0),
                 D.Binomial(5, torch.tensor(0.3)), D.LogNormal(0.0, 1.0), D.OneHotCategorical(torch.ones(3)),
                 D.MultivariateNormal(torch.zeros(2), torch.eye(2)), D.Independent(D.Normal(torch.zeros(2), 1.0), 1),
                 D.Uniform(0.0, 1.0), D.Poisson(2.0), D.Exponential(1.0), D.Laplace(0.0, 1.0), D.Geometric(0.5)):
        expanded = dist.expand((4,))
        assert type(expanded) is type(dist)
        assert expanded.batch_shape == (4,) and expanded.event_shape == dist.event_shape
        assert expanded.sample().shape == (4,) + tuple(dist.event_shape)


def test_expand_of_a_subclass_with_its_own_init_must_be_overridden():
    class Shifted(D.Normal):
        def __init__(self, loc):
            super().__init__(loc + 1, 1.0)
    with pytest.raises(NotImplementedError, match="Subclass Shifted of Normal that defines a custom __init__ method "
                                                  "must also define a custom .expand\\(\\) method."):
        Shifted(torch.zeros(2)).expand((3, 2))


def test_enumerate_support_enumerates_along_dim_zero():
    assert D.Bernoulli(torch.tensor([0.3, 0.6])).enumerate_support().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert D.Bernoulli(torch.tensor([0.3, 0.6])).enumerate_support(expand=False).shape == (2, 1)
    assert D.Categorical(torch.ones(2, 3)).enumerate_support().shape == (3, 2)
    assert D.OneHotCategorical(torch.ones(2, 3)).enumerate_support(expand=False).shape == (3, 1, 3)
    ind = D.Independent(D.Bernoulli(torch.ones(2) / 2), 1)
    assert not ind.has_enumerate_support
    with pytest.raises(NotImplementedError, match="Enumeration over cartesian product is not implemented"):
        ind.enumerate_support()


def test_modes_follow_pytorch():
    assert D.Bernoulli(torch.tensor([0.2, 0.5, 0.7])).mode.tolist()[::2] == [0.0, 1.0]
    assert math.isnan(D.Bernoulli(torch.tensor([0.5])).mode.item())
    assert D.Gamma(torch.tensor([0.5, 3.0]), torch.tensor([1.0, 2.0])).mode.tolist() == [0.0, 1.0]
    assert D.Binomial(10, torch.tensor([0.34])).mode.tolist() == [3.0]
    assert D.Dirichlet(torch.tensor([[0.5, 0.9, 0.2]])).mode.tolist() == [[1.0, 0.0, 0.0]]
    with pytest.raises(NotImplementedError, match="does not implement mode"):
        D.TransformedDistribution(D.Normal(0.0, 1.0), D.ExpTransform()).mode


def test_perplexity_is_exp_entropy():
    d = D.Categorical(torch.tensor([0.25, 0.25, 0.25, 0.25]))
    assert math.isclose(d.perplexity().item(), 4.0, rel_tol=1e-6)


def test_independent_moves_batch_dims_into_the_event():
    base = D.Normal(torch.zeros(2, 3), torch.ones(2, 3))
    d = D.Independent(base, 1)
    assert (d.batch_shape, d.event_shape) == ((2,), (3,))
    assert d.log_prob(torch.zeros(2, 3)).shape == (2,)
    assert torch.allclose(d.log_prob(torch.zeros(2, 3)), base.log_prob(torch.zeros(2, 3)).sum(-1))
    assert repr(d.support) == "IndependentConstraint(Real(), 1)"
    assert repr(d).startswith("Independent(Normal(loc: torch.Size([2, 3])")


def test_supports_and_arg_constraints_are_pytorchs():
    assert repr(D.Uniform(0.0, 2.0).support) == "Interval(lower_bound=0.0, upper_bound=2.0)"
    assert repr(D.Binomial(4, torch.tensor(0.5)).support) == "IntegerInterval(lower_bound=0, upper_bound=4.0)"
    assert constraints.is_dependent(D.Binomial.support)
    assert D.Categorical.support.is_discrete and D.Categorical.support.event_dim == 0
    assert D.MultivariateNormal.arg_constraints["covariance_matrix"].__class__.__name__ == "_PositiveDefinite"
    assert repr(D.MultivariateNormal.arg_constraints["covariance_matrix"]) == "PositiveDefinite()"


def test_multivariate_normal_rejects_a_covariance_that_is_not_positive_definite():
    with pytest.raises(ValueError, match="to satisfy the constraint PositiveDefinite()"):
        D.MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]]))
