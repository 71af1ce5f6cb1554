"""Interpreter / Transformer / ShapeProp / replace_pattern behaviour, checked against PyTorch 2.13's: its
answers for the same programs (shapes, environments, metadata, generated code, errors) are recorded by
tools/record_fx_reference.py in test/data/fx/fx.json."""
from __future__ import annotations

import torch
import torch.fx as fx
from tools import fx_reference_modules as cases
from tools import record_fx_reference as record
from tools.fx_reference_run import Run
from torch.fx.passes.shape_prop import TensorMetadata

REFERENCE = record.reference()
MODULES = cases.rewrite_modules(torch)


def _check(case: str) -> Run:
    run = record.run_case(torch, case)
    assert run.seen == REFERENCE[case]
    return run


def test_run_frees_values_after_last_use() -> None:
    # the output shapes, and only the output's value left in the environment
    gm = _check("rewrite_interpreter_run").gm
    kept = fx.Interpreter(gm, garbage_collect_values=False)
    kept.run(torch.ones(2, 3))
    assert len(kept.env) == len(gm.graph.nodes)


def test_initial_env_nodes_are_not_recomputed() -> None:
    gm = fx.symbolic_trace(MODULES["Add"]())
    a, b, add, _ = gm.graph.nodes
    sentinel = torch.full((2,), 7.0)
    out = fx.Interpreter(gm).run(initial_env={a: torch.ones(2), b: torch.ones(2), add: sentinel})
    assert out is sentinel


def test_boxed_run_clears_list_and_checks_count() -> None:
    _check("rewrite_boxed_run")


def test_placeholder_default_and_missing_input() -> None:
    gm = fx.symbolic_trace(MODULES["Net"]())
    assert torch.allclose(fx.Interpreter(gm).run(torch.ones(2, 3))[0], gm(torch.ones(2, 3))[0])
    # the missing input's error, caused by the StopIteration of the exhausted inputs
    _check("rewrite_missing_input")


def test_transformer_rewrites_and_keeps_output_meta() -> None:
    # the new graph's ops (one call_module), placeholders with their defaults, and code
    run = _check("rewrite_transformer")
    gm, swap, new = run.gm, run.swap, run.new
    assert swap.tracer.root is gm and swap.new_graph is swap.tracer.graph
    assert new.graph.output_node().meta["hello"] == 1
    x = torch.ones(2, 3)
    assert torch.allclose(new(x)[0], (gm.lin(x) + gm.w).sigmoid().sum(dim=0) * 2)


def test_shape_prop_records_metadata() -> None:
    # a's TensorMetadata, b's channels_last and the transposed view's missing memory format, no tensor_meta for
    # an int, and the output's metadata nested as the output is
    run = _check("rewrite_shape_prop")
    metas = run.metas
    assert isinstance(metas["a"]["tensor_meta"], TensorMetadata)
    assert metas["b"]["tensor_meta"].memory_format is torch.channels_last
    assert metas["size"]["type"] is int and metas["output"]["type"] is tuple
    assert isinstance(metas["output"]["tensor_meta"][1][1][0], TensorMetadata)


def test_shape_prop_error_names_node() -> None:
    _check("rewrite_shape_prop_error")


def test_replace_pattern_copies_replacement_attributes() -> None:
    # one match, and the rewritten code
    run = _check("rewrite_replace_pattern")
    gm, rep = run.gm, run.rep
    assert isinstance(gm.sub, torch.nn.ReLU) and gm.sub is not rep.sub
    assert gm.k is not rep.k and torch.equal(gm.k, rep.k)
    assert torch.equal(gm(torch.tensor([-1.0, 2.0, 3.0])), torch.tensor([1.0, 5.0, 7.0]))


def test_replace_pattern_with_broken_replacement_raises() -> None:
    _check("rewrite_replace_pattern_broken")
