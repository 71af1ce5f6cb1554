"""Graph and Node internals that the public API shows: moving nodes, erasing, copying, linting and printing."""
import copy
import operator
import warnings

import pytest
import torch
import torch.fx as fx


def _chain_graph() -> tuple[fx.Graph, list[fx.Node]]:
    g = fx.Graph()
    x = g.placeholder("x")
    a = g.call_function(operator.add, (x, 1))
    b = g.call_function(operator.mul, (a, 2))
    c = g.call_function(operator.sub, (b, x))
    g.output(c)
    return g, [x, a, b, c]


def test_prepend_and_append_move_nodes_and_keep_order_keys_sorted() -> None:
    g, (x, a, b, c) = _chain_graph()
    d = g.call_function(torch.relu, (x,))
    a.prepend(d)
    assert [n.name for n in g.nodes] == ["x", "relu", "add", "mul", "sub", "output"]
    b.append(d)
    assert [n.name for n in g.nodes] == ["x", "add", "mul", "relu", "sub", "output"]
    b.append(d)  # already there
    d.append(d)
    d.prepend(d)
    assert [n.name for n in g.nodes] == ["x", "add", "mul", "relu", "sub", "output"]
    assert sorted(reversed(list(g.nodes))) == list(g.nodes)
    assert [n.name for n in reversed(g.nodes)] == ["output", "sub", "relu", "mul", "add", "x"]
    with pytest.raises(AssertionError, match="different Graph"):
        fx.Graph().placeholder("y").prepend(a)


def test_erase_node_blanks_arguments_and_checks_users_and_graph() -> None:
    g, (x, a, b, c) = _chain_graph()
    with pytest.raises(RuntimeError, match="still had 1 users"):
        g.erase_node(a)
    with pytest.raises(RuntimeError, match="from wrong graph"):
        fx.Graph().erase_node(g.call_function(torch.relu, (x,)))
    d = g.call_function(operator.add, (x, {"k": [a, slice(b, None)]}))
    g.erase_node(d)
    assert d.args == (None, {"k": [None, slice(None, None, None)]})
    assert d not in x.users and d not in a.users and len(g.nodes) == 6
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g.erase_node(d)
    assert "already erased" in str(caught[0].message)
    assert g.find_nodes(op="call_function", target=operator.add, sort=False) == [a]


def test_inserting_before_none_is_the_start_and_after_none_the_end() -> None:
    g, (x, a, b, c) = _chain_graph()
    with g.inserting_before(None):
        p = g.placeholder("p")
    with g.inserting_after(None):
        q = g.placeholder("q")
    with g.inserting_after(a):
        r = g.call_function(torch.neg, (a,))
    with g.inserting_before(c):
        s = g.call_function(torch.abs, (b,))
    assert list(g.nodes)[0] is p and list(g.nodes)[-1] is q
    assert list(g.nodes).index(r) == list(g.nodes).index(a) + 1
    assert list(g.nodes).index(s) == list(g.nodes).index(c) - 1
    with pytest.raises(AssertionError, match="Node to insert before is not in graph."):
        fx.Graph().inserting_before(a)
    with pytest.raises(AssertionError, match="Node to insert after is not in graph."):
        fx.Graph().inserting_after(a)


def test_create_node_checks_and_names() -> None:
    g = fx.Graph()
    x = g.placeholder("x")
    with pytest.raises(AssertionError, match="args must be a tuple"):
        g.create_node("call_function", torch.relu, [x])  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match="kwargs must be a dict"):
        g.create_node("call_function", torch.relu, (x,), [("a", 1)])  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match="not in _legal_ops"):
        g.create_node("bogus", "t")
    with pytest.raises(ValueError, match="but a Callable is expected"):
        g.create_node("call_function", "relu")
    with pytest.raises(ValueError, match="but a str is expected"):
        g.create_node("call_method", torch.relu)
    names = [g.create_node("call_method", "__add__", (x, x)).name for _ in range(2)]
    assert names == ["add", "add_1"]
    assert g.create_node("call_function", torch.relu, (x,), name="mine").name == "mine"


def test_output_node_lint_and_str() -> None:
    with pytest.raises(StopIteration):
        fx.Graph().output_node()
    g, (x, a, b, c) = _chain_graph()
    assert g.output_node().op == "output"
    g.lint()
    text = str(g)
    assert text.splitlines()[0] == "graph():" and "return sub" in text
    a.args = (c, 1)
    with pytest.raises(RuntimeError, match="was used before it has been defined"):
        g.lint()
    a.args = (x, 1)
    b.name = "add"
    with pytest.raises(RuntimeError, match="Node redefined name add!"):
        g.lint()


def test_lint_checks_targets_against_the_owning_module() -> None:
    root = torch.nn.Module()
    root.sub = torch.nn.Linear(2, 2)
    gm = fx.symbolic_trace(torch.nn.Sequential(torch.nn.ReLU()))
    g = fx.Graph(owning_module=gm)
    x = g.placeholder("x")
    node = g.create_node("get_attr", "nope.weight")
    g.output(x)
    with pytest.raises(RuntimeError, match="references nonexistent attribute nope of "):
        g.lint()
    node.target = "0.missing"
    with pytest.raises(RuntimeError, match="nonexistent attribute missing of 0$"):
        g.lint()


def test_get_attr_warns_when_the_reference_is_missing() -> None:
    gm = fx.symbolic_trace(torch.nn.Linear(2, 2))
    gm.register_buffer("buf", None)
    g = fx.Graph(owning_module=gm)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.get_attr("weight")
        g.get_attr("buf")
    with pytest.warns(UserWarning, match="no underlying reference"):
        g.get_attr("missing")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g.get_attr("a.b.c")
    assert [str(w.message)[:28] for w in caught] == ["Failed to fetch module a.b!", "Attempted to insert a get_at"]


def test_deepcopy_and_graph_copy() -> None:
    g, (x, a, b, c) = _chain_graph()
    g.output_node().meta["tag"] = 1
    twin = copy.deepcopy(g)
    assert str(twin) == str(g)
    assert twin.output_node().meta == {"tag": 1}
    h = fx.Graph()
    val_map: dict[fx.Node, fx.Node] = {}
    returned, old_out = h.graph_copy(g, val_map, return_output_node=True)
    assert old_out is g.output_node() and returned is val_map[c]
    h2 = fx.Graph()
    y = h2.placeholder("y")
    assert h2.graph_copy(g, {x: y}).args == (h2.find_nodes(op="call_function", target=operator.mul)[0], y)


def test_python_code_restores_node_reprs() -> None:
    g, nodes = _chain_graph()
    code = g.python_code("self").src
    assert "def forward(self, x):" in code
    assert [repr(n) for n in nodes] == ["x", "add", "mul", "sub"]


def test_map_aggregate_keeps_namedtuples_and_makes_lists_immutable() -> None:
    size = torch.Size([2, 3])
    out = fx.node.map_aggregate((size, [1, {"a": 2}], slice(1, 3)), lambda v: v * 10 if isinstance(v, int) else v)
    assert out == ((20, 30), [10, {"a": 20}], slice(10, 30, None))
    assert type(out[0]) is tuple and type(out[1]).__name__ == "immutable_list"
    with pytest.raises(AssertionError, match="fn must be a callable"):
        fx.map_arg((1,), None)  # type: ignore[arg-type]
