"""Backward formulas' helpers for matrix products and einsum."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from torch.csrc.autograd.functions_manual.pointwise import conj, maybe_multiply

_arange = find_operator("arange")
_einsum = find_operator("einsum")


def _column_major(sizes: Any, strides: Any) -> bool:
    """A matrix laid out as a transposed contiguous one (upstream's test; every Ember tensor is strided)."""
    return len(strides) == 2 and strides[0] == 1 and strides[1] == sizes[0]


def mm_mat1_backward(grad: Any, mat2: Any, sizes: Any, strides: Any, layout: Any, alpha: Any) -> Any:
    # a column-major mat1 (a transposed matrix) gets its gradient column-major too, as upstream's
    if _column_major(sizes, strides):
        return maybe_multiply(conj(mat2).mm(grad.t()).t(), conj(alpha))
    return maybe_multiply(grad.mm(conj(mat2.t())), conj(alpha))


def mm_mat2_backward(grad: Any, mat1: Any, sizes: Any, strides: Any, layout: Any, alpha: Any) -> Any:
    # Linear's weight.t() is column-major: its gradient is made in the weight's own layout
    if _column_major(sizes, strides):
        return maybe_multiply(grad.t().mm(conj(mat1)).t(), conj(alpha))
    return maybe_multiply(conj(mat1.t()).mm(grad), conj(alpha))


def einsum_backward(grad: Any, equation: str, tensors: Any, i: int) -> Any:
    """Operand i's gradient: the einsum of the output's gradient with the other operands, to
    operand i's subscripts (subscripts only operand i has are broadcast back)."""
    ins, out = einsum_explicit_subscripts(equation, [t.dim() for t in tensors])
    mine = ins[i]
    others = [s for j, s in enumerate(ins) if j != i]
    available = set(out).union(*others) if others else set(out)
    unique = "".join(c for k, c in enumerate(mine) if mine.index(c) == k)
    target = "".join(c for c in unique if c in available)
    g = _einsum(",".join([out] + others) + "->" + target, [grad] + [t for j, t in enumerate(tensors) if j != i])
    return einsum_operand_gradient(g, mine, available, tensors[i])


def einsum_explicit_subscripts(equation: str, ndims: list[int]) -> tuple[list[str], str]:
    """The operands' and the output's subscripts with '...' spelled out in unused letters (the
    ellipsis dims broadcast right-aligned, as PyTorch's einsum) and an implicit output made explicit
    (the ellipsis dims, then the letters used exactly once in alphabetical order)."""
    lhs, arrow, out = equation.replace(" ", "").partition("->")
    ins = lhs.split(",")
    used = set(c for c in equation if c.isalpha())
    fresh = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    counts = [nd - (len(sub) - 3) if "..." in sub else 0 for sub, nd in zip(ins, ndims)]
    width = max(counts, default=0)
    letters = "".join(fresh[:width])
    if not arrow:
        once = sorted(c for c in set(lhs) if c.isalpha() and lhs.count(c) == 1)
        out = ("..." if "..." in lhs else "") + "".join(once)
    ins = [sub.replace("...", letters[width - n:] if n else "") for sub, n in zip(ins, counts)]
    return ins, out.replace("...", letters)


def einsum_operand_gradient(g: Any, mine: str, available: set[str], operand: Any) -> Any:
    """g (over operand's distinct subscripts that the other operands or the output have, in order
    of first use) laid out as the operand: subscripts only it has broadcast back, a repeated
    subscript's gradient on that diagonal only, dims it broadcast (size 1) summed."""
    first: dict[str, int] = {}
    for pos, c in enumerate(mine):
        if c in first or c not in available:
            g = g.unsqueeze(pos)
        first.setdefault(c, pos)
    shape = tuple(operand.shape)
    for pos, c in enumerate(mine):
        p0 = first[c]
        if p0 != pos:
            n = max(shape[pos], g.shape[p0])
            mask = [1] * len(mine)
            mask[p0] = mask[pos] = n
            positions = _arange(n, device=g.device)
            g = g * (positions.unsqueeze(1) == positions).to(g.dtype).reshape(mask)
    summed = [k for k in range(len(shape)) if shape[k] == 1 and g.shape[k] != 1]
    if summed:
        g = g.sum(summed, True)
    return g.expand(shape)
