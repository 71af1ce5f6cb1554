"""torch.fx.Graph and Node editing: building graphs by hand, insert points, erasing, dead-code
elimination, lint, copying, use replacement, and a rewrite pass whose effect shows in the output."""
import copy
import operator

import pytest

import torch
import torch.fx as fx


class AddNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(3))

    def forward(self, x, y):
        return torch.add(x, y) + self.weight


def test_rewriting_adds_to_muls_changes_the_output_to_the_eager_products():
    torch.manual_seed(0)
    net = AddNet()
    gm = fx.symbolic_trace(net)
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target in (operator.add, torch.add):
            node.target = operator.mul if node.target is operator.add else torch.mul
    gm.recompile()
    x, y = torch.randn(3), torch.randn(3)
    assert torch.equal(gm(x, y), torch.mul(x, y) * net.weight)
    assert not torch.equal(gm(x, y), net(x, y))


def test_hand_built_graph_prints_and_runs_like_the_function_it_spells():
    graph = fx.Graph()
    a = graph.placeholder("a")
    b = graph.placeholder("b", default_value=2)
    total = graph.call_function(torch.sum, (a,))
    per_column = graph.call_function(torch.sum, (a,), {"dim": 0})
    added = graph.call_function(operator.add, (total, b))
    viewed = graph.call_method("view", (graph.call_function(operator.add, (added, per_column)), -1))
    graph.output((viewed, added))
    gm = fx.GraphModule(torch.nn.Module(), graph)
    # PyTorch 2.13 generates exactly this for the same graph (checked with /work/ref-torch)
    assert gm.code == ("\n\n\ndef forward(self, a, b = 2):\n"
                       "    sum_1 = torch.sum(a)\n"
                       "    sum_2 = torch.sum(a, dim = 0);  a = None\n"
                       "    add = sum_1 + b;  sum_1 = b = None\n"
                       "    add_1 = add + sum_2;  sum_2 = None\n"
                       "    view = add_1.view(-1);  add_1 = None\n"
                       "    return (view, add)\n    ")
    a_value = torch.randn(2, 3)
    got_view, got_add = gm(a_value)
    assert torch.equal(got_add, torch.sum(a_value) + 2)
    assert torch.equal(got_view, (torch.sum(a_value) + 2 + torch.sum(a_value, dim=0)).view(-1))


def test_inserting_after_then_erasing_and_dead_code_elimination_keep_the_graph_valid():
    graph = fx.Graph()
    x = graph.placeholder("x")
    added = graph.call_function(operator.add, (x, 1))
    graph.output(added)
    with graph.inserting_after(x):
        relu = graph.call_function(torch.relu, (x,))
    added.replace_input_with(x, relu)
    # PyTorch's printout after the same edits (checked with /work/ref-torch)
    assert str(graph) == ("graph():\n"
                          "    %x : [num_users=1] = placeholder[target=x]\n"
                          "    %relu : [num_users=1] = call_function[target=torch.relu](args = (%x,), kwargs = {})\n"
                          "    %add : [num_users=1] = call_function[target=operator.add](args = (%relu, 1), "
                          "kwargs = {})\n"
                          "    return add")
    with pytest.raises(RuntimeError, match=r"^Tried to erase Node relu but it still had 1 users in the graph: "
                                           r"\{add: None\}!$"):
        graph.erase_node(relu)
    unused = graph.call_function(operator.mul, (relu, relu))
    getattr_node = graph.call_function(getattr, (x, "T"))
    graph.erase_node(getattr_node)
    assert [n.name for n in graph.nodes] == ["x", "relu", "add", "output", "mul"]
    # nodes after the output are legal for lint; dead code elimination removes the unused mul
    graph.lint()
    assert graph.eliminate_dead_code() is True
    assert unused not in list(graph.nodes) and len(relu.users) == 1
    assert graph.eliminate_dead_code() is False
    gm = fx.GraphModule(torch.nn.Module(), graph)
    x_value = torch.randn(4)
    assert torch.equal(gm(x_value), torch.relu(x_value) + 1)


def test_dead_code_elimination_keeps_side_effects_and_inputs():
    graph = fx.Graph()
    x = graph.placeholder("x")
    unused_input = graph.placeholder("unused")
    graph.call_function(operator.setitem, (x, 0, 1.0))
    graph.call_function(torch.neg, (x,))
    graph.output(x)
    graph.eliminate_dead_code()
    assert [n.op for n in graph.nodes] == ["placeholder", "placeholder", "call_function", "output"]
    assert unused_input in list(graph.nodes)


def test_lint_reports_foreign_and_out_of_order_arguments():
    graph = fx.Graph()
    x = graph.placeholder("x")
    other = fx.Graph()
    other.placeholder("y")
    other.call_function(torch.neg, (x,))
    with pytest.raises(RuntimeError, match=r"^Argument 'x' of Node 'neg' does not belong to this Graph, but was "
                                           r"used as an argument!"):
        other.lint()
    late = graph.call_function(torch.relu, (x,))
    graph.output(late)
    with graph.inserting_before(late):
        graph.call_function(torch.neg, (late,))
    with pytest.raises(RuntimeError, match=r"^Argument 'relu' of Node 'neg' was used before it has been defined!"):
        graph.lint()


def test_lint_checks_targets_against_the_owning_module():
    gm = fx.symbolic_trace(AddNet())
    fetch = next(n for n in gm.graph.nodes if n.op == "get_attr")
    fetch.target = "missing"
    with pytest.raises(RuntimeError, match="references nonexistent attribute missing"):
        gm.graph.lint()


def test_args_are_immutable_and_assigned_whole():
    graph = fx.Graph()
    x = graph.placeholder("x")
    cat = graph.call_function(torch.cat, ([x, x],), {"dim": 0})
    with pytest.raises(TypeError, match="'immutable_list' object does not support mutation"):
        cat.args[0].append(x)
    with pytest.raises(TypeError, match="'immutable_dict' object does not support mutation"):
        cat.kwargs["dim"] = 1
    y = graph.placeholder("y")
    cat.update_arg(0, [x, y])
    cat.update_kwarg("dim", 1)
    assert cat.args == ([x, y],) and cat.kwargs == {"dim": 1}
    assert list(y.users) == [cat] and cat.all_input_nodes == [x, y]
    cat.args = ([y],)
    assert cat not in x.users


def test_replace_all_uses_with_moves_every_user_and_can_filter():
    graph = fx.Graph()
    x = graph.placeholder("x")
    y = graph.placeholder("y")
    first = graph.call_function(torch.neg, (x,))
    second = graph.call_function(operator.add, (x, x))
    graph.output((first, second))
    changed = x.replace_all_uses_with(y, delete_user_cb=lambda user: user is first)
    assert changed == [first]
    assert first.args == (y,) and second.args == (x, x)
    x.meta["note"] = 1
    assert x.replace_all_uses_with(y, propagate_meta=True) == [second]
    assert y.meta == {"note": 1} and len(x.users) == 0


def test_node_copy_and_graph_copy_rebuild_an_equivalent_graph():
    torch.manual_seed(0)
    net = AddNet()
    gm = fx.symbolic_trace(net)
    copied = fx.Graph()
    out = copied.graph_copy(gm.graph, {})
    copied.output(out)
    assert str(copied) == str(gm.graph)
    deep = copy.deepcopy(gm.graph)
    assert str(deep) == str(gm.graph)
    assert all(a is not b for a, b in zip(deep.nodes, gm.graph.nodes))
    x, y = torch.randn(3), torch.randn(3)
    assert torch.equal(fx.GraphModule(net, copied)(x, y), net(x, y))


def test_assigning_a_new_graph_recompiles_the_module():
    gm = fx.symbolic_trace(AddNet())
    graph = fx.Graph()
    x = graph.placeholder("x")
    graph.placeholder("y")
    graph.output(graph.call_function(torch.neg, (x,)))
    gm.graph = graph
    x_value = torch.randn(3)
    assert torch.equal(gm(x_value, x_value), -x_value)
    assert "neg = torch.neg(x)" in gm.code


def test_print_tabular_needs_tabulate(capsys):
    try:
        import tabulate  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            fx.symbolic_trace(AddNet()).graph.print_tabular()
        assert capsys.readouterr().out == ("`print_tabular` relies on the library `tabulate`, which could not be found "
                                           "on this machine. Run `pip install tabulate` to install the library.\n")
    else:
        fx.symbolic_trace(AddNet()).graph.print_tabular()
        assert "opcode" in capsys.readouterr().out
