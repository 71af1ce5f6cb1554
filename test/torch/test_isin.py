"""torch.isin against np.isin: both of its paths (a comparison with every test element when they are
few, a binary search in them when they are many), promotion, scalars, invert, out= and errors."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 5), max_size=3), tests=st.integers(0, 300), high=st.integers(1, 60),
       dtype=st.sampled_from([torch.int64, torch.int32, torch.uint8, torch.float32, torch.float64]),
       invert=st.booleans(), seed=st.integers(0, 2**16))
def test_isin_matches_numpy(shape, tests, high, dtype, invert, seed):
    rng = np.random.default_rng(seed)
    elements = torch.tensor(rng.integers(0, high, shape)).to(dtype)
    test_elements = torch.tensor(rng.integers(0, high, (tests,))).to(dtype)
    got = torch.isin(elements, test_elements, invert=invert)
    assert got.dtype == torch.bool and got.shape == elements.shape
    np.testing.assert_array_equal(got.numpy(), np.isin(elements.numpy(), test_elements.numpy(), invert=invert))


def test_isin_promotes_and_never_finds_nan():
    assert torch.isin(torch.tensor([1, 2, 3]), torch.tensor([1.0, 3.5])).tolist() == [True, False, False]
    nan = float("nan")
    assert torch.isin(torch.tensor([1.0, 2.0, nan]), torch.tensor([nan, 2.0])).tolist() == [False, True, False]
    assert torch.isin(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([257])).tolist() == [False, False]
    assert torch.isin(torch.tensor([1]), 1.5).tolist() == [False]
    # many test elements (the binary search) with NaNs among them, or only NaNs
    many = torch.tensor([nan] * 20 + [1.0, 2.0, 3.0])
    assert torch.isin(torch.tensor([1.0, 2.0, 3.0, nan]), many).tolist() == [True, True, True, False]
    assert torch.isin(torch.tensor([1.0, nan]), torch.full((40,), nan)).tolist() == [False, False]


def test_isin_scalar_overloads_and_out():
    assert torch.isin(3, torch.tensor([1, 3])).shape == () and torch.isin(3, torch.tensor([1, 3])).item()
    np.testing.assert_array_equal(torch.isin(torch.tensor([[1, 2], [3, 4]]), 3, invert=True).numpy(),
                                  [[True, True], [False, True]])
    out = torch.empty(3, dtype=torch.bool)
    assert torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2]), out=out) is out
    assert out.tolist() == [False, True, False]


def test_isin_refuses_bool_and_complex_as_pytorch():
    with pytest.raises(RuntimeError, match="^Unsupported input type encountered for isin\\(\\): Bool$"):
        torch.isin(torch.tensor([True]), torch.tensor([True]))
