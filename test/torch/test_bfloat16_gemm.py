"""bfloat16 torch.mm: float32 accumulation rounded once, on AVX512-BF16 CPUs in the vdpbf16ps kernel
(aten/native/cpu/gemm_bf16.h), elsewhere (or with ATEN_CPU_CAPABILITY=default) on float32 copies; against
NumPy's float64 product for every operand layout and ragged shape, the same bits on any thread count."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import torch

REPO = Path(__file__).resolve().parents[2]


def _bf16(rng, shape):
    return torch.from_numpy(rng.standard_normal(shape).astype(np.float32)).bfloat16()


def _check(product, a, b):
    exact = a.double().numpy() @ b.double().numpy()
    # one rounding to bfloat16 (2^-9 relative) plus float32 accumulation over k terms
    bound = 2.0 ** -8 * np.abs(exact) + 1e-5 * (np.abs(a.double().numpy()) @ np.abs(b.double().numpy()))
    assert product.dtype == torch.bfloat16
    assert np.all(np.abs(product.double().numpy() - exact) <= bound)


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (5, 1, 33), (12, 64, 32), (37, 65, 70), (130, 257, 31), (13, 2, 95)])
@pytest.mark.parametrize("layout", ["contiguous", "a_transposed", "b_transposed", "b_strided", "b_expanded"])
def test_bfloat16_mm_matches_the_float64_product(m, k, n, layout):
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    a, b = _bf16(rng, (m, k)), _bf16(rng, (k, n))
    if layout == "a_transposed":
        a = a.t().contiguous().t()
    elif layout == "b_transposed":
        b = b.t().contiguous().t()
    elif layout == "b_strided":
        b = _bf16(rng, (k, 2 * n))[:, ::2]
    elif layout == "b_expanded":
        b = _bf16(rng, (1, n)).expand(k, n)
    _check(torch.mm(a, b), a, b)


def test_bfloat16_mm_gives_the_same_bits_on_any_thread_count():
    rng = np.random.default_rng(1)
    a, b = _bf16(rng, (70, 300)), _bf16(rng, (300, 200))
    before = torch.get_num_threads()
    try:
        results = []
        for threads in (1, 2, 3):
            torch.set_num_threads(threads)
            results.append(torch.mm(a, b))
    finally:
        torch.set_num_threads(before)
    assert all(torch.equal(results[0], r) for r in results[1:])


def test_float16_and_the_portable_bfloat16_path_round_the_float32_product_once():
    a, b = torch.randn(9, 20), torch.randn(20, 7)
    assert torch.equal(torch.mm(a.half(), b.half()), (a.half().float() @ b.half().float()).half())
    code = ("import torch; a, b = torch.randn(33, 70).bfloat16(), torch.randn(70, 40).bfloat16(); "
            "assert torch.equal(torch.mm(a, b), (a.float() @ b.float()).bfloat16())")
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, check=True)


def test_mixed_dtypes_and_shapes_still_raise_pytorchs_errors():
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.mm(torch.ones(2, 3).bfloat16(), torch.ones(3, 2))
    with pytest.raises(RuntimeError, match="cannot be multiplied"):
        torch.mm(torch.ones(2, 3).bfloat16(), torch.ones(2, 2).bfloat16())
