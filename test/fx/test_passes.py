"""torch.fx passes: ShapeProp's tensor metadata against the eager intermediates, and
replace_pattern's rewrites and returned matches."""
import operator

import torch
import torch.fx as fx
from torch.fx.passes.shape_prop import ShapeProp, TensorMetadata


class TwoLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(5, 3)
        self.linear2 = torch.nn.Linear(3, 2)

    def forward(self, x):
        hidden = self.linear1(x).clamp(min=0)
        return self.linear2(hidden).to(torch.float64), hidden.t()


def test_shape_prop_records_the_metadata_of_each_intermediate():
    torch.manual_seed(0)
    model = TwoLayer()
    gm = fx.symbolic_trace(model)
    x = torch.randn(4, 5)
    result = ShapeProp(gm).propagate(x)
    assert torch.equal(result[0], model(x)[0])
    hidden = model.linear1(x).clamp(min=0)
    eager = {"x": x, "linear1": model.linear1(x), "clamp": hidden, "linear2": model.linear2(hidden),
             "to": model.linear2(hidden).to(torch.float64), "t": hidden.t()}
    nodes = {n.name: n for n in gm.graph.nodes}
    for name, value in eager.items():
        meta = nodes[name].meta["tensor_meta"]
        assert isinstance(meta, TensorMetadata)
        assert (meta.shape, meta.dtype, meta.requires_grad, meta.stride) == \
            (value.shape, value.dtype, value.requires_grad, value.stride())
        assert (meta.is_quantized, meta.qparams) == (False, {})
        assert nodes[name].meta["type"] is torch.Tensor
    assert nodes["clamp"].meta["tensor_meta"].memory_format is torch.contiguous_format
    # a transposed view is contiguous in no layout
    assert nodes["t"].meta["tensor_meta"].memory_format is None
    output_meta = nodes["output"].meta["tensor_meta"]
    assert isinstance(output_meta, tuple) and [m.shape for m in output_meta] == [torch.Size([4, 2]),
                                                                              torch.Size([3, 4])]
    assert nodes["output"].meta["type"] is tuple


def test_shape_prop_metadata_reprs_like_pytorch():
    def fn(x):
        return torch.relu(x)

    gm = fx.symbolic_trace(fn)
    ShapeProp(gm).propagate(torch.zeros(2, 4))
    # PyTorch 2.13 prints this TensorMetadata for the same tensor (checked with /work/ref-torch)
    assert repr(next(iter(gm.graph.nodes)).meta["tensor_meta"]) == (
        "TensorMetadata(shape=torch.Size([2, 4]), dtype=torch.float32, requires_grad=False, stride=(4, 1), "
        "memory_format=torch.contiguous_format, is_quantized=False, qparams={})")
    assert 'def forward(self, x: "f32[2, 4]"):' in gm.print_readable(print_output=False)


class TwoCats(torch.nn.Module):
    def forward(self, x, w1, w2):
        m1 = torch.cat([w1, w2]).sum()
        m2 = torch.cat([w1, w2]).sum()
        return x + torch.max(m1) + torch.max(m2)


def cat_then_sum(w1, w2):
    return torch.cat([w1, w2]).sum()


def stacked(w1, w2):
    return torch.stack([w1, w2])


def test_replace_pattern_rewrites_every_occurrence_and_returns_matches():
    gm = fx.symbolic_trace(TwoCats())
    matches = fx.replace_pattern(gm, cat_then_sum, stacked)
    assert len(matches) == 2
    # as PyTorch: the anchor is the pattern's returned node; nodes_map maps pattern -> graph nodes
    for match, (cat_name, sum_name) in zip(matches, [("cat", "sum_1"), ("cat_1", "sum_2")]):
        assert match.anchor.graph is not gm.graph and match.anchor.name == "sum_1"
        assert [(p.name, g.name) for p, g in match.nodes_map.items()] == [
            ("sum_1", sum_name), ("cat", cat_name), ("w1", "w1"), ("w2", "w2")]
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert targets == [torch.stack, torch.max, operator.add, torch.stack, torch.max, operator.add]
    x, w1, w2 = torch.randn(3), torch.randn(3), torch.randn(3)
    stacked_max = torch.max(torch.stack([w1, w2]))
    assert torch.equal(gm(x, w1, w2), x + stacked_max + stacked_max)
    gm.graph.lint()


def test_replace_pattern_leaves_matches_whose_inner_values_are_used_elsewhere():
    def fn(x, y):
        s = torch.add(x, y)
        return torch.relu(s), s

    def pattern(a, b):
        return torch.relu(torch.add(a, b))

    def replacement(a, b):
        return torch.sigmoid(a - b)

    gm = fx.symbolic_trace(fn)
    assert fx.replace_pattern(gm, pattern, replacement) == []
    x, y = torch.randn(2), torch.randn(2)
    assert torch.equal(gm(x, y)[0], torch.relu(x + y))


def test_replace_pattern_with_a_literal_argument():
    def fn(x):
        return torch.relu(x * 2) + torch.relu(x * 3)

    def pattern(a):
        return torch.relu(a * 2)

    def replacement(a):
        return torch.tanh(a)

    gm = fx.symbolic_trace(fn)
    assert len(fx.replace_pattern(gm, pattern, replacement)) == 1
    x = torch.randn(4)
    assert torch.equal(gm(x), torch.tanh(x) + torch.relu(x * 3))
