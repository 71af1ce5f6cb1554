"""torch.compile's arguments and backends, as PyTorch's: the registry and list_backends, callables as
backends, argument errors, backend failures."""
import logging

import pytest

import torch
from torch._dynamo.eval_frame import stats


def test_list_backends_lists_inductor_and_hides_the_debugging_ones():
    assert "inductor" in torch.compiler.list_backends() and "eager" not in torch.compiler.list_backends()
    assert {"eager", "aot_eager", "inductor"} <= set(torch._dynamo.list_backends(exclude_tags=()))


def test_a_callable_backend_gets_the_graph_module_and_example_inputs():
    seen = {}

    def backend(gm, example_inputs):
        seen["code"] = gm.code
        seen["inputs"] = example_inputs
        return gm.forward

    x, y = torch.randn(2), torch.randn(2)
    out = torch.compile(lambda x, y: (x * y).sum(), backend=backend)(x, y)
    torch.testing.assert_close(out, (x * y).sum())
    assert isinstance(seen["inputs"], list) and seen["inputs"][0] is x and seen["inputs"][1] is y
    assert "torch.ops.aten.mul.Tensor(l_x_, l_y_)" in seen["code"] and "torch.ops.aten.sum.default" in seen["code"]


def test_registered_backends_are_found_by_name():
    calls = []

    @torch._dynamo.register_backend(name="ember_test_counting")
    def counting(gm, example_inputs):
        calls.append(len(example_inputs))
        return gm.forward

    assert torch._dynamo.lookup_backend("ember_test_counting") is counting
    torch.compile(lambda x: x + 1, backend="ember_test_counting")(torch.ones(1))
    assert calls == [1]


def test_argument_errors_are_pytorchs():
    with pytest.raises(torch._dynamo.exc.InvalidBackend,
                       match="^Invalid backend: 'nope', see `torch._dynamo.list_backends\\(\\)` for available backends.$"):
        torch.compile(lambda x: x, backend="nope")
    with pytest.raises(RuntimeError, match="^Unrecognized mode=bogus, should be one of: default, lite, "
                                           "reduce-overhead, max-autotune-no-cudagraphs, max-autotune$"):
        torch.compile(lambda x: x, mode="bogus")
    with pytest.raises(RuntimeError, match="^Unexpected optimization option bogus_opt, known options are"):
        torch.compile(lambda x: x, options={"bogus_opt": 1})
    with pytest.raises(RuntimeError, match="^Either mode or options can be specified, but both can't be specified at "
                                           "the same time.$"):
        torch.compile(lambda x: x, mode="max-autotune", options={})
    with pytest.raises(AssertionError, match="^A callable function is expected, but <class 'int'> is provided.$"):
        torch.compile(3)
    model = torch.nn.Linear(2, 2)
    assert torch.compile(model, disable=True) is model and torch.compile(disable=True)(model) is model


def test_the_inductor_settings_programs_set_exist_and_are_accepted_as_options():
    # gpt-fast sets config.triton.unique_kernel_names and config.coordinate_descent_tuning before compiling
    import torch._inductor.config as config
    for name in ("coordinate_descent_tuning", "shape_padding", "triton.unique_kernel_names", "triton.cudagraphs",
                 "triton.cudagraph_trees", "cpp.threads", "trace.enabled", "fx_graph_cache"):
        owner, _, attribute = name.rpartition(".")
        space = getattr(config, owner) if owner else config
        setattr(space, attribute, getattr(space, attribute))
    compiled = torch.compile(lambda x: x * 2, options={"triton.cudagraphs": False, "shape_padding": True,
                                                       "cpp.threads": 2, "coordinate_descent_tuning": True})
    assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 2.0))


def test_the_eager_backend_warns_about_mode_as_pytorchs(caplog):
    with caplog.at_level(logging.WARNING, logger="torch._dynamo"):
        torch.compile(lambda x: x + 1, backend="eager", mode="reduce-overhead")(torch.ones(1))
    assert "eager backend ignoring extra kwargs {'mode': 'reduce-overhead'}" in caplog.text


def test_a_failing_backend_raises_backend_compiler_failed_unless_errors_are_suppressed():
    def broken(gm, example_inputs):
        raise ValueError("no kernels today")

    with pytest.raises(torch._dynamo.exc.BackendCompilerFailed, match="backend='broken' raised:\nValueError: no "
                                                                       "kernels today"):
        torch.compile(lambda x: x + 1, backend=broken)(torch.ones(1))
    with torch._dynamo.config.patch(suppress_errors=True):
        assert torch.compile(lambda x: x + 2, backend=broken)(torch.ones(1)).item() == 3.0


def test_optimize_compiles_as_torch_compile():
    compiled = torch._dynamo.optimize("eager")(lambda x: x.cos())
    x = torch.randn(3)
    compiled(x)
    torch.testing.assert_close(compiled(x), x.cos())
    assert stats["replays"] == 1
    assert torch._dynamo.optimize("eager", disable=True)(torch.sin) is torch.sin


def test_graph_code_logs_the_captured_graph(capsys, monkeypatch):
    monkeypatch.setenv("TORCH_LOGS", "graph_code")
    torch.compile(lambda x: x.exp() * 2, backend="eager")(torch.ones(2))
    err = capsys.readouterr().err
    assert "[__graph_code] TRACED GRAPH" in err
    assert "torch.ops.aten.exp.default(l_x_)" in err


def test_guards_graph_and_aot_graphs_logs_print_the_guards_the_node_table_and_the_forward_and_backward(
        capsys, monkeypatch):
    monkeypatch.setenv("TORCH_LOGS", "guards,graph,aot_graphs")
    w = torch.ones(3, requires_grad=True)
    torch.compile(lambda x: (x * w).exp(), backend="aot_eager")(torch.ones(2, 3))
    err = capsys.readouterr().err
    assert "[__guards] GUARDS:" in err
    assert "[__guards] +- TENSOR_MATCH x: torch.float32 [2, 3] stride [3, 1] cpu requires_grad=False" in err
    assert "[__graph] opcode" in err and "aten.exp.default" in err
    assert "[__aot_graphs]  ===== Forward graph" in err and "[__aot_graphs]  ===== Backward graph" in err


def test_torch_logs_with_an_unknown_name_is_refused():
    with pytest.raises(ValueError, match="invalid log name 'bogus'"):
        torch._logging._parse_env("graph_code,bogus")


def test_mark_dynamic_records_the_dims_on_the_tensor():
    x = torch.ones(3, 4)
    torch._dynamo.mark_dynamic(x, 0)
    torch._dynamo.mark_static(x, 1)
    assert x._dynamo_dynamic_indices == {0} and x._dynamo_static_indices == {1}
    with pytest.raises(AssertionError, match="out of range"):
        torch._dynamo.mark_dynamic(x, 5)


def test_reduce_overhead_is_compiled_as_the_default_mode_and_says_so(caplog):
    from torch._inductor import compile_fx
    compile_fx._warned_modes.discard("reduce-overhead")
    with caplog.at_level(logging.WARNING, logger="torch._inductor"):
        compiled = torch.compile(lambda x: (x * 2).sin(), mode="reduce-overhead")
        x = torch.randn(4)
        compiled(x)
        torch.testing.assert_close(compiled(x), (x * 2).sin())
    assert "no CUDA-graph replay or autotuning yet; the graph is compiled as mode='default'" in caplog.text
