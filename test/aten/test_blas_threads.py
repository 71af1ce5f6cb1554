"""Small GEMMs run single-threaded (aten/native/cpu/blas.pyx) and leave BLAS's thread count as it was."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from aten.native.cpu.blas import blas_threads


@pytest.mark.parametrize("shape", [(3, 4, 5), (64, 64, 256), (300, 200, 100)])
def test_matmul_restores_the_blas_thread_count_and_matches_numpy(shape):
    m, k, n = shape
    before = blas_threads()
    a, b = torch.randn(m, k, dtype=torch.float64), torch.randn(k, n, dtype=torch.float64)
    for product in (a.mm(b), torch.matmul(a.unsqueeze(0).expand(2, m, k), b)[1],
                    torch.addmm(torch.zeros(n, dtype=torch.float64), a, b)):
        np.testing.assert_allclose(product.numpy(), a.numpy() @ b.numpy(), rtol=1e-12, atol=1e-12)
    assert blas_threads() == before
