"""Values handed to recorded calls while tracing: enum members are kept as constants (the generated
code names them through their class), dataclass instances become a call_function node building them
from their fields, and tuple subclasses keep their type. Also: what a trace temporarily rebinds
(wrapped globals, builtins, math functions, nn.Module's hooks) is restored even when it fails.
The programs, which call functions registered with torch.fx.wrap, are in tools/fx_reference_wrapped.py;
PyTorch 2.13's printouts, nodes and errors for them are recorded by tools/record_fx_reference.py in
test/data/fx/fx.json."""
import torch
import torch.fx as fx
from tools import fx_reference_tracing as cases
from tools import record_fx_reference as record
from torch.fx.proxy import GraphAppendingTracer, Proxy

REFERENCE = record.reference()
programs = cases.wrapped_programs(torch)


def _check(case):
    run = record.run_case(torch, case)
    assert run.seen == REFERENCE[case]
    return run


def _call_functions(gm):
    return [n for n in gm.graph.nodes if n.op == "call_function"]


def test_enum_member_is_recorded_as_a_constant_and_named_through_its_class():
    # the graph and code name the member through its class, which the code's globals hold
    run = _check("enum_constant")
    node = _call_functions(run.gm)[0]
    assert node.target is programs.use_mode and node.args[1] is programs.Mode.A
    assert run.gm.forward.__globals__["Mode"] is programs.Mode
    x = torch.ones(2)
    assert torch.equal(run.gm(x), programs.mode_constant(x))


def test_enum_members_inside_lists_and_keyword_arguments():
    run = _check("enums_in_lists_and_keywords")
    node = _call_functions(run.gm)[0]
    assert node.args[1][0] is programs.Mode.A and node.kwargs["mode"] is programs.Mode.B
    x = torch.ones(2)
    assert torch.equal(run.gm(x), x)


def test_int_enum_member_is_kept_and_printed_as_its_value_in_the_graph():
    run = _check("int_enum_constant")
    assert _call_functions(run.gm)[0].args[1] is programs.Level.LOW


def test_an_enum_class_itself_is_still_rejected():
    _check("enum_class_rejected")


def test_dataclass_instance_becomes_a_node_building_it_from_its_fields():
    run = _check("dataclass_constant")
    cfg_node = [n for n in run.gm.graph.nodes if n.name == "cfg"][0]
    assert cfg_node.target is programs.Cfg
    x = torch.ones(2)
    assert torch.equal(run.gm(x), programs.dataclass_argument(x))


def test_dataclass_fields_holding_proxies_and_other_dataclasses_are_lowered_too():
    run = _check("nested_dataclass_constants")
    x = torch.ones(2)
    assert torch.equal(run.gm(x), x)


def test_graph_appending_tracer_lowers_enums_and_dataclasses():
    _check("graph_appending_tracer_lowering")
    tracer = GraphAppendingTracer(fx.Graph())
    assert tracer.create_arg(programs.Mode.A) is programs.Mode.A
    assert tracer.create_arg(programs.Cfg(1.0, 2)).target is programs.Cfg


def test_fx_create_arg_wins_over_the_dataclass_lowering():
    _check("fx_create_arg_precedence")


def test_tuple_subclasses_keep_their_type():
    class Tagged(tuple):
        pass

    graph = fx.Graph()
    x = Proxy(graph.placeholder("x"))
    lowered = GraphAppendingTracer(graph).create_arg(Tagged((1, x)))
    assert type(lowered) is Tagged and lowered == (1, x.node)


def test_a_failed_trace_restores_everything_it_rebound():
    # the program's error comes through; nn.Module's hooks, the wrapped global and math.sqrt are restored, the
    # builtin len was only shadowed while tracing, and no trace is left running
    _check("failed_trace_restores")


def test_builtin_registered_with_wrap_is_recorded_and_re_registered_in_the_code():
    run = _check("wrapped_builtin")
    recorded = [target for _, target, _, _ in REFERENCE["wrapped_builtin"]["call_functions"]]
    assert record.same_objects(torch, recorded, [n.target for n in _call_functions(run.gm)])


def test_a_trace_started_during_a_trace_records_wrapped_functions_once():
    # wrapped and auto-wrapped functions are one node each in the inner graph too
    run = _check("trace_inside_trace")
    recorded = REFERENCE["trace_inside_trace"]["outer_targets"]
    assert record.same_objects(torch, recorded, [n.target for n in _call_functions(run.gm)])
    assert torch.equal(run.gm(torch.ones(2)), programs.use_mode(torch.ones(2), programs.Mode.A))


def test_proxyable_class_constructed_outside_tracing_runs_its_init():
    run = _check("proxyable_class")
    assert run.targets == [run.box, programs.passthrough]


def test_parameter_proxy_answers_shape_queries_from_the_parameter():
    _check("parameter_proxy_shapes")
