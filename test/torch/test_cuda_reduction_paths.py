"""CUDA sums and means over leading or middle dimensions (a bias gradient's column sums) read the
input in place, one thread per result, with no transposed copy first; against NumPy for every
dtype the kernel takes, keepdim, several consecutive dims, and long lines that take the row path."""
import numpy as np
import pytest

import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


@pytest.mark.parametrize("shape, dims", [((64, 10), (0,)), ((3, 50, 7), (1,)), ((4, 5, 6, 2), (1, 2)),
                                         ((6000, 3), (0,)), ((2, 3, 4), (0, 1))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sums_over_leading_and_middle_dims_match_numpy(shape, dims, dtype, keepdim):
    values = (np.random.default_rng(0).standard_normal(shape) * 10).astype(dtype)
    got = torch.from_numpy(values).cuda().sum(dims, keepdim=keepdim)
    expected = values.sum(dims, keepdims=keepdim, dtype=np.float64 if dtype != np.int64 else np.int64)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.cpu().numpy(), expected, rtol=tolerance, atol=tolerance * 10)


def test_means_over_the_leading_dim_match_numpy():
    values = np.random.default_rng(1).standard_normal((33, 17))
    got = torch.from_numpy(values).cuda().mean(0)
    np.testing.assert_allclose(got.cpu().numpy(), values.mean(0), rtol=1e-12)
