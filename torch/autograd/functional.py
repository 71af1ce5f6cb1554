"""torch.autograd.functional: vjp, jvp, jacobian, hessian, vhp, hvp of a function of tensors
(PyTorch's torch/autograd/functional.py: reverse mode, jvp by the double-vjp trick as upstream, and the
vectorized forward-mode jacobian on torch.autograd.forward_ad).

Inputs and outputs may be one tensor or a tuple of tensors; results keep that structure."""
from __future__ import annotations

from typing import Any, Callable

from aten.dispatcher import find_operator
from c10.tensor_impl import TensorImpl
from torch.autograd._backward import grad
from torch.autograd.grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]

_zeros_like = find_operator("zeros_like")
_eye = find_operator("eye")
_stack = find_operator("stack")
_zeros = find_operator("zeros")


def _as_tuple(value: Any, what: str, fn_name: str) -> tuple[bool, tuple[Any, ...]]:
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, TensorImpl):
            if is_tuple:
                raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                                f"value at index {i} has type {type(v)}.")
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but the "
                            f"given {what} has type {type(v)}.")
    return is_tuple, values


def _prepare(inputs: tuple[Any, ...], create_graph: bool) -> tuple[Any, ...]:
    """Inputs that require grad, detached from the caller's graph unless create_graph."""
    out: list[Any] = []
    for x in inputs:
        t: Any = x if (create_graph and x.requires_grad) else x.detach()
        out.append(t.requires_grad_(True) if not t.requires_grad else t)
    return tuple(out)


def _grad(outputs: tuple[Any, ...], inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...],
          create_graph: bool) -> tuple[Any, ...]:
    diff = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not diff:
        return (None,) * len(inputs)
    return tuple(grad([o for o, _ in diff], inputs, [g for _, g in diff], create_graph=create_graph,
                      retain_graph=True, allow_unused=True))


def _fill(grads: tuple[Any, ...], like: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(_zeros_like(x) if g is None else g for g, x in zip(grads, like))


def _detach(values: tuple[Any, ...], create_graph: bool) -> tuple[Any, ...]:
    return values if create_graph else tuple(v.detach() if v is not None else None for v in values)


def _unwrap(is_tuple: bool, values: tuple[Any, ...]) -> Any:
    return values if is_tuple else values[0]


def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), v^T J): the vector-Jacobian product at inputs."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "vjp")
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "vjp")
        if v is None:
            if len(outs) != 1 or outs[0].numel() != 1:
                raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                                   "Tensor with a single element.")
            vs: tuple[Any, ...] = (_zeros_like(outs[0]) + 1,)
        else:
            _, vs = _as_tuple(v, "v", "vjp")
        grads = _grad(outs, xs, vs, create_graph)
    return _unwrap(out_tuple, _detach(outs, create_graph)), _unwrap(in_tuple, _detach(_fill(grads, xs), create_graph))


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), J v): the Jacobian-vector product, by differentiating a vjp in its vector."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "jvp")
    if v is None:
        if len(xs) != 1 or xs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided function is a single "
                               "Tensor with a single element.")
        vs: tuple[Any, ...] = (_zeros_like(xs[0]) + 1,)
    else:
        _, vs = _as_tuple(v, "v", "jvp")
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "jvp")
        dummies = tuple(_zeros_like(o).requires_grad_(True) for o in outs)
        grads = _fill(_grad(outs, xs, dummies, True), xs)
        result = _grad(grads, dummies, vs, create_graph)
    return _unwrap(out_tuple, _detach(outs, create_graph)), _unwrap(out_tuple, _detach(_fill(result, outs),
                                                                                        create_graph))


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """d func(inputs) / d inputs: for each output and input, a tensor of shape out.shape + in.shape."""
    _check_strategy(strategy, vectorize)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      "`strategy=\"forward-mode\"` are not supported together (yet). Please either "
                                      "set `create_graph=False` or `strategy=\"reverse-mode\"`.")
        return _jacfwd(func, inputs, strict)
    in_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function", "jacobian")
        blocks: list[tuple[Any, ...]] = []
        for out in outs:
            flat = out.reshape(-1)
            if vectorize:
                blocks.append(_vectorized_rows(flat, out, xs, create_graph))
                continue
            rows: list[list[Any]] = [[] for _ in xs]
            for k in range(flat.numel()):
                seed = _zeros_like(flat)
                seed[k] = 1
                grads = _fill(_grad((flat,), xs, (seed,), create_graph), xs)
                for i, g in enumerate(grads):
                    rows[i].append(g)
            per_input = []
            for i, x in enumerate(xs):
                stacked = _stack(rows[i], 0) if rows[i] else _zeros_like(x).reshape(0, *x.shape)
                per_input.append(_detach((stacked.reshape(tuple(out.shape) + tuple(x.shape)),), create_graph)[0])
            blocks.append(tuple(per_input))
    return _shaped(blocks, out_tuple, in_tuple)


def _jacfwd(func: Callable[..., Any], inputs: Any, strict: bool) -> Any:
    """jacobian(strategy="forward-mode", vectorize=True): one jvp per input element, all at once (vmap over the
    standard basis of the inputs), at a forward AD level."""
    from torch.autograd import _backward, forward_ad
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `strategy=\"forward-mode\"` are not "
                           "supported together (yet). Please either set `strict=False` or "
                           "`strategy=\"reverse-mode\"`.")
    in_tuple, xs = _as_tuple(inputs, "inputs", "jacobian")
    numels = [x.numel() for x in xs]
    basis = standard_basis(xs)
    info: list[Any] = []

    def columns(*tangents: Any) -> tuple[Any, ...]:
        with forward_ad.dual_level():
            duals = tuple(forward_ad.make_dual(x, t) for x, t in zip(xs, tangents))
            out_tuple, outs = _as_tuple(func(*duals), "outputs of the user-provided function", "jacobian")
            unpacked = [forward_ad.unpack_dual(o) for o in outs]
            info[:] = [out_tuple, [u.primal for u in unpacked]]
            return tuple(_zeros_like(u.primal) if u.tangent is None else u.tangent for u in unpacked)

    stacked = _backward._vmap(columns, *basis)
    out_tuple, outs = info
    blocks = [tuple(c.movedim(0, -1).reshape(tuple(o.shape) + tuple(x.shape)).detach()
                    for c, x in zip(jac.split(numels, dim=0), xs)) for jac, o in zip(stacked, outs)]
    return _shaped(blocks, out_tuple, in_tuple)


def _shaped(blocks: list[tuple[Any, ...]], out_tuple: bool, in_tuple: bool) -> Any:
    """[output][input] Jacobian blocks, structured as the outputs and inputs were (a tensor or a tuple each)."""
    if not out_tuple and not in_tuple:
        return blocks[0][0]
    if not out_tuple:
        return blocks[0]
    if not in_tuple:
        return tuple(b[0] for b in blocks)
    return tuple(blocks)


def standard_basis(xs: Any) -> list[Any]:
    """For each of xs, its rows of the identity over all their elements together: shaped (total,) + x.shape (the
    tangents of a forward-mode Jacobian, one column per row, as PyTorch's _construct_standard_basis_for)."""
    numels = [x.numel() for x in xs]
    total = sum(numels)
    basis: list[Any] = []
    start = 0
    for x, n in zip(xs, numels):
        rows = _zeros((total, n), dtype=x.dtype, device=x.device)
        rows[start:start + n] = _eye(n, dtype=x.dtype, device=x.device)
        basis.append(rows.reshape((total,) + tuple(x.shape)))
        start += n
    return basis


def _check_strategy(strategy: str, vectorize: bool) -> None:
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function '
                             'has more outputs than inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode" and not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
                                  "implemented for `vectorize=True`.")


def _vectorized_rows(flat: Any, out: Any, xs: tuple[Any, ...], create_graph: bool) -> tuple[Any, ...]:
    """jacobian(vectorize=True): every row's vjp in one backward pass over the identity's rows (vmap)."""
    n = flat.numel()
    shapes = [tuple(out.shape) + tuple(x.shape) for x in xs]
    if n == 0 or not flat.requires_grad:
        return tuple(_detach((x.new_zeros(shape),), create_graph)[0] for x, shape in zip(xs, shapes))
    basis = _eye(n, dtype=flat.dtype, device=flat.device)
    rows = grad((flat,), xs, (basis,), retain_graph=True, create_graph=create_graph, allow_unused=True,
                is_grads_batched=True)
    return tuple(_detach((x.new_zeros(shape) if r is None else r.reshape(shape),), create_graph)[0]
                 for r, x, shape in zip(rows, xs, shapes))


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a scalar function: the jacobian of its gradient."""
    _check_strategy(outer_jacobian_strategy, vectorize)
    in_tuple, xs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*args: Any) -> Any:
        # forward-mode hands its dual inputs as they are: they must require grad for the inner gradient
        args = tuple(a if a.requires_grad else a.requires_grad_(True) for a in args)
        with enable_grad():
            out = func(*args)
            if not isinstance(out, TensorImpl) or out.numel() != 1:
                raise RuntimeError("The function given to hessian should return a single Tensor with a single "
                                   "element.")
            return _unwrap(in_tuple, _fill(_grad((out,), args, (_zeros_like(out) + 1,), True), args))

    return jacobian(gradient, inputs, create_graph=create_graph, vectorize=vectorize,
                    strategy=outer_jacobian_strategy)


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), v^T H) for a scalar function."""
    in_tuple, xs = _as_tuple(inputs, "inputs", "vhp")
    _, vs = _as_tuple(v, "v", "vhp")
    with enable_grad():
        xs = _prepare(xs, create_graph)
        out = func(*xs)
        if not isinstance(out, TensorImpl) or out.numel() != 1:
            raise RuntimeError("The function given to vhp should return a single Tensor with a single element.")
        grads = _fill(_grad((out,), xs, (_zeros_like(out) + 1,), True), xs)
        result = _fill(_grad(grads, xs, vs, create_graph), xs)
    return _detach((out,), create_graph)[0], _unwrap(in_tuple, _detach(result, create_graph))


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """(func(inputs), H v); H is symmetric, so this is vhp."""
    return vhp(func, inputs, v, create_graph, strict)
