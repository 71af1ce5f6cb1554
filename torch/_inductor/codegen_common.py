"""The pieces of a fused kernel's source that the C and the CUDA generators share: the C type of each dtype,
how sizes and strides appear (literals, or values read at the call for sizes that vary), an operand's strides
over the kernel's shape, dimensions merged where every operand steps through them as one, the loop body's
statements and a flat index decomposed into the operands' offsets."""
from __future__ import annotations

from typing import Any

import torch
from torch._inductor.scheduler import FusedGroup

__all__ = ["C_TYPES", "LITERAL", "Values", "coalesce", "decompose", "statements", "strides_for"]

# The C type of each dtype a fused kernel reads or writes (the CUDA generator's too).
C_TYPES = {torch.float32: "float", torch.bool: "unsigned char", torch.int64: "long long"}


class Values:
    """How a kernel's sizes and strides (and the counts made of them) appear in its source: as literals, for a
    graph specialised on its shapes, or, for a graph compiled for sizes that vary (generic), as n[k], read from
    the array the call passes (`values`, in the order the source reads them; `pattern` names the k-th: a GPU
    kernel takes them as parameters s0, s1...): two sizes' kernels are then the same text, compiled once. 0 and
    1 stay literals even so: they decide the code (a broadcast, a contiguous inner loop gcc vectorises, a
    dimension dropped), and a size that takes them makes a source of its own."""

    def __init__(self, generic: bool = False, pattern: str = "n[{}]") -> None:
        self.generic = generic
        self.pattern = pattern
        self.values: list[int] = []

    def __call__(self, value: int) -> str:
        if not self.generic or value in (0, 1):
            return f"{value}L"
        self.values.append(int(value))
        return self.pattern.format(len(self.values) - 1)


LITERAL = Values()


def strides_for(shape: tuple[int, ...], operand_shape: tuple[int, ...], operand_stride: tuple[int, ...]) -> list[int]:
    """The operand's strides over the kernel's shape (right-aligned; broadcast dimensions step by 0)."""
    pad = len(shape) - len(operand_shape)
    strides = [0] * pad + [0 if size == 1 else stride for size, stride in zip(operand_shape, operand_stride)]
    return [0 if shape[d] == 1 else strides[d] for d in range(len(shape))]


def coalesce(shape: tuple[int, ...], strides: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """Merge neighbouring dimensions that every operand steps through as one (size-1 dimensions dropped)."""
    keep = [d for d in range(len(shape)) if shape[d] != 1]
    sizes = [shape[d] for d in keep]
    per = [[s[d] for d in keep] for s in strides]
    d = len(sizes) - 1
    while d > 0:
        if all(p[d - 1] == p[d] * sizes[d] for p in per):
            sizes[d - 1] *= sizes[d]
            for p in per:
                p[d - 1] = p[d]
                del p[d]
            del sizes[d]
        d -= 1
    if not sizes:
        return [1], [[0] for _ in per]
    return sizes, per


def statements(group: FusedGroup, offset: dict[int, str], indent: str) -> tuple[list[str], dict[Any, str]]:
    """The loop body's locals (one per member, the reduction aside) and its element-wise stores."""
    body = []
    names: dict[Any, str] = {}
    for i, node in enumerate(group.loads):
        load = f"p{i}[{offset[i]}]"
        names[node] = f"((float){load})" if node.meta["example"][2] is torch.bool else load
    for k, member in enumerate(group.members):
        if member is group.reduction:
            continue
        lowered = group.lowered[member]
        expr = lowered.expr.format(*(names[o] for o in lowered.operands))
        ctype = "int" if lowered.out == "bool" else "float"
        body.append(f"{indent}{ctype} t{k} = {expr};  /* {member.name}: {member.target} */")
        names[member] = f"t{k}"
    for i, member in enumerate(group.stores):
        if member is group.reduction:
            continue
        slot = len(group.loads) + i
        value = names[member]
        if member.meta["example"][2] is torch.bool:
            value = f"(unsigned char)({value} != 0)"
        body.append(f"{indent}p{slot}[{offset[slot]}] = {value};")
    return body, names



def decompose(index: str, sizes: list[int], steps: list[list[int]], prefix: str, indent: str,
               v: Values) -> list[str]:
    """Each operand's offset (prefix0, prefix1...) for a flat index over the dims of sizes (the last fastest)."""
    lines = [f"{indent}long {prefix}rest = {index};"] + [f"{indent}long {prefix}{i} = 0;" for i in range(len(steps))]
    for d in range(len(sizes) - 1, -1, -1):
        size = v(sizes[d])
        lines.append(f"{indent}{{ long at = {prefix}rest % {size}; {prefix}rest /= {size};")
        lines += [f"{indent}  {prefix}{i} += at * {v(step[d])};" for i, step in enumerate(steps) if step[d]]
        lines.append(f"{indent}}}")
    lines.append(f"{indent}(void){prefix}rest;")
    return lines


