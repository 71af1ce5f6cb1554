"""torch.fx reference cases (see tools/record_fx_reference.py) for the GraphModule, code generation,
Interpreter and pass tests (test/fx/test_graph_module.py, test_module_codegen.py, test_interpreter.py,
test_interpreter_rewrite.py, test_passes.py)."""
import contextlib
import copy
import io
import tempfile
import typing
import warnings
from pathlib import Path
from typing import Any, Callable

from tools.fx_reference_run import Run, case, failure, submodule


# -- test_graph_module -----------------------------------------------------------------------------------------------

def graph_module_net(torch: Any) -> Any:
    """A seeded instance of the module the GraphModule tests trace."""

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.seq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
            self.head = torch.nn.Linear(4, 2)
            self.unused = torch.nn.Linear(9, 9)
            self.register_buffer("shift", torch.arange(2.0))

        def forward(self, x):
            return self.head(self.seq(x)) + self.shift

    torch.manual_seed(0)
    return Net()


@case
def referenced_state(torch: Any) -> Run:
    run = Run(torch)
    run.net = graph_module_net(torch)
    gm = run.gm = torch.fx.symbolic_trace(run.net)
    run.see("state_dict", sorted(gm.state_dict()))
    run.see("has_unused", hasattr(gm, "unused"))
    return run


@case
def dict_root_missing_target(torch: Any) -> Run:
    run = Run(torch)
    net = graph_module_net(torch)
    graph = torch.fx.symbolic_trace(net).graph
    run.attempt("missing_head", lambda: torch.fx.GraphModule({"seq.0": net.seq[0], "seq.1": net.seq[1]}, graph))
    return run


def to_folder(torch: Any, folder: Path) -> Run:
    """Save the traced module to folder/saved_fx as SavedNet; the folder shows as <folder>."""
    run = Run(torch)
    run.net = graph_module_net(torch)
    gm = torch.fx.symbolic_trace(run.net)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gm.to_folder(folder / "saved_fx", "SavedNet")
    run.see("warnings", [[w.category.__name__, str(w.message).replace(str(folder), "<folder>")] for w in caught])
    run.see("files", sorted(p.name for p in (folder / "saved_fx").iterdir() if p.name != "__pycache__"))
    run.see("module_py", (folder / "saved_fx" / "module.py").read_text().replace(str(folder), "<folder>"))
    return run


@case
def saved_to_folder(torch: Any) -> Run:
    with tempfile.TemporaryDirectory() as folder:
        return to_folder(torch, Path(folder))


@case
def submodule_management(torch: Any) -> Run:
    run = Run(torch)
    gm = run.gm = torch.fx.symbolic_trace(graph_module_net(torch))
    run.see("add_nested", gm.add_submodule("extra.inner", torch.nn.ReLU()))
    run.see("added_type", type(gm.extra.inner).__name__)
    run.see("add_under_a_buffer", gm.add_submodule("shift.bad", torch.nn.ReLU()))
    run.see("delete_missing", gm.delete_submodule("extra.missing"))
    run.see("delete_nested", gm.delete_submodule("extra.inner"))
    run.see("inner_left", hasattr(gm.extra, "inner"))
    gm.delete_all_unused_submodules()
    run.see("modules", sorted(name for name, _ in gm.named_modules()))
    return run


@case
def print_readable_net(torch: Any) -> Run:
    run = Run(torch)
    run.gm = torch.fx.symbolic_trace(graph_module_net(torch))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run.see("text", run.gm.print_readable(print_output=False))
    run.see("printed_without_print_output", out.getvalue())
    return run


# -- test_module_codegen ---------------------------------------------------------------------------------------------

def codegen_modules(torch: Any) -> dict[str, Any]:
    """Inner, Outer (holding a traced Inner) and a tracer that keeps GraphModule children as leaves."""

    class Inner(torch.nn.Module):
        def forward(self, x):
            return x.relu() + 1

    class Outer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.fx.symbolic_trace(Inner())
            self.lin = torch.nn.Linear(2, 2)

        def forward(self, x):
            return self.lin(self.a(x))

    class KeepGraphModules(torch.fx.Tracer):
        def is_leaf_module(self, m: Any, qualname: str) -> bool:
            return isinstance(m, torch.fx.GraphModule) or bool(super().is_leaf_module(m, qualname))

    return {"Inner": Inner, "Outer": Outer, "KeepGraphModules": KeepGraphModules}


def outer_graph_module(torch: Any) -> Any:
    modules = codegen_modules(torch)
    root = modules["Outer"]()
    return torch.fx.GraphModule(root, modules["KeepGraphModules"]().trace(root))


@case
def print_readable_nested(torch: Any) -> Run:
    run = Run(torch)
    run.text = run.see("text", outer_graph_module(torch).print_readable(print_output=False))
    return run


@case
def graph_module_str(torch: Any) -> Run:
    run = Run(torch)
    run.gm = torch.fx.symbolic_trace(codegen_modules(torch)["Inner"]())
    run.see("str", str(run.gm))
    return run


@case
def shallow_copy_type(torch: Any) -> Run:
    run = Run(torch)
    run.gm = outer_graph_module(torch)
    run.shallow = copy.copy(run.gm)
    run.see("type", type(run.shallow).__name__)
    return run


@case
def typing_alias_annotations(torch: Any) -> Run:
    run = Run(torch)

    def f(x: typing.List[int], y: list[int]):
        return x

    run.see("code", torch.fx.symbolic_trace(f).code)
    return run


@case
def proxies_of_two_tracers(torch: Any) -> Run:
    run = Run(torch)
    a = torch.fx.Proxy(torch.fx.Graph().placeholder("a"))
    b = torch.fx.Proxy(torch.fx.Graph().placeholder("b"))
    try:
        torch.add(a, b)
    except Exception as error:  # noqa: BLE001 (the recorded behaviour is the error)
        # torch.add's repr is the library's own (a builtin in PyTorch, a Cython function in Ember)
        run.see("add", failure(error) | {"message": str(error).replace(repr(torch.add), "<torch.add>")})
    run.attempt("torch_function_without_proxies", lambda: torch.fx.Proxy.__torch_function__(torch.add, (), (1, 2)))
    return run


# -- test_interpreter ------------------------------------------------------------------------------------------------

def interpreter_net(torch: Any) -> Any:
    """A seeded instance of the module the Interpreter tests run."""

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)
            self.scale = torch.nn.Parameter(torch.randn(4))

        def forward(self, x, bias=1.0):
            h = torch.relu(self.linear(x)) * self.scale
            return h.sum(dim=-1) + bias, torch.neg(h)

    torch.manual_seed(0)
    return Net()


@case
def interpreter_environment(torch: Any) -> Run:
    run = Run(torch)
    run.gm = torch.fx.symbolic_trace(interpreter_net(torch))
    interpreter = torch.fx.Interpreter(run.gm)
    interpreter.run(torch.randn(2, 4))
    run.see("env_ops", [n.op for n in interpreter.env])
    return run


@case
def interpreter_boxed_run(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(interpreter_net(torch))
    x = torch.randn(2, 4)
    inputs = [x, 0.5]
    torch.fx.Interpreter(gm).boxed_run(inputs)
    run.see("inputs_left", len(inputs))
    run.attempt("missing_argument", lambda: torch.fx.Interpreter(gm).boxed_run([x]))
    return run


@case
def interpreter_error_names_node(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(lambda x: x.view(7))
    run.attempt("run", lambda: torch.fx.Interpreter(gm).run(torch.randn(3)))
    return run


@case
def interpreter_fetch_attr(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(interpreter_net(torch))
    run.attempt("missing", lambda: torch.fx.Interpreter(gm).fetch_attr("linear.nope"))
    return run


# -- test_interpreter_rewrite ----------------------------------------------------------------------------------------

def rewrite_modules(torch: Any) -> dict[str, type]:
    """The modules the Interpreter/Transformer/ShapeProp rewrite tests build on."""

    class _Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)
            self.w = torch.nn.Parameter(torch.ones(3))

        def forward(self, x: "torch.Tensor", y: "int" = 2) -> "tuple[torch.Tensor, torch.Tensor]":
            return (self.lin(x) + self.w).relu().sum(dim=0) * y, x.t()

    class _Add(torch.nn.Module):
        def forward(self, a: "torch.Tensor", b: "torch.Tensor") -> "torch.Tensor":
            return a + b

    class _Neg(torch.nn.Module):
        def forward(self, x: "torch.Tensor") -> "torch.Tensor":
            return torch.neg(x) + 1

    class _Rep(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sub = torch.nn.ReLU()
            self.k = torch.nn.Parameter(torch.full((3,), 2.0))

        def forward(self, x: "torch.Tensor") -> "torch.Tensor":
            return self.sub(x) * self.k

    class _Shapes(torch.nn.Module):
        def forward(self, a, b):
            return a.t(), (b, [b * 2, 3]), a.size(0)

    return {"Net": _Net, "Add": _Add, "Neg": _Neg, "Rep": _Rep, "Shapes": _Shapes}


@case
def rewrite_interpreter_run(torch: Any) -> Run:
    run = Run(torch)
    gm = run.gm = torch.fx.symbolic_trace(rewrite_modules(torch)["Net"]())
    interpreter = torch.fx.Interpreter(gm)
    out = interpreter.run(torch.ones(2, 3))
    run.see("shapes", [o.shape for o in out])
    run.see("env", list(interpreter.env))
    return run


@case
def rewrite_boxed_run(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(rewrite_modules(torch)["Net"]())
    inputs = [torch.ones(2, 3), 3]
    torch.fx.Interpreter(gm).boxed_run(inputs)
    run.see("inputs_left", len(inputs))
    run.attempt("missing_argument", lambda: torch.fx.Interpreter(gm).boxed_run([torch.ones(2, 3)]))
    run.attempt("extra_arguments", lambda: torch.fx.Interpreter(gm).boxed_run([torch.ones(2, 3), 1, 2]))
    return run


@case
def rewrite_missing_input(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(rewrite_modules(torch)["Add"]())
    run.attempt("run", lambda: torch.fx.Interpreter(gm).run(torch.ones(2)))
    return run


@case
def rewrite_transformer(torch: Any) -> Run:
    run = Run(torch)

    class Swap(torch.fx.Transformer):
        def call_method(self, target: Any, args: Any, kwargs: Any) -> Any:
            return super().call_method("sigmoid" if target == "relu" else target, args, kwargs)

    gm = run.gm = torch.fx.symbolic_trace(rewrite_modules(torch)["Net"]())
    gm.graph.output_node().meta["hello"] = 1
    swap = run.swap = Swap(gm)
    new = run.new = swap.transform()
    run.see("ops", [n.op for n in new.graph.nodes])
    run.see("placeholder_args", [n.args for n in new.graph.nodes if n.op == "placeholder"])
    run.see("code", new.code)
    return run


@case
def rewrite_shape_prop(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(rewrite_modules(torch)["Shapes"]())
    b = torch.ones(1, 2, 3, 4).contiguous(memory_format=torch.channels_last)
    submodule(torch, "fx.passes.shape_prop").ShapeProp(gm).propagate(torch.ones(2, 3), b)
    metas = run.metas = {n.name: n.meta for n in gm.graph.nodes}
    run.see("a", metas["a"]["tensor_meta"])
    run.see("b_memory_format", metas["b"]["tensor_meta"].memory_format)
    run.see("t_layout", [metas["t"]["tensor_meta"].memory_format, metas["t"]["tensor_meta"].stride])
    run.see("size", [sorted(metas["size"]), metas["size"]["type"]])
    out_meta = metas["output"]["tensor_meta"]
    run.see("output", [metas["output"]["type"], out_meta[2], out_meta[1][1][1], type(out_meta[1][1][0]).__name__])
    return run


@case
def rewrite_shape_prop_error(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(rewrite_modules(torch)["Add"]())
    run.attempt("propagate", lambda: submodule(torch, "fx.passes.shape_prop").ShapeProp(gm).propagate(torch.ones(2),
                                                                                       torch.ones(3)))
    return run


@case
def rewrite_replace_pattern(torch: Any) -> Run:
    run = Run(torch)
    modules = rewrite_modules(torch)
    run.gm, run.rep = torch.fx.symbolic_trace(modules["Neg"]()), torch.fx.symbolic_trace(modules["Rep"]())
    replace_pattern = submodule(torch, "fx.subgraph_rewriter").replace_pattern
    run.see("matches", len(replace_pattern(run.gm, _neg_pattern(torch), run.rep)))
    run.see("code", run.gm.code)
    return run


def _neg_pattern(torch: Any) -> Callable[[Any], Any]:
    def _neg(x: "torch.Tensor") -> "torch.Tensor":
        return torch.neg(x)

    return _neg


@case
def rewrite_replace_pattern_broken(torch: Any) -> Run:
    run = Run(torch)
    modules = rewrite_modules(torch)
    gm, rep = torch.fx.symbolic_trace(modules["Neg"]()), torch.fx.symbolic_trace(modules["Rep"]())
    del rep.k
    replace_pattern = submodule(torch, "fx.subgraph_rewriter").replace_pattern
    run.attempt("replace", lambda: replace_pattern(gm, _neg_pattern(torch), rep))
    return run


# -- test_passes -----------------------------------------------------------------------------------------------------

def two_layer(torch: Any) -> Any:
    """A seeded instance of the module the ShapeProp test propagates through."""

    class TwoLayer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear1 = torch.nn.Linear(5, 3)
            self.linear2 = torch.nn.Linear(3, 2)

        def forward(self, x):
            hidden = self.linear1(x).clamp(min=0)
            return self.linear2(hidden).to(torch.float64), hidden.t()

    torch.manual_seed(0)
    return TwoLayer()


@case
def shape_prop_two_layer(torch: Any) -> Run:
    run = Run(torch)
    run.model = two_layer(torch)
    gm = run.gm = torch.fx.symbolic_trace(run.model)
    run.x = torch.randn(4, 5)
    run.result = submodule(torch, "fx.passes.shape_prop").ShapeProp(gm).propagate(run.x)
    run.see("metas", {n.name: n.meta for n in gm.graph.nodes})
    return run


@case
def shape_prop_repr(torch: Any) -> Run:
    run = Run(torch)
    gm = torch.fx.symbolic_trace(lambda x: torch.relu(x))
    submodule(torch, "fx.passes.shape_prop").ShapeProp(gm).propagate(torch.zeros(2, 4))
    run.see("tensor_meta", repr(next(iter(gm.graph.nodes)).meta["tensor_meta"]))
    run.see("print_readable", gm.print_readable(print_output=False))
    return run


def pass_programs(torch: Any) -> dict[str, Any]:
    class TwoCats(torch.nn.Module):
        def forward(self, x, w1, w2):
            m1 = torch.cat([w1, w2]).sum()
            m2 = torch.cat([w1, w2]).sum()
            return x + torch.max(m1) + torch.max(m2)

    def cat_then_sum(w1, w2):
        return torch.cat([w1, w2]).sum()

    def stacked(w1, w2):
        return torch.stack([w1, w2])

    return {"TwoCats": TwoCats, "cat_then_sum": cat_then_sum, "stacked": stacked}


@case
def replace_pattern_matches(torch: Any) -> Run:
    run = Run(torch)
    programs = pass_programs(torch)
    gm = run.gm = torch.fx.symbolic_trace(programs["TwoCats"]())
    run.matches = torch.fx.replace_pattern(gm, programs["cat_then_sum"], programs["stacked"])
    run.see("anchors", [m.anchor.name for m in run.matches])
    run.see("nodes_maps", [[[p.name, g.name] for p, g in m.nodes_map.items()] for m in run.matches])
    run.see("targets", [n.target for n in gm.graph.nodes if n.op == "call_function"])
    run.see("code", gm.code)
    return run


@case
def replace_pattern_inner_value_used(torch: Any) -> Run:
    run = Run(torch)

    def fn(x, y):
        s = torch.add(x, y)
        return torch.relu(s), s

    def pattern(a, b):
        return torch.relu(torch.add(a, b))

    def replacement(a, b):
        return torch.sigmoid(a - b)

    gm = run.gm = torch.fx.symbolic_trace(fn)
    run.see("matches", torch.fx.replace_pattern(gm, pattern, replacement))
    return run


@case
def replace_pattern_literal(torch: Any) -> Run:
    run = Run(torch)

    def fn(x):
        return torch.relu(x * 2) + torch.relu(x * 3)

    def pattern(a):
        return torch.relu(a * 2)

    def replacement(a):
        return torch.tanh(a)

    gm = run.gm = torch.fx.symbolic_trace(fn)
    run.see("matches", len(torch.fx.replace_pattern(gm, pattern, replacement)))
    run.see("code", gm.code)
    return run
