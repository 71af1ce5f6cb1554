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


KEPT = []
HOLDER = torch.nn.Module()


class Leaking(torch.autograd.Function):
    """Keeps a tensor its forward makes where the program reads it."""

    @staticmethod
    def forward(ctx, x):
        middle = x * 2
        KEPT.append(middle)
        return middle + 1

    @staticmethod
    def backward(ctx, grad):
        return grad * 7


class Assigning(torch.autograd.Function):
    """Assigns a module attribute in its forward."""

    @staticmethod
    def forward(ctx, x):
        HOLDER.last = x.sum()
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 3


class Annotating(torch.autograd.Function):
    """Hangs a tensor it makes with torch.tensor on its result."""

    @staticmethod
    def forward(ctx, x):
        out = x * 2
        out.stat = torch.tensor([float(x.sum())])
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class Raising(torch.autograd.Function):
    """Raises for some inputs, as a check in a library's forward does."""

    @staticmethod
    def forward(ctx, x):
        if x.sum() > 0:
            raise ValueError("positive")
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


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
    def leaking(x):
        KEPT.clear()
        return Leaking.apply(x) + KEPT[0]

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

    def assigning(x):
        return Assigning.apply(x) + HOLDER.last

    def local_class(x):
        scale = x.sum()

        class Scaled(torch.autograd.Function):
            @staticmethod
            def forward(ctx, y):
                return y * scale

            @staticmethod
            def backward(ctx, grad):
                return grad * scale

        return Scaled.apply(x)

    def annotating(x):
        y = Annotating.apply(x)
        return y + y.stat

    def raising(x):
        try:
            return Raising.apply(x)
        except ValueError:
            return x * -1

    def under_autocast(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return SignScaled.apply(x).float()

    for fn, reason in ((leaking, "made inside an autograd.Function's forward used outside it"),
                       (whole_step, "through autograd.Function SignScaled"),
                       (given_a_module, "given a Linear"), (assigning, "Module.last assigned inside"),
                       (local_class, "defined in a function, closing over its values"),
                       (raising, "raised in its forward"),
                       (annotating, "made inside an autograd.Function's forward used outside it"),
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


class Repeated(torch.autograd.Function):
    """Sizes its result from its input's values; returns one tensor twice."""

    @staticmethod
    def forward(ctx, x):
        ctx.times = 1 if x.sum() > 0 else 2
        y = x.repeat(ctx.times) * 1.0
        return y, y

    @staticmethod
    def backward(ctx, grad, same):
        return (grad + same).view(ctx.times, -1).sum(0)


ACCUMULATED = torch.zeros(())


class Counted(torch.autograd.Function):
    """Adds to a buffer in its forward, whether or not its result is read."""

    @staticmethod
    def forward(ctx, x):
        ACCUMULATED.add_(1)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad


def test_a_functions_results_are_sized_and_run_at_each_call_as_in_eager():
    def sized(x):
        y, same = Repeated.apply(x)
        with torch.no_grad():
            z = y * 2 + 1           # a kernel fused after the Function would bake the captured size
        return y + same, z

    def unread(x):
        Counted.apply(x)
        return x * 3

    for signs in ((1.0, -1.0, 1.0), (-1.0, 1.0, -1.0)):
        torch.compiler.reset()
        compiled = torch.compile(sized)
        for sign in signs:
            x = torch.ones(4) * sign
            got, expected = compiled(x.requires_grad_()), sized(x.detach().requires_grad_())
            for a, b in zip(got, expected):
                torch.testing.assert_close(a, b)
    ACCUMULATED.zero_()
    compiled = torch.compile(unread)
    for _ in range(3):
        compiled(torch.ones(2, requires_grad=True))
    assert ACCUMULATED.item() == 3 and stats["graph_breaks"] == 0


def test_a_function_applied_after_the_call_assigned_attributes_breaks_the_graph():
    holder = torch.nn.Module()
    holder.state = torch.zeros(())

    def step(x, s):
        holder.state = s * 2            # replayed after the graph: the Function would read the last call's
        return SignScaled.apply(x) + holder.state

    counters.clear()
    compiled = torch.compile(step)
    for k in range(3):
        x, s = torch.ones(2, requires_grad=True), torch.tensor(float(k))
        expected = step(x.detach().requires_grad_(), s)
        torch.testing.assert_close(compiled(x, s), expected)
    assert "applied after the call assigned attributes" in " ".join(counters["graph_break"])
