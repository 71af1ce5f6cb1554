"""make_fx, tracing at the operator level through a TorchDispatchMode: the graphs it builds (as PyTorch 2.13
builds them for the same programs: indexing as select/slice/unsqueeze/index, a training step's forward and
backward; recorded by tools/record_fx_reference.py in test/data/fx/fx.json) and their replay."""
from __future__ import annotations

import pytest

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from tools import fx_reference_tracing as cases
from tools import record_fx_reference as record

REFERENCE = record.reference()
aten = torch.ops.aten


def _check(case):
    run = record.run_case(torch, case)
    assert run.seen == REFERENCE[case]
    return run


def test_make_fx_prints_the_graph_pytorch_prints():
    _check("make_fx_graph")


@pytest.mark.parametrize("index", range(len(cases.INDEXING)))
def test_indexing_reaches_the_mode_as_select_slice_and_unsqueeze(index):
    # each indexing form's aten calls, as PyTorch 2.13's make_fx records them
    run = _check(f"make_fx_indexing_{index}")
    assert torch.equal(run.gm(run.x), cases.INDEXING[index](run.x))


def test_tensor_indices_and_assignment_trace_to_index_and_index_put():
    run = record.run_case(torch, "make_fx_index_put")
    # tensor indices reach the mode as index_put_ and index, as in PyTorch
    assert run.seen["has_index_put_and_index"] == REFERENCE["make_fx_index_put"]["has_index_put_and_index"]
    other = torch.randn(4, 5, 6)
    assert torch.equal(run.gm(other, run.i), cases.indexed_assignment(other, run.i))


@pytest.mark.xfail(strict=True, reason="PyTorch 2.13 lifts the Python scalar of `y[0, 1:3] = 2.0` to a tensor "
                                       "(aten.lift_fresh_copy) and records aten.fill_.Tensor; Ember records "
                                       "aten.fill_.Scalar without the lift")
def test_tensor_indices_and_assignment_record_pytorchs_ops():
    run = record.run_case(torch, "make_fx_index_put")
    assert run.seen["ops"] == REFERENCE["make_fx_index_put"]["ops"]


def test_make_fx_of_a_training_step_records_forward_and_backward_and_replays_it():
    # the forward's first ops, the weight gradient's mm, and the parameters lifted as constants
    run = _check("make_fx_training_step")
    expected = run.linear(run.x).pow(2).mean()
    assert torch.equal(run.gm(run.x), expected)


def test_decompositions_replace_an_operator_by_what_they_call():
    run = _check("make_fx_decomposition")
    assert record.same_objects(torch, REFERENCE["make_fx_decomposition"]["ops"],
                               [n.target for n in run.gm.graph.nodes if n.op == "call_function"])
    x = torch.randn(5)
    assert torch.equal(run.gm(x), torch.relu(x))


def test_tracing_modes_ember_cannot_provide_say_what_is_missing():
    with pytest.raises(NotImplementedError, match="FakeTensor"):
        make_fx(torch.sin, tracing_mode="fake")


@pytest.mark.xfail(strict=True, reason="PyTorch 2.13 says 'tracing_mode must be real/fake/symbolic, got bogus'; "
                                       "Ember says 'Unexpected tracing type: bogus' (both AssertionError)")
def test_an_unknown_tracing_mode_is_refused_as_pytorch_refuses_it():
    _check("make_fx_bogus_tracing_mode")


def test_an_unknown_tracing_mode_is_refused():
    run = record.run_case(torch, "make_fx_bogus_tracing_mode")
    assert run.seen["make_fx"]["error"] == REFERENCE["make_fx_bogus_tracing_mode"]["make_fx"]["error"]
    assert run.seen["make_fx"]["message"].endswith(" bogus")          # it names the mode it was given


@pytest.mark.parametrize("index", range(len(cases.VALUE_READS)))
def test_reading_a_traced_value_raises_instead_of_baking_it_into_the_graph(index):
    run = record.run_case(torch, "make_fx_value_reads")
    assert run.seen[str(index)] == REFERENCE["make_fx_value_reads"][str(index)]
    assert torch.ones(2).sum().item() == 2.0               # item is itself again afterwards


def test_data_is_recorded_as_detach():
    run = _check("make_fx_data")
    assert record.same_objects(torch, REFERENCE["make_fx_data"]["ops"],
                               [n.target for n in run.gm.graph.nodes if n.op == "call_function"])
    x = torch.randn(3)
    assert torch.equal(run.gm(x), x * x)


def test_nested_inputs_are_taken_back_nested_by_the_forward():
    run = _check("make_fx_nested_inputs")
    again = {"a": torch.randn(3), "b": torch.randn(3)}, [torch.randn(3), torch.randn(3)]
    result, expected = run.gm(*again), {"s": again[0]["a"] + again[0]["b"], "p": again[1][0] * again[1][1]}
    assert result.keys() == expected.keys() and all(torch.equal(result[k], expected[k]) for k in expected)


def test_make_fx_of_vmap_records_the_batched_program():
    run = _check("make_fx_of_vmap")
    assert torch.equal(run.gm(run.x), run.x.sin().sum(1))
