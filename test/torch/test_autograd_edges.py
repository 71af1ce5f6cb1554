"""The graph's edges: each node holds named Edges (function, input_nr); Python sees them as
PyTorch's `next_functions`, a tuple of (function, input_nr) pairs that cannot be assigned."""
import pytest

import torch
from torch.csrc.autograd import graph


def _leaf(n=3):
    return torch.randn(n, requires_grad=True)


def test_next_functions_are_plain_pairs_of_the_next_node_and_its_input():
    a, b = _leaf(), _leaf()
    c = a * b
    out = (c + a).sum()
    add = out.grad_fn.next_functions[0][0]
    pairs = add.next_functions
    assert type(pairs) is tuple and all(type(p) is tuple and len(p) == 2 for p in pairs)
    assert pairs[0] == (c.grad_fn, 0)
    assert type(pairs[1][0]).__name__ == "AccumulateGrad" and pairs[1][0].variable is a and pairs[1][1] == 0


def test_each_edge_is_an_edge_naming_its_function_and_input_number():
    a = _leaf()
    values, _ = a.sort()
    out = values.sum()
    edge, = out.grad_fn.next_edges
    assert isinstance(edge, graph.Edge)
    assert edge.function is values.grad_fn and edge.input_nr == 0


def test_an_edge_reads_as_its_pair():
    a = _leaf()
    edge = graph.gradient_edge(a)
    function, input_nr = edge
    assert (function, input_nr) == (edge.function, edge.input_nr)
    assert edge[0] is edge.function and edge[1] == 0 and edge[-1] == 0 and len(edge) == 2
    assert edge == (edge.function, 0) and edge == graph.Edge(edge.function, 0) and edge != graph.Edge(None, 0)
    assert hash(edge) == hash((edge.function, 0))
    assert repr(edge) == repr((edge.function, 0))


def test_an_input_without_gradient_has_an_edge_to_nowhere():
    a = _leaf()
    out = a * torch.ones(3)
    assert out.grad_fn.next_functions[1] == (None, 0)
    assert out.grad_fn.needs == (True, False)


def test_next_functions_cannot_be_assigned():
    out = (_leaf() * 2).sum()
    with pytest.raises(AttributeError, match="attribute 'next_functions' of 'SumBackward0' objects is not writable"):
        out.grad_fn.next_functions = ()


def test_an_edge_leads_to_a_node_or_nowhere():
    with pytest.raises(TypeError, match="Node or None"):
        graph.Edge("not a node", 0)


def test_a_custom_function_has_an_edge_per_input():
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, factor):
            return x * factor

        @staticmethod
        def backward(ctx, grad):
            return grad * 2, None

    a = _leaf()
    out = Scale.apply(a, 2.0)
    assert len(out.grad_fn.next_functions) == 2
    assert out.grad_fn.next_functions[0][0].variable is a and out.grad_fn.next_functions[1] == (None, 0)
    out.sum().backward()
    assert torch.equal(a.grad, torch.full((3,), 2.0))
