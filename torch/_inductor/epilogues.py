"""epilogues: a CPU kernel that starts from a matmul's result runs inside the matmul (PyTorch's Inductor fuses
pointwise epilogues into its GEMM templates likewise).

A fused group on the CPU without a reduction or a row operation, over the rows and columns of an mm or addmm
result that it loads whole (the result itself, or a view of it laid out as it is: a Linear's output viewed back
to (batch, seq, features)), becomes that product's epilogue. The wrapper computes the product where the group's
kernel would run (aten.native.cpu.linalg.mm_epilogue_cpu), and each thread runs the kernel on the rows (or
columns) of the product it has just computed, while they are in its cache: no second pass over the product, no
second parallel region. The product's bits are the eager kernel's and the kernel's formulas those of the unfused
kernel, so the results are the same bits either way.

The product moves to the group's place in the graph. That is safe where nothing in between writes into memory
and nothing outside the group reads the product, or a view of it, before that place."""
from __future__ import annotations

import math
from typing import Any

import torch
from torch._inductor.scheduler import FusedGroup, writes
from torch._inductor.views import View
from aten.native.cpu.linalg import EPILOGUE_BUFFERS

__all__ = ["attach", "product_arguments"]

_aten = torch.ops.aten
_PRODUCTS = (_aten.mm.default, _aten.addmm.default)


def attach(graph: Any, groups: list[FusedGroup], recorded: set[Any], views: dict[Any, View]) -> None:
    """Make each group that can be one the epilogue of the product it loads (group.epilogue_of)."""
    order = {node: i for i, node in enumerate(graph.nodes)}
    place = {member: order[g.members[-1]] for g in groups for member in g.members}     # where each kernel runs
    taken: set[Any] = set()
    for group in groups:
        if group.device.type != "cpu" or group.reduction is not None or group.rows or group.stats:
            continue
        for load in group.loads:
            product = views[load].root if load in views else load
            if product not in taken and _covers(load, product, group, views, recorded) and \
                    _movable(product, group, views, order, place, graph):
                group.epilogue_of = product
                taken.add(product)
                break


def product_arguments(product: Any) -> tuple[Any, Any, Any, Any, Any]:
    """(addend or None, mat1, mat2, beta, alpha) of an mm or addmm node."""
    if product.target is _aten.mm.default:
        return None, product.args[0], product.args[1], 1, 1
    addend, mat1, mat2 = product.args[:3]
    rest = list(product.args[3:]) + [1, 1]
    return addend, mat1, mat2, product.kwargs.get("beta", rest[0]), product.kwargs.get("alpha", rest[1])


def _row_major(shape: tuple[int, ...], stride: tuple[int, ...]) -> bool:
    expected = 1
    for size, step in zip(reversed(shape), reversed(stride)):
        if size != 1 and step != expected:
            return False
        expected *= size
    return True


def _covers(load: Any, product: Any, group: FusedGroup, views: dict[Any, View], recorded: set[Any]) -> bool:
    """Whether product is a float32 mm or addmm on the CPU, autograd not recording it, that the group loads whole
    (through `load`, laid out as the product is) over its rows and columns."""
    if product.op != "call_function" or product.target not in _PRODUCTS or product in recorded:
        return False
    example, seen = product.meta.get("example"), load.meta.get("example")
    if example is None or seen is None or example[2] is not torch.float32 or example[3].type != "cpu":
        return False
    shape, stride = tuple(example[0]), tuple(example[1])
    if len(shape) != 2 or not all(shape) or not _row_major(shape, stride):
        return False
    if not all(isinstance(a, torch.fx.Node) for a in product_arguments(product)[:3] if a is not None):
        return False
    if load in views and views[load].delta != 0:
        return False
    if len(group.loads) + len(group.stores) + 1 > EPILOGUE_BUFFERS:      # (+1: a generic kernel's sizes)
        return False
    # (another read of the product, a transpose say, would reach elements other threads compute)
    if any(other is not load and (other is product or other in views and views[other].root is product)
           for other in group.loads):
        return False
    return (tuple(seen[0]) == tuple(group.shape) and _row_major(tuple(seen[0]), tuple(seen[1]))
            and group.shape[-1] == shape[1] and math.prod(group.shape) == shape[0] * shape[1])


def _movable(product: Any, group: FusedGroup, views: dict[Any, View], order: dict[Any, int],
             place: dict[Any, int], graph: Any) -> bool:
    """Whether product can be computed at the group's place instead of its own: no node in between writes into
    memory, and nothing but the group reads it, or a view of it, before that place."""
    at = order[group.members[-1]]
    if any(writes(node) for node in graph.nodes if order[product] < order[node] < at):
        return False
    readers, seen = list(product.users), set()
    while readers:
        reader = readers.pop()
        if reader in seen:
            continue
        seen.add(reader)
        if reader in views:
            readers.extend(reader.users)
        elif reader not in group.members and place.get(reader, order[reader]) <= at:
            return False
    return True
