"""torch.fx reference cases (see tools/record_fx_reference.py) for the tracing tests: symbolic_trace,
functional calls, the arguments of recorded calls and make_fx (test/fx/test_symbolic_trace.py,
test_functional_tracing.py, test_tracing_arguments.py, test_make_fx.py). The programs that call functions
registered with torch.fx.wrap are in tools/fx_reference_wrapped.py."""
import importlib
import inspect
import math
from typing import Any, Callable

from tools.fx_reference_run import Run, case, case_for_each, names, submodule


def wrapped_programs(torch: Any) -> Any:
    """tools/fx_reference_wrapped.py, its functions wrapped for torch."""
    module = importlib.import_module("tools.fx_reference_wrapped")
    module.wrap_functions(torch)
    return module


# -- test_symbolic_trace ---------------------------------------------------------------------------------------------

def small_net(torch: Any) -> Any:
    class SmallNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 3)
            self.offset = torch.nn.Parameter(torch.randn(3))

        def forward(self, x):
            h = torch.relu(self.linear(x))
            s = torch.sum(h, dim=1, keepdim=True)
            h = h.clamp(min=0.1) + self.offset
            return h * s + h.sum()

    return SmallNet()


@case
def small_net_trace(torch: Any) -> Run:
    run = Run(torch)
    gm = run.gm = torch.fx.symbolic_trace(small_net(torch))
    run.see("nodes", [(n.op, n.name, n.target) for n in gm.graph.nodes])
    run.see("graph", str(gm.graph))
    run.see("code", gm.code)
    run.see("str", str(gm))
    run.see("module_repr", torch.nn.Module.__repr__(gm))
    run.see("class_name", type(gm).__name__)
    nodes = {n.name: n for n in gm.graph.nodes}
    run.see("relu_users", list(nodes["relu"].users))
    run.see("add_inputs", nodes["add"].all_input_nodes)
    run.see("add_neighbours", [nodes["add"].prev, nodes["add"].next])
    run.see("add_repr", repr(nodes["add"]))
    return run


@case
def builtin_shadowing_names(torch: Any) -> Run:
    run = Run(torch)

    def fn(x, y):
        sum = x + 1  # noqa: A001 (the name shadows the builtin on purpose)
        return torch.sum(sum), x.sum(), torch.sum(y), getattr(x, "T"), sum + y

    run.see("names", names(torch.fx.symbolic_trace(fn).graph))
    return run


@case
def nested_module_names(torch: Any) -> Run:
    run = Run(torch)

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(1, 2, 1)

    class Outer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer1 = Block()

        def forward(self, img):
            return self.layer1.conv(img)

    torch.manual_seed(0)
    run.outer = Outer()
    run.gm = torch.fx.symbolic_trace(run.outer)
    run.see("calls", [(n.name, n.target) for n in run.gm.graph.nodes if n.op == "call_module"])
    return run


@case
def sequential_trace(torch: Any) -> Run:
    run = Run(torch)
    torch.manual_seed(0)
    run.seq = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    run.gm = torch.fx.symbolic_trace(run.seq)
    run.see("calls", [(n.op, n.target) for n in run.gm.graph.nodes if n.op == "call_module"])
    run.see("code", run.gm.code)
    return run


@case
def leaf_module_tracer(torch: Any) -> Run:
    run = Run(torch)

    class Inner(torch.nn.Module):
        def forward(self, x):
            return torch.tanh(x) * 2

    class Outer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            return self.inner(x) + 1

    class KeepInner(torch.fx.Tracer):
        def is_leaf_module(self, m: Any, module_qualified_name: str) -> bool:
            return isinstance(m, Inner) or bool(super().is_leaf_module(m, module_qualified_name))

    run.see("traced_through", [n.op for n in torch.fx.symbolic_trace(Outer()).graph.nodes])
    run.kept = KeepInner().trace(Outer())
    run.see("kept", [(n.op, n.target) for n in run.kept.nodes if n.op == "call_module"])
    run.outer = Outer()
    return run


def tensor_methods(x, y):
    a, b = x.chunk(2, dim=0)
    shape = x.shape
    return (-a) @ b.t(), 2 - y, y ** 2, x[0, 1:], x.size(1), shape[0], y > 0, abs(y), x.view(shape)


@case
def tensor_methods_trace(torch: Any) -> Run:
    run = Run(torch)
    run.gm = torch.fx.symbolic_trace(tensor_methods)
    run.see("nodes", [(n.op, n.name, n.target, n.args, n.kwargs) for n in run.gm.graph.nodes])
    return run


@case
def tensor_constants(torch: Any) -> Run:
    run = Run(torch)

    class WithConstants(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("buf", torch.arange(3.0))
            self.plain = torch.ones(3)

        def forward(self, x: Any) -> Any:
            return x + self.buf + self.plain * x + torch.full((3,), 2.0) * x

    run.module = WithConstants()
    run.gm = torch.fx.symbolic_trace(run.module)
    run.see("fetched", [n.target for n in run.gm.graph.nodes if n.op == "get_attr"])
    run.see("state_dict", sorted(run.gm.state_dict()))
    return run


def branches(x):
    if x.sum() > 0:
        return x
    return -x


def loops(x):
    return [v for v in x]


def measures(x):
    return len(x)


@case
def proxy_value_errors(torch: Any) -> Run:
    run = Run(torch)
    for fn in (branches, loops, measures):
        run.attempt(fn.__name__, lambda: torch.fx.symbolic_trace(fn))
    trace_error = submodule(torch, "fx.proxy").TraceError
    run.see("trace_error_bases", [c.__name__ for c in trace_error.__mro__])
    return run


@case
def wrapped_functions(torch: Any) -> Run:
    run = Run(torch)
    programs = run.programs = wrapped_programs(torch)
    gm = run.gm = torch.fx.symbolic_trace(programs.wrapped_and_decorated)
    run.see("calls", [(n.name, n.target) for n in gm.graph.nodes if n.op == "call_function"])
    run.see("globals_holding_sign_of_sum",
            [k for k, v in gm.graph.python_code("self").globals.items() if v is programs.sign_of_sum])
    run.see("code", gm.code)
    return run


@case
def math_autowrap(torch: Any) -> Run:
    run = Run(torch)

    def fn(x):
        return x * math.sqrt(x.size(0))

    run.fn = fn
    run.gm = torch.fx.symbolic_trace(fn)
    run.see("targets", [n.target for n in run.gm.graph.nodes if n.op == "call_function"])
    return run


@case
def concrete_bool(torch: Any) -> Run:
    run = Run(torch)

    def fn(x, double):
        if double:
            return x * 2
        return x

    run.fn = fn
    gm = run.gm = torch.fx.symbolic_trace(fn, concrete_args={"double": True})
    run.see("placeholders", [n.name for n in gm.graph.nodes if n.op == "placeholder"])
    run.see("code", gm.code)
    run.attempt("other_value", lambda: gm(torch.randn(3), False))
    return run


@case
def concrete_none(torch: Any) -> Run:
    run = Run(torch)

    def fn(x, extra=None):
        return x if extra is None else x + extra

    gm = run.gm = torch.fx.symbolic_trace(fn, concrete_args={"extra": None})
    run.see("code", gm.code)
    run.attempt("tensor_value", lambda: gm(torch.randn(2), torch.ones(2)))
    return run


@case
def defaults_and_varargs(torch: Any) -> Run:
    run = Run(torch)

    def fn(x, y=3, *rest, **options):
        return torch.sum(x) + y

    run.fn = fn
    run.gm = torch.fx.symbolic_trace(fn)
    run.see("placeholders", [(n.name, n.target, n.args) for n in run.gm.graph.nodes if n.op == "placeholder"])
    run.see("code", run.gm.code)
    return run


# -- test_functional_tracing -----------------------------------------------------------------------------------------

def functional_block(torch: Any) -> Any:
    F = torch.nn.functional

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x: "torch.Tensor") -> "torch.Tensor":
            hidden = F.dropout(F.softmax(F.relu(self.linear(x)), dim=-1), 0.1, training=False)
            return hidden + F.layer_norm(x, (4,))

    return Block()


@case
def functional_calls(torch: Any) -> Run:
    run = Run(torch)
    run.block = functional_block(torch)
    run.gm = torch.fx.symbolic_trace(run.block)
    run.calls = [(n.target, n.args[1:], n.kwargs) for n in run.gm.graph.nodes if n.op == "call_function"][:4]
    run.see("calls", run.calls)
    run.see("code", run.gm.code)
    return run


# -- test_tracing_arguments ------------------------------------------------------------------------------------------

def _trace_wrapped(run: Run, program: str) -> Any:
    """Trace tools/fx_reference_wrapped.py's program; see its graph and code."""
    run.programs = wrapped_programs(run.torch)
    run.gm = run.torch.fx.symbolic_trace(getattr(run.programs, program))
    run.see("graph", str(run.gm.graph))
    run.see("code", run.gm.code)
    run.see("call_functions", [(n.name, n.target, n.args, n.kwargs) for n in run.gm.graph.nodes
                               if n.op == "call_function"])
    return run.gm


@case
def enum_constant(torch: Any) -> Run:
    run = Run(torch)
    _trace_wrapped(run, "mode_constant")
    run.see("mode_global", repr(run.gm.forward.__globals__.get("Mode")))
    return run


@case
def enums_in_lists_and_keywords(torch: Any) -> Run:
    run = Run(torch)
    _trace_wrapped(run, "modes_in_lists_and_keywords")
    return run


@case
def int_enum_constant(torch: Any) -> Run:
    run = Run(torch)
    _trace_wrapped(run, "int_enum_member")
    return run


@case
def enum_class_rejected(torch: Any) -> Run:
    run = Run(torch)
    programs = wrapped_programs(torch)
    run.attempt("trace", lambda: torch.fx.symbolic_trace(programs.enum_class_argument))
    return run


@case
def dataclass_constant(torch: Any) -> Run:
    run = Run(torch)
    _trace_wrapped(run, "dataclass_argument")
    return run


@case
def nested_dataclass_constants(torch: Any) -> Run:
    run = Run(torch)
    _trace_wrapped(run, "nested_dataclasses")
    run.see("names", names(run.gm.graph))
    return run


@case
def graph_appending_tracer_lowering(torch: Any) -> Run:
    run = Run(torch)
    programs = wrapped_programs(torch)
    tracer = submodule(torch, "fx.proxy").GraphAppendingTracer(torch.fx.Graph())
    run.see("enum", tracer.create_arg(programs.Mode.A))
    built = tracer.create_arg(programs.Cfg(1.0, 2))
    run.see("dataclass", [built.op, built.target, built.name, built.args, built.kwargs])
    return run


@case
def fx_create_arg_precedence(torch: Any) -> Run:
    run = Run(torch)
    _trace_wrapped(run, "fx_create_arg_dataclass")
    return run


@case
def failed_trace_restores(torch: Any) -> Run:
    run = Run(torch)
    programs = wrapped_programs(torch)
    saved = (torch.nn.Module.__call__, torch.nn.Module.__getattr__, programs.use_mode, math.sqrt)
    run.attempt("trace", lambda: torch.fx.symbolic_trace(programs.modules(torch)["Failing"]()))
    now = (torch.nn.Module.__call__, torch.nn.Module.__getattr__, programs.use_mode, math.sqrt)
    run.see("restored", [a is b for a, b in zip(saved, now)])
    run.see("len_in_module", "len" in vars(programs))
    run.see("tracing_after", torch.fx._symbolic_trace.is_fx_tracing())
    return run


@case
def wrapped_builtin(torch: Any) -> Run:
    run = Run(torch)
    _trace_wrapped(run, "wrapped_len")
    run.see("result", run.gm(torch.ones(3)))
    return run


@case
def trace_inside_trace(torch: Any) -> Run:
    run = Run(torch)
    programs = run.programs = wrapped_programs(torch)
    outer = programs.modules(torch)["TracesInside"]()
    run.gm = torch.fx.symbolic_trace(outer)
    run.see("outer_targets", [n.target for n in run.gm.graph.nodes if n.op == "call_function"])
    inner = outer.inner_graphs[0]
    run.see("inner_nodes", [(n.name, n.args) for n in inner.nodes])
    run.see("inner_graph", str(inner))
    return run


@case
def proxyable_class(torch: Any) -> Run:
    run = Run(torch)
    programs = run.programs = wrapped_programs(torch)
    built = programs.modules(torch)
    box = run.box = built["Box"]
    run.see("built_outside_tracing", type(box(torch.fx.Proxy(torch.fx.Graph().placeholder("x")))).__name__)
    gm = torch.fx.symbolic_trace(built["boxed"])
    run.see("targets", [n.target for n in gm.graph.nodes if n.op == "call_function"])
    run.targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    return run


@case
def parameter_proxy_shapes(torch: Any) -> Run:
    run = Run(torch)
    proxy = submodule(torch, "fx.proxy")
    run.see("size_parameters", list(inspect.signature(proxy.ParameterProxy.size).parameters))

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(2, 3))

        def forward(self, x):
            return x.reshape(self.w.shape) * self.w.size()[0] + self.w.dim() + self.w.numel() + self.w.ndim

    graph = torch.fx.Tracer(param_shapes_constant=True).trace(Net())
    run.see("calls", [(n.target, n.args[1:]) for n in graph.nodes if n.op in ("call_function", "call_method")])
    return run


# -- test_make_fx ----------------------------------------------------------------------------------------------------

def _aten_calls(gm: Any) -> list[str]:
    """The aten calls of make_fx's code, as "op.overload(arguments)"."""
    return [line.split("torch.ops.aten.")[1].split(";")[0] for line in gm.code.splitlines()
            if "torch.ops.aten." in line]


def _make_fx(torch: Any) -> Any:
    return submodule(torch, "fx.experimental.proxy_tensor").make_fx


@case
def make_fx_graph(torch: Any) -> Run:
    run = Run(torch)
    gm = _make_fx(torch)(lambda x, y: torch.relu(x @ y + 1).sum(0))(torch.randn(3, 4), torch.randn(4, 5))
    run.see("code", gm.code)
    return run


INDEXING: list[Callable[[Any], Any]] = [
    lambda x: x[0],
    lambda x: x[1:3],
    lambda x: x[:, 1],
    lambda x: x[None, 0],
    lambda x: x[..., 1],
    lambda x: x[-1, ::2],
    lambda x: x[1, None, 2:],
]


@case_for_each(len(INDEXING))
def make_fx_indexing(torch: Any, index: int) -> Run:
    """INDEXING[index] traced on a (4, 5, 6) tensor."""
    run = Run(torch)
    run.x = torch.randn(4, 5, 6)
    run.gm = _make_fx(torch)(INDEXING[index])(run.x)
    run.see("calls", _aten_calls(run.gm))
    return run


def indexed_assignment(x, i):
    y = x.clone()
    y[0, 1:3] = 2.0
    y[i] = x[1] * 2
    return y[:, i, 1]


@case
def make_fx_index_put(torch: Any) -> Run:
    run = Run(torch)
    x, run.i = torch.randn(4, 5, 6), torch.tensor([0, 2])
    run.gm = _make_fx(torch)(indexed_assignment)(x, run.i)
    ops = [n.target for n in run.gm.graph.nodes if n.op == "call_function"]
    run.see("ops", ops)
    aten = torch.ops.aten
    run.see("has_index_put_and_index", [aten.index_put_.default in ops, aten.index.Tensor in ops])
    return run


@case
def make_fx_training_step(torch: Any) -> Run:
    run = Run(torch)
    torch.manual_seed(0)
    linear = run.linear = torch.nn.Linear(4, 2)

    def step(x):
        loss = linear(x).pow(2).mean()
        loss.backward()
        return loss

    run.x = torch.randn(3, 4)
    gm = run.gm = _make_fx(torch)(step)(run.x)
    ops = [str(n.target) for n in gm.graph.nodes if n.op == "call_function"]
    run.see("forward_ops", ops[:3])
    run.see("has_mm", str(torch.ops.aten.mm.default) in ops)  # the weight's gradient
    run.see("attributes", sorted(n.target for n in gm.graph.nodes if n.op == "get_attr"))
    return run


@case
def make_fx_decomposition(torch: Any) -> Run:
    run = Run(torch)
    aten = torch.ops.aten
    table = {aten.relu.default: lambda t: aten.clamp_min.default(t, 0)}
    run.gm = _make_fx(torch)(torch.relu, decomposition_table=table)(torch.randn(5))
    run.see("ops", [n.target for n in run.gm.graph.nodes if n.op == "call_function"])
    return run


@case
def make_fx_bogus_tracing_mode(torch: Any) -> Run:
    run = Run(torch)
    run.attempt("make_fx", lambda: _make_fx(torch)(torch.sin, tracing_mode="bogus"))
    return run


VALUE_READS: list[Callable[[Any], Any]] = [
    lambda a: a * a.sum().item(),
    lambda a: a * float(a.sum()),
    lambda a: a if a.sum() > 0 else -a,
]


@case
def make_fx_value_reads(torch: Any) -> Run:
    run = Run(torch)
    for index, fn in enumerate(VALUE_READS):
        run.attempt(str(index), lambda: _make_fx(torch)(fn)(torch.ones(3)))
    return run


@case
def make_fx_data(torch: Any) -> Run:
    run = Run(torch)
    run.gm = _make_fx(torch)(lambda a: a * a.data)(torch.ones(3))
    run.see("ops", [n.target for n in run.gm.graph.nodes if n.op == "call_function"])
    return run


def _nested(d: Any, pair: Any) -> Any:
    return {"s": d["a"] + d["b"], "p": pair[0] * pair[1]}


@case
def make_fx_nested_inputs(torch: Any) -> Run:
    """A function of a dict and a tuple: the forward takes them back nested (pytree code generation)."""
    run = Run(torch)
    d, pair = {"a": torch.randn(3), "b": torch.randn(3)}, (torch.randn(3), torch.randn(3))
    run.gm = _make_fx(torch)(_nested)(d, pair)
    run.see("code", run.gm.code)
    run.see("placeholders", [n.name for n in run.gm.graph.nodes if n.op == "placeholder"])
    return run


@case
def make_fx_of_vmap(torch: Any) -> Run:
    """vmap of a per-example function, traced: the batched program's aten calls."""
    run = Run(torch)
    run.x = torch.randn(4, 3)
    run.gm = _make_fx(torch)(torch.func.vmap(lambda r: r.sin().sum()))(run.x)
    run.see("code", run.gm.code)
    return run
