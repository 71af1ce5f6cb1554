"""PyTorch's functional collectives: each returns a new tensor and leaves its input alone; the group is a
ProcessGroup, a list of global ranks, a DeviceMesh (1-D) or (mesh, mesh dimension). Ember's results are complete
when returned (PyTorch hands back a tensor that waits at first use), so wait_tensor returns its argument. The
_autograd variants carry gradients back through the reverse collective."""
from __future__ import annotations

from typing import Any

import torch
from torch.distributed import collectives
from torch.distributed.c10d_types import ReduceOp

__all__ = ["all_gather_tensor", "all_gather_tensor_autograd", "all_reduce", "all_to_all_single",
           "all_to_all_single_autograd", "broadcast", "reduce_scatter_tensor", "reduce_scatter_tensor_autograd",
           "wait_tensor"]

_OPS = {"sum": ReduceOp.SUM, "avg": ReduceOp.AVG, "product": ReduceOp.PRODUCT, "min": ReduceOp.MIN,
        "max": ReduceOp.MAX, "band": ReduceOp.BAND, "bor": ReduceOp.BOR, "bxor": ReduceOp.BXOR}


def _group(group: Any) -> Any:
    from torch.distributed.device_mesh import DeviceMesh, _group_of
    if isinstance(group, DeviceMesh):
        return group.get_group()
    if isinstance(group, tuple) and len(group) == 2 and isinstance(group[0], DeviceMesh):
        return group[0].get_group(group[1])
    if isinstance(group, list):
        if group and isinstance(group[0], list):
            raise ValueError("functional collectives: a list of rank lists names several groups; give this "
                             "rank's group")
        return _group_of(tuple(sorted(group)))
    return group


def _op(reduce_op: Any) -> Any:
    if isinstance(reduce_op, str):
        try:
            return _OPS[reduce_op.lower()]
        except KeyError:
            raise ValueError(f"Unrecognized reduce op {reduce_op!r}; expected one of {sorted(_OPS)}") from None
    return reduce_op


def wait_tensor(tensor: torch.Tensor) -> torch.Tensor:
    """The collective's result (Ember's are complete when returned)."""
    return tensor


def all_reduce(self: torch.Tensor, reduceOp: Any, group: Any, tag: str = "") -> torch.Tensor:  # noqa: N803
    out = self.detach().clone()
    collectives.all_reduce(out, op=_op(reduceOp), group=_group(group))
    return out


def broadcast(self: torch.Tensor, src: int, group: Any, tag: str = "") -> torch.Tensor:
    """The tensor of the group's rank src (a rank within the group, as PyTorch's functional broadcast counts)."""
    out = self.detach().clone()
    collectives.broadcast(out, group_src=src, group=_group(group))
    return out


def all_gather_tensor(self: torch.Tensor, gather_dim: int, group: Any, tag: str = "") -> torch.Tensor:
    """The ranks' tensors concatenated along gather_dim, in rank order."""
    pg = _group(group)
    size = pg.size()
    source = self.detach().contiguous().reshape(self.shape or (1,))
    out = torch.empty((size * source.size(0), *source.shape[1:]), dtype=self.dtype)
    collectives.all_gather_into_tensor(out, source, group=pg)
    if gather_dim % max(self.dim(), 1) != 0:
        out = torch.cat(out.chunk(size), dim=gather_dim)
    return out


def reduce_scatter_tensor(self: torch.Tensor, reduceOp: Any, scatter_dim: int, group: Any,  # noqa: N803
                          tag: str = "") -> torch.Tensor:
    """This rank's piece along scatter_dim of the ranks' tensors reduced."""
    pg = _group(group)
    size = pg.size()
    if self.size(scatter_dim) % size:
        raise ValueError(f"input dimension {scatter_dim} ({self.size(scatter_dim)}) must be a multiple of the "
                         f"group's size ({size})")
    source = self.detach()
    if scatter_dim % self.dim() != 0:
        source = torch.cat(source.chunk(size, dim=scatter_dim), dim=0)
    source = source.contiguous()
    out = torch.empty((source.size(0) // size, *source.shape[1:]), dtype=self.dtype)
    collectives.reduce_scatter_tensor(out, source, op=_op(reduceOp), group=pg)
    return out


def all_to_all_single(self: torch.Tensor, output_split_sizes: list[int] | None,
                      input_split_sizes: list[int] | None, group: Any, tag: str = "") -> torch.Tensor:
    """Rows input_split_sizes[r] of this tensor go to rank r; output_split_sizes[r] rows come from it."""
    pg = _group(group)
    source = self.detach().contiguous()
    rows = sum(output_split_sizes) if output_split_sizes is not None else source.size(0)
    out = torch.empty((rows, *source.shape[1:]), dtype=self.dtype)
    collectives.all_to_all_single(out, source, output_split_sizes, input_split_sizes, group=pg)
    return out


class _AllToAllSingle(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, output_split_sizes: Any, input_split_sizes: Any,
                group: Any) -> torch.Tensor:
        ctx.splits, ctx.group = (output_split_sizes, input_split_sizes), group
        return all_to_all_single(x, output_split_sizes, input_split_sizes, group)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[Any, ...]:
        output_split_sizes, input_split_sizes = ctx.splits
        return all_to_all_single(grad, input_split_sizes, output_split_sizes, ctx.group), None, None, None


class _AllGather(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, gather_dim: int, group: Any) -> torch.Tensor:
        ctx.dim, ctx.group = gather_dim, group
        return all_gather_tensor(x, gather_dim, group)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[Any, ...]:
        return reduce_scatter_tensor(grad, "sum", ctx.dim, ctx.group), None, None


class _ReduceScatter(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, reduce_op: Any, scatter_dim: int, group: Any) -> torch.Tensor:
        if _op(reduce_op) != ReduceOp.SUM:
            raise RuntimeError("reduce_scatter_tensor_autograd: only the sum has a gradient")
        ctx.dim, ctx.group = scatter_dim, group
        return reduce_scatter_tensor(x, reduce_op, scatter_dim, group)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[Any, ...]:
        return all_gather_tensor(grad, ctx.dim, ctx.group), None, None, None


def all_to_all_single_autograd(self: torch.Tensor, output_split_sizes: list[int] | None,
                               input_split_sizes: list[int] | None, group: Any, tag: str = "") -> torch.Tensor:
    return _AllToAllSingle.apply(self, output_split_sizes, input_split_sizes, group)


def all_gather_tensor_autograd(self: torch.Tensor, gather_dim: int, group: Any, tag: str = "") -> torch.Tensor:
    return _AllGather.apply(self, gather_dim, group)


def reduce_scatter_tensor_autograd(self: torch.Tensor, reduceOp: Any, scatter_dim: int, group: Any,  # noqa: N803
                                   tag: str = "") -> torch.Tensor:
    return _ReduceScatter.apply(self, reduceOp, scatter_dim, group)
