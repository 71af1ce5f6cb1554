"""bincount, histc, unique and unique_consecutive on CUDA (aten/native/composite/portable_counting.py)
against the CPU's kernels.

Run with a GPU (`pytest -m cuda`) or on the CUDA host emulator (`EMBER_CUDA_EMULATOR=1`).
"""
import numpy as np
import pytest

import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def _same(got, expected):
    got, expected = (got if isinstance(got, tuple) else (got,)), (expected if isinstance(expected, tuple)
                                                                   else (expected,))
    for g, e in zip(got, expected):
        assert g.device.type == "cuda" and g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g.cpu().numpy(), e.numpy())


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8])
@pytest.mark.parametrize("minlength", [0, 12])
def test_bincount_matches_the_cpu_with_and_without_weights(dtype, minlength):
    values = torch.from_numpy(np.random.default_rng(11).integers(0, 7, 50)).to(dtype)
    _same(torch.bincount(values.cuda(), minlength=minlength), torch.bincount(values, minlength=minlength))
    for wdtype in (torch.float32, torch.float64):
        weights = torch.rand(50, dtype=wdtype)
        got = torch.bincount(values.cuda(), weights.cuda(), minlength)
        expected = torch.bincount(values, weights, minlength)
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-6)
    _same(torch.bincount(torch.zeros(0, dtype=dtype).cuda(), minlength=minlength),
          torch.bincount(torch.zeros(0, dtype=dtype), minlength=minlength))


def test_bincount_checks_as_the_cpu_does():
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs."):
        torch.bincount(torch.tensor([1, -1], device="cuda"))
    with pytest.raises(RuntimeError, match="weights should be 1-d and have the same length as input"):
        torch.bincount(torch.tensor([1, 2], device="cuda"), torch.ones(3, device="cuda"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("bins, low, high", [(10, 0, 0), (7, -1.0, 1.0), (5, 0.25, 0.5), (1, 0, 0)])
def test_histc_matches_the_cpu(dtype, bins, low, high):
    values = torch.from_numpy(np.random.default_rng(12).standard_normal(200)).to(dtype)
    values[3] = high           # the upper edge counts in the last bin
    _same(torch.histc(values.cuda(), bins, low, high), torch.histc(values, bins, low, high))


def test_histc_checks_as_the_cpu_does():
    with pytest.raises(RuntimeError, match="torch.histc: max must be larger than min"):
        torch.histc(torch.ones(3, device="cuda"), 4, 2, 1)
    with pytest.raises(RuntimeError, match="bins must be > 0"):
        torch.histc(torch.ones(3, device="cuda"), 0)


@pytest.mark.parametrize("dtype", [torch.int64, torch.float32, torch.bool, torch.uint8])
@pytest.mark.parametrize("return_inverse, return_counts", [(False, False), (True, False), (True, True)])
def test_unique_matches_the_cpu(dtype, return_inverse, return_counts):
    values = torch.from_numpy(np.random.default_rng(13).integers(0, 5, (4, 6))).to(dtype)
    _same(torch._unique2(values.cuda(), True, return_inverse, return_counts),
          torch._unique2(values, True, return_inverse, return_counts))
    got = torch.unique(values.cuda(), return_inverse=return_inverse, return_counts=return_counts)
    expected = torch.unique(values, return_inverse=return_inverse, return_counts=return_counts)
    _same(got, expected)


def test_unique_consecutive_matches_the_cpu():
    values = torch.tensor([1, 1, 2, 2, 3, 1, 1, 2])
    _same(torch.unique_consecutive(values.cuda(), return_inverse=True, return_counts=True),
          torch.unique_consecutive(values, return_inverse=True, return_counts=True))
    _same(torch.unique(torch.zeros(0).cuda(), return_inverse=True), torch.unique(torch.zeros(0), return_inverse=True))


def test_class_weights_from_label_counts_as_a_training_script_makes_them():
    labels = torch.randint(0, 10, (500,))
    counts = torch.bincount(labels.cuda(), minlength=10).float()
    weights = counts.sum() / (10 * counts.clamp_min(1))
    expected = torch.bincount(labels, minlength=10).float()
    np.testing.assert_allclose(weights.cpu().numpy(), (expected.sum() / (10 * expected.clamp_min(1))).numpy())
