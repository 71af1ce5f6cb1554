"""torch.fx.GraphModule: copying what the graph references, state_dict, pickling, deepcopy,
to_folder, submodule management and print_readable."""
import copy
import importlib
import pickle
import sys
import warnings

import pytest

import torch
import torch.fx as fx


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
        self.head = torch.nn.Linear(4, 2)
        self.unused = torch.nn.Linear(9, 9)
        self.register_buffer("shift", torch.arange(2.0))

    def forward(self, x):
        return self.head(self.seq(x)) + self.shift


@pytest.fixture
def net():
    torch.manual_seed(0)
    return Net()


def test_only_what_the_graph_references_is_copied(net):
    gm = fx.symbolic_trace(net)
    assert set(gm.state_dict()) == {"seq.0.weight", "seq.0.bias", "head.weight", "head.bias", "shift"}
    assert gm.head is net.head and not hasattr(gm, "unused")
    assert torch.equal(gm.state_dict()["shift"], net.shift)


def test_a_dict_root_provides_the_targets(net):
    graph = fx.symbolic_trace(net).graph
    root = {"seq.0": net.seq[0], "seq.1": net.seq[1], "head": net.head, "shift": net.shift}
    gm = fx.GraphModule(root, graph, class_name="FromDict")
    x = torch.randn(2, 3)
    assert torch.equal(gm(x), net(x))
    assert type(gm).__name__ == "FromDict"
    with pytest.raises(RuntimeError, match="referenced target head but that target was not provided in ``root``!"):
        fx.GraphModule({"seq.0": net.seq[0], "seq.1": net.seq[1]}, graph)


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


def test_to_folder_writes_an_importable_module(net, tmp_path):
    gm = fx.symbolic_trace(net)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gm.to_folder(tmp_path / "saved_fx", "SavedNet")
    # the Sequential has no faithful repr, so it is pickled beside the code, with PyTorch's warning
    assert any("saved as pickled files instead: ['seq']" in str(w.message) for w in caught)
    source = (tmp_path / "saved_fx" / "module.py").read_text()
    assert "setattr(self, 'head', Linear(in_features=4, out_features=2, bias=True))" in source
    assert "self.register_buffer('shift', torch.empty([2], dtype=torch.float32))" in source
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


def test_submodules_can_be_added_deleted_and_pruned(net):
    gm = fx.symbolic_trace(net)
    assert gm.add_submodule("extra.inner", torch.nn.ReLU()) is True
    assert isinstance(gm.extra.inner, torch.nn.ReLU)
    assert gm.add_submodule("shift.bad", torch.nn.ReLU()) is False
    assert gm.delete_submodule("extra.missing") is False
    assert gm.delete_submodule("extra.inner") is True and not hasattr(gm.extra, "inner")
    gm.delete_all_unused_submodules()
    assert sorted(name for name, _ in gm.named_modules()) == ["", "head", "seq", "seq.0", "seq.1"]


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


def test_print_readable_shows_the_class_and_returns_it(net, capsys):
    gm = fx.symbolic_trace(net)
    text = gm.print_readable(print_output=False)
    # PyTorch 2.13's layout (checked with /work/ref-torch on the same module)
    assert text == ("class Net(torch.nn.Module):\n"
                    "    def forward(self, x):\n"
                    "        # No stacktrace found for following nodes\n"
                    "        seq_0 = getattr(self.seq, \"0\")(x);  x = None\n"
                    "        seq_1 = getattr(self.seq, \"1\")(seq_0);  seq_0 = None\n"
                    "        head = self.head(seq_1);  seq_1 = None\n"
                    "        shift = self.shift\n"
                    "        add = head + shift;  head = shift = None\n"
                    "        return add\n")
    assert capsys.readouterr().out == ""
    gm.print_readable()
    assert capsys.readouterr().out == text + "\n"
