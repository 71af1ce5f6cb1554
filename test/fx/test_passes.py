"""torch.fx passes: ShapeProp's tensor metadata against the eager intermediates, and
replace_pattern's rewrites and returned matches. The metadata, printouts, matches and rewritten code are
PyTorch 2.13's for the same programs, recorded by tools/record_fx_reference.py in test/data/fx/fx.json."""
import torch
from tools import record_fx_reference as record
from torch.fx.passes.shape_prop import TensorMetadata

REFERENCE = record.reference()


def test_shape_prop_records_the_metadata_of_each_intermediate():
    # every node's metadata as PyTorch records it (a transposed view is contiguous in no layout) ...
    run = record.run_case(torch, "shape_prop_two_layer")
    assert run.seen == REFERENCE["shape_prop_two_layer"]
    model, gm, x, result = run.model, run.gm, run.x, run.result
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
    # ... and agreeing with the eager intermediates
    output_meta = nodes["output"].meta["tensor_meta"]
    assert isinstance(output_meta, tuple) and [m.shape for m in output_meta] == [torch.Size([4, 2]),
                                                                              torch.Size([3, 4])]
    assert nodes["output"].meta["type"] is tuple


def test_shape_prop_metadata_reprs_like_pytorch():
    # PyTorch 2.13's TensorMetadata repr for the same tensor, and print_readable with the shapes
    assert record.run_case(torch, "shape_prop_repr").seen == REFERENCE["shape_prop_repr"]


def test_replace_pattern_rewrites_every_occurrence_and_returns_matches():
    # as PyTorch: one match per occurrence, the anchor is the pattern's returned node, nodes_map maps pattern ->
    # graph nodes; the rewritten targets and code
    run = record.run_case(torch, "replace_pattern_matches")
    assert run.seen == REFERENCE["replace_pattern_matches"]
    gm = run.gm
    assert all(match.anchor.graph is not gm.graph for match in run.matches)
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert record.same_objects(torch, REFERENCE["replace_pattern_matches"]["targets"], targets)
    x, w1, w2 = torch.randn(3), torch.randn(3), torch.randn(3)
    stacked_max = torch.max(torch.stack([w1, w2]))
    assert torch.equal(gm(x, w1, w2), x + stacked_max + stacked_max)
    gm.graph.lint()


def test_replace_pattern_leaves_matches_whose_inner_values_are_used_elsewhere():
    run = record.run_case(torch, "replace_pattern_inner_value_used")
    assert run.seen == REFERENCE["replace_pattern_inner_value_used"]     # no match
    gm = run.gm
    x, y = torch.randn(2), torch.randn(2)
    assert torch.equal(gm(x, y)[0], torch.relu(x + y))


def test_replace_pattern_with_a_literal_argument():
    # only the occurrence with the pattern's literal matches
    run = record.run_case(torch, "replace_pattern_literal")
    assert run.seen == REFERENCE["replace_pattern_literal"]
    gm = run.gm
    x = torch.randn(4)
    assert torch.equal(gm(x), torch.tanh(x) + torch.relu(x * 3))
