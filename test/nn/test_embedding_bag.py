"""F.embedding_bag and nn.EmbeddingBag against PyTorch 2.13 (tools/record_embedding_bag_reference.py):
the operator's four results and the gradients of weight and per_sample_weights in every mode, with
padding_idx, include_last_offset and empty bags; the functional's errors and the module's repr."""
import json
from pathlib import Path

import numpy as np
import pytest

import torch
from tools import record_embedding_bag_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "embedding_bag" /
                        "embedding_bag.json").read_text())["cases"]


@pytest.mark.parametrize("case", record.CASES)
def test_embedding_bag_does_what_it_does_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    if "results" not in ref:
        if case == "functional_2d":
            np.testing.assert_allclose(np.array(mine["result"]), np.array(ref["result"]), rtol=1e-6)
        else:
            assert mine == ref
        return
    for got, expected in zip(mine["results"], ref["results"]):
        assert np.array(got).shape == np.array(expected).shape
        np.testing.assert_allclose(np.array(got, dtype=float), np.array(expected, dtype=float), atol=1e-12)
    np.testing.assert_allclose(mine["weight_grad"], ref["weight_grad"], atol=1e-12)
    if ref["psw_grad"] is not None:
        np.testing.assert_allclose(mine["psw_grad"], ref["psw_grad"], atol=1e-12)


def test_scale_grad_by_freq_divides_each_rows_gradient_by_its_frequency():
    # PyTorch documents this for embedding_bag (its CPU kernel scales by another index's count); Ember does
    # what the documentation and F.embedding do
    weight = torch.randn(5, 2, dtype=torch.float64, requires_grad=True)
    indices, offsets = torch.tensor([1, 2, 2, 3, 2]), torch.tensor([0, 3])
    torch.nn.functional.embedding_bag(indices, weight, offsets, mode="sum", scale_grad_by_freq=True).sum().backward()
    assert weight.grad[:, 0].tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]


def test_embedding_bag_module_trains_and_round_trips_pretrained_weights():
    bag = torch.nn.EmbeddingBag(10, 3, mode="max")
    out = bag(torch.tensor([[1, 2], [3, 3]]))
    out.sum().backward()
    assert out.shape == (2, 3) and bag.weight.grad.abs().sum() > 0
    pretrained = torch.nn.EmbeddingBag.from_pretrained(torch.eye(4), mode="sum")
    assert not pretrained.weight.requires_grad
    assert pretrained(torch.tensor([0, 1, 3]), torch.tensor([0, 2])).tolist() == [[1.0, 1.0, 0.0, 0.0],
                                                                                  [0.0, 0.0, 0.0, 1.0]]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_offsets_that_decrease_raise_in_every_mode(mode):
    # (PyTorch raises an internal check for sum and mean, and returns a result for max)
    weight = torch.randn(10, 3)
    with pytest.raises(RuntimeError, match=r"offsets must not decrease, but offsets\[1\] = 3 is greater than "
                                           r"offsets\[2\] = 1"):
        torch.nn.functional.embedding_bag(torch.tensor([1, 2, 3, 4]), weight, torch.tensor([0, 3, 1]), mode=mode)
