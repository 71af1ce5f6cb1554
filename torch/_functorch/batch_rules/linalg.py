"""Batching rules of the matrix products and convolutions: matmul's broadcasting carries the batch (each
batched operand's value gains size-1 batch dims so the vmap's batch lines up), a convolution folds the
batch into its batch of images."""
from __future__ import annotations

from typing import Any

from torch._functorch.batch_rules._call import Call
from torch._functorch.batch_rules.pointwise import padded
from torch._functorch.batched import fallback, front, make_batched, register_rule
from torch._tensor import Tensor


def _as_matrix(value: Any, rank: int, batched: bool, batch_rank: int, row: bool) -> Any:
    """An operand's value as matmul sees it: a vector as a matrix (a row for the left operand, a column for the
    right), and a batched one with size-1 dims after the batch up to batch_rank batch dims."""
    if rank == 1:
        value = value.unsqueeze(-2 if row else -1)
        rank = 2
    if batched:
        pad = batch_rank - (rank - 2)
        if pad > 0:
            shape = tuple(value.shape)
            value = value.view(shape[:1] + (1,) * pad + shape[1:])
    return value


def batched_matmul(a: Tensor, b: Tensor, level: int) -> Any:
    """The value of matmul(a, b) for examples a and b (either batched at level), batch in front."""
    import torch
    va, vb = front(a, level), front(b, level)
    ra, rb = a.dim(), b.dim()
    batch_rank = max(ra, rb, 2) - 2
    ma = _as_matrix(a if va is None else va, ra, va is not None, batch_rank, True)
    mb = _as_matrix(b if vb is None else vb, rb, vb is not None, batch_rank, False)
    result = torch.matmul(ma, mb)
    if rb == 1:
        result = result.squeeze(-1)
    if ra == 1:
        result = result.squeeze(-1 if rb == 1 else -2)
    return result


def _matmul_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """mm, bmm, mv, dot, matmul."""
    c = Call(handle, level, args, kwargs)
    names = c.facts.names
    if c.facts.written:
        return fallback(handle, args, kwargs)
    return make_batched(batched_matmul(c.get(names[0]), c.get(names[1]), level), 0, level)


def _scaled(value: Any, factor: Any) -> Any:
    return value if factor == 1 else value * factor


def _addmm_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """addmm, addmv, baddbmm, addbmm: beta * self + alpha * (mat1 @ mat2)."""
    c = Call(handle, level, args, kwargs)
    if c.facts.written:
        return fallback(handle, args, kwargs)
    names = c.facts.names
    m1, m2 = c.get(names[1]), c.get(names[2])
    if c.batched(m1) or c.batched(m2):
        product = batched_matmul(m1, m2, level)
        if handle.name.startswith("addbmm"):
            product = product.sum(1)
        rank = product.dim() - 1
    else:                   # only self is batched: the product is every example's
        product = torch_matmul(m1, m2)
        if handle.name.startswith("addbmm"):
            product = product.sum(0)
        rank = product.dim()
        product = product.unsqueeze(0)
    self = c.get(names[0])
    bias = padded(self, level, rank)
    beta, alpha = c.get("beta", 1), c.get("alpha", 1)
    if beta == 0:
        size = c.size()
        return make_batched(_scaled(product, alpha).expand((size,) + tuple(product.shape[1:])), 0, level)
    return make_batched(_scaled(product, alpha) + _scaled(bias, beta), 0, level)


def torch_matmul(a: Tensor, b: Tensor) -> Tensor:
    import torch
    return torch.matmul(a, b)


def _linear_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    c = Call(handle, level, args, kwargs)
    x, weight, bias = c.get("input"), c.get("weight"), c.get("bias")
    vw = front(weight, level)
    if vw is None:
        import torch
        vx = front(x, level)
        if vx is None:      # only the bias is batched: the product is every example's
            out = torch.nn.functional.linear(x, weight).unsqueeze(0)
        else:
            out = torch.nn.functional.linear(vx, weight)
    else:
        wt = vw.transpose(-1, -2)
        va = front(x, level)
        ra = x.dim()
        batch_rank = max(ra, 2) - 2
        ma = _as_matrix(x if va is None else va, ra, va is not None, batch_rank, True)
        out = ma.matmul(_as_matrix(wt, 2, True, batch_rank, False))
        if ra == 1:
            out = out.squeeze(-2)
    if bias is not None:
        out = out + padded(bias, level, out.dim() - 1)
    return make_batched(out, 0, level)


def _convolution_rule(handle: Any, level: int, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """conv2d and convolution. Only the input batched: the vmap's batch joins the batch of images. A batched
    weight (an ensemble; a weight gradient, which convolves with the output gradient): one grouped convolution,
    each example's channels a group of their own."""
    c = Call(handle, level, args, kwargs)
    if not set(c.tensors_batched()) <= {"input", "weight", "bias"}:
        return fallback(handle, args, kwargs)
    if c.tensors_batched() != ["input"]:
        return _grouped_convolution(c)
    x, weight = c.get("input"), c.get("weight")
    value = front(x, level)
    size = int(value.shape[0])
    if x.dim() == weight.dim() - 1:
        # an example without a batch of images: the vmap's batch is the batch of images
        c.set("input", value)
        return make_batched(c.run(), 0, level)
    shape = tuple(value.shape)
    c.set("input", value.reshape((size * shape[1],) + shape[2:]))
    out = c.run()
    return make_batched(out.view((size, shape[1]) + tuple(out.shape[1:])), 0, level)


def _grouped_convolution(c: Call) -> Any:
    x, weight, bias = c.get("input"), c.get("weight"), c.get("bias")
    size, level = c.size(), c.level
    spatial = weight.dim() - 2
    no_images = x.dim() == weight.dim() - 1          # an example that is one image, without a batch of them
    vx = front(x, level)
    if vx is None:
        images = x.unsqueeze(0) if no_images else x
        joined = images.repeat((1, size) + (1,) * spatial)                     # (N, B*C, ...)
    else:
        images = vx.unsqueeze(1) if no_images else vx                            # (B, N, C, ...)
        shape = tuple(images.shape)
        joined = images.movedim(0, 1).reshape((shape[1], size * shape[2]) + shape[3:])
    w = c.expanded("weight")
    c.set("input", joined)
    c.set("weight", w.reshape((size * int(w.shape[1]),) + tuple(w.shape[2:])))
    if bias is not None:
        c.set("bias", c.expanded("bias").reshape(-1))
    c.set("groups", c.get("groups", 1) * size)
    out = c.run()                                                                # (N, B*O, ...)
    out = out.view((int(out.shape[0]), size, int(out.shape[1]) // size) + tuple(out.shape[2:]))
    return make_batched(out[0] if no_images else out, 0 if no_images else 1, level)


def register() -> None:
    from aten import dispatcher
    for name in ("mm", "bmm", "mv", "dot", "matmul"):
        if dispatcher.has_operator(name):
            register_rule(name, _matmul_rule)
    for name in ("addmm", "addmv", "baddbmm", "addbmm"):
        if dispatcher.has_operator(name):
            register_rule(name, _addmm_rule)
    register_rule("linear", _linear_rule)
    for name in ("conv1d", "conv2d", "conv3d", "convolution"):
        if dispatcher.has_operator(name):
            register_rule(name, _convolution_rule)
