"""A leaf's first gradient: stored without a copy when the engine made it and nothing else holds it
(PyTorch's AccumulateGrad steals it by use count), copied whenever anyone else could see it change."""
from __future__ import annotations

import pytest

import torch


def _first_grad_pointer(out: torch.Tensor) -> list[int]:
    """The data pointers of the gradients out.grad_fn hands to its inputs (kept as numbers only)."""
    return _first_grad_pointer_of(out.grad_fn)


def _first_grad_pointer_of(node) -> list[int]:
    pointers: list[int] = []
    node.register_hook(lambda grad_inputs, grad_outputs: pointers.extend(
        g.data_ptr() for g in grad_inputs if g is not None))
    return pointers


def test_a_gradient_only_the_engine_holds_becomes_grad_without_a_copy():
    x = torch.randn(5, 3, requires_grad=True)
    z = x * 2.0
    pointers = _first_grad_pointer(z)
    z.sum().backward()
    assert x.grad.data_ptr() == pointers[0]
    torch.testing.assert_close(x.grad, torch.full((5, 3), 2.0))


def test_a_gradient_two_leaves_share_is_copied_for_one_of_them():
    x, y = torch.randn(4, requires_grad=True), torch.randn(4, requires_grad=True)
    (x + y).sum().backward()
    assert x.grad.data_ptr() != y.grad.data_ptr()
    x.grad.add_(1.0)
    torch.testing.assert_close(y.grad, torch.ones(4))


def test_the_callers_gradient_and_a_hooks_kept_gradient_are_never_taken():
    x = torch.randn(4, requires_grad=True)
    g = torch.ones(4)
    x.backward(g)
    x.grad.mul_(3.0)
    torch.testing.assert_close(g, torch.ones(4))
    kept: list[torch.Tensor] = []
    x.grad = None
    handle = x.register_hook(lambda grad: kept.append(grad))
    (x * 2.0).sum().backward()
    handle.remove()
    assert kept[0].data_ptr() != x.grad.data_ptr()
    x.grad.zero_()
    torch.testing.assert_close(kept[0], torch.full((4,), 2.0))


def test_create_graph_views_and_other_layouts_still_get_a_copy_with_the_leafs_strides():
    x = torch.randn(3, 4, requires_grad=True)
    (gx,) = torch.autograd.grad((x * x).sum(), x, create_graph=True)
    assert gx.requires_grad
    x.sum().backward()                       # the gradient is an expanded view of one value
    assert x.grad.is_contiguous()
    torch.testing.assert_close(x.grad, torch.ones(3, 4))
    leaf = torch.randn(4, 3).t().detach().requires_grad_()      # a transposed leaf
    (leaf * 3.0).sum().backward()
    assert leaf.grad.stride() == leaf.stride()
    torch.testing.assert_close(leaf.grad, torch.full((3, 4), 3.0))


def test_stolen_gradients_accumulate_like_copied_ones():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))
    x = torch.randn(8, 6)
    model(x).square().sum().backward()
    first = [p.grad.clone() for p in model.parameters()]
    model(x).square().sum().backward()
    for p, g in zip(model.parameters(), first):
        torch.testing.assert_close(p.grad, 2 * g)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_a_cuda_gradient_from_the_caching_allocator_is_taken_too_but_borrowed_memory_is_not():
    x = torch.randn(5, 3, device="cuda", requires_grad=True)
    z = x * 2.0
    pointers = _first_grad_pointer(z)
    z.sum().backward()
    assert x.grad.data_ptr() == pointers[0]
    torch.testing.assert_close(x.grad.cpu(), torch.full((5, 3), 2.0))
    y = torch.randn(4, device="cuda", requires_grad=True)
    g = torch.ones(4, device="cuda")
    y.backward(g)                               # the caller's gradient: copied
    assert y.grad.data_ptr() != g.data_ptr()


def test_a_linear_weights_gradient_is_made_in_its_layout_and_taken_without_a_copy():
    linear = torch.nn.Linear(3, 4)
    out = linear(torch.randn(5, 3))
    transposed = next(node for node, _ in out.grad_fn.next_functions if node is not None and "TBackward" in node.name())
    pointers = _first_grad_pointer_of(transposed)
    out.sum().backward()
    assert linear.weight.grad.stride() == linear.weight.stride() == (3, 1)
    assert linear.weight.grad.data_ptr() == pointers[0]
