"""Pointwise derivatives (tools/autograd/derivatives.yaml, section Pointwise): gradcheck and
gradgradcheck in float64 for unary math, binary ops and activations, with broadcasting and
non-contiguous inputs, plus PyTorch's gradients at the edges (ties, kinks, bounds, NaN)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import torch
from gradcheck_cases import gradcheck_tests

nn = torch._C._nn


def rand(*shape, positive=False, seed=0, low=None, high=None):
    rng = np.random.default_rng(seed + 7 * len(shape))
    if low is not None:
        a = rng.uniform(low, high, shape)
    else:
        a = rng.standard_normal(shape)
        if positive:
            a = np.abs(a) + 0.5
    return torch.from_numpy(a).requires_grad_()


def away(*shape, seed=0, points=(0.0,), gap=0.2, scale=2.0):
    """Normal values kept at least `gap` from each kink in `points` (finite differences stay on one side)."""
    rng = np.random.default_rng(seed + 7 * len(shape))
    a = rng.standard_normal(shape) * scale
    for p in points:
        close = np.abs(a - p) < gap
        a[close] = p + np.sign(a[close] - p + 1e-12) * gap
    return torch.from_numpy(a).requires_grad_()


def noncontig(*shape, seed=0, **kw):
    """A float64 tensor that requires grad and is a transposed view of its storage."""
    return rand(*reversed(shape), seed=seed, **kw).detach().t().requires_grad_()


def tensor(values):
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


CASES = {
    # arithmetic
    "div_floor": (lambda a, b: torch.div(a, b, rounding_mode="floor"), lambda: (away(4, points=(-2, -1, 0, 1, 2)), tensor([1.0] * 4))),
    "div_trunc": (lambda a, b: torch.div(a, b, rounding_mode="trunc"), lambda: (away(4, points=(-2, -1, 0, 1, 2)), tensor([1.0] * 4))),
    "div_mode_none": (lambda a, b: torch.div(a, b, rounding_mode=None), lambda: (rand(2, 3), rand(3, positive=True))),
    "remainder": (torch.remainder, lambda: (tensor([0.3, 1.7, -2.4, 5.2]), tensor([1.1, -0.9, 1.3, 2.9]))),
    "remainder_scalar": (lambda a: torch.remainder(a, 1.5), lambda: (tensor([0.3, 1.7, -2.4, 5.2]),)),
    "fmod": (torch.fmod, lambda: (tensor([0.3, 1.7, -2.4, 5.2]), tensor([1.1, -0.9, 1.3, 2.9]))),
    "fmod_scalar": (lambda a: torch.fmod(a, 1.5), lambda: (tensor([0.3, 1.7, -2.4, 5.2]),)),
    "frac": (torch.frac, lambda: (tensor([0.3, 1.7, -2.4, 5.2]),)),
    "sign": (torch.sign, lambda: (away(5),)),
    "floor": (torch.floor, lambda: (tensor([0.3, 1.7, -2.4]),)),
    "ceil": (torch.ceil, lambda: (tensor([0.3, 1.7, -2.4]),)),
    "trunc": (torch.trunc, lambda: (tensor([0.3, 1.7, -2.4]),)),
    "round": (torch.round, lambda: (tensor([0.3, 1.7, -2.4]),)),
    "round_decimals": (lambda a: torch.round(a, decimals=1), lambda: (tensor([0.33, 1.72, -2.41]),)),
    "square": (torch.square, lambda: (noncontig(2, 3),)),
    "addcmul": (lambda a, b, c: torch.addcmul(a, b, c, value=0.5), lambda: (rand(3), rand(2, 3), rand(2, 1))),
    "addcdiv": (lambda a, b, c: torch.addcdiv(a, b, c, value=2), lambda: (rand(2, 3), rand(3), rand(2, 3, positive=True))),
    "lerp_scalar": (lambda a, b: torch.lerp(a, b, 0.3), lambda: (rand(2, 3), rand(3))),
    "lerp_scalar_high": (lambda a, b: torch.lerp(a, b, 0.8), lambda: (rand(2, 3), noncontig(2, 3))),
    "lerp_tensor": (torch.lerp, lambda: (rand(2, 3), rand(3), rand(2, 1, low=0.0, high=1.0))),
    "xlogy": (torch.xlogy, lambda: (rand(2, 3), rand(3, positive=True))),
    "xlogy_scalar_self": (lambda b: torch.xlogy(2.5, b), lambda: (rand(3, positive=True),)),
    "xlogy_scalar_other": (lambda a: torch.xlogy(a, 3.0), lambda: (rand(4),)),
    "copysign": (torch.copysign, lambda: (away(2, 3), away(3, seed=1))),
    "copysign_scalar": (lambda a: torch.copysign(a, -1.0), lambda: (away(4),)),
    "hypot": (torch.hypot, lambda: (rand(2, 3), rand(3, seed=1))),
    "atan2": (torch.atan2, lambda: (rand(2, 3), noncontig(2, 3, seed=1))),
    "logaddexp": (torch.logaddexp, lambda: (rand(2, 3), rand(3, seed=1))),
    "logaddexp2": (torch.logaddexp2, lambda: (rand(2, 3), rand(3, seed=1))),
    "minimum": (torch.minimum, lambda: (rand(2, 3), rand(3, seed=1))),
    "fmax": (torch.fmax, lambda: (rand(2, 3), rand(3, seed=1))),
    "fmin": (torch.fmin, lambda: (rand(2, 3), rand(3, seed=1))),
    "clamp_min": (lambda a: torch.clamp_min(a, 0.1), lambda: (away(6, points=(0.1,)),)),
    "clamp_max": (lambda a: torch.clamp_max(a, 0.1), lambda: (away(6, points=(0.1,)),)),
    "clamp_min_tensor": (torch.clamp_min, lambda: (tensor([0.5, -1.0, 2.0]), tensor([0.0, 0.3, 1.0]))),
    "clamp_max_tensor": (torch.clamp_max, lambda: (tensor([0.5, -1.0, 2.0]), tensor([0.0, 0.3, 1.0]))),
    "clamp_tensor": (lambda a, lo, hi: torch.clamp(a, lo, hi),
                     lambda: (tensor([0.5, -1.0, 2.0, 0.7]), tensor([0.0, 0.3, 1.0, 0.9]), tensor([0.4, 0.6, 3.0, 0.1]))),
    "clamp_tensor_min_only": (lambda a, lo: torch.clamp(a, lo), lambda: (tensor([0.5, -1.0, 2.0]), tensor([0.0, 0.3, 1.0]))),
    "clamp_tensor_max_only": (lambda a, hi: torch.clamp(a, max=hi), lambda: (tensor([0.5, -1.0, 2.0]), tensor([0.0, 0.3, 1.0]))),
    "clip": (lambda a: torch.clip(a, -0.5, 0.5), lambda: (away(6, points=(-0.5, 0.5)),)),
    "nan_to_num": (torch.nan_to_num, lambda: (rand(2, 3),)),
    # unary math
    "exp2": (torch.exp2, lambda: (rand(2, 3),)),
    "expm1": (torch.expm1, lambda: (noncontig(2, 3),)),
    "log2": (torch.log2, lambda: (rand(4, positive=True),)),
    "log10": (torch.log10, lambda: (rand(4, positive=True),)),
    "log1p": (torch.log1p, lambda: (rand(4, positive=True),)),
    "tan": (torch.tan, lambda: (rand(4, low=-1.2, high=1.2),)),
    "asin": (torch.asin, lambda: (rand(4, low=-0.9, high=0.9),)),
    "acos": (torch.acos, lambda: (rand(4, low=-0.9, high=0.9),)),
    "atan": (torch.atan, lambda: (rand(4),)),
    "sinh": (torch.sinh, lambda: (rand(4),)),
    "cosh": (torch.cosh, lambda: (rand(4),)),
    "asinh": (torch.asinh, lambda: (rand(4),)),
    "acosh": (torch.acosh, lambda: (rand(4, low=1.2, high=4.0),)),
    "atanh": (torch.atanh, lambda: (rand(4, low=-0.9, high=0.9),)),
    "erf": (torch.erf, lambda: (rand(4),)),
    "erfc": (torch.erfc, lambda: (rand(4),)),
    "erfinv": (torch.erfinv, lambda: (rand(4, low=-0.9, high=0.9),)),
    "sinc": (torch.sinc, lambda: (rand(5),)),
    "rad2deg": (torch.rad2deg, lambda: (rand(4),)),
    "deg2rad": (torch.deg2rad, lambda: (rand(4),)),
    "lgamma": (torch.lgamma, lambda: (rand(4, positive=True),)),
    "logit": (torch.logit, lambda: (rand(4, low=0.05, high=0.95),)),
    "logit_eps": (lambda a: torch.logit(a, 0.1), lambda: (tensor([0.2, 0.5, 0.85, 0.03, 0.97]),)),
    # activations
    "relu6": (nn.relu6, lambda: (away(8, points=(0.0, 6.0), scale=5.0),)),
    "hardtanh": (lambda a: nn.hardtanh(a, -0.5, 1.5), lambda: (away(8, points=(-0.5, 1.5)),)),
    "leaky_relu": (lambda a: nn.leaky_relu(a, 0.2), lambda: (away(2, 3),)),
    "elu": (lambda a: nn.elu(a, 1.5, 1.2, 0.8), lambda: (away(2, 3),)),
    "selu": (torch.selu, lambda: (away(6),)),
    "celu": (lambda a: torch.celu(a, 1.5), lambda: (away(6),)),
    "silu": (nn.silu, lambda: (noncontig(2, 3),)),
    "mish": (nn.mish, lambda: (rand(6),)),
    "softplus": (lambda a: nn.softplus(a, 2, 3), lambda: (away(8, points=(1.5,)),)),
    "hardsigmoid": (nn.hardsigmoid, lambda: (away(8, points=(-3.0, 3.0)),)),
    "hardswish": (nn.hardswish, lambda: (away(8, points=(-3.0, 3.0), scale=4.0),)),
    "threshold": (lambda a: torch.threshold(a, 0.1, 2.0), lambda: (away(6, points=(0.1,)),)),
    "gelu": (nn.gelu, lambda: (rand(2, 3),)),
    "gelu_tanh": (lambda a: nn.gelu(a, approximate="tanh"), lambda: (noncontig(2, 3),)),
}

# Every case is twice differentiable (lgamma's gradient, digamma, differentiates through polygamma).
NO_GRADGRAD: set[str] = set()


test_gradcheck, test_gradgradcheck = gradcheck_tests(CASES, NO_GRADGRAD)


def grad_of(fn, *inputs):
    inputs = [tensor(x) for x in inputs]
    out = fn(*inputs)
    grads = torch.autograd.grad(out.sum(), inputs, allow_unused=True)
    return [None if g is None else g.tolist() for g in grads]


nan, inf = math.nan, math.inf
X = [-inf, -7.0, -3.0, -0.5, 0.0, 0.5, 3.0, 6.0, 7.0, 25.0, inf, nan]
A = [1.0, 1.0, 2.0, nan, 1.0, nan, 0.0, -0.0, 3.0, 0.0]
B = [1.0, 2.0, 1.0, 1.0, nan, nan, -0.0, 0.0, inf, -2.0]

# Gradients of PyTorch 2.13 (the reference) at ties, kinks, bounds, zeros and NaN.
EDGES = {
    "minimum": (torch.minimum, [A, B], [[0.5, 1, 0, 1, 1, 1, 0.5, 0.5, 1, 0], [0.5, 0, 1, 1, 1, 1, 0.5, 0.5, 0, 1]]),
    "fmax": (torch.fmax, [A, B], [[1, 0, 1, 0, 1, 1, 1, 1, 0, 1], [0, 1, 0, 1, 0, 0, 0, 0, 1, 0]]),
    "fmin": (torch.fmin, [A, B], [[1, 1, 0, 0, 1, 1, 1, 1, 1, 0], [0, 0, 1, 1, 0, 0, 0, 0, 0, 1]]),
    "clamp_tensor": (lambda a, lo, hi: torch.clamp(a, lo, hi), [A, B, [2.0, 0.5, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, -3.0]],
                     [[1, 0, 0, 0, 0, 0, 1, 1, 0, 0], [0] * 10, [0, 1, 1, 0, 0, 0, 0, 0, 1, 1]]),
    "copysign": (torch.copysign, [A, B], [[1, 1, 1, nan, 1, nan, 0, 0, 1, 0], [0] * 10]),
    "atan2": (torch.atan2, [A, B], [[0.5, 0.4, 0.2, nan, nan, nan, 0, 0, nan, -0.5],
                                    [-0.5, -0.2, -0.4, nan, nan, nan, 0, 0, 0, 0]]),
    "xlogy": (torch.xlogy, [A, B], [[0, math.log(2), 0, 0, nan, nan, 0, 0, inf, 0], [1, 0.5, 2, nan, nan, nan, nan, nan, 0, 0]]),
    "xlogy_zero_other": (lambda a: torch.xlogy(a, 0.0), [X], [[-inf] * 4 + [0] + [-inf] * 7]),
    "relu6": (nn.relu6, [X], [[0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1]]),
    "hardtanh": (nn.hardtanh, [X], [[0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 1]]),
    "hardswish": (nn.hardswish, [X], [[0, 0, 0, 1 / 3, 0.5, 2 / 3, 1, 1, 1, 1, 1, 1]]),
    "leaky_relu": (lambda a: nn.leaky_relu(a, 0.2), [X], [[0.2] * 5 + [1] * 6 + [0.2]]),
    "elu_at_zero": (lambda a: nn.elu(a, 1.5), [[0.0, -0.0, 1.0]], [[1.5, 1.5, 1.0]]),
    "threshold": (lambda a: torch.threshold(a, 0.5, 2.0), [X], [[0] * 6 + [1] * 6]),
    "softplus": (lambda a: nn.softplus(a, 2, 3), [[-inf, 0.0, 1.5, 1.6, inf]], [[0, 0.5, 0.9525741268224334, 1, 1]]),
    "logit": (torch.logit, [[-0.5, 0.0, 0.5, 1.0, 1.5, nan]], [[nan, inf, 4, inf, nan, nan]]),
    "logit_eps": (lambda a: torch.logit(a, 0.1), [[-0.5, 0.0, 0.1, 0.5, 0.9, 1.0, nan]],
                  [[0, 0, 11.111111111111109, 4, 11.111111111111112, 0, 0]]),
    "sinc": (torch.sinc, [[0.0, 0.5, 1.0]], [[0, -4 / math.pi, -1]]),
    "nan_to_num": (torch.nan_to_num, [X], [[0] + [1] * 9 + [0, 0]]),
    "sign": (torch.sign, [X], [[0] * 12]),
    "round": (torch.round, [X], [[0] * 12]),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_gradients_at_the_edges_match_pytorch(name):
    fn, inputs, expected = EDGES[name]
    for got, want in zip(grad_of(fn, *inputs), expected):
        np.testing.assert_allclose(np.array(got, dtype=float), np.array(want, dtype=float), rtol=1e-12, atol=1e-15)


def test_hardsigmoid_gradient_is_a_sixth_inside_and_zero_at_the_bounds():
    (g,) = grad_of(nn.hardsigmoid, [-3.0, -1.0, 0.0, 2.9, 3.0, nan])
    np.testing.assert_allclose(g, [0, 1 / 6, 1 / 6, 1 / 6, 0, 0])


def test_gelu_gradients_match_pytorch():
    x = [-3.0, -0.5, 0.0, 0.5, 2.0]
    (g,) = grad_of(nn.gelu, x)
    np.testing.assert_allclose(g, [-0.01194564720418392, 0.13250487534383712, 0.5, 0.8674951246561629,
                                   1.085231801078197], rtol=1e-12)
    (g,) = grad_of(lambda a: nn.gelu(a, approximate="tanh"), x)
    np.testing.assert_allclose(g, [-0.011584166630969648, 0.13263009646535764, 0.5, 0.8673699035346424,
                                   1.0860992566236183], rtol=1e-12)


def test_in_place_variants_reuse_the_formula():
    x = rand(4, low=0.1, high=0.9)
    y = x * 1
    y.log1p_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 / (1 + x.detach().numpy()))


@pytest.mark.parametrize("name,args", [("deg2rad_", ()), ("rad2deg_", ()), ("square_", ()), ("expm1_", ()),
                                       ("hypot_", ("o",)), ("copysign_", ("o",)), ("clamp_min_", ("o",)),
                                       ("lerp_", ("o", 0.3)), ("nan_to_num_", ()), ("logit_", (0.1,))])
def test_in_place_variant_gives_the_functional_gradient(name, args):
    def run(in_place):
        x = rand(5, low=0.1, high=0.9)
        o = rand(5, seed=3)
        values = tuple(o if a == "o" else a for a in args)
        y = x * 1
        if in_place:
            getattr(y, name)(*values)
        else:
            y = getattr(torch, name[:-1])(y, *values)
        return torch.autograd.grad(y.sum(), [x, o], allow_unused=True)

    for a, b in zip(run(True), run(False)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-14)


def test_integer_and_bool_results_do_not_require_grad():
    x = rand(4)
    for r in (torch.signbit(x), torch.isnan(x), torch.isfinite(x), x.eq(x), torch.logical_not(x)):
        assert not r.requires_grad
