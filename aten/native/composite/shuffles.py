"""pixel_shuffle, pixel_unshuffle and channel_shuffle: reshapes and a permutation into a new
contiguous tensor (as PyTorch's kernels return), with PyTorch's checks; their backward passes are
each other (derivatives.yaml)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from c10.layout import contiguous_format

_reshape = find_operator("reshape")
_permute = find_operator("permute")
_clone = find_operator("clone")


def _rearranged(self: Any, split: tuple[int, ...], order: list[int], merged: tuple[int, ...]) -> Any:
    """self reshaped to split, its dims permuted to order (of the trailing ones), copied, reshaped to merged."""
    lead = list(range(self.dim() - 3))
    n = len(lead)
    moved = _permute(_reshape(self, tuple(self.shape[:-3]) + split), lead + [n + i for i in order])
    return _reshape(_clone(moved, memory_format=contiguous_format), tuple(self.shape[:-3]) + merged)


def pixel_shuffle(self: Any, upscale_factor: int) -> Any:
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    r = upscale_factor
    if self.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    c, h, w = self.shape[-3:]
    if c % (r * r) != 0:
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    oc = c // (r * r)
    return _rearranged(self, (oc, r, r, h, w), [0, 3, 1, 4, 2], (oc, h * r, w * r))


def pixel_unshuffle(self: Any, downscale_factor: int) -> Any:
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    r = downscale_factor
    if self.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{self.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    c, h, w = self.shape[-3:]
    if h % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but "
                           f"input.size(-2)={h} is not divisible by {r}")
    if w % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but "
                           f"input.size(-1)={w} is not divisible by {r}")
    return _rearranged(self, (c, h // r, r, w // r, r), [0, 2, 4, 1, 3], (c * r * r, h // r, w // r))


def channel_shuffle(self: Any, groups: int) -> Any:
    """(N, g k, *) -> (N, k g, *): channel i of group j moves to position i g + j."""
    if self.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                           f"{list(self.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = self.shape[1]
    if c % groups != 0:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    rest = tuple(self.shape[2:])
    split = _reshape(self, (self.shape[0], groups, c // groups) + rest)
    moved = _permute(split, [0, 2, 1] + list(range(3, 3 + len(rest))))
    return _reshape(_clone(moved, memory_format=contiguous_format), tuple(self.shape))
