"""A torch.autograd.Function applied to tensors that require grad inside a compiled function is one graph node
that applies it again at each replay (torch/_dynamo/function_applications.py): its own backward and its Python
run at each call as in eager; what a node cannot stand for is a graph break."""
from __future__ import annotations

import pytest

import torch
from torch._dynamo.eval_frame import stats
from torch._dynamo.utils import counters


class Rounded(torch.autograd.Function):
    """A straight-through estimator with a Python value kept on ctx and a gradient only for its first input."""

    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return torch.round(x * scale) / scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x.abs() < 1).to(grad.dtype) * ctx.scale, None


class Pair(torch.autograd.Function):
    """Two outputs, each gradient its own formula (not the derivative of the forward's operators)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b, a + b

    @staticmethod
    def backward(ctx, grad_product, grad_sum):
        a, b = ctx.saved_tensors
        return grad_product * b * 2 + grad_sum, grad_product * a + grad_sum * 5


class SignScaled(torch.autograd.Function):
    """A forward and backward that decide on the data: applied again, each replay decides anew."""

    @staticmethod
    def forward(ctx, x):
        ctx.positive = bool(x.sum() > 0)
        return x * (2.0 if ctx.positive else 3.0)

    @staticmethod
    def backward(ctx, grad):
        return grad * (5.0 if ctx.positive else 7.0)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        h = Rounded.apply(self.linear(x), 4.0)
        product, total = Pair.apply(h, x)
        return (product.sin() + total + SignScaled.apply(x)).sum()


def _gradients(model, x):
    model.zero_grad()
    x = x.detach().requires_grad_()
    loss = model(x)
    loss.backward()
    return loss, [p.grad.clone() for p in model.parameters()] + [x.grad]


@pytest.mark.parametrize("backend", ["inductor", "aot_eager", "eager"])
def test_a_modules_functions_keep_their_own_backward_compiled_without_a_graph_break(backend):
    torch.manual_seed(0)
    model = Model()
    compiled = torch.compile(model, backend=backend)
    for sign in (1.0, -1.0, 1.0):
        x = torch.randn(3, 4).abs() * sign
        expected_loss, expected = _gradients(model, x)
        got_loss, got = _gradients(compiled, x)
        torch.testing.assert_close(got_loss, expected_loss)
        for a, b in zip(got, expected):
            torch.testing.assert_close(a, b)
    assert stats["graph_breaks"] == 0 and stats["captures"] == 1 and stats["replays"] == 2
    with torch.no_grad():
        x = torch.randn(3, 4)
        torch.testing.assert_close(compiled(x), model(x))


def test_what_one_node_cannot_stand_for_is_a_graph_break_with_eagers_results():
    kept = []

    class Leaking(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            middle = x * 2
            kept.append(middle)
            return middle + 1

        @staticmethod
        def backward(ctx, grad):
            return grad * 7

    def leaking(x):
        kept.clear()
        return Leaking.apply(x) + kept[0]

    weight = torch.ones(3, requires_grad=True)

    def whole_step(x):          # a backward inside the call, through the Function
        loss = SignScaled.apply(x * weight).sum()
        loss.backward()
        return loss

    class Given(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, module):
            ctx.module = module
            return module(x) * 1.0

        @staticmethod
        def backward(ctx, grad):
            return grad @ ctx.module.weight * 2, None

    linear = torch.nn.Linear(3, 3)

    def given_a_module(x):
        return Given.apply(x, linear)

    holder = torch.nn.Module()

    class Assigning(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            holder.last = x.sum()
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 3

    def assigning(x):
        return Assigning.apply(x) + holder.last

    def under_autocast(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return SignScaled.apply(x).float()

    for fn, reason in ((leaking, "made inside an autograd.Function's forward used outside it"),
                       (whole_step, "through autograd.Function SignScaled"),
                       (given_a_module, "given a Linear"), (assigning, "Module.last assigned inside"),
                       (under_autocast, "applied under autocast")):
        torch.compiler.reset()
        counters.clear()
        compiled = torch.compile(fn)
        for sign in (1.0, -1.0):
            weight.grad = None
            x = (torch.ones(3) * sign).requires_grad_()
            got = compiled(x)
            got_grad = weight.grad
            if fn is not whole_step:
                got.sum().backward()
                got_grad = x.grad
            weight.grad = None
            y = x.detach().requires_grad_()
            expected = fn(y)
            if fn is not whole_step:
                expected.sum().backward()
            torch.testing.assert_close(got, expected)
            torch.testing.assert_close(got_grad, weight.grad if fn is whole_step else y.grad)
        assert any(reason in why for why in counters["graph_break"]), dict(counters["graph_break"])


def test_a_function_under_fullgraph_compiles():
    compiled = torch.compile(lambda x: Rounded.apply(x, 2.0).sum(), fullgraph=True)
    x = torch.tensor([0.3, 1.4, -0.2], requires_grad=True)
    compiled(x).backward()
    assert x.grad.tolist() == [2.0, 0.0, 2.0]


class ClippedBackward(torch.autograd.Function):
    """A backward that decides on the gradient's values: traced ahead of time, the decision would be baked."""

    @staticmethod
    def forward(ctx, x):
        return x * 1.0

    @staticmethod
    def backward(ctx, grad):
        return grad.clamp(-1, 1) * 10 if grad.abs().max() > 1 else grad


def test_a_function_whose_backward_reads_values_decides_again_at_each_backward():
    compiled = torch.compile(lambda x: ClippedBackward.apply(x * 2) * 3)
    for scale in (0.1, 5.0, 0.1):
        x = torch.ones(3, requires_grad=True)
        y = x.detach().clone().requires_grad_()
        (compiled(x) * scale).sum().backward()
        (ClippedBackward.apply(y * 2) * 3 * scale).sum().backward()
        torch.testing.assert_close(x.grad, y.grad)
    assert stats["graph_breaks"] == 0


class KindOfShape(torch.autograd.Function):
    """Tells a tuple (or a torch.Size) from a list, as a Function may."""

    @staticmethod
    def forward(ctx, x, shape):
        return x * (1.0 if isinstance(shape, tuple) else 2.0)

    @staticmethod
    def backward(ctx, grad):
        return grad, None


@pytest.mark.parametrize("backend", ["inductor", "eager"])
def test_a_functions_tuple_and_size_arguments_reach_it_as_they_were_given(backend):
    for fn in (lambda x: KindOfShape.apply(x, (2, 2)), lambda x: KindOfShape.apply(x, x.shape),
               lambda x: KindOfShape.apply(x, (x * 1,))):
        torch.compiler.reset()
        compiled = torch.compile(fn, backend=backend)
        assert [compiled(torch.ones(2, requires_grad=True))[0].item() for _ in range(3)] == [1.0] * 3
        assert stats["graph_breaks"] == 0
