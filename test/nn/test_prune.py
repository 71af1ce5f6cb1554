"""torch.nn.utils.prune against PyTorch 2.13's results (tools/record_prune_reference.py): masks,
pruned weights, reparametrised names, forward passes and errors, for every pruning method, their
combination in a PruningContainer, global pruning and remove()."""
import json
from pathlib import Path

import pytest

import torch
from recorded import assert_matches
from tools import record_prune_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "prune" / "prune.json").read_text())["cases"]



@pytest.mark.parametrize("case", record.CASES)
def test_pruning_does_what_it_does_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    if "error" in ref:
        assert mine == ref
    else:
        assert_matches(mine, ref, case, 1e-6, 1e-6)


def test_the_mask_is_applied_before_each_forward_and_gradients_reach_the_original():
    import torch.nn.utils.prune as prune
    m = torch.nn.Linear(3, 2)
    prune.custom_from_mask(m, "weight", torch.tensor([[1, 0, 1], [0, 1, 1]]))
    with torch.no_grad():
        m.weight_orig.fill_(2.0)
    m(torch.ones(1, 3)).sum().backward()
    assert m.weight.tolist() == [[2.0, 0.0, 2.0], [0.0, 2.0, 2.0]]
    assert m.weight_orig.grad.tolist() == [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]


def test_random_structured_prunes_along_a_negative_dim():
    import torch.nn.utils.prune as prune
    torch.manual_seed(0)
    m = torch.nn.Linear(5, 4)
    prune.random_structured(m, "weight", amount=2, dim=-1)
    pruned_columns = (m.weight_mask == 0).all(dim=0)
    assert int(pruned_columns.sum()) == 2
    assert int((m.weight_mask == 0).sum()) == 2 * 4
