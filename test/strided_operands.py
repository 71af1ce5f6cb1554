"""Operands for the compiler's property tests over layouts: a tensor of a given shape (with column-major
strides when asked) and one that broadcasts against it along the dims `drop` marks."""
from __future__ import annotations

from typing import Any

import torch


def strided_pair(shape: list[int], drop: list[bool], transpose: bool, seed: int) -> tuple[Any, Any, Any]:
    """(a, b, the generator that drew them, to draw more): a of `shape`, column-major when transpose and it has
    two dims or more; b of `shape` with the dims `drop` marks of size 1 (broadcast)."""
    gen = torch.Generator().manual_seed(seed)
    a = torch.randn(*shape, generator=gen)
    if transpose and a.dim() >= 2:
        a = a.transpose(0, -1).contiguous().transpose(0, -1)          # same shape, column-major strides
    b = torch.randn(*[1 if d else s for d, s in zip(drop, shape)], generator=gen)
    return a, b, gen
