"""torch.distributions.constraints: each region's check() against the same test written in NumPy,
over batches (hypothesis shapes), with PyTorch's reprs, event dims and errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from torch.distributions import constraints as C

RNG = np.random.default_rng(0)


def _values(shape):
    """Floats with integers, zeros, ones, negatives and NaN among them."""
    x = RNG.choice([-2.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0, np.nan], size=shape)
    return x


ELEMENTWISE = [
    (C.real, lambda x: ~np.isnan(x)),
    (C.positive, lambda x: x > 0),
    (C.nonnegative, lambda x: x >= 0),
    (C.greater_than(0.5), lambda x: x > 0.5),
    (C.greater_than_eq(0.5), lambda x: x >= 0.5),
    (C.less_than(1.0), lambda x: x < 1.0),
    (C.unit_interval, lambda x: (x >= 0) & (x <= 1)),
    (C.interval(-1, 2), lambda x: (x >= -1) & (x <= 2)),
    (C.half_open_interval(-1, 2), lambda x: (x >= -1) & (x < 2)),
    (C.boolean, lambda x: (x == 0) | (x == 1)),
    (C.nonnegative_integer, lambda x: (np.mod(x, 1) == 0) & (x >= 0)),
    (C.positive_integer, lambda x: (np.mod(x, 1) == 0) & (x >= 1)),
    (C.integer_interval(0, 2), lambda x: (np.mod(x, 1) == 0) & (x >= 0) & (x <= 2)),
]


@pytest.mark.parametrize("constraint, reference", ELEMENTWISE, ids=[repr(c) for c, _ in ELEMENTWISE])
@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=3))
def test_elementwise_constraints_match_numpy(constraint, reference, shape):
    x = _values(tuple(shape))
    got = constraint.check(torch.tensor(x))
    assert got.dtype == torch.bool and constraint.event_dim == 0
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(got.numpy(), reference(x))


def test_vector_and_matrix_constraints_reduce_their_event_dims():
    x = RNG.random((3, 4))
    x[1] /= x[1].sum()
    x[2] = [0.0, 1.0, 0.0, 0.0]
    np.testing.assert_array_equal(C.simplex.check(torch.tensor(x)).numpy(),
                                  (x >= 0).all(-1) & (np.abs(x.sum(-1) - 1) < 1e-6))
    np.testing.assert_array_equal(C.one_hot.check(torch.tensor(x)).numpy(), [False, False, True])
    np.testing.assert_array_equal(C.multinomial(3).check(torch.tensor([[1.0, 2.0], [2.0, 2.0]])).numpy(), [True, False])
    nan_row = torch.tensor([[1.0, np.nan], [1.0, 2.0]])
    np.testing.assert_array_equal(C.real_vector.check(nan_row).numpy(), [False, True])
    m = RNG.standard_normal((2, 3, 3))
    lower = np.tril(m)
    lower[1, 2, 2] = -1.0
    np.testing.assert_array_equal(C.lower_triangular.check(torch.tensor(m)).numpy(), [False, False])
    np.testing.assert_array_equal(C.lower_triangular.check(torch.tensor(lower)).numpy(), [True, True])
    positive_diagonal = (np.diagonal(lower, axis1=-2, axis2=-1) > 0).all(-1)
    np.testing.assert_array_equal(C.lower_cholesky.check(torch.tensor(lower)).numpy(), positive_diagonal)
    sym = m + np.swapaxes(m, -1, -2)
    np.testing.assert_array_equal(C.symmetric.check(torch.tensor(sym)).numpy(), [True, True])
    np.testing.assert_array_equal(C.symmetric.check(torch.tensor(m)).numpy(), [False, False])
    assert C.square.check(torch.ones(2, 3)).item() is False
    assert C.corr_cholesky.check(torch.eye(3)).item() is True
    assert (C.lower_triangular.event_dim, C.simplex.event_dim, C.independent(C.real, 2).event_dim) == (2, 1, 2)
    mixture = C.MixtureSameFamilyConstraint(C.real_vector)
    checked = mixture.check(torch.tensor([[1.0, 2.0], [np.nan, 0.0], [3.0, 4.0]]))
    assert checked.shape == (3,) and checked.tolist() == [True, False, True]
    assert C.MixtureSameFamilyConstraint(C.real).check(torch.ones(3, 2)).shape == (3, 2)


def test_cat_and_stack_check_each_part_with_its_own_constraint():
    x = torch.tensor([[-1.0, 0.5, 2.0], [1.0, 0.2, -3.0]])
    got = C.cat([C.real, C.unit_interval, C.positive], dim=1, lengths=[1, 1, 1]).check(x)
    np.testing.assert_array_equal(got.numpy(), [[True, True, True], [True, True, False]])
    got = C.stack([C.positive, C.unit_interval, C.real], dim=1).check(x)
    np.testing.assert_array_equal(got.numpy(), [[False, True, True], [True, True, True]])


def test_reprs_and_dependent_constraints_are_pytorchs():
    assert [repr(c) for c in (C.positive, C.unit_interval, C.integer_interval(0, 3), C.real_vector, C.dependent,
                              C.simplex, C.cat([C.real]), C.less_than(1))] == [
        "GreaterThan(lower_bound=0.0)", "Interval(lower_bound=0.0, upper_bound=1.0)",
        "IntegerInterval(lower_bound=0, upper_bound=3)", "IndependentConstraint(Real(), 1)", "Dependent()",
        "Simplex()", "Cat()", "LessThan(upper_bound=1)"]
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    with pytest.raises(ValueError, match="^Cannot determine validity of dependent constraint$"):
        C.dependent.check(torch.ones(1))

    class Uniformish:
        def __init__(self, low, high):
            self.low, self.high = low, high

        @C.dependent_property(is_discrete=False, event_dim=0)
        def support(self):
            return C.interval(self.low, self.high)

    assert repr(Uniformish(0, 2).support) == "Interval(lower_bound=0, upper_bound=2)"
    assert C.is_dependent(Uniformish.support) and Uniformish.support.event_dim == 0


def test_definite_constraints_check_through_linalg():
    assert C.positive_definite.check(torch.eye(2)).item() is True
    assert C.positive_definite.check(torch.tensor([[1.0, 2.0], [2.0, 1.0]])).item() is False
    assert C.positive_semidefinite.check(torch.tensor([[1.0, 1.0], [1.0, 1.0]])).item() is True
    # an asymmetric matrix is answered without the factorisation, as PyTorch answers it
    assert C.positive_definite.check(torch.tensor([[1.0, 2.0], [0.0, 1.0]])).item() is False
