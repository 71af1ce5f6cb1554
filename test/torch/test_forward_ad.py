"""Forward-mode AD: torch.autograd.forward_ad's dual tensors, custom Functions' jvp, and the transforms built on it
(torch.func.jvp, jacfwd, hessian; autograd.functional.jacobian's forward mode; gradcheck's check_forward_ad).

Expected tangents are computed with NumPy from the derivatives' closed forms; error messages are PyTorch's."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import torch
import torch.autograd.forward_ad as fwAD
from torch.autograd.gradcheck import GradcheckError
from torch.func import grad, jacfwd, jacrev, jvp, vmap


def _rand(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape))


def test_make_dual_keeps_the_tangent_as_given_and_unpack_gives_a_view_of_the_primal() -> None:
    x, t = _rand(3), _rand(3, seed=1)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        primal, tangent = fwAD.unpack_dual(d)
        assert tangent is t
        assert primal._base is x and fwAD.unpack_dual(primal).tangent is None
        assert d._base is x
        assert isinstance(fwAD.unpack_dual(d), fwAD.UnpackedDualTensor)
        assert fwAD.unpack_dual(x).tangent is None
    assert fwAD.unpack_dual(d).tangent is None          # exiting the level deletes its tangents


def test_tangent_of_an_op_is_the_jacobian_vector_product_whatever_the_grad_mode() -> None:
    x, t = _rand(4), _rand(4, seed=1)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        with torch.no_grad():
            y = d.sin() * d
        expected = (np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy())) * t.numpy()
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.numpy(), expected, rtol=1e-12)


def test_non_differentiable_outputs_carry_no_tangent() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(_rand(3), _rand(3, seed=1))
        assert fwAD.unpack_dual(d.argmax()).tangent is None
        assert fwAD.unpack_dual(d > 0).tangent is None


def test_level_and_argument_errors_are_pytorchs() -> None:
    x = _rand(3)
    with pytest.raises(RuntimeError, match="no level exists, make sure to enter_dual_level"):
        fwAD.make_dual(x, x)
    with pytest.raises(RuntimeError, match="Dual level must be a positive number"):
        fwAD.exit_dual_level()
    with fwAD.dual_level():
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported at the moment"):
            fwAD.enter_dual_level()
        with pytest.raises(ValueError, match="Expected primal to be floating point or complex, but got: torch.int64"):
            fwAD.make_dual(torch.ones(3, dtype=torch.int64), x)
        with pytest.raises(ValueError, match="Expected tangent to be floating point or complex, but got: torch.int64"):
            fwAD.make_dual(x, torch.ones(3, dtype=torch.int64))
        with pytest.raises(RuntimeError, match=r"Tensor is of size \[3\] while the given forward gradient is of size "
                                               r"\[2\]"):
            fwAD.make_dual(x, x[:2])
        d = fwAD.make_dual(x, x)
        with pytest.raises(RuntimeError, match="already has a forward gradient at the same level"):
            fwAD.make_dual(d, x)


def test_out_variant_refuses_a_dual_input() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(_rand(3), _rand(3, seed=1))
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with sin_out that does not support it "
                                                      "because it is an out= function"):
            torch.sin(d, out=torch.empty(3, dtype=torch.float64))


def test_dual_tensor_prints_its_tangent() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
        assert repr(d) == "tensor([1., 2.], tangent=tensor([3., 4.]))"


def test_in_place_ops_update_the_tangent_and_views_share_it() -> None:
    x, t = _rand(4), _rand(4, seed=1)
    with fwAD.dual_level():
        d = fwAD.make_dual(x.clone(), t.clone())
        view = d[1:3]
        view.mul_(view.clone())         # d[1:3] = d[1:3]**2: its tangent there is 2 x t
        expected = t.numpy().copy()
        expected[1:3] = 2 * x.numpy()[1:3] * t.numpy()[1:3]
        np.testing.assert_allclose(fwAD.unpack_dual(d).tangent.numpy(), expected, rtol=1e-12)


def test_writing_a_dual_value_into_a_view_gives_the_base_a_tangent() -> None:
    x, t = _rand(3), _rand(3, seed=1)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, t)
        z = torch.zeros(4, dtype=torch.float64)
        z[1:].copy_(d)
        np.testing.assert_array_equal(fwAD.unpack_dual(z).tangent.numpy(), np.concatenate([[0.0], t.numpy()]))


def test_reverse_mode_differentiates_the_tangent() -> None:
    x = _rand(3).requires_grad_()
    t = _rand(3, seed=1)
    with fwAD.dual_level():
        y = (fwAD.make_dual(x, t) ** 3).sum()
        tangent = fwAD.unpack_dual(y).tangent               # 3 x^2 . t
        (g,) = torch.autograd.grad(tangent, x)
    np.testing.assert_allclose(g.numpy(), 6 * x.detach().numpy() * t.numpy(), rtol=1e-12)


class _Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, k):
        ctx.seen_dual = fwAD.unpack_dual(x).tangent is not None
        ctx.save_for_forward(x, y)
        ctx.k = k
        return x * y * k

    @staticmethod
    def jvp(ctx, x_t, y_t, k_t):
        x, y = ctx.saved_tensors
        ctx.got = (x_t, y_t, k_t)
        return (x_t * y + x * y_t) * ctx.k

    @staticmethod
    def backward(ctx, g):
        return g, g, None


def test_custom_function_jvp_gets_zero_tangents_for_plain_tensor_inputs() -> None:
    x, y, t = _rand(3), _rand(3, seed=1), _rand(3, seed=2)
    with fwAD.dual_level():
        out = _Scale.apply(fwAD.make_dual(x, t), y, 2.0)
        ctx = out.grad_fn if out.grad_fn is not None else None
        np.testing.assert_allclose(fwAD.unpack_dual(out).tangent.numpy(), 2 * t.numpy() * y.numpy(), rtol=1e-12)
    assert ctx is None                  # nothing required grad: no node recorded


def test_custom_function_without_jvp_or_with_a_wrong_count_raises_pytorchs_error() -> None:
    class NoJvp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

    class TwoOutputs(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone(), x.clone()

        @staticmethod
        def jvp(ctx, t):
            return t

    with fwAD.dual_level():
        d = fwAD.make_dual(_rand(3), _rand(3, seed=1))
        with pytest.raises(NotImplementedError, match="You must implement the jvp function for custom "
                                                      "autograd.Function to use it with forward mode AD"):
            NoJvp.apply(d)
        with pytest.raises(RuntimeError, match=r"Function's jvp returned an invalid number of forward gradients "
                                               r"\(expected 2 but got 1\)"):
            TwoOutputs.apply(d)


def test_func_jvp_nests_for_second_derivatives() -> None:
    x, t1, t2 = _rand(5), _rand(5, seed=1), _rand(5, seed=2)

    def first(x: torch.Tensor) -> torch.Tensor:
        return jvp(torch.sin, (x,), (t1,))[1]
    _, second = jvp(first, (x,), (t2,))
    np.testing.assert_allclose(second.numpy(), -np.sin(x.numpy()) * t1.numpy() * t2.numpy(), rtol=1e-12)


def test_jvp_of_grad_is_the_hessian_vector_product() -> None:
    x, v = _rand(4), _rand(4, seed=1)

    def f(x: torch.Tensor) -> torch.Tensor:
        return (x ** 3).sum() + x.prod()
    _, hvp = jvp(grad(f), (x,), (v,))
    xs = x.numpy()
    hessian = np.array([[np.prod(np.delete(xs, [i, j])) if i != j else 6 * xs[i] for j in range(4)] for i in range(4)])
    np.testing.assert_allclose(hvp.numpy(), hessian @ v.numpy(), rtol=1e-10)


def test_jacfwd_equals_jacrev_and_hessian_runs_forward_over_reverse() -> None:
    x = _rand(3, 2)
    w = _rand(2, 4, seed=1)

    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x @ w).exp()
    np.testing.assert_allclose(jacfwd(f)(x).numpy(), jacrev(f)(x).numpy(), rtol=1e-12)

    def g(x: torch.Tensor) -> torch.Tensor:
        return (x.sin() ** 2).sum()
    h = torch.func.hessian(g)(x)
    xs = x.numpy().ravel()
    np.testing.assert_allclose(h.reshape(6, 6).numpy(), np.diag(2 * np.cos(2 * xs)), rtol=1e-10, atol=1e-12)


def test_jacfwd_enforces_randomness() -> None:
    x = _rand(3)
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness error mode"):
        jacfwd(lambda x: x * torch.rand(3, dtype=torch.float64))(x)
    jac = jacfwd(lambda x: x * torch.rand(3, dtype=torch.float64), randomness="same")(x)
    assert jac.shape == (3, 3)


def test_vmap_of_jvp_and_jvp_of_vmap_give_per_example_products() -> None:
    x, t = _rand(4, 3), _rand(4, 3, seed=1)
    expected = np.cos(x.numpy()) * t.numpy()
    per_example = vmap(lambda x, t: jvp(torch.sin, (x,), (t,))[1])(x, t)
    np.testing.assert_allclose(per_example.numpy(), expected, rtol=1e-12)
    _, outer = jvp(vmap(torch.sin), (x,), (t,))
    np.testing.assert_allclose(outer.numpy(), expected, rtol=1e-12)


def test_functional_jacobian_forward_mode_equals_reverse_mode() -> None:
    x, y = _rand(3), _rand(2, seed=1)

    def f(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x.sin() * y.sum(), torch.outer(x, y)
    forward = torch.autograd.functional.jacobian(f, (x, y), vectorize=True, strategy="forward-mode")
    reverse = torch.autograd.functional.jacobian(f, (x, y))
    for fo, re_ in zip(forward, reverse):
        for a, b in zip(fo, re_):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="`strict=True` and `strategy=\"forward-mode\"` are not supported together"):
        torch.autograd.functional.jacobian(f, (x, y), vectorize=True, strategy="forward-mode", strict=True)
    hessian = torch.autograd.functional.hessian(lambda x: (x ** 3).sum(), x, vectorize=True,
                                                outer_jacobian_strategy="forward-mode")
    np.testing.assert_allclose(hessian.numpy(), np.diag(6 * x.numpy()), rtol=1e-12)


def test_gradcheck_checks_forward_mode() -> None:
    x = _rand(3).requires_grad_()
    assert torch.autograd.gradcheck(torch.sin, (x,), check_forward_ad=True)

    class WrongJvp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def jvp(ctx, t):
            return t * 3

        @staticmethod
        def backward(ctx, g):
            return g * 2
    with pytest.raises(GradcheckError,
                       match="Jacobian computed with forward mode mismatch for output 0 with respect to input 0"):
        torch.autograd.gradcheck(WrongJvp.apply, (x,), check_forward_ad=True)


def _f(x: torch.Tensor) -> torch.Tensor:
    return (x.sin() * x ** 2).sum()


def _hessian_diagonal(x: np.ndarray) -> np.ndarray:
    """d2/dx2 of sin(x) x^2, elementwise: f's Hessian is diagonal."""
    return -np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)


@pytest.mark.parametrize("name, hessian_of", [
    ("jacfwd(jacrev)", lambda f: jacfwd(jacrev(f))),
    ("jacrev(jacfwd)", lambda f: jacrev(jacfwd(f))),
    ("jacfwd(jacfwd)", lambda f: jacfwd(jacfwd(f))),
    ("jacrev(jacrev)", lambda f: jacrev(jacrev(f))),
    ("jacfwd(grad)", lambda f: jacfwd(grad(f))),
    ("hessian", lambda f: torch.func.hessian(f)),
])
def test_transforms_compose_in_any_order_for_the_hessian(name: str, hessian_of: Any) -> None:
    x = _rand(5)
    np.testing.assert_allclose(hessian_of(_f)(x).numpy(), np.diag(_hessian_diagonal(x.numpy())), rtol=1e-10,
                               atol=1e-12, err_msg=name)


@pytest.mark.parametrize("name, hvp", [
    ("jvp(grad)", lambda x, v: jvp(grad(_f), (x,), (v,))[1]),
    ("grad(jvp)", lambda x, v: grad(lambda y: jvp(_f, (y,), (v,))[1])(x)),
    ("vjp(grad)", lambda x, v: torch.func.vjp(grad(_f), x)[1](v)[0]),
    ("forward_ad of grad", lambda x, v: _dual_of_grad(x, v)),
])
def test_hessian_vector_products_agree_whichever_way_they_are_built(name: str, hvp: Any) -> None:
    xs, vs = _rand(4, 5), _rand(4, 5, seed=1)
    expected = _hessian_diagonal(xs.numpy()) * vs.numpy()
    np.testing.assert_allclose(hvp(xs[0], vs[0]).numpy(), expected[0], rtol=1e-10, err_msg=name)
    np.testing.assert_allclose(vmap(hvp)(xs, vs).numpy(), expected, rtol=1e-10, err_msg=f"vmap({name})")


def _dual_of_grad(x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    with fwAD.dual_level():
        g = grad(_f)(fwAD.make_dual(x, v))
        return fwAD.unpack_dual(g).tangent


def test_second_order_through_in_place_ops_that_read_self() -> None:
    """The copy of self an in-place op saves for backward keeps self's tangent (forward over reverse)."""
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
    np.testing.assert_allclose(torch.func.hessian(lambda a: a.clone().pow_(3).sum())(x).numpy(),
                               np.diag(6 * x.numpy()), rtol=1e-12)
    np.testing.assert_allclose(torch.func.hessian(lambda a: a.clone().mul_(a).sum())(x).numpy(), 2 * np.eye(3))
    t = _rand(3, seed=1)
    # reverse over forward: d/dx sum(2 x t) = 2 t, the old tangent not overwritten under the formula's graph
    g = grad(lambda a: jvp(lambda b: b.clone().mul_(b), (a,), (t,))[1].sum())(x)
    np.testing.assert_allclose(g.numpy(), 2 * t.numpy(), rtol=1e-12)


def test_jacobian_of_writes_into_a_preallocated_buffer() -> None:
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)

    def f(x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros(3, dtype=torch.float64)
        z[:2] = x[1:] * 2
        for i in range(1, 3):
            z[i] += x[i] ** 2
        return z
    expected = np.zeros((3, 3))
    expected[0, 1] = expected[1, 2] = 2
    expected[1, 1] += 2 * x[1].item()
    expected[2, 2] += 2 * x[2].item()
    for name, jac in (("jacfwd", jacfwd(f)(x)), ("jacrev", jacrev(f)(x)),
                      ("functional", torch.autograd.functional.jacobian(f, x, vectorize=True,
                                                                        strategy="forward-mode"))):
        np.testing.assert_allclose(jac.numpy(), expected, rtol=1e-12, err_msg=name)


def test_a_tangent_is_laid_out_as_its_tensor() -> None:
    with fwAD.dual_level():
        d = fwAD.make_dual(torch.zeros(2, 3), torch.arange(6.0).reshape(3, 2).t())
        np.testing.assert_array_equal(fwAD.unpack_dual(d.view(6)).tangent.numpy(),
                                      np.arange(6.0).reshape(3, 2).T.ravel())
        np.testing.assert_array_equal(fwAD.unpack_dual(d.as_strided((3,), (1,))).tangent.numpy(), [0.0, 2.0, 4.0])


def test_writing_through_a_view_of_another_dtype_reaches_the_base() -> None:
    with fwAD.dual_level():
        z = torch.zeros(2, dtype=torch.complex64)
        torch.view_as_real(z).copy_(fwAD.make_dual(torch.zeros(2, 2), torch.tensor([[0.0, 1.0], [2.0, 3.0]])))
        np.testing.assert_array_equal(fwAD.unpack_dual(z).tangent.numpy(), np.array([1j, 2 + 3j], dtype=np.complex64))


def test_in_place_view_ops_reshape_every_tangent() -> None:
    x, t = _rand(3), _rand(3, seed=1)
    nested = jvp(lambda a: jvp(lambda b: (b * b).unsqueeze_(0), (a,), (t,))[1], (x,), (t,))[1]
    np.testing.assert_allclose(nested.numpy(), (2 * t.numpy() * t.numpy())[None], rtol=1e-12)
    np.testing.assert_allclose(jacfwd(lambda a: (a * 2).unsqueeze_(0))(x).numpy(), 2 * np.eye(3)[None])
    with fwAD.dual_level():
        e = fwAD.make_dual(torch.zeros(6), torch.arange(6.0)).clone()
        np.testing.assert_array_equal(fwAD.unpack_dual(e.as_strided_((2, 2), (1, 2))).tangent.numpy(),
                                      [[0.0, 2.0], [1.0, 3.0]])
        assert fwAD.unpack_dual(e.detach_()).tangent is None
        with pytest.raises(RuntimeError, match="cannot resize variables that has a forward grad"):
            fwAD.make_dual(torch.zeros(3), torch.ones(3)).clone().resize_(2)


def test_a_long_level_does_not_keep_references_to_dead_tensors() -> None:
    from torch.csrc.autograd import forward_grad
    with fwAD.dual_level() as level:
        d = fwAD.make_dual(_rand(3), _rand(3, seed=1))
        for _ in range(100):
            (d * 2).sin()
        assert len(forward_grad._levels[level]) < 10


def test_an_exception_inside_jvp_leaves_no_level_entered() -> None:
    def raising(a: torch.Tensor) -> torch.Tensor:
        fwAD.enter_dual_level()
        raise ValueError("boom")
    with pytest.raises(ValueError, match="boom"):
        jvp(raising, (_rand(3),), (_rand(3),))
    with fwAD.dual_level():           # usable again
        assert fwAD.unpack_dual(fwAD.make_dual(_rand(3), _rand(3)) * 2).tangent is not None


def test_custom_function_jvp_rules_for_integer_inputs_and_non_differentiable_outputs() -> None:
    class Marked(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, index):
            ctx.index_tangent = "unset"
            y, z = x * 2, x.clone()
            ctx.mark_non_differentiable(z)
            return y, z

        @staticmethod
        def jvp(ctx, t, index_t):
            ctx.index_tangent = index_t
            return t * 2, t

    with fwAD.dual_level():
        d = fwAD.make_dual(_rand(3), _rand(3, seed=1))
        with pytest.raises(RuntimeError, match="Function's jvp returned a gradient at position 1, but  the "
                                               "corresponding forward output is not a differentiable Tensor"):
            Marked.apply(d, torch.arange(3))


def test_forward_ad_argument_checks_are_pytorchs() -> None:
    x = _rand(3)
    with pytest.raises(ValueError, match="Expected primal to be floating point or complex, but got: torch.int64"):
        jvp(torch.sin, (torch.arange(2),), (torch.ones(2),))
    with pytest.raises(RuntimeError, match="Expected tensors, got unsupported type <class 'int'>"):
        jvp(lambda a: (a.sin(), 3), (x,), (x,), has_aux=True)
    with pytest.raises(AssertionError, match="Expected at least one of check_forward_ad or check_backward_ad"):
        torch.autograd.gradcheck(torch.sin, (x.clone().requires_grad_(),), check_forward_ad=False,
                                 check_backward_ad=False)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, x)
        with pytest.raises(RuntimeError, match="Invalid level given to _make_dual"):
            fwAD.make_dual(x, x, level=5)
        with pytest.raises(RuntimeError, match="Invalid level given to _fw_primal"):
            fwAD.unpack_dual(d, level=5)
        with torch.inference_mode():
            assert fwAD.unpack_dual(d * 2).tangent is None
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with eq_out that does not support it "
                                                      "because it is an out= function"):
            torch.eq(d, 0, out=torch.empty(3, dtype=torch.bool))


def test_jacfwd_of_dropout_draws_a_mask_per_column_with_different_randomness() -> None:
    torch.manual_seed(0)
    x = _rand(6)
    jac = jacfwd(lambda a: torch.nn.functional.dropout(a, 0.5), randomness="different")(x).numpy()
    assert np.count_nonzero(jac - np.diag(np.diag(jac))) == 0            # column j moves output j only
    assert set(np.unique(np.diag(jac))) <= {0.0, 2.0}


def test_views_taken_before_their_base_gets_a_tangent_see_it() -> None:
    """PyTorch's views find their tangent through their base; Ember gives the views made while a level is live
    theirs when the base gets one (a view of it; under vmap, their elements of it)."""
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
    t = torch.tensor([1.0, 0.5, -2.0], dtype=torch.float64)

    def first_two(x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros(3, dtype=torch.float64)
        v = z[:2]
        z.copy_(x)
        return v * 1

    def overlapping(x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros(3, dtype=torch.float64)
        v, w = z[:2], z[1:]
        v.copy_(x[:2])
        w.mul_(x[1:])
        return z

    def rows_of_a_transpose(x: torch.Tensor) -> torch.Tensor:
        z = torch.zeros(2, 3, dtype=torch.float64)
        zt = z.t()
        zt[0] = x[:2]
        zt[1] = x[1:]
        return z

    xs, ts = x.numpy(), t.numpy()
    np.testing.assert_allclose(jvp(first_two, (x,), (t,))[1].numpy(), ts[:2])
    np.testing.assert_allclose(jacfwd(first_two)(x).numpy(), np.eye(3)[:2])
    expected = np.array([ts[0], 2 * xs[1] * ts[1], 0.0])            # z = [x0, x1 * x1, 0 * x2]
    np.testing.assert_allclose(jvp(overlapping, (x,), (t,))[1].numpy(), expected, rtol=1e-12)
    jac = np.zeros((2, 3, 3))
    jac[0, 0, 0] = jac[1, 0, 1] = jac[0, 1, 1] = jac[1, 1, 2] = 1.0
    np.testing.assert_allclose(jacfwd(rows_of_a_transpose)(x).numpy(), jac)


def test_composite_with_a_vmap_rule_under_forward_ad_in_a_fresh_process() -> None:
    """softmax/narrow/linear are composites with vmap rules: their forward-AD kernel loads them lazily."""
    import subprocess
    import sys
    program = ("import torch\nfrom torch.func import jvp, vmap\n"
               "x = torch.arange(12., dtype=torch.float64).reshape(3, 4) / 10\n"
               "out = vmap(lambda a, t: jvp(lambda u: u.softmax(0).narrow(0, 1, 2), (a,), (t,))[1])(x, x)\n"
               "print(tuple(out.shape))\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(3, 2)"


def test_an_input_that_is_self_of_an_in_place_op_is_saved_before_the_write() -> None:
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
    y = x * 1
    y.mul_(y)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch.autograd.grad(y.sum(), x)


def test_vmap_of_jvp_of_dropout_draws_per_example() -> None:
    torch.manual_seed(0)
    xs = torch.arange(1.0, 13.0, dtype=torch.float64).reshape(3, 2, 2)
    out, tangent = vmap(lambda a, b: jvp(lambda u: torch.nn.functional.dropout(u, 0.5), (a,), (b,)),
                        randomness="different")(xs, xs)
    np.testing.assert_allclose(out.numpy(), tangent.numpy())        # the same mask for the value and the tangent
    feature = vmap(lambda a, b: jvp(lambda u: torch.nn.functional.dropout1d(u, 0.5), (a,), (b,))[1],
                   randomness="different")(xs, xs)
    assert feature.shape == (3, 2, 2)
