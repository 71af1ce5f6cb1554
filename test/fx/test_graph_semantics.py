"""torch.fx Graph/Node semantics checked against PyTorch 2.13 (the expected values below were observed
with /work/ref-torch): purity of random ops under dead-code elimination, ordering of nodes by graph
position, replace_pattern's failure modes, naming, printing and copying."""
import copy
import operator
import random
import typing

import pytest

import torch
import torch.fx as fx


# -- dead-code elimination and random ops ----------------------------------------------------------------------------

def test_eliminate_dead_code_keeps_unused_random_draws():
    def f(x):
        torch.randn_like(x)
        return x + torch.randn_like(x)

    gm = fx.symbolic_trace(f)
    assert gm.graph.eliminate_dead_code() is False
    assert [n.name for n in gm.graph.nodes] == ["x", "randn_like", "randn_like_1", "add", "output"]


@pytest.mark.parametrize("name", ["rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm",
                                  "bernoulli", "multinomial", "normal"])
def test_torch_random_functions_are_impure_whatever_impure_random_says(name):
    graph = fx.Graph()
    node = graph.call_function(getattr(torch, name), (graph.placeholder("x"),))
    assert node.is_impure() is True
    assert node.is_impure(impure_random=False) is True


@pytest.mark.parametrize("fn", [torch.nn.functional.dropout, torch.relu, random.random, torch.add])
def test_other_functions_are_pure(fn):
    graph = fx.Graph()
    node = graph.call_function(fn, (graph.placeholder("x"),))
    assert node.is_impure() is False


def test_aten_random_ops_follow_impure_random_and_mutating_ops_are_always_impure():
    graph = fx.Graph()
    x = graph.placeholder("x")
    aten = torch.ops.aten
    cases = [(aten.rand.default, True, False), (aten.randn_like.default, True, False),
             (aten.native_dropout.default, True, False), (aten.rand, True, False), (aten.add.Tensor, False, False),
             (aten.add_.Tensor, True, True), (aten.normal_.default, True, True), (aten.normal, False, False)]
    for op, impure, impure_without_random in cases:
        node = graph.call_function(op, (x,))
        assert (node.is_impure(), node.is_impure(impure_random=False)) == (impure, impure_without_random), op


def test_dead_code_elimination_drops_pure_unused_nodes_but_not_placeholders():
    graph = fx.Graph()
    x = graph.placeholder("x")
    graph.placeholder("unused")
    graph.call_function(torch.relu, (x,))
    graph.call_function(torch.rand, ((2,),))
    graph.output(x)
    assert graph.eliminate_dead_code() is True
    assert [n.name for n in graph.nodes] == ["x", "unused", "rand", "output"]


# -- nodes order by graph position -----------------------------------------------------------------------------------

def _chain(length):
    graph = fx.Graph()
    nodes = [graph.placeholder("a")]
    for _ in range(length):
        nodes.append(graph.call_function(operator.neg, (nodes[-1],)))
    graph.output(nodes[-1])
    return graph, nodes


def test_nodes_compare_by_position():
    graph, nodes = _chain(3)
    a, n1, n2, _ = nodes
    assert a < n1 and n1 < n2 and n2 > a
    assert not n1 < a and not a > n1
    assert a <= a and a >= a and not a < a
    assert sorted(reversed(list(graph.nodes))) == list(graph.nodes)
    with pytest.raises(TypeError, match="'<' not supported between instances of 'Node' and 'int'"):
        a < 1  # noqa: B015


def test_order_follows_moves_and_insertions_and_erased_nodes_keep_their_place():
    graph = fx.Graph()
    a = graph.placeholder("a")
    b = graph.call_function(operator.add, (a, 1))
    c = graph.call_function(operator.mul, (a, 2))
    graph.output(c)
    b.prepend(c)
    assert c < b and not b < c
    with graph.inserting_before(b):
        d = graph.call_function(operator.neg, (a,))
    assert (a < d, d < b, c < d, d < c) == (True, True, True, False)
    graph.erase_node(b)
    assert (b < c, c < b, b > a) == (False, True, True)


def test_order_survives_many_insertions_at_one_place():
    graph, nodes = _chain(1)
    for _ in range(200):
        with graph.inserting_after(nodes[0]):
            graph.call_function(operator.neg, (nodes[0],))
    in_order = list(graph.nodes)
    assert all(first < second for first, second in zip(in_order, in_order[1:]))
    assert sorted(reversed(in_order)) == in_order
    # inserting_after(n) puts each new node right after n: the latest comes first
    assert [n.name for n in in_order[:3]] == ["a", "neg_200", "neg_199"]


def test_nodes_of_different_graphs_compare_by_position_and_equal_positions_are_unordered():
    _, first = _chain(3)
    _, second = _chain(3)
    assert first[0] < second[1] and second[2] > first[1]
    assert not first[1] < second[1] and not first[1] <= second[1] and not first[1] >= second[1]


# -- insertion points ------------------------------------------------------------------------------------------------

def test_insertion_points_apply_at_once_and_restore_on_exit():
    graph = fx.Graph()
    x = graph.placeholder("x")
    out = graph.output(x)
    with graph.inserting_before(None):
        graph.call_function(operator.neg, (x,))
        graph.call_function(operator.pos, (x,))
    assert [n.name for n in graph.nodes] == ["pos", "neg", "x", "output"]
    graph.inserting_after(x)  # without `with`, as in PyTorch, the point moves for good
    graph.call_function(operator.abs, (x,))
    with graph.inserting_before(out):
        with graph.inserting_after(x):
            graph.call_function(operator.neg, (x,))
        graph.call_function(operator.neg, (x,))
    graph.call_function(operator.neg, (x,))
    assert [n.name for n in graph.nodes] == ["pos", "neg", "x", "neg_3", "neg_1", "abs_1", "neg_2", "output"]
    other = fx.Graph().placeholder("q")
    with pytest.raises(AssertionError, match="^Node to insert before is not in graph.$"):
        graph.inserting_before(other)
    with pytest.raises(AssertionError, match="^Node to insert after is not in graph.$"):
        graph.inserting_after(other)


# -- replace_pattern -------------------------------------------------------------------------------------------------

def test_replace_pattern_with_a_placeholder_only_pattern_raises_and_leaves_the_graph_intact():
    # PyTorch raises the same error, but only after rewriting the earlier matches into a cyclic graph
    gm = fx.symbolic_trace(lambda x: x.sin())
    before = gm.code
    with pytest.raises(AssertionError, match="^The insert point can't be None$"):
        fx.replace_pattern(gm, lambda a: a, lambda a: a.cos())
    gm.graph.lint()
    assert gm.code == before


def test_replace_pattern_reports_targets_neither_module_has():
    class WithParam(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.zz = torch.nn.Parameter(torch.ones(3))

        def forward(self, x):
            return torch.relu(x) + self.zz

    gm = fx.symbolic_trace(WithParam())
    del gm.zz
    with pytest.raises(RuntimeError) as info:
        fx.replace_pattern(gm, lambda x: torch.relu(x), fx.symbolic_trace(lambda x: x.neg()))
    assert info.value.args == ('Attempted to create a "', "get_attr", '" node during subgraph rewriting with target '
                               "zz, but the referenced attribute does not exist in the replacement GraphModule")
    # a plain function replacement copies nothing and checks nothing
    gm = fx.symbolic_trace(WithParam())
    del gm.zz
    fx.replace_pattern(gm, lambda x: torch.relu(x), lambda x: x.neg())


def test_replace_pattern_lints_a_replacement_graph_module_that_lost_an_attribute():
    class Rep(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x):
            return self.lin(x)

    replacement = fx.symbolic_trace(Rep())
    del replacement.lin
    gm = fx.symbolic_trace(lambda x: torch.relu(x) + 1)
    with pytest.raises(RuntimeError, match="^Node lin target lin references nonexistent attribute lin of $"):
        fx.replace_pattern(gm, lambda x: torch.relu(x), replacement)


def test_replace_pattern_copies_the_replacements_modules_and_parameters():
    class Rep(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)
            self.scale = torch.nn.Parameter(torch.ones(3))

        def forward(self, x):
            return self.lin(x) * self.scale

    rep = Rep()
    gm = fx.symbolic_trace(lambda x: torch.relu(x) + 1)
    fx.replace_pattern(gm, lambda x: torch.relu(x), rep)
    assert sorted(n for n, _ in gm.named_parameters()) == ["lin.bias", "lin.weight", "scale"]
    assert gm.lin is not rep.lin
    x = torch.randn(2, 3)
    assert torch.allclose(gm(x), rep(x) + 1)


# -- naming, printing, code generation -------------------------------------------------------------------------------

def test_generated_names_and_globals_match_pytorch():
    graph = fx.Graph()
    x = graph.placeholder("x", type_expr=typing.List[typing.Tuple[int, str]])
    y = graph.placeholder("sum", type_expr=typing.Optional[typing.Dict[str, typing.Any]])
    s1 = graph.call_function(sum, (x,))
    s2 = graph.create_node("call_function", operator.add, (s1, y), name="add_1")
    s3 = graph.call_function(operator.add, (s2, 1))
    s4 = graph.call_function(operator.add, (s3, 1))
    g = graph.call_function(getattr, (s4, "T"))
    graph.output(g)
    code = graph.python_code("self")
    assert code.src == (
        "\n\n\ndef forward(self, x : typing_List[typing_Tuple[int,str]], sum : typing_Union[typing_Dict[str,"
        "typing_Any],NoneType]):\n"
        "    sum_1 = sum\n"
        "    sum_2 = sum(x);  x = None\n"
        "    add_1 = sum_2 + sum_1;  sum_2 = sum_1 = None\n"
        "    add = add_1 + 1;  add_1 = None\n"
        "    add_2 = add + 1;  add = None\n"
        "    getattr_1 = add_2.T;  add_2 = None\n"
        "    return getattr_1\n    ")
    assert [n.name for n in graph.nodes] == ["x", "sum_1", "sum_2", "add_1", "add", "add_2", "getattr_1", "output"]
    assert {"typing_List", "typing_Tuple", "typing_Dict", "typing_Any", "typing_Union", "sum"} <= set(code.globals)


def test_format_node_quirks_of_pytorch():
    graph = fx.Graph()
    a = graph.placeholder("a", type_expr=int)
    k = graph.placeholder("k", type_expr=())
    added = graph.call_function(operator.add, (a, k), type_expr=0)
    added.meta["val"] = torch.zeros(2, 3).t()
    graph.output(added, type_expr=int)
    names = ["z"]
    assert a.format_node(names) is None and names == ["z", "aa: int"]
    assert k.format_node() == "%k : [num_users=1] = placeholder[target=k]"
    assert added.format_node() == ("%add : 0 [num_users=1] = call_function[target=operator.add](args = (%a, %k), "
                                   "kwargs = {})")
    assert added.format_node(include_tensor_metadata=True) == (
        '%add : Tensor "f32[3, 2][1, 3]cpu"[num_users=1] = call_function[target=operator.add](args = (%a, %k), '
        "kwargs = {})")
    typename = [""]
    assert graph.output_node().format_node(None, typename) == "return add" and typename == [" -> int"]
    assert str(graph).splitlines()[0] == "graph():"


def test_call_module_needs_an_existing_submodule():
    root = torch.nn.Module()
    root.sub = torch.nn.ReLU()
    root.p = torch.nn.Parameter(torch.ones(1))
    gm = fx.GraphModule(root, fx.Graph())
    gm.sub, gm.p = root.sub, root.p
    gm.graph.call_module("sub")
    with pytest.raises(AttributeError, match="has no attribute `missing`"):
        gm.graph.call_module("missing")
    with pytest.raises(AttributeError, match="`p` is not an nn.Module"):
        gm.graph.call_module("p")


# -- copying ---------------------------------------------------------------------------------------------------------

def test_graph_copy_node_copy_and_deepcopy():
    graph = fx.Graph()
    x = graph.placeholder("x")
    neg = graph.call_function(operator.neg, (x,))
    neg.meta["k"] = [1]
    out = graph.output(neg, type_expr=int)
    out.meta["m"] = 2
    target = fx.Graph()
    y = target.placeholder("y")
    assert target.graph_copy(graph, {x: y}) is target.find_nodes(op="call_function", target=operator.neg)[0]
    copied, old_output = fx.Graph().graph_copy(graph, {x: x}, return_output_node=True)
    assert old_output is out and copied.name == "neg" and copied.args == (x,)
    twin = target.node_copy(neg, lambda n: y)
    assert twin.name == "neg_1" and twin.args == (y,) and twin.meta == {"k": [1]} and twin.meta is not neg.meta
    clone = copy.deepcopy(graph)
    assert [n.name for n in clone.nodes] == ["x", "neg", "output"]
    assert clone.output_node().type is int and clone.output_node().meta == {"m": 2}
    assert clone._codegen is not graph._codegen
    assert fx.Graph().graph_copy(fx.Graph(), {}) is None


def test_find_nodes():
    graph = fx.Graph()
    x = graph.placeholder("x")
    first = graph.call_function(operator.add, (x, 1))
    graph.call_method("neg", (first,))
    graph.output(first)
    with graph.inserting_before(first):
        second = graph.call_function(operator.add, (x, 2))
    assert graph.find_nodes(op="call_function", target=operator.add) == [second, first]
    assert graph.find_nodes(op="call_function", target=operator.add, sort=False) == [first, second]
    assert [n.name for n in graph.find_nodes(op="call_method")] == ["neg"]
    with pytest.raises(AssertionError, match="^target must not be None for call_function op$"):
        graph.find_nodes(op="call_function")
