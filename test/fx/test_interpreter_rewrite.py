"""Interpreter / Transformer / ShapeProp / replace_pattern behaviour, checked against PyTorch 2.13's."""
from __future__ import annotations

import pytest
import torch
import torch.fx as fx
from torch.fx import subgraph_rewriter
from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x: torch.Tensor, y: int = 2) -> tuple[torch.Tensor, torch.Tensor]:
        return (self.lin(x) + self.w).relu().sum(dim=0) * y, x.t()


class _Add(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a + b


def test_run_frees_values_after_last_use() -> None:
    gm = fx.symbolic_trace(_Net())
    interp = fx.Interpreter(gm)
    out = interp.run(torch.ones(2, 3))
    assert [o.shape for o in out] == [torch.Size([3]), torch.Size([3, 2])]
    assert [n.name for n in interp.env] == ["output"]
    kept = fx.Interpreter(gm, garbage_collect_values=False)
    kept.run(torch.ones(2, 3))
    assert len(kept.env) == len(gm.graph.nodes)


def test_initial_env_nodes_are_not_recomputed() -> None:
    gm = fx.symbolic_trace(_Add())
    a, b, add, _ = gm.graph.nodes
    sentinel = torch.full((2,), 7.0)
    out = fx.Interpreter(gm).run(initial_env={a: torch.ones(2), b: torch.ones(2), add: sentinel})
    assert out is sentinel


def test_boxed_run_clears_list_and_checks_count() -> None:
    gm = fx.symbolic_trace(_Net())
    inputs = [torch.ones(2, 3), 3]
    fx.Interpreter(gm).boxed_run(inputs)
    assert inputs == []
    with pytest.raises(RuntimeError, match=r"expected 2 arguments for placeholders but received 1 \(missing"):
        fx.Interpreter(gm).boxed_run([torch.ones(2, 3)])
    with pytest.raises(RuntimeError, match=r"but received 3 \(extra arguments\)"):
        fx.Interpreter(gm).boxed_run([torch.ones(2, 3), 1, 2])


def test_placeholder_default_and_missing_input() -> None:
    gm = fx.symbolic_trace(_Net())
    assert torch.allclose(fx.Interpreter(gm).run(torch.ones(2, 3))[0], gm(torch.ones(2, 3))[0])
    with pytest.raises(RuntimeError, match="Expected positional argument for parameter b, but one was not") as info:
        fx.Interpreter(fx.symbolic_trace(_Add())).run(torch.ones(2))
    assert isinstance(info.value.__cause__, StopIteration)


def test_transformer_rewrites_and_keeps_output_meta() -> None:
    class Swap(fx.Transformer):
        def call_method(self, target, args, kwargs):  # type: ignore[no-untyped-def]
            return super().call_method("sigmoid" if target == "relu" else target, args, kwargs)

    gm = fx.symbolic_trace(_Net())
    gm.graph.output_node().meta["hello"] = 1
    swap = Swap(gm)
    assert swap.tracer.root is gm and swap.new_graph is swap.tracer.graph
    new = swap.transform()
    assert new.graph.output_node().meta["hello"] == 1
    assert [n.op for n in new.graph.nodes].count("call_module") == 1
    assert [n.args for n in new.graph.nodes if n.op == "placeholder"] == [(), (2,)]
    x = torch.ones(2, 3)
    assert torch.allclose(new(x)[0], (gm.lin(x) + gm.w).sigmoid().sum(dim=0) * 2)


def test_shape_prop_records_metadata() -> None:
    class S(torch.nn.Module):
        def forward(self, a, b):  # type: ignore[no-untyped-def]
            return a.t(), (b, [b * 2, 3]), a.size(0)

    gm = fx.symbolic_trace(S())
    b = torch.ones(1, 2, 3, 4).contiguous(memory_format=torch.channels_last)
    ShapeProp(gm).propagate(torch.ones(2, 3), b)
    metas = {n.name: n.meta for n in gm.graph.nodes}
    assert metas["a"]["tensor_meta"] == TensorMetadata(torch.Size([2, 3]), torch.float32, False, (3, 1),
                                                       torch.contiguous_format, False, {})
    assert metas["b"]["tensor_meta"].memory_format is torch.channels_last
    assert metas["t"]["tensor_meta"].memory_format is None and metas["t"]["tensor_meta"].stride == (1, 3)
    assert "tensor_meta" not in metas["size"] and metas["size"]["type"] is int
    out_meta = metas["output"]["tensor_meta"]
    assert metas["output"]["type"] is tuple and out_meta[2] == 2 and out_meta[1][1][1] == 3
    assert isinstance(out_meta[1][1][0], TensorMetadata)


def test_shape_prop_error_names_node() -> None:
    gm = fx.symbolic_trace(_Add())
    with pytest.raises(RuntimeError, match=r"ShapeProp error for: node=%add .* with meta=\{\}"):
        ShapeProp(gm).propagate(torch.ones(2), torch.ones(3))


class _Neg(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.neg(x) + 1


class _Rep(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sub = torch.nn.ReLU()
        self.k = torch.nn.Parameter(torch.full((3,), 2.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scaled: torch.Tensor = self.sub(x) * self.k
        return scaled


def _neg(x: torch.Tensor) -> torch.Tensor:
    return torch.neg(x)


def test_replace_pattern_copies_replacement_attributes() -> None:
    gm, rep = fx.symbolic_trace(_Neg()), fx.symbolic_trace(_Rep())
    assert len(subgraph_rewriter.replace_pattern(gm, _neg, rep)) == 1
    assert isinstance(gm.sub, torch.nn.ReLU) and gm.sub is not rep.sub
    assert gm.k is not rep.k and torch.equal(gm.k, rep.k)
    assert torch.equal(gm(torch.tensor([-1.0, 2.0, 3.0])), torch.tensor([1.0, 5.0, 7.0]))


def test_replace_pattern_with_broken_replacement_raises() -> None:
    gm, rep = fx.symbolic_trace(_Neg()), fx.symbolic_trace(_Rep())
    del rep.k
    with pytest.raises(RuntimeError, match="references nonexistent attribute k"):
        subgraph_rewriter.replace_pattern(gm, _neg, rep)
