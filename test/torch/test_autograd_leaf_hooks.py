"""Hooks on a leaf hold for every graph that uses it, whenever they were registered, and writes
through `.data` are invisible to autograd's checks (both as in PyTorch)."""
from __future__ import annotations

import numpy as np
import pytest

import torch


def _leaf():
    return torch.ones(3, requires_grad=True)


def _times_ten(g):
    return g * 10


def _mul_in_place(g):
    g.mul_(10)


@pytest.mark.parametrize("shape", ["hook_then_forward", "forward_then_hook", "two_uses", "leaf_is_the_root",
                                   "through_retained_grad", "through_autograd_grad", "hook_changes_grad_in_place",
                                   "two_backward_passes"])
def test_a_leaf_hook_changes_the_accumulated_gradient_in_every_graph_shape(shape):
    w = _leaf()
    expected = 20.0
    if shape == "hook_then_forward":
        w.register_hook(_times_ten)
        (w * 2).sum().backward()
    elif shape == "forward_then_hook":
        y = (w * 2).sum()
        w.register_hook(_times_ten)
        y.backward()
    elif shape == "two_uses":
        w.register_hook(_times_ten)
        (w * 2 + w * 3).sum().backward()
        expected = 50.0
    elif shape == "leaf_is_the_root":
        w.register_hook(_times_ten)
        w.backward(torch.ones(3))
        expected = 10.0
    elif shape == "through_retained_grad":
        w.register_hook(_times_ten)
        y = w * 2
        y.retain_grad()
        y.sum().backward()
        assert y.grad.tolist() == [1.0] * 3
    elif shape == "through_autograd_grad":
        w.register_hook(_times_ten)
        (w.grad,) = torch.autograd.grad((w * 2).sum(), w)
    elif shape == "hook_changes_grad_in_place":
        w.register_hook(_mul_in_place)
        (w * 2).sum().backward()
    elif shape == "two_backward_passes":
        w.register_hook(_times_ten)
        (w * 2).sum().backward()
        (w * 2).sum().backward()
        expected = 40.0
    assert w.grad.tolist() == [expected] * 3


def test_a_removed_leaf_hook_no_longer_runs():
    w = _leaf()
    handle = w.register_hook(_times_ten)
    handle.remove()
    (w * 2).sum().backward()
    assert w.grad.tolist() == [2.0] * 3


def test_leaf_hooks_run_in_registration_order():
    w = _leaf()
    w.register_hook(lambda g: g + 1)
    w.register_hook(lambda g: g * 10)
    (w * 2).sum().backward()
    assert w.grad.tolist() == [30.0] * 3


def test_writing_through_data_does_not_trip_the_saved_tensor_check():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()
    w.data.mul_(2)                      # PyTorch's .data has a version counter of its own
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [4.0, 8.0])
    assert w._version == 0


def test_data_shares_memory_but_not_history_or_version():
    w = torch.ones(2, requires_grad=True)
    d = w.data
    assert not d.requires_grad and d._base is None and d.data_ptr() == w.data_ptr()
    d.add_(1)
    assert d._version == 1 and w._version == 0
    assert w.tolist() == [2.0, 2.0]


def test_writing_through_detach_still_trips_it():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()
    w.detach().mul_(2)                  # detach shares the version counter
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_a_post_accumulate_grad_hook_sees_the_accumulated_gradient_and_can_be_removed():
    leaf = torch.ones(2, requires_grad=True)
    seen = []
    handle = leaf.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    leaf.register_hook(lambda g: g * 10)           # a pre-hook runs before the gradient is accumulated
    for _ in range(2):
        (leaf * 3).sum().backward()
    handle.remove()
    (leaf * 3).sum().backward()
    assert seen == [[30.0, 30.0], [60.0, 60.0]] and leaf.grad.tolist() == [90.0, 90.0]
    with pytest.raises(RuntimeError, match="non-leaf"):
        (leaf * 2).register_post_accumulate_grad_hook(lambda t: None)


def test_a_callback_queued_during_backward_runs_once_it_ends():
    leaf = torch.ones(2, requires_grad=True)
    order = []

    def hook(grad):
        torch.autograd.Variable._execution_engine.queue_callback(lambda: order.append(("callback", leaf.grad)))
        order.append("hook")
        return grad
    leaf.register_hook(hook)
    (leaf * 2).sum().backward()
    assert order[0] == "hook" and order[1][0] == "callback" and order[1][1].tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match="during backward pass"):
        torch.autograd.Variable._execution_engine.queue_callback(lambda: None)
    assert isinstance(leaf, torch.autograd.Variable) and torch.autograd.Variable(leaf) is leaf
