"""Values handed to recorded calls while tracing: enum members are kept as constants (the generated
code names them through their class), dataclass instances become a call_function node building them
from their fields, and tuple subclasses keep their type. Also: what a trace temporarily rebinds
(wrapped globals, builtins, math functions, nn.Module's hooks) is restored even when it fails.
Expected printouts are PyTorch 2.13's (checked with /work/ref-torch)."""
import dataclasses
import enum
import inspect
import math
import operator

import pytest

import torch
import torch.fx as fx
from torch.fx.proxy import GraphAppendingTracer, ParameterProxy, Proxy


class Mode(enum.Enum):
    A = 1
    B = 2


class Level(enum.IntEnum):
    LOW = 1


@dataclasses.dataclass
class Cfg:
    scale: float
    bias: int = 0


@dataclasses.dataclass
class Pair:
    first: object
    second: object


@dataclasses.dataclass
class Lowered:
    value: int

    def __fx_create_arg__(self, tracer):
        return self.value * 100


def use_mode(x, mode):
    return x * (2 if mode is Mode.A else 3)


def use_cfg(x, cfg):
    return x * cfg.scale + cfg.bias


def passthrough(x, *extra, **options):
    return x


def fails_inside(x):
    raise ValueError("boom inside")


fx.wrap("use_mode")
fx.wrap("use_cfg")
fx.wrap("passthrough")
fx.wrap("len")

PREFIX = __name__.replace(".", "_")


def test_enum_member_is_recorded_as_a_constant_and_named_through_its_class():
    def fm(x):
        return use_mode(x, Mode.A)

    gm = fx.symbolic_trace(fm)
    node = [n for n in gm.graph.nodes if n.op == "call_function"][0]
    assert node.target is use_mode and node.args[1] is Mode.A
    assert f"call_function[target={__name__}.use_mode](args = (%x, Mode.A), kwargs = {{}})" in str(gm.graph)
    assert f"use_mode = {PREFIX}_use_mode(x, Mode.A);  x = None" in gm.code
    assert gm.forward.__globals__["Mode"] is Mode
    x = torch.ones(2)
    assert torch.equal(gm(x), fm(x))


def test_enum_members_inside_lists_and_keyword_arguments():
    def fm(x):
        return passthrough(x, [Mode.A, 2], mode=Mode.B)

    gm = fx.symbolic_trace(fm)
    node = [n for n in gm.graph.nodes if n.op == "call_function"][0]
    assert node.args[1] == [Mode.A, 2] and node.kwargs == {"mode": Mode.B}
    assert "(args = (%x, [Mode.A, 2]), kwargs = {mode: Mode.B})" in str(gm.graph)
    assert f"{PREFIX}_passthrough(x, [Mode.A, 2], mode = Mode.B)" in gm.code
    x = torch.ones(2)
    assert torch.equal(gm(x), x)


def test_int_enum_member_is_kept_and_printed_as_its_value_in_the_graph():
    def fm(x):
        return passthrough(x, Level.LOW)

    gm = fx.symbolic_trace(fm)
    node = [n for n in gm.graph.nodes if n.op == "call_function"][0]
    assert node.args[1] is Level.LOW
    assert "(args = (%x, 1), kwargs = {})" in str(gm.graph)
    assert "passthrough(x, Level.LOW)" in gm.code


def test_an_enum_class_itself_is_still_rejected():
    def fm(x):
        return passthrough(x, Mode)

    with pytest.raises(NotImplementedError, match=f"argument of type: {type(Mode)}".replace(".", r"\.")):
        fx.symbolic_trace(fm)


def test_dataclass_instance_becomes_a_node_building_it_from_its_fields():
    def fc(x):
        return use_cfg(x, Cfg(2.0, 1))

    gm = fx.symbolic_trace(fc)
    assert str(gm.graph) == f"""graph():
    %x : [num_users=1] = placeholder[target=x]
    %cfg : [num_users=1] = call_function[target={__name__}.Cfg](args = (), kwargs = {{scale: 2.0, bias: 1}})
    %use_cfg : [num_users=1] = call_function[target={__name__}.use_cfg](args = (%x, %cfg), kwargs = {{}})
    return use_cfg"""
    assert f"cfg = {PREFIX}_Cfg(scale = 2.0, bias = 1)" in gm.code
    cfg_node = [n for n in gm.graph.nodes if n.name == "cfg"][0]
    assert cfg_node.target is Cfg and cfg_node.args == () and cfg_node.kwargs == {"scale": 2.0, "bias": 1}
    x = torch.ones(2)
    assert torch.equal(gm(x), fc(x))


def test_dataclass_fields_holding_proxies_and_other_dataclasses_are_lowered_too():
    def fc(x):
        return passthrough(x, Pair((x, 2), Pair(Mode.B, [x])), c=Cfg(1.0))

    gm = fx.symbolic_trace(fc)
    nodes = {n.name: n for n in gm.graph.nodes}
    assert [n.name for n in gm.graph.nodes] == ["x", "pair", "pair_1", "cfg", "passthrough", "output"]
    assert nodes["pair"].kwargs == {"first": Mode.B, "second": [nodes["x"]]}
    assert nodes["pair_1"].kwargs == {"first": (nodes["x"], 2), "second": nodes["pair"]}
    assert nodes["passthrough"].args == (nodes["x"], nodes["pair_1"])
    assert nodes["passthrough"].kwargs == {"c": nodes["cfg"]}
    assert "pair = " + f"{PREFIX}_Pair(first = Mode.B, second = [x])" in gm.code
    x = torch.ones(2)
    assert torch.equal(gm(x), x)


def test_graph_appending_tracer_lowers_enums_and_dataclasses():
    graph = fx.Graph()
    tracer = GraphAppendingTracer(graph)
    assert tracer.create_arg(Mode.A) is Mode.A
    built = tracer.create_arg(Cfg(1.0, 2))
    assert built.op == "call_function" and built.target is Cfg and built.name == "cfg"
    assert built.kwargs == {"scale": 1.0, "bias": 2}


def test_fx_create_arg_wins_over_the_dataclass_lowering():
    def fc(x):
        return passthrough(x, Lowered(3))

    gm = fx.symbolic_trace(fc)
    assert [n.args for n in gm.graph.nodes if n.op == "call_function"][0][1] == 300


def test_tuple_subclasses_keep_their_type():
    class Tagged(tuple):
        pass

    graph = fx.Graph()
    x = Proxy(graph.placeholder("x"))
    lowered = GraphAppendingTracer(graph).create_arg(Tagged((1, x)))
    assert type(lowered) is Tagged and lowered == (1, x.node)


def test_a_failed_trace_restores_everything_it_rebound():
    import sys
    module = sys.modules[__name__]
    saved = (torch.nn.Module.__call__, torch.nn.Module.__getattr__, module.use_mode, math.sqrt)

    class Failing(torch.nn.Module):
        def forward(self, x):
            passthrough(x, len(x), math.sqrt(x.size(0)))
            return fails_inside(x)

    with pytest.raises(ValueError, match="boom inside"):
        fx.symbolic_trace(Failing())
    now = (torch.nn.Module.__call__, torch.nn.Module.__getattr__, module.use_mode, math.sqrt)
    assert all(a is b for a, b in zip(saved, now))
    assert "len" not in vars(module)  # the builtin was only shadowed while tracing
    assert not fx._symbolic_trace.is_fx_tracing()


def test_builtin_registered_with_wrap_is_recorded_and_re_registered_in_the_code():
    def fn(x):
        return len(x) + 1

    gm = fx.symbolic_trace(fn)
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [len, operator.add]
    assert 'torch.fx._symbolic_trace.wrap("len")' in gm.code
    assert gm(torch.ones(3)) == 4


def test_a_trace_started_during_a_trace_records_wrapped_functions_once():
    inner_graphs = []

    def inner(y):
        return use_mode(y, Mode.B) + math.sqrt(y.size(0))

    class Outer(torch.nn.Module):
        def forward(self, x):
            inner_graphs.append(fx.symbolic_trace(inner).graph)
            return use_mode(x, Mode.A)

    gm = fx.symbolic_trace(Outer())
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [use_mode]
    y, use, size, sqrt, add, _ = inner_graphs[0].nodes
    # wrapped and auto-wrapped functions are one node each in the inner graph too
    assert [(n.name, n.args) for n in (use, size, sqrt, add)] == [
        ("use_mode", (y, Mode.B)), ("size", (y, 0)), ("sqrt", (size,)), ("add", (use, sqrt))]
    assert f"call_function[target={__name__}.use_mode](args = (%y, Mode.B)" in str(inner_graphs[0])
    assert torch.equal(gm(torch.ones(2)), torch.ones(2) * 2)


def test_proxyable_class_constructed_outside_tracing_runs_its_init():
    class Box(metaclass=fx.ProxyableClassMeta):
        def __init__(self, content):
            self.content = content

    graph = fx.Graph()
    proxy = Proxy(graph.placeholder("x"))
    assert isinstance(Box(proxy), Box)

    def fn(x):
        return passthrough(Box(x))

    gm = fx.symbolic_trace(fn)
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [Box, passthrough]


def test_parameter_proxy_answers_shape_queries_from_the_parameter():
    assert list(inspect.signature(ParameterProxy.size).parameters) == ["self"]

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(2, 3))

        def forward(self, x):
            return x.reshape(self.w.shape) * self.w.size()[0] + self.w.dim() + self.w.numel() + self.w.ndim

    graph = fx.Tracer(param_shapes_constant=True).trace(Net())
    calls = [(n.target, n.args[1:]) for n in graph.nodes if n.op in ("call_function", "call_method")]
    assert calls == [("reshape", ((2, 3),)), (operator.mul, (2,)), (operator.add, (2,)), (operator.add, (6,)),
                     (operator.add, (2,))]
