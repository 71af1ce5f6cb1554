"""torch.func's transforms (grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian):
values against NumPy's closed forms, composition (grad of grad, hessian = jacfwd of jacrev), composition with
torch.autograd, pytree inputs and outputs, and PyTorch's errors."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from torch.func import grad, grad_and_value, hessian, jacfwd, jacrev, jvp, linearize, vjp

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 3)).astype(np.float64)
X = RNG.standard_normal(3)


def t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.array(a, dtype=np.float64))


def tanh_affine(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(t(A) @ x)


def tanh_affine_jacobian(x: np.ndarray) -> np.ndarray:
    return (1 - np.tanh(A @ x) ** 2)[:, None] * A


def test_grad_of_a_scalar_function_is_its_closed_form():
    got = grad(lambda x: torch.sin(x).sum())(t(X))
    np.testing.assert_allclose(got.numpy(), np.cos(X), rtol=1e-12)


def test_grad_of_grad_gives_the_second_derivative():
    second = grad(grad(lambda x: torch.sin(x) * x))
    for value in (0.3, -1.2, 2.5):
        expected = 2 * np.cos(value) - value * np.sin(value)
        np.testing.assert_allclose(second(t(value)).item(), expected, rtol=1e-12)


def test_argnums_picks_and_orders_the_differentiated_arguments():
    x, y = t(X), t(2 * X)
    gx, gy = grad(lambda a, b: (a * b * b).sum(), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx.numpy(), (2 * X) ** 2)
    np.testing.assert_allclose(gy.numpy(), 2 * X * 2 * X)
    np.testing.assert_allclose(grad(lambda a, b: (a * b).sum(), argnums=-1)(x, y).numpy(), X)


def test_pytree_arguments_get_gradients_of_the_same_structure():
    params = {"w": t(A), "b": t(np.ones(4))}
    got = grad(lambda p, x: (p["w"] @ x + p["b"]).pow(2).sum())(params, t(X))
    residual = A @ X + 1
    np.testing.assert_allclose(got["w"].numpy(), 2 * residual[:, None] * X[None, :])
    np.testing.assert_allclose(got["b"].numpy(), 2 * residual)


def test_has_aux_passes_the_auxiliary_value_through_and_grad_and_value_returns_the_output():
    g, aux = grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(t(X))
    np.testing.assert_allclose(g.numpy(), 2 * X)
    assert aux.item() == pytest.approx(X.mean())
    g, (value, aux) = grad_and_value(lambda x: ((x ** 2).sum(), "tag"), has_aux=True)(t(X))
    assert value.item() == pytest.approx((X ** 2).sum()) and aux == "tag"


def test_an_input_the_output_ignores_gets_a_zero_gradient():
    g = grad(lambda x, y: (y * 2).sum(), argnums=(0, 1))(t(X), t(X))
    assert np.array_equal(g[0].numpy(), np.zeros(3))
    assert np.array_equal(grad(lambda x: torch.tensor(1.0))(t(X)).numpy(), np.zeros(3))


def test_results_leave_the_transform_detached_unless_something_outside_needs_their_graph():
    x = t(X)
    assert not grad(lambda y: (y * y).sum())(x).requires_grad
    w = t(X[::-1].copy()).requires_grad_()
    g = grad(lambda y: (w * y * y).sum())(x)               # 2 w y: differentiable in w
    assert g.requires_grad
    g.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * X)
    with torch.no_grad():
        assert not grad(lambda y: (w * y).sum())(x).requires_grad


def test_grad_differentiates_through_an_input_that_already_requires_grad():
    x = t(X).requires_grad_()
    g = grad(lambda y: (y ** 3).sum())(x)                    # 3 y^2
    g.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * X)


def test_vjp_gives_the_transposed_jacobian_times_the_cotangent():
    v = RNG.standard_normal(4)
    out, vjp_fn = vjp(tanh_affine, t(X))
    np.testing.assert_allclose(out.numpy(), np.tanh(A @ X))
    (got,) = vjp_fn(t(v))
    np.testing.assert_allclose(got.numpy(), tanh_affine_jacobian(X).T @ v, rtol=1e-12)
    assert not out.requires_grad and not got.requires_grad


def test_vjp_of_several_primals_and_outputs_keeps_their_structure():
    out, vjp_fn = vjp(lambda a, b: (a * b, a.sum()), t(X), t(2 * X))
    ga, gb = vjp_fn((t(np.ones(3)), t(1.0)))
    np.testing.assert_allclose(ga.numpy(), 2 * X + 1)
    np.testing.assert_allclose(gb.numpy(), X)


def test_jvp_and_linearize_give_the_jacobian_times_the_tangent():
    tangent = RNG.standard_normal(3)
    expected = tanh_affine_jacobian(X) @ tangent
    out, product = jvp(tanh_affine, (t(X),), (t(tangent),))
    np.testing.assert_allclose(out.numpy(), np.tanh(A @ X))
    np.testing.assert_allclose(product.numpy(), expected, rtol=1e-12)
    out, jvp_fn = linearize(tanh_affine, t(X))
    np.testing.assert_allclose(jvp_fn(t(tangent)).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(jvp_fn(t(2 * tangent)).numpy(), 2 * expected, rtol=1e-12)


def test_jacrev_and_jacfwd_give_the_jacobian():
    expected = tanh_affine_jacobian(X)
    np.testing.assert_allclose(jacrev(tanh_affine)(t(X)).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(jacfwd(tanh_affine)(t(X)).numpy(), expected, rtol=1e-12)


def test_jacobians_are_shaped_output_then_input_and_structured_as_outputs_and_argnums():
    m = t(RNG.standard_normal((2, 3)))
    for jac in (jacrev, jacfwd):
        got = jac(lambda a, b: {"p": a @ b, "s": b.sum()}, argnums=(0, 1))(m, t(X))
        assert got["p"][0].shape == (2, 2, 3) and got["p"][1].shape == (2, 3)
        assert got["s"][0].shape == (2, 3) and got["s"][1].shape == (3,)
        np.testing.assert_allclose(got["p"][1].numpy(), m.numpy())
        np.testing.assert_allclose(got["s"][1].numpy(), np.ones(3))


def test_hessian_of_a_quadratic_form_and_of_logsumexp():
    q = RNG.standard_normal((3, 3))
    np.testing.assert_allclose(hessian(lambda x: x @ t(q) @ x)(t(X)).numpy(), q + q.T, rtol=1e-12)
    p = np.exp(X - X.max()) / np.exp(X - X.max()).sum()
    np.testing.assert_allclose(hessian(lambda x: torch.logsumexp(x, 0))(t(X)).numpy(),
                               np.diag(p) - np.outer(p, p), rtol=1e-10, atol=1e-14)


def test_transforms_compose_in_either_order():
    f = lambda x: (torch.sin(x) * x).sum()          # noqa: E731
    h = hessian(f)(t(X))
    np.testing.assert_allclose(jacrev(jacrev(f))(t(X)).numpy(), h.numpy(), rtol=1e-12)
    np.testing.assert_allclose(jacrev(grad(f))(t(X)).numpy(), h.numpy(), rtol=1e-12)
    np.testing.assert_allclose(np.diag(h.numpy()), 2 * np.cos(X) - X * np.sin(X), rtol=1e-12)


@pytest.mark.parametrize("call, error, message", [
    (lambda: grad(lambda x: x)(t(X)), RuntimeError,
     "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with 1 dims. "
     "Maybe you wanted to use the vjp or jacrev APIs instead?"),
    (lambda: grad(lambda x: 1.0)(t(X)), RuntimeError,
     "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got <class 'float'>"),
    (lambda: grad(lambda x: x.sum())(1.0), ValueError,
     "Thing passed to transform API must be Tensor, got <class 'float'>"),
    (lambda: grad(lambda x: x.sum(), argnums=2)(t(X)), RuntimeError, "Got argnum=2, but only 1 positional inputs"),
    (lambda: grad(lambda x: x.sum(), argnums=())(t(X)), RuntimeError, "argnums must be non-empty"),
    (lambda: grad(lambda x: x.sum(), argnums=(0, 0))(t(X)), RuntimeError,
     "argnums elements must be unique, got (0, 0)"),
    (lambda: grad(lambda x: x.sum(), argnums=1.0)(t(X)), RuntimeError,
     "argnums must be int or Tuple[int, ...], got: <class 'float'>"),
    (lambda: grad(lambda x: x.sum(), has_aux=True)(t(X)), RuntimeError,
     "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is True"),
    (lambda: grad(lambda x: x.sum())(torch.arange(3)), RuntimeError,
     "only Tensors of floating point dtype can require gradients"),
    (lambda: vjp(lambda x: x.long(), t(X)), RuntimeError,
     "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with dtype torch.int64"),
    (lambda: vjp(lambda x: (x, x), t(X))[1](t(X)), RuntimeError,
     "Expected pytree structure of cotangents to be the same as pytree structure of outputs to the function. "
     "cotangents: *, primal output: (*, *)"),
    (lambda: jvp(lambda x: x, t(X), (t(X),)), RuntimeError,
     "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."),
    (lambda: jvp(lambda x: x, (t(X),), (t(np.ones(4)),)), RuntimeError,
     "Trying to set a forward gradient that has a different size than that of the original Tensor, this is not "
     "supported. Tensor is of size [3] while the given forward gradient is of size [4]."),
    (lambda: jacrev(lambda x: x, chunk_size=0), ValueError, "jacrev: `chunk_size` should be greater than 0."),
    (lambda: jacrev(lambda x: 1.0)(t(X)), RuntimeError,
     "vjp(f, *primals): expected f(*primals) to return only tensors, got unsupported type <class 'float'>"),
    (lambda: linearize(torch.sin, t(X))[1](t(np.ones(4))), RuntimeError,
     "tangent:0 with shape torch.Size([4]) in flattened pytree doesn't match the shape torch.Size([3]) of the "
     "corresponding primal."),
    (lambda: jvp(lambda x: torch.ones(2), (t(X),), (t(X),), strict=True), RuntimeError,
     "jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. This is not allowed "
     "with strict=True."),
    (lambda: jvp(lambda: t(X), (), ()), RuntimeError,
     "jvp(f, primals, tangents): Expected primals to contain at least one Tensor."),
    (lambda: jvp(lambda x: [], (t(X),), (t(X),)), RuntimeError,
     "jvp(f, primals, tangents): Expected f to be a function that has non-empty output (got output = [])"),
])
def test_misuse_raises_pytorchs_error(call, error, message):
    # messages recorded from PyTorch 2.13's torch.func for the same calls
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message
