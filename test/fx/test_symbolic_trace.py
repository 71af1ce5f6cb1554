"""torch.fx.symbolic_trace: the graph recorded for a module or function (ops, targets, node names,
printouts in PyTorch 2.13's format), leaf modules, wrap, concrete_args and the errors a Proxy
raises where its value would be needed. What PyTorch 2.13 records for the same programs (str(gm.graph),
gm.code, node lists, printouts, errors) comes from tools/record_fx_reference.py (test/data/fx/fx.json)."""
import pytest

import torch
import torch.fx as fx
from tools import fx_reference_tracing as cases
from tools import record_fx_reference as record

REFERENCE = record.reference()


def _check(case):
    run = record.run_case(torch, case)
    assert run.seen == REFERENCE[case]
    return run


def _call_function_targets(graph):
    return [n.target for n in graph.nodes if n.op == "call_function"]


def test_trace_records_the_ops_targets_and_names_pytorch_records():
    # the nodes (op, name, target), the printed graph, the code, the module printout (the module repr, the code
    # and PyTorch's reminder line), the class name, and how nodes link to their users and inputs
    run = _check("small_net_trace")
    recorded = [target for op, _, target in REFERENCE["small_net_trace"]["nodes"] if op == "call_function"]
    assert record.same_objects(torch, recorded, _call_function_targets(run.gm.graph))


def test_graph_printout_and_generated_code_are_pytorchs():
    # the module printout is the module repr, then the code, then PyTorch's reminder line (recorded)
    gm = _check("small_net_trace").gm
    assert str(gm).startswith("\n".join([torch.nn.Module.__repr__(gm), gm.code, ""]))


def test_traced_module_computes_what_the_module_computes():
    torch.manual_seed(0)
    net = cases.small_net(torch)
    gm = fx.symbolic_trace(net)
    x = torch.randn(5, 4)
    assert torch.equal(gm(x), net(x))


def test_users_and_inputs_are_linked_both_ways():
    graph = _check("small_net_trace").gm.graph
    nodes = {n.name: n for n in graph.nodes}
    assert list(nodes["relu"].users) == [nodes["sum_1"], nodes["clamp"]]
    assert nodes["add"].all_input_nodes == [nodes["clamp"], nodes["offset"]]
    assert nodes["add"].prev is nodes["offset"] and nodes["add"].next is nodes["mul"]


def test_names_that_shadow_builtins_get_a_suffix_and_duplicates_count_up():
    # (getattr's node is made when the attribute is first used: at the return)
    _check("builtin_shadowing_names")


def test_nested_module_targets_become_underscored_names():
    run = _check("nested_module_names")
    img = torch.randn(1, 1, 3, 3)
    assert torch.equal(run.gm(img), run.outer(img))


def test_sequential_is_traced_into_its_children():
    # PyTorch's code for a Sequential: children reached with getattr since "0" is no identifier
    run = _check("sequential_trace")
    x = torch.randn(2, 3)
    assert torch.equal(run.gm(x), run.seq(x))


def test_custom_tracer_can_keep_a_module_as_a_leaf():
    run = _check("leaf_module_tracer")
    gm = fx.GraphModule(run.outer, run.kept)
    x = torch.randn(3)
    assert torch.equal(gm(x), run.outer(x))


def test_tensor_methods_operators_and_attributes_become_nodes():
    # every node's op, name, target, args and kwargs
    run = _check("tensor_methods_trace")
    recorded = [target for op, _, target, _, _ in REFERENCE["tensor_methods_trace"]["nodes"] if op == "call_function"]
    assert record.same_objects(torch, recorded, _call_function_targets(run.gm.graph))
    x, y = torch.randn(2, 2), torch.randn(3)
    for got, want in zip(run.gm(x, y), cases.tensor_methods(x, y)):
        assert torch.equal(torch.as_tensor(got), torch.as_tensor(want))


def test_tensor_constants_are_stored_on_the_module_and_fetched():
    run = _check("tensor_constants")
    x = torch.randn(3)
    assert torch.equal(run.gm(x), run.module(x))


def test_bool_iteration_and_len_of_a_proxy_raise_pytorchs_errors():
    # and TraceError is a ValueError
    _check("proxy_value_errors")


def test_wrapped_functions_stay_one_call_function_node():
    # the wrapped functions are globals of the generated code, re-registered with wrap() there
    run = _check("wrapped_functions")
    recorded = [target for _, target in REFERENCE["wrapped_functions"]["calls"]]
    assert record.same_objects(torch, recorded, _call_function_targets(run.gm.graph))
    fn = run.programs.wrapped_and_decorated
    for x in (torch.tensor([1.0, 2.0]), torch.tensor([-3.0, 1.0])):
        assert torch.equal(run.gm(x), fn(x))


def test_math_functions_are_wrapped_automatically():
    run = _check("math_autowrap")
    assert record.same_objects(torch, REFERENCE["math_autowrap"]["targets"], _call_function_targets(run.gm.graph))
    x = torch.randn(4)
    assert torch.equal(run.gm(x), run.fn(x))


def test_concrete_args_specialise_an_argument_and_check_it():
    # the placeholders, the check in the code, and its error for another value
    run = _check("concrete_bool")
    x = torch.randn(3)
    assert torch.equal(run.gm(x, True), run.fn(x, True))


def test_concrete_none_is_checked_with_assert_is_none():
    run = _check("concrete_none")
    x = torch.randn(2)
    assert torch.equal(run.gm(x), x)


def test_defaults_and_varargs_become_placeholders():
    # the placeholders and PyTorch's signature for them
    run = _check("defaults_and_varargs")
    x = torch.randn(2)
    assert torch.equal(run.gm(x), run.fn(x))
    assert torch.equal(run.gm(x, 5), run.fn(x, 5))


def test_tracing_restores_module_call_and_getattr():
    call, getattr_ = torch.nn.Module.__call__, torch.nn.Module.__getattr__

    def fails(x):
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        fx.symbolic_trace(fails)
    fx.symbolic_trace(cases.small_net(torch))
    assert torch.nn.Module.__call__ is call and torch.nn.Module.__getattr__ is getattr_
    assert not fx._symbolic_trace.is_fx_tracing()
