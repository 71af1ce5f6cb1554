"""torch.fx._lazy_graph_module: a GraphModule's code generated when first needed, as PyTorch's Dynamo captures
are; the captures of torch.compile are such modules, so a compiler that reads only the graph never generates
their Python code."""
import operator
import pickle

import torch
from torch.fx._lazy_graph_module import _LazyGraphModule, _make_graph_module, _use_lazy_graph_module


def _lazy_add_mul() -> _LazyGraphModule:
    traced = torch.fx.symbolic_trace(lambda x, y: (x + y) * 2)
    return _LazyGraphModule(traced, traced.graph)


def test_a_lazy_module_has_no_code_until_it_is_called_and_then_computes_as_its_graph():
    gm = _lazy_add_mul()
    assert gm._needs_recompile() and "_code" not in gm.__dict__
    x, y = torch.randn(3), torch.randn(3)
    torch.testing.assert_close(gm(x, y), (x + y) * 2)
    assert not gm._needs_recompile() and "mul" in gm.code


def test_reading_code_or_printing_generates_it_and_an_edited_graph_is_generated_again():
    gm = _lazy_add_mul()
    assert "add" in gm.code and "add" in str(gm)
    (times_two,) = [node for node in gm.graph.nodes if node.target is operator.mul]
    times_two.args = (times_two.args[0], 3)
    gm.recompile()
    assert gm._needs_recompile()
    x, y = torch.randn(3), torch.randn(3)
    torch.testing.assert_close(gm(x, y), (x + y) * 3)


def test_a_forward_hook_runs_once_on_the_call_that_generates_the_code():
    gm = _lazy_add_mul()
    calls = []
    gm.register_forward_hook(lambda module, args, out: calls.append(out))
    gm(torch.ones(2), torch.ones(2))
    assert len(calls) == 1


def test_a_lazy_module_pickles_with_its_code():
    gm = _lazy_add_mul()
    back = pickle.loads(pickle.dumps(gm))
    x, y = torch.randn(4), torch.randn(4)
    torch.testing.assert_close(back(x, y), (x + y) * 2)


def test_make_graph_module_is_lazy_only_inside_use_lazy_graph_module():
    traced = torch.fx.symbolic_trace(lambda x: x.relu())
    assert type(_make_graph_module(traced, traced.graph)).__mro__[1] is torch.fx.GraphModule
    with _use_lazy_graph_module(True):
        assert isinstance(_make_graph_module(traced, traced.graph), _LazyGraphModule)
    assert not isinstance(_make_graph_module(traced, traced.graph), _LazyGraphModule)


def test_the_inductor_compiles_a_capture_without_generating_its_python_code():
    seen = []
    from torch._inductor.compile_fx import compile_fx

    def backend(gm, example_inputs):
        seen.append(gm)
        return compile_fx(gm, example_inputs)

    f = torch.compile(lambda x: torch.tanh(x) * 2 + 1, backend=backend)
    x = torch.randn(8)
    for _ in range(3):
        torch.testing.assert_close(f(x), torch.tanh(x) * 2 + 1)
    assert seen and all(isinstance(gm, _LazyGraphModule) and gm._needs_recompile() for gm in seen)


def test_from_graphmodule_makes_a_lazy_module_once_and_force_recompile_generates_its_code():
    traced = torch.fx.symbolic_trace(lambda x: x * 3)
    lazy = _LazyGraphModule.from_graphmodule(traced)
    assert _LazyGraphModule.from_graphmodule(lazy) is lazy and lazy._needs_recompile()
    _LazyGraphModule.force_recompile(lazy)
    _LazyGraphModule.force_recompile(traced)        # an eager module: nothing to do
    assert not lazy._needs_recompile()
    torch.testing.assert_close(lazy(torch.ones(2)), torch.full((2,), 3.0))
