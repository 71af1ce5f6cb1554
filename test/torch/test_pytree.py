"""torch.utils._pytree against PyTorch 2.13's answers for the same cases, recorded by
tools/record_pytree_reference.py (reprs of results, or error types and messages)."""
import json
import warnings
from pathlib import Path

import pytest

import torch
from tools.record_pytree_reference import run_cases

REFERENCE = json.loads((Path(__file__).resolve().parent.parent / "data" / "pytree" / "pytree.json").read_text())


@pytest.fixture(scope="module")
def ember_answers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return run_cases(torch)


@pytest.mark.parametrize("case", sorted(REFERENCE["cases"]))
def test_pytree_case_answers_as_pytorch(ember_answers, case):
    assert ember_answers[case] == REFERENCE["cases"][case]


def test_flatten_then_unflatten_rebuilds_the_tree():
    from torch.utils import _pytree
    tree = {"w": [torch.ones(2), (torch.zeros(1), None)], "n": 3}
    leaves, spec = _pytree.tree_flatten(tree)
    rebuilt = _pytree.tree_unflatten(leaves, spec)
    assert rebuilt["n"] == 3 and rebuilt["w"][1][1] is None and rebuilt["w"][0] is tree["w"][0]


def test_get_node_type_is_the_registry_key_of_a_node():
    import collections
    from torch.utils._pytree import SUPPORTED_NODES, _get_node_type
    point = collections.namedtuple("Point", "x y")
    assert _get_node_type(point(1, 2)) is collections.namedtuple
    assert _get_node_type([1]) is list and _get_node_type({}) is dict
    assert _get_node_type(3) is int and _get_node_type(3) not in SUPPORTED_NODES
    assert _get_node_type(torch.max(torch.ones(2), 0)) in SUPPORTED_NODES      # a structseq
