"""einsum written over diagonal, sum, permute and bmm (PyTorch's own strategy, Linear.cpp): the
portable kernel a device without an einsum of its own (CUDA) runs, registered as
CompositeExplicitAutograd beside the CPU kernel. The equation's checks, labels, sizes and result
dtype come from einsum_plan (aten/native/meta/einsum_plan.pyx), as the CPU kernel's do.

Each operand first takes the diagonal of a repeated label and sums out the labels no one else
needs; then the operands are contracted left to right, each pair as one batched GEMM: the labels
both share and still need are the batch, those both share and no longer need are contracted, the
rest are the GEMM's rows and columns.
"""
from __future__ import annotations

import math
from typing import Any, Hashable, Sequence

from aten.dispatcher import find_operator
from aten.native.meta.einsum_plan import einsum_plan

_diagonal = find_operator("diagonal")
_sum_dim = find_operator("sum.dim_IntList")
_permute = find_operator("permute")
_reshape = find_operator("reshape")
_expand = find_operator("expand")
_bmm = find_operator("bmm")
_to = find_operator("to.dtype")

Label = Hashable


def _expand_ellipses(operands: list[list[Any]], out_labels: list[Any], tensors: Sequence[Any]) -> tuple[
        list[list[Label]], list[Label]]:
    """Every ellipsis replaced by labels of its own, right-aligned across operands as broadcasting
    aligns them: ("...", i) for the i-th broadcast dim counted from the left of the widest."""
    widths = [t.dim() - sum(1 for label in labels if label is not None) for labels, t in zip(operands, tensors)]
    widest = max([w for labels, w in zip(operands, widths) if None in labels], default=0)
    expanded = []
    for labels, width in zip(operands, widths):
        names: list[Label] = []
        for label in labels:
            names.extend([("...", widest - width + i) for i in range(width)] if label is None else [label])
        expanded.append(names)
    out: list[Label] = []
    for label in out_labels:
        out.extend([("...", i) for i in range(widest)] if label is None else [label])
    return expanded, out


def _take_diagonals(t: Any, labels: list[Label]) -> tuple[Any, list[Label]]:
    """A label repeated in one operand keeps only its diagonal (which moves to the last dim)."""
    while len(set(labels)) != len(labels):
        first = next(i for i, label in enumerate(labels) if labels.index(label) != i)
        earlier = labels.index(labels[first])
        label = labels[first]
        t = _diagonal(t, 0, earlier, first)
        labels = [lb for i, lb in enumerate(labels) if i not in (earlier, first)] + [label]
    return t, labels


def _sum_out(t: Any, labels: list[Label], needed: set[Label]) -> tuple[Any, list[Label]]:
    dims = [i for i, label in enumerate(labels) if label not in needed]
    if not dims:
        return t, labels
    return _sum_dim(t, dims, False), [label for label in labels if label in needed]


def _contract(a: Any, la: list[Label], b: Any, lb: list[Label], keep: set[Label],
              full: dict[Label, int]) -> tuple[Any, list[Label]]:
    batch = [label for label in la if label in lb and label in keep]
    contracted = [label for label in la if label in lb and label not in keep]
    left = [label for label in la if label not in lb]
    right = [label for label in lb if label not in la]

    def arrange(t: Any, labels: list[Label], order: list[Label], shared: list[Label]) -> Any:
        t = _permute(t, [labels.index(label) for label in order])
        sizes = tuple(full[label] if label in shared else t.shape[i] for i, label in enumerate(order))
        return _expand(t, sizes) if sizes != tuple(t.shape) else t

    a = arrange(a, la, batch + left + contracted, batch + contracted)
    b = arrange(b, lb, batch + contracted + right, batch + contracted)
    n_batch, n_left = len(batch), len(left)
    batch_sizes = tuple(a.shape[:n_batch])
    left_sizes = tuple(a.shape[n_batch:n_batch + n_left])
    right_sizes = tuple(b.shape[n_batch + len(contracted):])
    k = math.prod(full[label] for label in contracted)
    rows, cols, count = math.prod(left_sizes), math.prod(right_sizes), math.prod(batch_sizes)
    # integers too: bmm refuses what the device's GEMM cannot do, as PyTorch's CUDA einsum does
    product = _bmm(_reshape(a, (count, rows, k)), _reshape(b, (count, k, cols)))
    return _reshape(product, batch_sizes + left_sizes + right_sizes), batch + left + right


def einsum(equation: str, tensors: Sequence[Any], path: Any = None) -> Any:
    tensors = tuple(tensors)
    operands, out_labels, sizes, dtype = einsum_plan(equation, tensors)
    labels_of, output = _expand_ellipses(operands, out_labels, tensors)
    full: dict[Label, int] = dict(sizes)
    for labels, t in zip(labels_of, tensors):
        for label, size in zip(labels, t.shape):
            if isinstance(label, tuple) and full.get(label, 1) == 1:
                full[label] = size
    work = []
    for t, labels in zip(tensors, labels_of):
        t, labels = _take_diagonals(t if t.dtype is dtype else _to(t, dtype), list(labels))
        work.append((t, labels))
    # contract left to right; before each step, sum out what neither the rest nor the output needs
    t, labels = work[0]
    for i in range(1, len(work) + 1):
        needed = set(output).union(*(lb for _, lb in work[i:]))
        t, labels = _sum_out(t, labels, needed)
        if i == len(work):
            break
        other, other_labels = work[i]
        other, other_labels = _sum_out(other, other_labels, needed | set(labels))
        t, labels = _contract(t, labels, other, other_labels, needed, full)
    t = _permute(t, [labels.index(label) for label in output])
    wanted = tuple(full[label] for label in output)
    return _expand(t, wanted) if tuple(t.shape) != wanted else t
