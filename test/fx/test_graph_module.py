"""torch.fx.GraphModule: copying what the graph references, state_dict, pickling, deepcopy,
to_folder, submodule management and print_readable. The state_dict keys, warnings, saved source,
module names, errors and printouts are PyTorch 2.13's for the same module, recorded by
tools/record_fx_reference.py in test/data/fx/fx.json."""
import copy
import importlib
import pickle
import sys

import pytest

import torch
import torch.fx as fx
from tools import fx_reference_modules as cases
from tools import record_fx_reference as record

REFERENCE = record.reference()


@pytest.fixture
def net():
    return cases.graph_module_net(torch)  # seeded


def test_only_what_the_graph_references_is_copied():
    # the state_dict of what the graph uses, without the unused submodule
    run = record.run_case(torch, "referenced_state")
    assert run.seen == REFERENCE["referenced_state"]
    assert run.gm.head is run.net.head
    assert torch.equal(run.gm.state_dict()["shift"], run.net.shift)


def test_a_dict_root_provides_the_targets(net):
    graph = fx.symbolic_trace(net).graph
    root = {"seq.0": net.seq[0], "seq.1": net.seq[1], "head": net.head, "shift": net.shift}
    gm = fx.GraphModule(root, graph, class_name="FromDict")
    x = torch.randn(2, 3)
    assert torch.equal(gm(x), net(x))
    assert type(gm).__name__ == "FromDict"
    assert record.run_case(torch, "dict_root_missing_target").seen == REFERENCE["dict_root_missing_target"]


def test_pickling_round_trip_reproduces_outputs(net):
    gm = fx.symbolic_trace(net)
    restored = pickle.loads(pickle.dumps(gm))
    x = torch.randn(5, 3)
    assert torch.equal(restored(x), net(x))
    assert restored.code == gm.code
    assert str(restored.graph) == str(gm.graph)


def test_deepcopy_is_independent_of_the_original(net):
    gm = fx.symbolic_trace(net)
    clone = copy.deepcopy(gm)
    x = torch.randn(2, 3)
    assert torch.equal(clone(x), gm(x))
    with torch.no_grad():
        clone.head.weight.zero_()
    assert not torch.equal(clone(x), gm(x))
    assert clone.graph is not gm.graph and type(clone) is not type(gm)


def test_to_folder_writes_an_importable_module(tmp_path):
    # the Sequential has no faithful repr, so it is pickled beside the code, with PyTorch's warning; the files
    # and module.py's source (the folder shown as <folder>) are PyTorch's
    run = cases.to_folder(torch, tmp_path)
    assert run.seen == REFERENCE["saved_to_folder"]
    net = run.net
    sys.path.insert(0, str(tmp_path))
    try:
        package = importlib.import_module("saved_fx")
        loaded = package.SavedNet()
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("saved_fx", None)
        sys.modules.pop("saved_fx.module", None)
    x = torch.randn(4, 3)
    assert torch.equal(loaded(x), net(x))


def test_submodules_can_be_added_deleted_and_pruned():
    # what add_submodule/delete_submodule answer, and the modules left after pruning the unused ones
    run = record.run_case(torch, "submodule_management")
    assert run.seen == REFERENCE["submodule_management"]


def test_graph_edits_need_recompile_to_reach_forward(net):
    gm = fx.symbolic_trace(net)
    output = gm.graph.output_node()
    with gm.graph.inserting_before(output):
        negated = gm.graph.call_function(torch.neg, (output.args[0],))
    output.args = (negated,)
    x = torch.randn(2, 3)
    assert torch.equal(gm(x), net(x))
    gm.recompile()
    assert torch.equal(gm(x), -net(x))


def test_print_readable_shows_the_class_and_returns_it(capsys):
    # PyTorch 2.13's layout for the same module, returned without printing
    run = record.run_case(torch, "print_readable_net")
    assert run.seen == REFERENCE["print_readable_net"]
    gm, text = run.gm, REFERENCE["print_readable_net"]["text"]
    assert capsys.readouterr().out == ""
    gm.print_readable()
    assert capsys.readouterr().out == text + "\n"
