"""torch.utils.checkpoint: gradients equal to the plain graph's (both variants, sequential, with
dropout's random numbers replayed), intermediates not held, and the saved-tensor hooks under it."""
import gc
import weakref

import pytest

import torch
from torch.autograd.graph import saved_tensors_hooks
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


def _net():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Dropout(0.3), torch.nn.Linear(16, 4))


def _grads(net, x, run):
    net.zero_grad()
    x.grad = None
    torch.manual_seed(1)
    y = run(net, x)
    (y * torch.arange(1.0, 5.0)).sum().backward()
    return y, [x.grad.clone()] + [p.grad.clone() for p in net.parameters()]


@pytest.mark.parametrize("run", [
    lambda net, x: checkpoint(net, x, use_reentrant=True),
    lambda net, x: checkpoint(net, x, use_reentrant=False),
    lambda net, x: checkpoint_sequential(net, 2, x, use_reentrant=False),
    lambda net, x: checkpoint_sequential(net, 3, x, use_reentrant=True),
], ids=["reentrant", "non_reentrant", "sequential", "sequential_reentrant"])
def test_checkpoint_gradients_equal_the_plain_graph(run):
    net = _net()
    x = torch.randn(5, 8, requires_grad=True)
    plain_y, plain = _grads(net, x, lambda n, v: n(v))
    y, grads = _grads(net, x, run)
    assert torch.equal(y, plain_y)         # dropout drew the same mask in the recomputation
    for a, b in zip(plain, grads):
        assert torch.equal(a, b)


def test_non_reentrant_checkpoint_supports_autograd_grad_and_kwargs():
    x = torch.randn(6, requires_grad=True)
    y = checkpoint(lambda a, scale: (a.sin() * a * scale).sum(), x, scale=2.0, use_reentrant=False)
    (g,) = torch.autograd.grad(y, x)
    torch.testing.assert_close(g, 2.0 * (x.cos() * x + x.sin()))


def test_checkpoint_does_not_hold_the_intermediates():
    held = []

    def block(a):
        h = a.sin()
        held.append(weakref.ref(h))
        return h.cos()

    x = torch.randn(1000, requires_grad=True)
    plain = block(x)
    gc.collect()
    assert held[0]() is not None            # cos saved its input
    out = checkpoint(block, x, use_reentrant=False)
    gc.collect()
    assert held[1]() is None                # only a handle was saved; backward recomputes it
    out.sum().backward()
    torch.testing.assert_close(x.grad, -torch.sin(x.sin()) * x.cos())
    del plain


def test_use_reentrant_unspecified_warns_and_runs_reentrant():
    x = torch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        y = checkpoint(torch.sin, x)
    assert type(y.grad_fn).__name__ == "CheckpointFunctionBackward"


def test_saved_tensors_hooks_see_each_saved_tensor():
    packed = []

    def pack(t):
        packed.append(t)
        return len(packed) - 1

    x = torch.randn(3, requires_grad=True)
    with saved_tensors_hooks(pack, lambda i: packed[i] * 2):
        y = (x * x).sum()
    assert len(packed) == 2
    y.backward()
    torch.testing.assert_close(x.grad, 4 * x)     # both saved factors came back doubled: 2x + 2x
