"""grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd and hessian (torch.func), on the reverse-mode engine.

A transform runs the function on its own copies of the differentiated inputs: a fresh leaf for a tensor
nothing else differentiates, a view for one that requires grad already (an outer transform's input, or
the user's leaf), so an enclosing transform or `backward()` differentiates through the inner one's
results. The gradients are made with create_graph while grad mode is on around the call, which is what
makes grad(grad(f)) and jacfwd(jacrev(f)) work. A result whose graph reaches only the transform's own
leaves is detached on the way out, as PyTorch's unwrapping leaves it: nothing outside could
differentiate it.

jvp and jacfwd run forward-mode AD (torch/csrc/autograd/forward_grad.py) at a level of their own, so they nest
and compose with the reverse-mode transforms: a transform's copies of dual inputs keep their tangents, and so do
its results (hessian is jacfwd of jacrev: forward over reverse). linearize computes its products by the double-vjp
trick: the vjp's gradient is linear in its cotangent, so differentiating it with respect to a zero cotangent along
a tangent gives the Jacobian-vector product without running func again. The Jacobians take every row's vjp
(jacrev) or every column's jvp (jacfwd) at once, vmapped over the identity's rows, as PyTorch's."""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from torch._tensor import Tensor
from torch.autograd._backward import grad as _autograd_grad
from torch.autograd.functional import standard_basis
from torch.csrc.autograd import forward_grad
from torch.autograd.grad_mode import enable_grad, is_grad_enabled
from torch.utils._pytree import tree_flatten, tree_map, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian"]


def _zeros_like(t: Tensor) -> Tensor:
    import torch
    return torch.zeros_like(t)


def _check_argnums(argnums: Any, count: int) -> tuple[int, ...]:
    """argnums as a tuple of non-negative positions, with PyTorch's errors."""
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        items: tuple[Any, ...] = (argnums,)
    elif isinstance(argnums, tuple):
        if not argnums:
            raise RuntimeError("argnums must be non-empty")
        for a in argnums:
            if not isinstance(a, int) or isinstance(a, bool):
                raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if len(set(argnums)) != len(argnums):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        items = argnums
    else:
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    for a in items:
        if not -count <= a < count:
            raise RuntimeError(f"Got argnum={a}, but only {count} positional inputs")
    return tuple(a % count for a in items)


def _own(value: Any) -> Tensor:
    """The transform's copy of one differentiated input (see the module docstring)."""
    if not isinstance(value, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(value)}")
    if value.requires_grad:
        return value.view_as(value)
    return _detached(value).requires_grad_()


def _detached(value: Tensor) -> Tensor:
    """value.detach(), keeping its forward-mode tangents (an enclosing jvp's: reverse mode's business ends here,
    forward mode's does not)."""
    out = value.detach()
    forward_grad.copy_tangents(value, out)
    return out


def _own_argnums(args: tuple[Any, ...], argnums: Any) -> tuple[tuple[Any, ...], Any]:
    """args with the differentiated ones replaced by the transform's copies, and those copies: one pytree
    for an int argnums, a tuple of pytrees for a tuple."""
    positions = _check_argnums(argnums, len(args))
    owned = {p: tree_map(_own, args[p]) for p in positions}
    new_args = tuple(owned.get(i, a) for i, a in enumerate(args))
    return new_args, (owned[positions[0]] if isinstance(argnums, int) else tuple(owned[p] for p in positions))


class _Scope:
    """The leaves a transform made, and whether its results must stay differentiable (grad mode was on)."""

    def __init__(self, leaves: Sequence[Tensor], differentiable: bool) -> None:
        self.leaves = {id(t) for t in leaves if t.grad_fn is None}
        self.differentiable = differentiable

    def release(self, value: Any) -> Any:
        """value as the caller gets it: detached unless its graph reaches a leaf this transform did not make; its
        forward-mode tangents (an enclosing jvp's) likewise."""
        if not isinstance(value, Tensor):
            return value
        if value.requires_grad and not (self.differentiable and self._reaches_outside(value)):
            value = _detached(value)
        for level, tangent in forward_grad.tangents(value).items():
            released = self.release(tangent)
            if released is not tangent:
                forward_grad.set_tangent(value, released, level)
        return value

    def release_tree(self, tree: Any) -> Any:
        return tree_map(self.release, tree)

    def _reaches_outside(self, value: Tensor) -> bool:
        if value.grad_fn is None:
            return id(value) not in self.leaves
        seen: set[int] = set()
        stack = [value.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            variable = getattr(node, "variable", None)       # an AccumulateGrad: a leaf
            if variable is not None:
                if id(variable) not in self.leaves:
                    return True
                continue
            stack.extend(next_node for next_node, _ in node.next_functions)
        return False


def _vjp(outputs: Sequence[Tensor], inputs: Sequence[Tensor], cotangents: Sequence[Any],
         create_graph: bool = True) -> list[Tensor]:
    """d(outputs . cotangents)/d(inputs), zeros where an input does not reach the outputs."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return [_zeros_like(t) for t in inputs]
    got = _autograd_grad([o for o, _ in pairs], list(inputs), [c for _, c in pairs], retain_graph=True,
                         create_graph=create_graph, allow_unused=True)
    return [_zeros_like(t) if g is None else g for g, t in zip(got, inputs)]


def _split_aux(output: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    return output[0], output[1]


def _tensor_outputs(output: Any, api: str, message: str = "") -> tuple[list[Tensor], Any]:
    flat, spec = tree_flatten(output)
    for o in flat:
        if not isinstance(o, Tensor):
            raise RuntimeError(message.format(type(o)) if message else
                               f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")
    return flat, spec


def _run_owned(func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], argnums: Any,
               has_aux: bool, outer: bool, api: str) -> tuple[Any, Any, list[Tensor], Any, _Scope]:
    """func run on the transform's copies of args[argnums] (grad mode on): its output and aux, the copies
    flattened with their structure, and the transform's scope."""
    scope_args, owned = _own_argnums(args, argnums)
    flat_owned, owned_spec = tree_flatten(owned)
    scope = _Scope(flat_owned, outer)
    output, aux = _split_aux(func(*scope_args, **kwargs), has_aux, api)
    return output, aux, flat_owned, owned_spec, scope


def grad_and_value(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False) -> Callable[..., Any]:
    """A function returning (the gradient of func's scalar output with respect to args[argnums], the
    output); with has_aux, func returns (output, aux) and the result is (gradient, (output, aux))."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        outer = is_grad_enabled()
        with enable_grad():
            output, aux, flat_owned, owned_spec, scope = _run_owned(func, args, kwargs, argnums, has_aux, outer,
                                                                    "grad_and_value(f)(*args)")
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a Tensor, "
                                   f"got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
                                   f"with {output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            grads = _vjp([output], flat_owned, [None], scope.differentiable)
        result = tree_unflatten([scope.release(g) for g in grads], owned_spec)
        value = scope.release(output)
        return (result, (value, scope.release_tree(aux))) if has_aux else (result, value)
    return wrapper


def grad(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False) -> Callable[..., Any]:
    """A function returning the gradient of func's scalar output with respect to args[argnums] (and aux)."""
    inner = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        gradients, value = inner(*args, **kwargs)
        return (gradients, value[1]) if has_aux else gradients
    return wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives the vector-Jacobian product, one entry per
    primal, cotangents shaped as the output."""
    outer = is_grad_enabled()
    with enable_grad():
        owned = tree_map(_own, primals)
        flat_primals, primals_spec = tree_flatten(owned)
        scope = _Scope(flat_primals, outer)
        output, aux = _split_aux(func(*owned), has_aux, "vjp(f, *primals)")
        flat_out, out_spec = _tensor_outputs(output, "vjp(f, *primals)")
    _floating_outputs(flat_out)

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None) -> Any:
        flat_cot, cot_spec = tree_flatten(cotangents)
        if cot_spec != out_spec:
            from torch.utils._pytree import treespec_pprint
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {treespec_pprint(cot_spec)}, "
                               f"primal output: {treespec_pprint(out_spec)}")
        with enable_grad():
            grads = _vjp(flat_out, flat_primals, flat_cot, scope.differentiable)
        return tree_unflatten([scope.release(g) for g in grads], primals_spec)

    released = scope.release_tree(output)
    return (released, vjp_fn, scope.release_tree(aux)) if has_aux else (released, vjp_fn)


def _floating_outputs(flat_out: list[Tensor]) -> None:
    for o in flat_out:
        if not (o.is_floating_point() or o.is_complex()):
            raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor "
                               f"with dtype {o.dtype}")


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False) -> Any:
    """(func(*primals), the Jacobian-vector product along tangents[, aux]), by forward-mode AD."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    flat_tangents = _matching_tangents(primals, tangents)
    flat_primals, primals_spec = tree_flatten(primals)
    for what, values in (("primal", flat_primals), ("tangent", flat_tangents)):
        for v in values:
            if not (v.is_floating_point() or v.is_complex()):
                raise ValueError(f"Expected {what} to be floating point or complex, but got: {v.dtype}")
    level = forward_grad.enter_level()
    try:
        duals = [forward_grad.make_dual(p, t, level) for p, t in zip(flat_primals, flat_tangents)]
        output, aux = _split_aux(func(*tree_unflatten(duals, primals_spec)), has_aux, api)
        flat_out, out_spec = _tensor_outputs(output, api)
        if not flat_out or (len(flat_out) == 1 and flat_out[0] is None):
            raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = "
                               f"{flat_out})")
        products = [forward_grad.tangent(o, level) for o in flat_out]
        if has_aux:
            _tensor_outputs(aux, api, "Expected tensors, got unsupported type {}")
    finally:
        forward_grad.exit_levels_above(level)        # those func left entered when it raised
        forward_grad.exit_level(level)       # the outputs keep their values, and lose this level's tangents
    if strict and any(t is None for t in products):
        raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. "
                           "This is not allowed with strict=True.")
    products = [_zeros_like(o) if t is None else t for o, t in zip(flat_out, products)]
    result = (tree_unflatten(flat_out, out_spec), tree_unflatten(products, out_spec))
    return (*result, aux) if has_aux else result


def _matching_tangents(primals: tuple[Any, ...], tangents: Any) -> list[Tensor]:
    flat_primals, primals_spec = tree_flatten(primals)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    for what, values in (("primals", flat_primals), ("tangents", flat_tangents)):
        if not values:
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {what} to contain at least one Tensor.")
        for v in values:
            if not isinstance(v, Tensor):
                raise RuntimeError(f"jvp(f, primals, tangents): Expected {what} to only contain Tensors, got {type(v)}")
    if primals_spec != tangents_spec:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {primals_spec!r} and tangents with structure {tangents_spec!r}")
    for p, t in zip(flat_primals, flat_tangents):
        if isinstance(p, Tensor) and isinstance(t, Tensor) and p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(p.shape)} while the given "
                               f"forward gradient is of size {list(t.shape)}.")
    return flat_tangents


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """(func(*primals), jvp_fn): jvp_fn(*tangents) gives the jvp at primals without running func again, as PyTorch's:
    the jvp is traced once at the operator level (make_fx), the part that reads only the primals computed then
    (constant folding), and jvp_fn runs the rest: the tangents' ops."""
    from torch.fx.experimental.proxy_tensor import make_fx
    output = func(*primals)
    output_spec = tree_flatten(output)[1]
    flat_primals, primals_spec = tree_flatten(primals)

    def trace(*flat_tangents: Tensor) -> Any:
        _, products = jvp(func, primals, tree_unflatten(list(flat_tangents), primals_spec))
        return tuple(tree_flatten(products)[0])
    graph = _fold_constants(make_fx(trace)(*[_zeros_like(p) for p in flat_primals]))
    meta = [(tuple(p.shape), p.device, p.dtype) for p in flat_primals]

    def jvp_fn(*tangents: Any) -> Any:
        flat_tangents, spec = tree_flatten(tangents)
        if spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {spec!r} to have the same argspec as the primals "
                               f"{primals_spec!r}")
        for i, (t, (shape, device, dtype)) in enumerate(zip(flat_tangents, meta)):
            for what, got, want in (("shape", tuple(t.shape), shape), ("device", t.device, device),
                                    ("dtype", t.dtype, dtype)):
                if got != want:
                    shown = t.shape if what == "shape" else got
                    raise RuntimeError(f"tangent:{i} with {what} {shown} in flattened pytree doesn't match the "
                                       f"{what} {want if what != 'shape' else flat_primals[i].shape} of the "
                                       "corresponding primal.")
        return tree_unflatten(list(graph(*flat_tangents)), output_spec)

    return output, jvp_fn


def _fold_constants(gm: Any) -> Any:
    """gm with every node that reads no placeholder computed now and kept as an attribute (PyTorch's linearize
    folds the primal computations of its traced jvp so)."""
    from torch.fx.node import map_arg
    graph = gm.graph
    values: dict[Any, Any] = {}
    for node in graph.nodes:
        if node.op == "get_attr":
            values[node] = getattr(gm, node.target)
        elif node.op == "call_function" and all(n in values for n in node.all_input_nodes):
            values[node] = node.target(*map_arg(node.args, values.__getitem__),
                                       **map_arg(node.kwargs, values.__getitem__))
    for k, node in enumerate([n for n in values if n.op == "call_function"
                              and any(user not in values for user in n.users)]):
        name = f"_folded_constant{k}"
        gm.register_buffer(name, values[node])
        with graph.inserting_before(node):
            node.replace_all_uses_with(graph.get_attr(name))
    graph.eliminate_dead_code()
    gm.recompile()
    return gm


def jacrev(func: Callable[..., Any], argnums: Any = 0, *, has_aux: bool = False, chunk_size: int | None = None,
           _preallocate_and_copy: bool = False) -> Callable[..., Any]:
    """A function returning the Jacobian of func with respect to args[argnums], the vjps of every output element
    at once (vmap, in chunks of chunk_size): for each output leaf, shaped output.shape + input.shape, structured
    as the inputs."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        outer = is_grad_enabled()
        with enable_grad():
            output, aux, flat_in, in_spec, scope = _run_owned(func, args, kwargs, argnums, has_aux, outer,
                                                              "vjp(f, *primals)")
            flat_out, out_spec = _tensor_outputs(output, "vjp(f, *primals)")
            _floating_outputs(flat_out)
            per_output = []
            for o in flat_out:
                # every row's vjp at once: vmap over the rows of the identity, as PyTorch's jacrev
                def row(c: Tensor, o: Tensor = o) -> tuple[Tensor, ...]:
                    return tuple(_vjp([o], flat_in, [c], scope.differentiable))
                rows = _vmapped(row, _identity(o), chunk_size)
                per_output.append(tree_unflatten([_rows_as_jacobian(rows[j] if rows else None, o, x)
                                                  for j, x in enumerate(flat_in)], in_spec))
        jac = scope.release_tree(tree_unflatten(per_output, out_spec))
        return (jac, scope.release_tree(aux)) if has_aux else jac
    return wrapper


def _identity(like: Tensor) -> Tensor:
    """The basis of like's elements, one per row: shaped (like.numel(),) + like.shape."""
    import torch
    n = like.numel()
    return torch.eye(n, dtype=like.dtype, device=like.device).reshape((n,) + tuple(like.shape))


def _vmapped(fn: Callable[[Tensor], tuple[Tensor, ...]], basis: Tensor, chunk_size: int | None) -> tuple[Tensor, ...]:
    """fn over the rows of basis (a tuple of results, each stacked over the rows); no rows, no calls."""
    from torch._functorch.vmap import vmap
    if basis.shape[0] == 0:
        return ()
    return tuple(vmap(fn, chunk_size=chunk_size)(basis))


def _rows_as_jacobian(rows: Tensor | None, output: Tensor, input: Tensor) -> Tensor:
    if rows is None:
        return input.new_zeros(tuple(output.shape) + tuple(input.shape))
    return rows.reshape(tuple(output.shape) + tuple(input.shape))


def jacfwd(func: Callable[..., Any], argnums: Any = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """A function returning the Jacobian of func with respect to args[argnums]: the jvps along every input element
    at once (vmap over the standard basis of all the differentiated inputs together, as PyTorch's)."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if randomness not in ("error", "different", "same"):
            raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. "
                               f"Got {randomness}")
        positions = _check_argnums(argnums, len(args))
        primals = tuple(args[p] for p in positions)
        flat_primals, primals_spec = tree_flatten(primals)
        for i, p in enumerate(flat_primals):
            if not isinstance(p, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(p)}")
            if p.is_complex():
                raise RuntimeError(f"jacfwd: Expected all inputs to be real but received complex tensor at flattened "
                                   f"input idx: {i}")
        numels = [p.numel() for p in flat_primals]
        basis = standard_basis(flat_primals)

        def column(*flat_basis: Tensor) -> tuple[Any, ...]:
            def f(*owned: Any) -> Any:
                return func(*_place(args, positions, owned), **kwargs)
            out = jvp(f, primals, tree_unflatten(list(flat_basis), primals_spec), has_aux=has_aux)
            for i, o in enumerate(tree_flatten(out[0])[0]):
                if o.is_complex():
                    raise RuntimeError(f"jacfwd: Expected all outputs to be real but received complex tensor at "
                                       f"flattened input idx: {i}")
            return (out[1], out[2]) if has_aux else (out[1],)

        from torch._functorch.vmap import vmap
        # every column's output dim 0 (a random draw may differ per column), aux read from the first column
        columns = vmap(column, randomness=randomness)(*basis)
        flat_columns, out_spec = tree_flatten(columns[0])
        per_output = []
        for c in flat_columns:
            leaves = [part.movedim(0, -1).reshape(tuple(c.shape[1:]) + tuple(x.shape))
                      for part, x in zip(c.split(numels, dim=0), flat_primals)]
            tree = tree_unflatten(leaves, primals_spec)
            per_output.append(tree[0] if isinstance(argnums, int) else tree)
        jac = tree_unflatten(per_output, out_spec)
        if has_aux:
            return jac, tree_map(lambda a: a[0] if isinstance(a, Tensor) else a, columns[1])
        return jac
    return wrapper


def _place(args: tuple[Any, ...], positions: tuple[int, ...], values: tuple[Any, ...]) -> tuple[Any, ...]:
    replaced = dict(zip(positions, values))
    return tuple(replaced.get(i, a) for i, a in enumerate(args))


def hessian(func: Callable[..., Any], argnums: Any = 0) -> Callable[..., Any]:
    """The Hessian of func's scalar output with respect to args[argnums]: jacfwd of jacrev, as PyTorch."""
    return jacfwd(jacrev(func, argnums), argnums)
