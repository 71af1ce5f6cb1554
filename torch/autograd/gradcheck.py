"""gradcheck and gradgradcheck: compare autograd's gradients with finite differences (PyTorch's
torch/autograd/gradcheck.py, slow mode).

Each input that requires grad is perturbed element by element (+eps and -eps, central
differences) to build the numerical Jacobian; the analytical one comes from one backward per
output element. float64 inputs make the comparison meaningful, as in PyTorch. A function of complex tensors is checked
as the real function of their real and imaginary parts (`_realified`): under PyTorch's conjugate-
Wirtinger convention autograd's gradient through view_as_complex / view_as_real is that function's
real gradient, so every complex formula it crosses is checked, as PyTorch's slow mode checks
both Wirtinger derivatives."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from aten.dispatcher import find_operator
from c10.tensor_impl import TensorImpl
from torch.autograd._backward import grad
from torch.autograd.grad_mode import enable_grad, no_grad

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]

_randn_like = find_operator("randn_like")
_view_as_real = find_operator("view_as_real")
_view_as_complex = find_operator("view_as_complex")


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when the gradients do not match."""


def _as_tuple(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


def _is_tensor(value: Any) -> bool:
    return isinstance(value, TensorImpl)


def _differentiable(values: tuple[Any, ...]) -> list[Any]:
    return [v for v in values if _is_tensor(v) and v.requires_grad]


def _outputs(func: Callable[..., Any], inputs: tuple[Any, ...]) -> list[Any]:
    return [o for o in _as_tuple(func(*inputs)) if _is_tensor(o) and (o.dtype.is_floating_point or o.dtype.is_complex)]


def _is_complex(value: Any) -> bool:
    return _is_tensor(value) and value.dtype.is_complex


def _realified(func: Callable[..., Any], inputs: tuple[Any, ...]) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """func over the (..., 2) real views of its complex inputs, returning real views of its complex
    outputs; the complex inputs replaced by such real leaves."""
    was_complex = [_is_complex(x) for x in inputs]
    if not any(was_complex) and not any(_is_complex(o) for o in _as_tuple(func(*inputs))):
        return func, inputs
    real_inputs = tuple(_view_as_real(x.detach()).clone().requires_grad_(x.requires_grad) if c else x
                        for x, c in zip(inputs, was_complex))

    def realified(*args: Any) -> tuple[Any, ...]:
        outs = func(*(_view_as_complex(a) if c else a for a, c in zip(args, was_complex)))
        return tuple(_view_as_real(o) if _is_complex(o) else o for o in _as_tuple(outs))
    return realified, real_inputs


def _numerical_jacobians(func: Callable[..., Any], inputs: tuple[Any, ...], eps: float) -> list[list[np.ndarray]]:
    """[input][output] -> (input numel, output numel) central-difference Jacobians."""
    jacobians = []
    for x in _differentiable(inputs):
        data = x.detach().numpy()     # writes go to x's memory, as PyTorch's perturbation of x.data
        flat_index = list(np.ndindex(data.shape)) if data.ndim else [()]
        per_output: list[np.ndarray] | None = None
        for row, idx in enumerate(flat_index):
            original = data[idx].item()
            with no_grad():
                data[idx] = original + eps
                plus = [o.detach().numpy().astype(np.float64).ravel().copy() for o in _outputs(func, inputs)]
                data[idx] = original - eps
                minus = [o.detach().numpy().astype(np.float64).ravel().copy() for o in _outputs(func, inputs)]
                data[idx] = original
            if per_output is None:
                per_output = [np.zeros((len(flat_index), p.size)) for p in plus]
            for k, (p, m) in enumerate(zip(plus, minus)):
                per_output[k][row] = (p - m) / (2 * eps)
        jacobians.append(per_output or [])
    return jacobians


def _analytical_jacobians(func: Callable[..., Any], inputs: tuple[Any, ...]) -> list[list[np.ndarray]]:
    diff_inputs = _differentiable(inputs)
    outputs = _outputs(func, inputs)
    result = [[np.zeros((x.numel(), o.numel())) for o in outputs] for x in diff_inputs]
    for k, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        for m in range(out.numel()):
            seed = np.zeros(out.numel(), dtype=out.dtype.numpy_dtype)
            seed[m] = 1
            from c10.tensor_impl import from_numpy
            grads = grad(out, diff_inputs, from_numpy(seed.reshape(tuple(out.shape))), retain_graph=True,
                         allow_unused=True)
            for i, g in enumerate(grads):
                if g is not None:
                    result[i][k][:, m] = g.detach().numpy().astype(np.float64).ravel()
    return result


def _forward_jacobians(func: Callable[..., Any], inputs: tuple[Any, ...]) -> list[list[np.ndarray]]:
    """[input][output] -> (input numel, output numel) Jacobians by forward-mode AD: one jvp per input element, along
    that element's unit tangent (the other inputs' tangents zero)."""
    from c10.tensor_impl import from_numpy
    from torch.autograd import forward_ad
    diff_inputs = _differentiable(inputs)
    result: list[list[np.ndarray]] = []
    for x in diff_inputs:
        per_output: list[np.ndarray] | None = None
        for m in range(x.numel()):
            seed = np.zeros(x.numel(), dtype=x.dtype.numpy_dtype)
            seed[m] = 1
            with forward_ad.dual_level(), no_grad():
                duals = tuple(forward_ad.make_dual(v.detach(), from_numpy(seed.reshape(tuple(x.shape))) if v is x
                                                   else v.detach().new_zeros(v.shape))
                              if _is_tensor(v) and v.requires_grad else v for v in inputs)
                outs = _outputs(func, duals)
                columns = []
                for o in outs:
                    t = forward_ad.unpack_dual(o).tangent
                    columns.append(np.zeros(o.numel()) if t is None
                                   else t.detach().numpy().astype(np.float64).ravel().copy())
            if per_output is None:
                per_output = [np.zeros((x.numel(), c.size)) for c in columns]
            for k, c in enumerate(columns):
                per_output[k][m] = c
        result.append(per_output or [])
    return result


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """True when the analytical Jacobian of func at inputs matches the numerical one (for each
    input that requires grad and each floating output)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    inputs = _as_tuple(inputs)
    func, inputs = _realified(func, inputs)
    if not _differentiable(inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them have "
                         "requires_grad=True.")
    for x in _differentiable(inputs):
        if x.dtype.name != "float64":
            import warnings
            warnings.warn(f"Input #{inputs.index(x)} requires gradient and is not a double precision floating point. "
                          "This check will likely fail if all the inputs are not of double precision floating point. ",
                          UserWarning, stacklevel=2)
    numerical = _numerical_jacobians(func, inputs, eps)
    checks = []
    if check_backward_ad:
        checks.append(("", _analytical_jacobians(func, inputs)))
    if check_forward_ad:
        checks.append(("computed with forward mode ", _forward_jacobians(func, inputs)))
    for mode, analytical in checks:
        for i, (num_row, ana_row) in enumerate(zip(numerical, analytical)):
            for k, (n, a) in enumerate(zip(num_row, ana_row)):
                if not np.allclose(a, n, rtol=rtol, atol=atol):
                    if not raise_exception:
                        return False
                    raise GradcheckError(f"Jacobian {mode}mismatch for output {k} with respect to input {i},\n"
                                         f"numerical:{n}\nanalytical:{a}\n")
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the gradients themselves: backward with create_graph=True must be differentiable."""
    inputs = _as_tuple(inputs)
    func, inputs = _realified(func, inputs)
    n_inputs = len(inputs)
    if grad_outputs is None:
        grad_outputs = tuple(_randn_like(o).requires_grad_() for o in _outputs(func, inputs) if o.requires_grad)
    grad_outputs = _as_tuple(grad_outputs)

    def first_order(*args: Any) -> tuple[Any, ...]:
        primals, seeds = args[:n_inputs], args[n_inputs:]
        with enable_grad():      # gradcheck evaluates it under no_grad for the numerical Jacobian
            outs = [o for o in _outputs(func, primals) if o.requires_grad]
            grads = grad(outs, _differentiable(primals), seeds, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
