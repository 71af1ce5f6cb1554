"""torch.fx reference cases (see tools/record_fx_reference.py) for the Graph and Node tests: graph editing,
graph internals and graph semantics (test/fx/test_graph_editing.py, test_graph_internals.py,
test_graph_semantics.py)."""
import contextlib
import copy
import importlib.util
import io
import operator
import random
import re
import typing
from typing import Any

from tools.fx_reference_run import Run, case, failure, names


# -- test_graph_editing ----------------------------------------------------------------------------------------------

def add_net(torch: Any) -> Any:
    class AddNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(3))

        def forward(self, x, y):
            return torch.add(x, y) + self.weight

    return AddNet()


@case
def hand_built_graph(torch: Any) -> Run:
    run = Run(torch)
    fx = torch.fx
    graph = fx.Graph()
    a = graph.placeholder("a")
    b = graph.placeholder("b", default_value=2)
    total = graph.call_function(torch.sum, (a,))
    per_column = graph.call_function(torch.sum, (a,), {"dim": 0})
    added = graph.call_function(operator.add, (total, b))
    viewed = graph.call_method("view", (graph.call_function(operator.add, (added, per_column)), -1))
    graph.output((viewed, added))
    run.gm = fx.GraphModule(torch.nn.Module(), graph)
    run.see("code", run.gm.code)
    return run


@case
def insert_erase_and_dead_code(torch: Any) -> Run:
    run = Run(torch)
    graph = run.graph = torch.fx.Graph()
    x = graph.placeholder("x")
    added = graph.call_function(operator.add, (x, 1))
    graph.output(added)
    with graph.inserting_after(x):
        relu = run.relu = graph.call_function(torch.relu, (x,))
    added.replace_input_with(x, relu)
    run.see("graph", str(graph))
    run.attempt("erase_used_node", lambda: graph.erase_node(relu))
    run.unused = graph.call_function(operator.mul, (relu, relu))
    getattr_node = graph.call_function(getattr, (x, "T"))
    graph.erase_node(getattr_node)
    run.see("names", names(graph))
    run.attempt("lint", graph.lint)
    run.see("eliminated", graph.eliminate_dead_code())
    run.see("names_after_elimination", names(graph))
    run.see("relu_users", len(relu.users))
    run.see("eliminated_again", graph.eliminate_dead_code())
    run.gm = torch.fx.GraphModule(torch.nn.Module(), graph)
    return run


@case
def dead_code_side_effects(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    graph.placeholder("unused")
    graph.call_function(operator.setitem, (x, 0, 1.0))
    graph.call_function(torch.neg, (x,))
    graph.output(x)
    graph.eliminate_dead_code()
    run.see("ops", [n.op for n in graph.nodes])
    run.see("names", names(graph))
    return run


@case
def lint_foreign_and_out_of_order(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    other = torch.fx.Graph()
    other.placeholder("y")
    other.call_function(torch.neg, (x,))
    run.attempt("foreign_argument", other.lint)
    late = graph.call_function(torch.relu, (x,))
    graph.output(late)
    with graph.inserting_before(late):
        graph.call_function(torch.neg, (late,))
    run.attempt("used_before_defined", graph.lint)
    return run


@case
def lint_missing_attribute(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(add_net(torch))
    fetch = next(n for n in gm.graph.nodes if n.op == "get_attr")
    fetch.target = "missing"
    run.attempt("lint", gm.graph.lint)
    return run


@case
def immutable_args(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    x = run.x = graph.placeholder("x")
    cat = run.cat = graph.call_function(torch.cat, ([x, x],), {"dim": 0})
    run.attempt("append_to_args", lambda: cat.args[0].append(x))
    run.attempt("set_kwarg", lambda: cat.kwargs.__setitem__("dim", 1))
    y = run.y = graph.placeholder("y")
    cat.update_arg(0, [x, y])
    cat.update_kwarg("dim", 1)
    run.see("args", cat.args)
    run.see("kwargs", cat.kwargs)
    run.see("y_users", list(y.users))
    run.see("all_input_nodes", cat.all_input_nodes)
    cat.args = ([y],)
    run.see("x_users_after_assignment", list(x.users))
    return run


@case
def replace_all_uses(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    x = run.x = graph.placeholder("x")
    y = run.y = graph.placeholder("y")
    first = run.first = graph.call_function(torch.neg, (x,))
    second = run.second = graph.call_function(operator.add, (x, x))
    graph.output((first, second))
    run.see("changed", x.replace_all_uses_with(y, delete_user_cb=lambda user: user is first))
    run.see("args", [first.args, second.args])
    x.meta["note"] = 1
    run.see("changed_with_meta", x.replace_all_uses_with(y, propagate_meta=True))
    run.see("y_meta", y.meta)
    run.see("x_users", len(x.users))
    return run


@case
def assigned_graph(torch: Any) -> Run:
    run = Run(torch)
    gm = run.gm = torch.fx.symbolic_trace(add_net(torch))
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    graph.placeholder("y")
    graph.output(graph.call_function(torch.neg, (x,)))
    gm.graph = graph
    run.see("code", gm.code)
    return run


@case
def print_tabular(torch: Any) -> Run:
    run = Run(torch)
    run.see("tabulate_installed", importlib.util.find_spec("tabulate") is not None)
    gm = torch.fx.symbolic_trace(add_net(torch))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run.attempt("print_tabular", gm.graph.print_tabular)
    run.see("stdout", out.getvalue())
    return run


# -- test_graph_internals --------------------------------------------------------------------------------------------

def chain_graph(torch: Any) -> tuple[Any, list[Any]]:
    g = torch.fx.Graph()
    x = g.placeholder("x")
    a = g.call_function(operator.add, (x, 1))
    b = g.call_function(operator.mul, (a, 2))
    c = g.call_function(operator.sub, (b, x))
    g.output(c)
    return g, [x, a, b, c]


@case
def prepend_and_append(torch: Any) -> Run:
    run = Run(torch)
    g, (x, a, b, c) = chain_graph(torch)
    run.graph = g
    d = g.call_function(torch.relu, (x,))
    a.prepend(d)
    run.see("after_prepend", names(g))
    b.append(d)
    run.see("after_append", names(g))
    b.append(d)  # already there
    d.append(d)
    d.prepend(d)
    run.see("after_no_moves", names(g))
    run.see("reversed", [n.name for n in reversed(g.nodes)])
    run.attempt("prepend_from_other_graph", lambda: torch.fx.Graph().placeholder("y").prepend(a))
    return run


@case
def erase_node_checks(torch: Any) -> Run:
    run = Run(torch)
    g, (x, a, b, c) = chain_graph(torch)
    run.attempt("erase_used", lambda: g.erase_node(a))
    run.attempt("erase_from_wrong_graph", lambda: torch.fx.Graph().erase_node(g.call_function(torch.relu, (x,))))
    d = run.d = g.call_function(operator.add, (x, {"k": [a, slice(b, None)]}))
    g.erase_node(d)
    run.see("erased_args", d.args)
    run.see("users", [list(x.users), list(a.users)])
    run.see("node_count", len(g.nodes))
    run.warned("erase_again", lambda: g.erase_node(d))
    run.see("adds", g.find_nodes(op="call_function", target=operator.add, sort=False))
    run.x, run.a = x, a
    return run


@case
def insertion_at_ends(torch: Any) -> Run:
    run = Run(torch)
    g, (x, a, b, c) = chain_graph(torch)
    with g.inserting_before(None):
        run.p = g.placeholder("p")
    with g.inserting_after(None):
        run.q = g.placeholder("q")
    with g.inserting_after(a):
        run.r = g.call_function(torch.neg, (a,))
    with g.inserting_before(c):
        run.s = g.call_function(torch.abs, (b,))
    run.graph, run.a, run.c = g, a, c
    run.see("names", names(g))
    run.attempt("before_foreign_node", lambda: torch.fx.Graph().inserting_before(a))
    run.attempt("after_foreign_node", lambda: torch.fx.Graph().inserting_after(a))
    return run


@case
def create_node_checks(torch: Any) -> Run:
    run = Run(torch)
    g = torch.fx.Graph()
    x = g.placeholder("x")
    run.attempt("list_args", lambda: g.create_node("call_function", torch.relu, [x]))
    run.attempt("list_kwargs", lambda: g.create_node("call_function", torch.relu, (x,), [("a", 1)]))
    run.attempt("bogus_op", lambda: g.create_node("bogus", "t"))
    run.attempt("call_function_of_a_string", lambda: g.create_node("call_function", "relu"))
    try:
        g.create_node("call_method", torch.relu)
    except Exception as error:  # noqa: BLE001 (the recorded behaviour is the error)
        # the function's repr and type name are the library's own (a builtin in PyTorch, a Cython function in Ember)
        seen = failure(error)
        seen["message"] = re.sub(r"target <.*> has type \S+ but", "target <torch.relu> has type <its type> but",
                                 seen["message"])
        run.see("call_method_of_a_function", seen)
    run.see("names", [g.create_node("call_method", "__add__", (x, x)).name for _ in range(2)])
    run.see("given_name", g.create_node("call_function", torch.relu, (x,), name="mine").name)
    return run


@case
def output_node_lint_and_str(torch: Any) -> Run:
    run = Run(torch)
    run.attempt("empty_graph_output_node", lambda: torch.fx.Graph().output_node())
    g, (x, a, b, c) = chain_graph(torch)
    run.see("output_op", g.output_node().op)
    run.attempt("lint", g.lint)
    run.see("graph", str(g))
    a.args = (c, 1)
    run.attempt("lint_used_before_defined", g.lint)
    a.args = (x, 1)
    b.name = "add"
    run.attempt("lint_redefined_name", g.lint)
    return run


@case
def lint_owning_module_targets(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(torch.nn.Sequential(torch.nn.ReLU()))
    g = torch.fx.Graph(owning_module=gm)
    x = g.placeholder("x")
    node = g.create_node("get_attr", "nope.weight")
    g.output(x)
    run.attempt("missing_module", g.lint)
    node.target = "0.missing"
    run.attempt("missing_attribute", g.lint)
    return run


@case
def get_attr_warnings(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(torch.nn.Linear(2, 2))
    gm.register_buffer("buf", None)
    g = torch.fx.Graph(owning_module=gm)
    run.warned("existing", lambda: (g.get_attr("weight"), g.get_attr("buf")))
    run.warned("missing", lambda: g.get_attr("missing"))
    run.warned("missing_module", lambda: g.get_attr("a.b.c"))
    return run


@case
def python_code_of_chain(torch: Any) -> Run:
    run = Run(torch)
    g, nodes = chain_graph(torch)
    run.see("code", g.python_code("self").src)
    run.see("reprs", [repr(n) for n in nodes])
    return run


@case
def map_aggregate(torch: Any) -> Run:
    run = Run(torch)
    size = torch.Size([2, 3])
    out = torch.fx.node.map_aggregate((size, [1, {"a": 2}], slice(1, 3)),
                                      lambda v: v * 10 if isinstance(v, int) else v)
    run.see("repr", repr(out))
    run.see("types", [type(out).__name__, type(out[0]).__name__, type(out[1]).__name__, type(out[1][1]).__name__])
    run.attempt("map_arg_without_callable", lambda: torch.fx.map_arg((1,), None))
    return run


# -- test_graph_semantics --------------------------------------------------------------------------------------------

@case
def dead_code_keeps_random_draws(torch: Any) -> Run:
    run = Run(torch)

    def f(x):
        torch.randn_like(x)
        return x + torch.randn_like(x)

    gm = torch.fx.symbolic_trace(f)
    run.see("eliminated", gm.graph.eliminate_dead_code())
    run.see("names", names(gm.graph))
    return run


RANDOM_FUNCTIONS = ("rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm", "bernoulli",
                    "multinomial", "normal")
PURE_FUNCTIONS = ("torch.nn.functional.dropout", "torch.relu", "random.random", "torch.add")


def _impurity(torch: Any, fn: Any) -> list[bool]:
    graph = torch.fx.Graph()
    node = graph.call_function(fn, (graph.placeholder("x"),))
    return [node.is_impure(), node.is_impure(impure_random=False)]


@case
def torch_random_impurity(torch: Any) -> Run:
    run = Run(torch)
    for name in RANDOM_FUNCTIONS:
        run.see(name, _impurity(torch, getattr(torch, name)))
    return run


@case
def pure_functions(torch: Any) -> Run:
    run = Run(torch)
    fns = {"torch.nn.functional.dropout": torch.nn.functional.dropout, "torch.relu": torch.relu,
           "random.random": random.random, "torch.add": torch.add}
    for name in PURE_FUNCTIONS:
        run.see(name, _impurity(torch, fns[name]))
    return run


@case
def aten_impurity(torch: Any) -> Run:
    run = Run(torch)
    aten = torch.ops.aten
    ops = [aten.rand.default, aten.randn_like.default, aten.native_dropout.default, aten.rand, aten.add.Tensor,
           aten.add_.Tensor, aten.normal_.default, aten.normal]
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    for op in ops:
        node = graph.call_function(op, (x,))
        run.see(str(op), [node.is_impure(), node.is_impure(impure_random=False)])
    return run


@case
def dead_code_drops_pure_nodes(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    graph.placeholder("unused")
    graph.call_function(torch.relu, (x,))
    graph.call_function(torch.rand, ((2,),))
    graph.output(x)
    run.see("eliminated", graph.eliminate_dead_code())
    run.see("names", names(graph))
    return run


def neg_chain(torch: Any, length: int) -> tuple[Any, list[Any]]:
    graph = torch.fx.Graph()
    nodes = [graph.placeholder("a")]
    for _ in range(length):
        nodes.append(graph.call_function(operator.neg, (nodes[-1],)))
    graph.output(nodes[-1])
    return graph, nodes


@case
def node_comparisons(torch: Any) -> Run:
    run = Run(torch)
    graph, nodes = neg_chain(torch, 3)
    a, n1, n2, _ = nodes
    run.see("orders", [a < n1, n1 < n2, n2 > a, n1 < a, a > n1, a <= a, a >= a, a < a])
    run.attempt("compare_with_int", lambda: a < 1)
    return run


@case
def order_after_moves(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    a = graph.placeholder("a")
    b = graph.call_function(operator.add, (a, 1))
    c = graph.call_function(operator.mul, (a, 2))
    graph.output(c)
    b.prepend(c)
    run.see("moved", [c < b, b < c])
    with graph.inserting_before(b):
        d = graph.call_function(operator.neg, (a,))
    run.see("inserted", [a < d, d < b, c < d, d < c])
    graph.erase_node(b)
    run.see("erased", [b < c, c < b, b > a])
    return run


@case
def many_insertions(torch: Any) -> Run:
    run = Run(torch)
    graph, nodes = neg_chain(torch, 1)
    for _ in range(200):
        with graph.inserting_after(nodes[0]):
            graph.call_function(operator.neg, (nodes[0],))
    run.graph = graph
    run.see("first_names", names(graph)[:3])
    return run


@case
def cross_graph_order(torch: Any) -> Run:
    run = Run(torch)
    _, first = neg_chain(torch, 3)
    _, second = neg_chain(torch, 3)
    run.see("orders", [first[0] < second[1], second[2] > first[1], first[1] < second[1], first[1] <= second[1],
                       first[1] >= second[1]])
    return run


@case
def insertion_points(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    out = graph.output(x)
    with graph.inserting_before(None):
        graph.call_function(operator.neg, (x,))
        graph.call_function(operator.pos, (x,))
    run.see("at_start", names(graph))
    graph.inserting_after(x)  # without `with`: the point moves for good
    graph.call_function(operator.abs, (x,))
    with graph.inserting_before(out):
        with graph.inserting_after(x):
            graph.call_function(operator.neg, (x,))
        graph.call_function(operator.neg, (x,))
    graph.call_function(operator.neg, (x,))
    run.see("nested", names(graph))
    other = torch.fx.Graph().placeholder("q")
    run.attempt("before_foreign_node", lambda: graph.inserting_before(other))
    run.attempt("after_foreign_node", lambda: graph.inserting_after(other))
    return run


@case
def replace_pattern_placeholder_only(torch: Any) -> Run:
    run = Run(torch)
    gm = run.gm = torch.fx.symbolic_trace(lambda x: x.sin())
    run.before = gm.code
    run.attempt("replace", lambda: torch.fx.replace_pattern(gm, lambda a: a, lambda a: a.cos()))
    return run


@case
def replace_pattern_missing_target(torch: Any) -> Run:
    run = Run(torch)

    class WithParam(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.zz = torch.nn.Parameter(torch.ones(3))

        def forward(self, x):
            return torch.relu(x) + self.zz

    gm = torch.fx.symbolic_trace(WithParam())
    del gm.zz
    try:
        torch.fx.replace_pattern(gm, lambda x: torch.relu(x), torch.fx.symbolic_trace(lambda x: x.neg()))
    except Exception as error:  # noqa: BLE001 (the recorded behaviour is the error)
        run.see("graph_module_replacement", {"error": type(error).__name__, "args": error.args})
    else:
        run.see("graph_module_replacement", "no error")
    gm = torch.fx.symbolic_trace(WithParam())
    del gm.zz
    run.attempt("function_replacement", lambda: len(torch.fx.replace_pattern(gm, lambda x: torch.relu(x),
                                                                             lambda x: x.neg())))
    return run


@case
def replace_pattern_broken_replacement_module(torch: Any) -> Run:
    run = Run(torch)

    class Rep(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)

        def forward(self, x):
            return self.lin(x)

    replacement = torch.fx.symbolic_trace(Rep())
    del replacement.lin
    gm = torch.fx.symbolic_trace(lambda x: torch.relu(x) + 1)
    run.attempt("replace", lambda: torch.fx.replace_pattern(gm, lambda x: torch.relu(x), replacement))
    return run


@case
def replace_pattern_copies_modules(torch: Any) -> Run:
    run = Run(torch)

    class Rep(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)
            self.scale = torch.nn.Parameter(torch.ones(3))

        def forward(self, x):
            return self.lin(x) * self.scale

    run.rep = Rep()
    gm = run.gm = torch.fx.symbolic_trace(lambda x: torch.relu(x) + 1)
    torch.fx.replace_pattern(gm, lambda x: torch.relu(x), run.rep)
    run.see("parameters", sorted(n for n, _ in gm.named_parameters()))
    return run


@case
def generated_names_and_globals(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    x = graph.placeholder("x", type_expr=typing.List[typing.Tuple[int, str]])
    y = graph.placeholder("sum", type_expr=typing.Optional[typing.Dict[str, typing.Any]])
    s1 = graph.call_function(sum, (x,))
    s2 = graph.create_node("call_function", operator.add, (s1, y), name="add_1")
    s3 = graph.call_function(operator.add, (s2, 1))
    s4 = graph.call_function(operator.add, (s3, 1))
    g = graph.call_function(getattr, (s4, "T"))
    graph.output(g)
    code = run.code = graph.python_code("self")
    run.see("src", code.src)
    run.see("names", names(graph))
    run.see("globals", sorted(code.globals))
    return run


@case
def format_node_quirks(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    a = graph.placeholder("a", type_expr=int)
    k = graph.placeholder("k", type_expr=())
    added = graph.call_function(operator.add, (a, k), type_expr=0)
    added.meta["val"] = torch.zeros(2, 3).t()
    graph.output(added, type_expr=int)
    taken = ["z"]
    run.see("placeholder_with_names", a.format_node(taken))
    run.see("names", taken)
    run.see("placeholder_of_empty_type", k.format_node())
    run.see("call", added.format_node())
    run.see("call_with_tensor_metadata", added.format_node(include_tensor_metadata=True))
    typename = [""]
    run.see("output", graph.output_node().format_node(None, typename))
    run.see("typename", typename)
    run.see("graph", str(graph))
    return run


@case
def call_module_checks(torch: Any) -> Run:
    run = Run(torch)
    root = torch.nn.Module()
    root.sub = torch.nn.ReLU()
    root.p = torch.nn.Parameter(torch.ones(1))
    gm = torch.fx.GraphModule(root, torch.fx.Graph())
    gm.sub, gm.p = root.sub, root.p
    run.attempt("existing", lambda: gm.graph.call_module("sub"))
    run.attempt("missing", lambda: gm.graph.call_module("missing"))
    run.attempt("parameter", lambda: gm.graph.call_module("p"))
    return run


@case
def graph_and_node_copies(torch: Any) -> Run:
    run = Run(torch)
    graph = run.graph = torch.fx.Graph()
    x = run.x = graph.placeholder("x")
    neg = run.neg = graph.call_function(operator.neg, (x,))
    neg.meta["k"] = [1]
    out = run.out = graph.output(neg, type_expr=int)
    out.meta["m"] = 2
    target = run.target = torch.fx.Graph()
    y = run.y = target.placeholder("y")
    run.copied_into_target = target.graph_copy(graph, {x: y})
    run.copied, run.old_output = torch.fx.Graph().graph_copy(graph, {x: x}, return_output_node=True)
    run.see("copied_name", run.copied.name)
    twin = run.twin = target.node_copy(neg, lambda n: y)
    run.see("twin", [twin.name, twin.args, twin.meta])
    clone = run.clone = copy.deepcopy(graph)
    run.see("clone_names", names(clone))
    run.see("clone_output", [clone.output_node().type, clone.output_node().meta])
    run.see("empty_copy", torch.fx.Graph().graph_copy(torch.fx.Graph(), {}))
    return run


@case
def find_nodes(torch: Any) -> Run:
    run = Run(torch)
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    first = graph.call_function(operator.add, (x, 1))
    graph.call_method("neg", (first,))
    graph.output(first)
    with graph.inserting_before(first):
        graph.call_function(operator.add, (x, 2))
    run.see("sorted", graph.find_nodes(op="call_function", target=operator.add))
    run.see("unsorted", graph.find_nodes(op="call_function", target=operator.add, sort=False))
    run.see("methods", graph.find_nodes(op="call_method"))
    run.attempt("call_function_without_target", lambda: graph.find_nodes(op="call_function"))
    return run
