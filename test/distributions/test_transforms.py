"""Transforms: inverse round trips, log_abs_det_jacobian against the autograd Jacobian,
shapes, caching, equality and reprs, biject_to/transform_to, and TransformedDistribution's
change of variables."""
import math

import numpy as np
import pytest
from scipy import stats

import torch
import torch.distributions as D
from torch.distributions import biject_to, constraints, transform_to
from torch.distributions import transforms as T


def t(x):
    return torch.tensor(x, dtype=torch.float64)


ELEMENTWISE = [T.ExpTransform(), T.SigmoidTransform(), T.TanhTransform(), T.SoftplusTransform(),
               T.AffineTransform(1.5, -2.0), T.AffineTransform(t([1.0, 2.0, 3.0]), t([0.5, 2.0, -1.0])),
               T.PowerTransform(t(2.5)), T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 3.0)])]


@pytest.mark.parametrize("transform", ELEMENTWISE, ids=lambda tr: type(tr).__name__)
def test_elementwise_transforms_invert_and_have_the_autograd_log_det(transform):
    x = t([0.3, 1.1, 2.0]) if isinstance(transform, T.PowerTransform) else t([-0.7, 0.2, 1.3])
    y = transform(x)
    assert torch.allclose(transform.inv(y), x, atol=1e-10)
    xg = x.clone().requires_grad_()
    (grad,) = torch.autograd.grad(transform(xg).sum(), xg)
    assert torch.allclose(transform.log_abs_det_jacobian(x, y), grad.abs().log(), atol=1e-10)
    assert torch.allclose(transform.inv.log_abs_det_jacobian(y, x), -grad.abs().log(), atol=1e-10)


@pytest.mark.parametrize("transform, x", [
    (T.StickBreakingTransform(), t([0.3, -1.0, 2.0])),
    (T.CorrCholeskyTransform(), t([0.3, -1.0, 0.5])),
    (T.LowerCholeskyTransform(), t([[0.3, 0.0], [-1.0, 0.5]])),
    (T.PositiveDefiniteTransform(), t([[0.3, 0.0], [-1.0, 0.5]])),
])
def test_structured_transforms_land_in_their_codomain_and_invert(transform, x):
    y = transform(x)
    assert bool(transform.codomain.check(y).all()) if not isinstance(transform, T.PositiveDefiniteTransform) \
        else bool(D.MultivariateNormal.arg_constraints["covariance_matrix"].check(y))
    assert torch.allclose(transform.inv(y), x, atol=1e-10)
    assert tuple(transform.forward_shape(x.shape)) == tuple(y.shape)
    assert tuple(transform.inverse_shape(y.shape)) == tuple(x.shape)


def test_stick_breaking_log_det_matches_the_autograd_jacobian_of_the_free_coordinates():
    transform = T.StickBreakingTransform()
    x = t([0.3, -1.0, 2.0])
    jac = torch.autograd.functional.jacobian(lambda v: transform(v)[:-1], x)
    expected = np.log(abs(np.linalg.det(jac.numpy())))
    assert math.isclose(float(transform.log_abs_det_jacobian(x, transform(x))), expected, rel_tol=1e-9)


def test_softmax_is_onto_the_simplex_but_not_bijective():
    y = T.SoftmaxTransform()(t([1.0, 2.0, 3.0]))
    assert math.isclose(float(y.sum()), 1.0) and not T.SoftmaxTransform.bijective


def test_cat_and_stack_transforms_apply_each_part_to_its_slice():
    cat = T.CatTransform([T.ExpTransform(), T.AffineTransform(0.0, 2.0)], dim=0, lengths=[2, 1])
    assert cat(t([0.0, 1.0, 3.0])).tolist() == [1.0, math.e, 6.0]
    assert torch.allclose(cat.inv(cat(t([0.0, 1.0, 3.0]))), t([0.0, 1.0, 3.0]))
    stack = T.StackTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)], dim=1)
    x = t([[0.0, 1.0], [1.0, 2.0]])
    assert stack(x).tolist() == [[1.0, 3.0], [math.e, 5.0]]
    assert stack.log_abs_det_jacobian(x, stack(x)).tolist() == [[0.0, math.log(2)], [1.0, math.log(2)]]


def test_cache_returns_the_original_input_on_inversion():
    transform = T.ExpTransform().with_cache(1)
    x = t([-800.0])  # exp underflows: without the cache the inverse could not recover x
    assert transform.inv(transform(x)) is x
    assert T.ExpTransform().inv(T.ExpTransform()(x)).item() == -math.inf
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)


def test_equality_inverse_and_repr_follow_pytorch():
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform().inv == T.ExpTransform().inv
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert repr(T.ExpTransform().inv) == "_InverseTransform(ExpTransform())"
    assert repr(T.ComposeTransform([T.ExpTransform(), T.SigmoidTransform()])) == \
        "ComposeTransform(\n    ExpTransform(),\n    SigmoidTransform()\n)"
    assert T.identity_transform(t([1.0])).tolist() == [1.0]
    assert T.ExpTransform().sign == 1 and T.AffineTransform(0.0, -2.0).sign == -1
    with pytest.raises(ValueError, match="Please use either .domain.event_dim or .codomain.event_dim"):
        T.CorrCholeskyTransform().event_dim


@pytest.mark.parametrize("constraint", [constraints.real, constraints.positive, constraints.greater_than(2.0),
                                        constraints.less_than(-1.0), constraints.unit_interval,
                                        constraints.interval(-3.0, 5.0), constraints.simplex,
                                        constraints.independent(constraints.positive, 1),
                                        constraints.lower_cholesky, constraints.corr_cholesky])
def test_transform_to_and_biject_to_map_unconstrained_values_into_the_constraint(constraint):
    for registry in (transform_to, biject_to):
        if registry is biject_to and constraint is constraints.lower_cholesky:
            with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
                registry(constraint)
            continue
        transform = registry(constraint)
        shape = {2: (3, 3), 1: (3,)}.get(transform.domain.event_dim, (3,))
        x = torch.randn(shape, dtype=torch.float64)
        assert bool(constraint.check(transform(x)).all())


def test_transformed_distribution_change_of_variables_matches_scipy():
    base = D.Normal(t([0.0, 0.5]), t([1.0, 0.3]))
    d = D.TransformedDistribution(base, [T.ExpTransform(), T.AffineTransform(2.0, 3.0)])
    y = t([3.5, 7.0])
    # y = 2 + 3 exp(x): a log-normal scaled by 3 and shifted by 2
    expected = stats.lognorm([1.0, 0.3], scale=3 * np.exp([0.0, 0.5]), loc=2.0).logpdf([3.5, 7.0])
    np.testing.assert_allclose(d.log_prob(y).numpy(), expected, rtol=1e-10)
    assert torch.allclose(d.cdf(d.icdf(t([0.2, 0.9]))), t([0.2, 0.9]))
    decreasing = D.TransformedDistribution(base, T.AffineTransform(0.0, -1.0))
    assert torch.allclose(decreasing.cdf(t([0.0, 0.0])), 1 - base.cdf(t([0.0, 0.0])))


def test_transformed_distribution_widens_the_base_batch_for_batched_transform_parameters():
    d = D.TransformedDistribution(D.Normal(0.0, 1.0), T.AffineTransform(t([1.0, 2.0, 3.0]), 1.0))
    assert d.batch_shape == (3,) and d.base_dist.batch_shape == (3,)
    d2 = D.TransformedDistribution(D.Normal(torch.zeros(3), 1.0), T.StickBreakingTransform())
    assert (d2.batch_shape, d2.event_shape) == ((), (4,))
    assert d2.sample((5,)).shape == (5, 4)
    assert d2.expand((2,)).sample().shape == (2, 4)
