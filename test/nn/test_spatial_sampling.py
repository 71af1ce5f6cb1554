"""F.grid_sample (every mode and padding, 2-d and 3-d), F.affine_grid, F.unfold and F.fold against
PyTorch 2.13 (tools/record_spatial_reference.py): outputs, the gradients of every input (the grid's
too) and errors; the Fold/Unfold modules."""
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import torch
import torch.nn.functional as F
from tools import record_spatial_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "spatial" / "spatial.json").read_text())["cases"]


@pytest.mark.parametrize("case", record.CASES)
def test_spatial_op_does_what_it_does_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    if "error" in ref:
        assert mine == ref
        return
    np.testing.assert_allclose(np.array(mine["output"]), np.array(ref["output"]), rtol=1e-10, atol=1e-10)
    for got, expected in zip(mine["grads"], ref["grads"]):
        np.testing.assert_allclose(np.array(got), np.array(expected), rtol=1e-10, atol=1e-10)


def test_grid_sample_without_align_corners_warns_as_pytorch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.grid_sample(torch.randn(1, 1, 3, 3), torch.zeros(1, 2, 2, 2))
    assert "align_corners=False since 1.3.0" in str(caught[0].message)


def test_fold_of_unfold_counts_each_pixel_once_per_block_covering_it():
    x = torch.ones(1, 2, 5, 5)
    counts = F.fold(F.unfold(x, 3, padding=1), (5, 5), 3, padding=1)
    assert counts[0, 0, 2, 2] == 9 and counts[0, 0, 0, 0] == 4
    assert repr(torch.nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    assert repr(torch.nn.Fold(4, 2)) == "Fold(output_size=4, kernel_size=2, dilation=1, padding=0, stride=1)"
    assert torch.equal(torch.nn.Fold((5, 5), 3, padding=1)(torch.nn.Unfold(3, padding=1)(x)), counts)
