"""Contiguous float32, float16 and bfloat16 sums run a leaf of 64 float32 lanes compiled for the baseline, AVX2 and
AVX-512 (aten/native/cpu/blk_sum.h, picked at run time as PyTorch's CPU capability): each gives the same bits,
for lengths that end on a block, mid-block and mid-lane-row, full sums and sums over the last dim."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import torch

REPO = Path(__file__).resolve().parents[2]
LENGTHS = [1, 7, 63, 64, 65, 1000, 1024, 1025, 2048 + 17, 5000, (1 << 16) + 3, 1 << 18]


def digest() -> str:
    rng = np.random.default_rng(11)
    h = hashlib.sha256()
    for n in LENGTHS:
        x = torch.from_numpy(rng.standard_normal(n).astype(np.float32) * np.float32(1e3))
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            h.update(x.to(dtype).sum().float().numpy().tobytes())
            h.update(x.to(dtype).sum(dtype=torch.float32).numpy().tobytes())
    rows = torch.from_numpy(rng.standard_normal((9, 3001)).astype(np.float32))
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        h.update(rows.to(dtype).sum(-1).float().numpy().tobytes())
        h.update(rows.to(dtype).mean(-1).float().numpy().tobytes())
        h.update(rows.to(dtype).t().sum(0).float().numpy().tobytes())         # strided: widened, then summed
    return h.hexdigest()


def _lanes_model(x: np.ndarray) -> np.float32:
    """blk_sum.h's order, in float32 NumPy arithmetic: halves of a multiple of 16 down to leaves of <= 1024
    elements, a leaf added into 64 lanes (tail elements into lanes 0, 1, ...), the lanes folded in halves."""
    n = x.size
    if n > 1024:
        h = (n // 2) & ~15
        return np.float32(_lanes_model(x[:h]) + _lanes_model(x[h:]))
    lanes = np.zeros(64, np.float32)
    m = n - n % 64
    for i in range(0, m, 64):
        lanes += x[i:i + 64]
    lanes[:n - m] += x[m:]
    for width in (32, 16, 8, 4, 2, 1):
        lanes[:width] += lanes[width:2 * width]
    return lanes[0]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=str)
@pytest.mark.parametrize("n", [64, 100, 1000, 3001])
def test_a_reduced_float_row_sum_is_the_lane_order_sum_of_its_float32_values(dtype, n):
    """float16/bfloat16 rows of 64 or more (shorter ones take the engine's column loops), contiguous (widened as
    the leaf reads them) or strided (widened into a float32 copy first): the float32 sum is blk_sum.h's order
    over the widened values, bit for bit (and the dtype's sum that, rounded once)."""
    rng = np.random.default_rng(n)          # magnitudes over eight decades, so that sums round and order shows
    x = torch.from_numpy((rng.standard_normal((3, n)) * 10.0 ** rng.integers(-4, 4, (3, n))).astype(np.float32))
    x = x.to(dtype)
    want = np.array([_lanes_model(row) for row in x.float().numpy()], np.float32)
    every_other = torch.zeros(3, 2 * n, dtype=dtype)
    every_other[:, ::2] = x
    for rows in (x, x.t().contiguous().t(), every_other[:, ::2]):
        np.testing.assert_array_equal(rows.sum(-1, dtype=torch.float32).numpy(), want)
        np.testing.assert_array_equal(rows.sum(-1).float().numpy(), torch.from_numpy(want).to(dtype).float().numpy())


def _digest_under(capability: str) -> str:
    code = (f"import sys; sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(REPO)!r}]\n"
            "import test_sum_bits_across_isas as m; print(m.digest())\n")
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.strip()


@pytest.mark.parametrize("capability", ["default", "avx2"])
def test_sums_give_the_same_bits_on_every_cpu_capability(capability):
    assert _digest_under(capability) == digest()


@pytest.mark.parametrize("n", LENGTHS)
def test_a_float32_sum_is_within_the_pairwise_bound_of_the_exact_sum(n):
    x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    exact = float(np.sum(x.astype(np.float64)))
    bound = 2 * np.finfo(np.float32).eps * (np.log2(max(n, 2)) + 64) * float(np.sum(np.abs(x.astype(np.float64))))
    assert abs(float(torch.from_numpy(x).sum()) - exact) <= bound
