"""The generated derivatives (tools/autograd/derivatives.yaml): gradcheck and gradgradcheck in
float64 for every formula, with broadcasting and non-contiguous inputs, plus the autograd
rules around them (in-place, no_grad, out=, missing formulas)."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from gradcheck_cases import gradcheck_tests
from torch.autograd import gradcheck


def rand(*shape, positive=False, seed=0):
    a = np.random.default_rng(seed + len(shape)).standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.5
    return torch.from_numpy(a).requires_grad_()


def noncontig(*shape, seed=0):
    """A float64 tensor that requires grad and is a transposed view of its storage."""
    return rand(*reversed(shape), seed=seed).detach().t().requires_grad_() if len(shape) == 2 else rand(*shape)


CASES = {
    "add": (lambda a, b: a + b, lambda: (rand(3, 4), rand(4))),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=2.5), lambda: (rand(2, 3), rand(2, 1))),
    "add_scalar": (lambda a: a + 3, lambda: (rand(3),)),
    "sub": (lambda a, b: torch.sub(a, b, alpha=0.5), lambda: (rand(2, 3), rand(3))),
    "mul": (lambda a, b: a * b, lambda: (rand(3, 1), rand(1, 4))),
    "mul_number": (lambda a: a * 1.5, lambda: (rand(3),)),
    "div": (lambda a, b: a / b, lambda: (rand(2, 3), rand(3, positive=True))),
    "neg": (lambda a: -a, lambda: (rand(4),)),
    "exp": (torch.exp, lambda: (rand(2, 3),)),
    "log": (torch.log, lambda: (rand(5, positive=True),)),
    "sqrt": (torch.sqrt, lambda: (rand(5, positive=True),)),
    "rsqrt": (torch.rsqrt, lambda: (rand(5, positive=True),)),
    "reciprocal": (torch.reciprocal, lambda: (rand(5, positive=True),)),
    "sin": (torch.sin, lambda: (rand(4),)),
    "cos": (torch.cos, lambda: (rand(4),)),
    "tanh": (torch.tanh, lambda: (rand(4),)),
    "sigmoid": (torch.sigmoid, lambda: (rand(4),)),
    "relu": (torch.relu, lambda: (rand(6),)),
    "abs": (torch.abs, lambda: (rand(6),)),
    "sum": (torch.sum, lambda: (rand(2, 3),)),
    "sum_dim": (lambda a: a.sum(1), lambda: (rand(2, 3),)),
    "sum_dims_keepdim": (lambda a: a.sum((0, 2), keepdim=True), lambda: (rand(2, 3, 2),)),
    "mean": (torch.mean, lambda: (rand(2, 3),)),
    "mean_dim": (lambda a: a.mean(-1), lambda: (rand(2, 3),)),
    "mm": (torch.mm, lambda: (rand(2, 3), noncontig(3, 4))),
    "matmul": (torch.matmul, lambda: (rand(2, 3), rand(3))),
    "bmm": (torch.bmm, lambda: (rand(2, 2, 3), rand(2, 3, 2))),
    "addmm": (lambda c, a, b: torch.addmm(c, a, b, beta=0.5, alpha=2.0), lambda: (rand(3), rand(2, 4), rand(4, 3))),
    "t": (lambda a: a.t(), lambda: (rand(2, 3),)),
    "transpose": (lambda a: a.transpose(0, 2), lambda: (rand(2, 3, 2),)),
    "permute": (lambda a: a.permute(2, 0, 1), lambda: (rand(2, 3, 2),)),
    "view": (lambda a: a.view(6), lambda: (rand(2, 3),)),
    "reshape": (lambda a: a.reshape(3, 2), lambda: (noncontig(2, 3),)),
    "unsqueeze": (lambda a: a.unsqueeze(1), lambda: (rand(3),)),
    "squeeze": (lambda a: a.squeeze(), lambda: (rand(3, 1),)),
    "squeeze_dim": (lambda a: a.squeeze(1), lambda: (rand(3, 1),)),
    "expand": (lambda a: a.expand(2, 3), lambda: (rand(1, 3),)),
    "select": (lambda a: a[1], lambda: (rand(3, 2),)),
    "slice": (lambda a: a[:, 1::2], lambda: (rand(2, 5),)),
    "clone": (lambda a: a.clone(), lambda: (rand(3),)),
    "to_copy": (lambda a: a.to(torch.float64, copy=True), lambda: (rand(3),)),
    "softmax": (lambda a: torch.softmax(a, 1), lambda: (rand(2, 3),)),
    "log_softmax": (lambda a: torch.log_softmax(a, 0), lambda: (rand(2, 3),)),
    "mse_loss": (torch.nn.functional.mse_loss if hasattr(torch, "nn") else
                 (lambda a, b: torch._C._nn.mse_loss(a, b)), lambda: (rand(2, 3), rand(2, 3, seed=1))),
    "chain": (lambda a, b: ((a * b).exp().sum(0) / 3).tanh(), lambda: (rand(2, 3), rand(3))),
}


test_gradcheck, test_gradgradcheck = gradcheck_tests(CASES, {"relu", "abs"})


def test_gradcheck_reports_a_wrong_gradient():
    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3

    from torch.autograd.gradcheck import GradcheckError
    with pytest.raises(GradcheckError,
                       match="Jacobian mismatch for output 0 with respect to input 0"):
        gradcheck(Wrong.apply, (rand(3),))
    assert not gradcheck(Wrong.apply, (rand(3),), raise_exception=False)


def test_leaf_in_place_raises_and_non_leaf_in_place_rebases_history():
    x = rand(3)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
        x.add_(1)
    y = x * 2
    y.mul_(x)          # y = 2x * x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * x.detach().numpy())
    with torch.no_grad():
        x.add_(1)      # allowed under no_grad


def test_saved_input_modified_in_place_is_detected():
    x = rand(3)
    y = x * 1
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match="one of the variables needed for gradient computation has been modified "
                                           "by an inplace operation"):
        z.sum().backward()


def test_no_grad_records_nothing_and_results_do_not_require_grad():
    x = rand(3)
    with torch.no_grad():
        y = x * 2
    assert y.grad_fn is None and not y.requires_grad
    assert (x * 2).grad_fn.name() == "MulBackward0" and (x.detach() * 2).grad_fn is None


def test_out_variant_refuses_inputs_that_require_grad():
    x = rand(3)
    with pytest.raises(RuntimeError, match=r"add\(\): functions with out=... arguments don't support automatic "
                                           r"differentiation, but one of the arguments requires grad."):
        torch.add(x, x, out=torch.empty(3, dtype=torch.float64))


def test_op_without_a_formula_raises_when_differentiated():
    # Ember's internal logit kernel (torch.logit differentiates at its own level; this op has no formula).
    x = rand(3, 4).detach().sigmoid().requires_grad_()
    y = torch._ember_logit(x)
    assert y.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::_ember_logit is not implemented"):
        y.sum().backward()


def test_integer_results_do_not_require_grad():
    x = rand(3)
    assert not torch.argmax(x).requires_grad and not (x > 0).requires_grad


def test_gradient_accumulates_across_two_backward_calls_and_create_graph_gives_a_penalty():
    x = rand(3)
    (x * x).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * x.detach().numpy())
    w = rand(3, seed=5)
    (g,) = torch.autograd.grad((w * w * w).sum(), w, create_graph=True)
    penalty = (g * g).sum()                # sum((3w^2)^2) -> d/dw = 36 w^3
    penalty.backward()
    np.testing.assert_allclose(w.grad.numpy(), 36 * w.detach().numpy() ** 3, rtol=1e-12)


def test_two_layer_network_trains_and_its_loss_gradcheck_passes():
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((8, 4)))
    target = torch.from_numpy(rng.standard_normal((8, 1)))
    w1 = torch.from_numpy(rng.standard_normal((4, 8)) * 0.5).requires_grad_()
    w2 = torch.from_numpy(rng.standard_normal((8, 1)) * 0.5).requires_grad_()

    def loss_of(w1, w2):
        return ((torch.tanh(x.mm(w1)).mm(w2) - target) ** 2).mean()

    assert gradcheck(loss_of, (w1, w2))
    first = loss_of(w1, w2).item()
    for _ in range(300):
        loss = loss_of(w1, w2)
        w1.grad = w2.grad = None
        loss.backward()
        with torch.no_grad():
            w1 -= 0.1 * w1.grad
            w2 -= 0.1 * w2.grad
    assert loss.item() < 0.05 * first


def test_memory_stays_flat_over_many_training_steps():
    """The graph is freed after each backward: resident memory after 2,000 steps of a small
    two-layer network is what it was after the first 200 (issue 6 asks 10,000 in the report;
    the benchmark note gives that figure)."""
    import resource
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((16, 8)))
    w1 = torch.from_numpy(rng.standard_normal((8, 16))).requires_grad_()
    w2 = torch.from_numpy(rng.standard_normal((16, 1))).requires_grad_()

    def steps(n):
        for _ in range(n):
            loss = torch.tanh(x.mm(w1)).mm(w2).sum()
            w1.grad = w2.grad = None
            loss.backward()

    steps(200)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    steps(2000)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert after - before < 4096          # kilobytes: no growth beyond noise


@pytest.mark.parametrize("overwrite", ["fill_(2.0)", "zero_()", "uniform_()", "normal_()", "exponential_()",
                                       "random_(3)", "random_(1, 4)", "cauchy_()", "log_normal_()",
                                       "geometric_(0.5)"])
def test_inplace_overwrite_records_a_zero_gradient(overwrite):
    a = torch.randn(3, dtype=torch.float64, requires_grad=True)
    x = a * 1
    y = eval(f"x.{overwrite}")
    assert y is x and y.grad_fn is not None and y.requires_grad
    (y * a).sum().backward()                  # only the product's path reaches a
    np.testing.assert_array_equal(a.grad.numpy(), y.detach().numpy())


def test_resize_of_a_tensor_that_requires_grad_raises_also_under_no_grad():
    a = torch.randn(3, requires_grad=True)
    for t in (a, a * 1):
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            t.resize_(2)
    with torch.no_grad(), pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        a.resize_(2)
    assert torch.zeros(2).resize_(3).shape == (3,)


def test_float_power_inplace_is_recorded_as_pow():
    b = torch.rand(3, dtype=torch.float64, requires_grad=True)
    e = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    x = b * 1
    x.float_power_(e)
    assert x.grad_fn.name() == "PowBackward1"          # pow.Tensor_Tensor's node, as in PyTorch
    x.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), 1.5 * b.detach().numpy() ** 0.5)
    np.testing.assert_allclose(e.grad.item(), float((b.detach().numpy() ** 1.5 * np.log(b.detach().numpy())).sum()))


def test_detach_in_place_as_function_and_method():
    for detach_ in (torch.detach_, torch.Tensor.detach_):
        a = torch.randn(3, requires_grad=True)
        for t in (a, a * 2):
            out = detach_(t)
            assert out is t and not t.requires_grad and t.grad_fn is None and t.is_leaf
