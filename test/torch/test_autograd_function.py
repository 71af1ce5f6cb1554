"""The autograd engine through torch.autograd.Function (issue 6's first slice: operators do not
record history yet). Every expected value, order and message was checked against PyTorch 2.13."""
from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

import torch


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        ctx.k = k
        ctx.save_for_backward(x)
        return x * k

    @staticmethod
    def backward(ctx, g):
        ctx.saved_tensors
        return g * ctx.k, None


class Add(torch.autograd.Function):      # the setup_context style
    @staticmethod
    def forward(a, b):
        return a + b

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.shapes = (inputs[0].shape, inputs[1].shape)

    @staticmethod
    def backward(ctx, g):
        return g, g


class Sum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.shape = x.shape
        return x.sum()

    @staticmethod
    def backward(ctx, g):
        return g.expand(ctx.shape)


def leaf(*values):
    return torch.tensor(values, requires_grad=True)


def test_backward_accumulates_into_leaves_and_runs_hooks_in_pytorchs_order():
    order = []
    a, b = leaf(1., 1., 1.), leaf(2., 2., 2.)
    c = Add.apply(Mul.apply(a, 3.0), b)
    c.register_hook(lambda g: order.append("tensor hook") or g * 2)
    a.register_hook(lambda g: order.append("leaf hook"))
    c.retain_grad()
    c.grad_fn.register_prehook(lambda grads: order.append("node prehook"))
    c.grad_fn.register_hook(lambda grad_inputs, grad_outputs: order.append("node hook"))
    s = Sum.apply(c)
    assert s.grad_fn.next_functions[0][0] is c.grad_fn and not c.is_leaf and c.requires_grad
    s.backward(retain_graph=True)
    assert a.grad.tolist() == [6.0] * 3 and b.grad.tolist() == [2.0] * 3 and c.grad.tolist() == [2.0] * 3
    assert order == ["tensor hook", "node prehook", "node hook", "leaf hook"]
    s.backward()                 # a second backward adds to .grad
    assert a.grad.tolist() == [12.0] * 3 and b.grad.tolist() == [4.0] * 3 and c.grad.tolist() == [4.0] * 3


def test_second_backward_without_retain_graph_raises():
    a = leaf(1., 1.)
    s = Sum.apply(Mul.apply(Mul.apply(a, 2.0), 2.0))
    s.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        s.backward()


def test_grad_returns_gradients_without_touching_dot_grad():
    x, y = leaf(1., 1.), leaf(1., 1.)
    (gx,) = torch.autograd.grad(Sum.apply(Mul.apply(x, 2.0)), x)
    assert gx.tolist() == [2.0, 2.0] and x.grad is None
    gx, gy = torch.autograd.grad(Sum.apply(Mul.apply(x, 2.0)), [x, y], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0] and gy is None
    gx, gy = torch.autograd.grad(Sum.apply(Mul.apply(x, 2.0)), [x, y], materialize_grads=True)
    assert gy.tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not have been used"):
        torch.autograd.grad(Sum.apply(Mul.apply(x, 2.0)), [x, y])
    with pytest.raises(ValueError, match="Expected allow_unused to be True or not passed"):
        torch.autograd.grad(Sum.apply(x), [x], materialize_grads=True, allow_unused=False)


def test_grad_of_an_intermediate_tensor():
    x = leaf(1., 2.)
    mid = Mul.apply(x, 3.0)
    (g,) = torch.autograd.grad(Sum.apply(Mul.apply(mid, 2.0)), mid)
    assert g.tolist() == [2.0, 2.0]


def test_backward_with_inputs_fills_only_those():
    x, y = leaf(1., 1.), leaf(1., 1.)
    Sum.apply(Add.apply(x, y)).backward(inputs=[x])
    assert x.grad.tolist() == [1.0, 1.0] and y.grad is None
    with pytest.raises(RuntimeError, match="`inputs` argument to `backward\\(\\)` cannot be empty."):
        Sum.apply(x).backward(inputs=[])


def test_implicit_gradient_only_for_scalars_and_shapes_must_match():
    x = leaf(1., 1.)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        Mul.apply(x, 2.0).backward()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        torch.ones(2).sum().backward()
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape of torch.Size\(\[3\]\) "
                                           r"and output\[0\] has a shape of torch.Size\(\[2\]\)."):
        Mul.apply(x, 2.0).backward(torch.ones(3))
    Mul.apply(x, 2.0).backward(torch.tensor([1.0, 3.0]))
    assert x.grad.tolist() == [2.0, 6.0]


def test_saved_tensor_modified_in_place_raises_pytorchs_error():
    b = leaf(1., 1.)
    z = Mul.apply(b, 2.0)
    with torch.no_grad():
        b.add_(1)
    with pytest.raises(RuntimeError, match=r"one of the variables needed for gradient computation has been modified "
                                           r"by an inplace operation: \[torch.FloatTensor \[2\]\] is at version 1; "
                                           r"expected version 0 instead"):
        z.backward(torch.ones(2))


def test_mark_dirty_rebases_history_and_refuses_leaves():
    class Dirty(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    z = leaf(1., 1.)
    w = Mul.apply(z, 1.0)
    d = Dirty.apply(w)
    assert d is w and d.grad_fn.name() == "DirtyBackward" and d._version == 2
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an in-place operation."):
        Dirty.apply(z)


def test_non_differentiable_outputs_and_unmaterialised_grads():
    class Idx(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = torch.tensor([1, 0])
            ctx.mark_non_differentiable(i)
            return x * 1, i

        @staticmethod
        def backward(ctx, g, gi):
            return g

    class Two(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 if g2 is None else g1 + g2

    z = leaf(1., 1.)
    v, i = Idx.apply(z)
    assert v.requires_grad and not i.requires_grad and v.grad_fn.name() == "IdxBackward"
    p, q = Two.apply(z)
    Sum.apply(p).backward()
    assert z.grad.tolist() == [1.0, 1.0]


def test_wrong_gradients_from_backward_raise():
    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    class BadShape(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            return torch.ones(5)

    z = leaf(1., 1.)
    with pytest.raises(RuntimeError, match=r"function WrongBackward returned an incorrect number of gradients "
                                           r"\(expected 2, got 1\)"):
        Sum.apply(Wrong.apply(z, z)).backward()
    with pytest.raises(RuntimeError, match=r"Function BadShapeBackward returned an invalid gradient at index 0 - "
                                           r"got \[5\] but expected shape compatible with \[2\]"):
        Sum.apply(BadShape.apply(z)).backward()


def test_needs_input_grad_and_no_history_without_grad():
    seen = []

    class Needs(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            seen.append(ctx.needs_input_grad)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    z = leaf(1., 1.)
    Needs.apply(z, torch.ones(2), 3)
    assert seen == [(True, False, False)]
    assert repr(Mul.apply(z, 2.0)) == "tensor([2., 2.], grad_fn=<MulBackward>)"
    with torch.no_grad():
        assert not Mul.apply(z, 2.0).requires_grad
    assert Mul.apply(torch.ones(2), 2.0).grad_fn is None


def test_requires_grad_rules_and_the_non_leaf_grad_warning():
    z = leaf(1., 1.)
    y = Mul.apply(z, 2.0)
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    assert y.requires_grad_() is y
    with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"):
        assert y.grad is None
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        torch.ones(2).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="assigned grad has data of a different size"):
        z.grad = torch.ones(3)
    assert y.detach().grad_fn is None and not y.detach().requires_grad


def test_hook_handles_remove_their_hooks():
    z = leaf(1., 1.)
    calls = []
    handle = z.register_hook(lambda g: calls.append(1))
    handle.remove()
    Sum.apply(Mul.apply(z, 2.0)).backward()
    assert calls == [] and z.grad.tolist() == [2.0, 2.0]


def test_custom_function_inside_a_training_loop_converges():
    """A one-parameter least-squares fit whose gradient comes from a Function's backward."""
    class SquaredError(torch.autograd.Function):
        @staticmethod
        def forward(ctx, w, x, y):
            residual = w * x - y
            ctx.save_for_backward(x, residual)
            return (residual * residual).sum()

        @staticmethod
        def backward(ctx, g):
            x, residual = ctx.saved_tensors
            return (g * 2 * (residual * x).sum()).reshape(1), None, None

    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal(64))
    y = 3.0 * x
    w = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    for _ in range(100):
        w.grad = None
        SquaredError.apply(w, x, y).backward()
        with torch.no_grad():
            w -= 0.005 * w.grad
    assert abs(w.item() - 3.0) < 1e-6


def test_graph_is_freed_after_backward():
    z = leaf(1., 1.)
    out = Sum.apply(Mul.apply(z, 2.0))
    node = weakref.ref(out.grad_fn.next_functions[0][0])
    out.backward()
    del out
    gc.collect()
    assert node() is None
