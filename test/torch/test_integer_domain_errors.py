"""Integer ops with no integer result raise PyTorch's errors (division by zero, an integer to a
negative number), and numbers beyond a dtype or beyond int64 are refused as PyTorch refuses them;
what PyTorch computes instead (true division, a tensor exponent) Ember computes alike. Every case,
and what PyTorch 2.13 does with it, comes from tools/record_error_reference.py
(test/data/errors/integer_domain.json)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import torch
from tools import record_error_reference as ref

# PyTorch holds an int in [2**63, 2**64) as a uint64 Scalar, whose wrapped tensor then wraps in
# int64 arithmetic; Ember has no uint64 dtype yet and refuses the number instead of wrapping it.
REFUSED_UNTIL_UINT64 = {name for name in ref.INTEGER_DOMAIN_CASES if name.startswith("add_in_uint64_range")}
REFERENCE = json.loads((Path(__file__).resolve().parent.parent / "data" / "errors" / "integer_domain.json").read_text())
CASES = REFERENCE["cases"]


def test_the_reference_covers_every_case():
    assert set(CASES) == set(ref.INTEGER_DOMAIN_CASES)


@pytest.mark.parametrize("name", sorted(ref.INTEGER_DOMAIN_CASES))
def test_an_integer_op_at_the_edge_of_its_domain_behaves_as_pytorch(name):
    expected = CASES[name]
    got = ref.run_case(torch, ref.INTEGER_DOMAIN_CASES[name])
    if name in REFUSED_UNTIL_UINT64:
        assert expected["outcome"] == "ok"
        assert (got["outcome"], got["error"]) == ("error", "RuntimeError") and "without overflow" in got["message"]
        return
    assert (got["outcome"], got.get("error"), got["message"]) == \
        (expected["outcome"], expected.get("error"), expected["message"])
    if expected["outcome"] == "ok":
        assert got["dtype"] == expected["dtype"]
        np.testing.assert_array_equal(np.array(got["values"], dtype=float), np.array(expected["values"], dtype=float))
