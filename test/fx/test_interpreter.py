"""torch.fx.Interpreter and Transformer: node-by-node execution reproduces the module, overriding an
opcode method changes what runs, and Transformer builds a new GraphModule from Proxies. The environment
left after a run and the errors are PyTorch 2.13's for the same module, recorded by
tools/record_fx_reference.py in test/data/fx/fx.json."""
import operator

import pytest

import torch
import torch.fx as fx
from tools import fx_reference_modules as cases
from tools import record_fx_reference as record

REFERENCE = record.reference()


@pytest.fixture
def net():
    return cases.interpreter_net(torch)  # seeded


def assert_same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert torch.equal(g, w)


def test_interpreter_reproduces_the_module(net):
    gm = fx.symbolic_trace(net)
    x = torch.randn(3, 4)
    assert_same(fx.Interpreter(gm).run(x), net(x))
    assert_same(fx.Interpreter(gm).run(x, 2.5), net(x, 2.5))


def test_interpreter_frees_values_after_their_last_use():
    # only the output's value remains: every other one was dropped after its last reader ran
    run = record.run_case(torch, "interpreter_environment")
    assert run.seen == REFERENCE["interpreter_environment"]
    gm = run.gm
    keeping = fx.Interpreter(gm, garbage_collect_values=False)
    keeping.run(torch.randn(2, 4))
    assert len(keeping.env) == len(gm.graph.nodes)


def test_overriding_call_function_changes_what_runs(net):
    class NegToSigmoid(fx.Interpreter):
        def call_function(self, target, args, kwargs):
            if target is torch.neg:
                return torch.sigmoid(*args, **kwargs)
            return super().call_function(target, args, kwargs)

    gm = fx.symbolic_trace(net)
    x = torch.randn(2, 4)
    summed, rewritten = NegToSigmoid(gm).run(x)
    h = torch.relu(net.linear(x)) * net.scale
    assert torch.equal(rewritten, torch.sigmoid(h))
    assert torch.equal(summed, h.sum(dim=-1) + 1.0)


def test_boxed_run_takes_and_clears_a_list(net):
    gm = fx.symbolic_trace(net)
    x = torch.randn(2, 4)
    inputs = [x, 0.5]
    assert_same(fx.Interpreter(gm).boxed_run(inputs), net(x, 0.5))
    assert inputs == []
    # PyTorch's error for too few inputs (and the list emptied as here)
    assert record.run_case(torch, "interpreter_boxed_run").seen == REFERENCE["interpreter_boxed_run"]


def test_errors_name_the_node_that_failed():
    # the view's own error, then the node that failed and PyTorch's hints
    assert record.run_case(torch, "interpreter_error_names_node").seen == REFERENCE["interpreter_error_names_node"]


def test_fetch_attr_and_fetch_args_kwargs_from_env(net):
    gm = fx.symbolic_trace(net)
    interpreter = fx.Interpreter(gm)
    assert interpreter.fetch_attr("linear.weight") is net.linear.weight
    assert record.run_case(torch, "interpreter_fetch_attr").seen == REFERENCE["interpreter_fetch_attr"]
    node = next(n for n in gm.graph.nodes if n.op == "call_module")
    x = torch.randn(1, 4)
    interpreter.env = {node.args[0]: x}
    assert interpreter.fetch_args_kwargs_from_env(node) == ((x,), {})


def test_transformer_identity_reproduces_the_module(net):
    gm = fx.symbolic_trace(net)
    transformed = fx.Transformer(gm).transform()
    assert isinstance(transformed, fx.GraphModule)
    assert transformed.code == gm.code
    x = torch.randn(3, 4)
    assert_same(transformed(x), net(x))


def test_transformer_subclass_rewrites_nodes(net):
    class ReluToGelu(fx.Transformer):
        def call_function(self, target, args, kwargs):
            if target is torch.relu:
                target = torch.nn.functional.gelu
            if target is operator.mul:
                target = operator.add
            return super().call_function(target, args, kwargs)

    gm = fx.symbolic_trace(net)
    transformed = ReluToGelu(gm).transform()
    x = torch.randn(3, 4)
    h = torch.nn.functional.gelu(net.linear(x)) + net.scale
    assert_same(transformed(x), (h.sum(dim=-1) + 1.0, torch.neg(h)))
    assert_same(gm(x), net(x))
