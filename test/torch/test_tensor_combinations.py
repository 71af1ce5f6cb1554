"""meshgrid, cartesian_prod, block_diag, tensordot, cdist, pdist, dist, cov, corrcoef,
tril/triu_indices and atleast_*d against PyTorch 2.13's results
(tools/record_combinations_reference.py), and their gradients by gradcheck."""
import json
import math
from pathlib import Path

import pytest

import torch
from tools import record_combinations_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "combinations" /
                        "combinations.json").read_text())["cases"]


def _close(mine, ref, tol=1e-9):
    """Equal structure and values (float32 results within a few roundings of PyTorch's, float64 tighter)."""
    if isinstance(ref, list):
        return isinstance(mine, list) and len(mine) == len(ref) and all(_close(m, r, tol) for m, r in zip(mine, ref))
    if isinstance(ref, dict):
        tol = 1e-6 if ref.get("dtype") == "torch.float32" else tol
        return isinstance(mine, dict) and mine.keys() == ref.keys() and all(_close(mine[k], ref[k], tol) for k in ref)
    if isinstance(ref, float):
        return (math.isnan(mine) and math.isnan(ref)) or math.isclose(mine, ref, rel_tol=tol, abs_tol=tol)
    return mine == ref


@pytest.mark.parametrize("case", record.CASES)
def test_combination_does_what_it_does_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    if "error" in ref and "error" in mine and ref["error"] == mine["error"] and case == "error_meshgrid_2d":
        assert mine["message"].startswith("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got:")
        return
    assert _close(mine, ref), (mine, ref)


@pytest.mark.parametrize("fn,shapes", [
    (lambda a, b: torch.cdist(a, b), [(2, 4, 3), (2, 5, 3)]),
    (lambda a, b: torch.cdist(a, b, compute_mode="use_mm_for_euclid_dist"), [(4, 3), (5, 3)]),
    (lambda a, b: torch.cdist(a, b, p=1.5), [(4, 3), (5, 3)]),
    (lambda a, b: torch.tensordot(a, b, dims=([1], [0])), [(2, 3), (3, 4)]),
    (lambda a, b: torch.block_diag(a, b), [(2, 2), (3,)]),
    (lambda a, b: torch.cov(torch.stack([a, b])), [(5,), (5,)]),
    (lambda a, b: torch.corrcoef(torch.stack([a, b])), [(5,), (5,)]),
    (lambda a, b: torch.pdist(torch.cat([a, b])), [(2, 3), (2, 3)]),
])
def test_combination_gradients_pass_gradcheck(fn, shapes):
    gen = torch.Generator().manual_seed(3)
    inputs = [torch.randn(s, dtype=torch.float64, generator=gen).requires_grad_() for s in shapes]
    assert torch.autograd.gradcheck(fn, inputs)


def test_cdist_and_pdist_in_blocks_equal_the_direct_differences():
    import numpy as np
    gen = torch.Generator().manual_seed(5)
    x1, x2 = torch.randn(3000, 8, generator=gen, dtype=torch.float64), torch.randn(200, 8, generator=gen,
                                                                                 dtype=torch.float64)
    expected = np.abs(x1.numpy()[:, None] - x2.numpy()[None]).sum(-1)
    np.testing.assert_allclose(torch.cdist(x1, x2, p=1).numpy(), expected, rtol=1e-12)
    rows = torch.randn(300, 20000, generator=gen, dtype=torch.float64)[:, :200]
    i, j = np.triu_indices(300, 1)
    np.testing.assert_allclose(torch.pdist(rows).numpy(), np.linalg.norm(rows.numpy()[i] - rows.numpy()[j], axis=1),
                               rtol=1e-12)
