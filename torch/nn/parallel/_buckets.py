"""DistributedDataParallel's buckets, laid out as PyTorch 2.13's reducer lays them out.

The first layout takes the parameters in their order and closes a bucket once it reaches its size limit, per
dtype, then reverses the buckets (the last parameters' gradients come first in backward). Its limits: each of
bucket_cap_mb_list, else one bucket of everything unless find_unused_parameters (the order gradients come in
is not known yet), else a first bucket of 1 MB under the default cap, then bucket_cap_mb. After the first
backward that reduces gradients (the second with static_graph), and unless find_unused_parameters without
static_graph, the buckets are laid out again in the order the gradients became ready, with the same rule and
limits (bucket_cap_mb_list, else the first bucket's and bucket_cap_mb), not reversed."""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Sequence

import torch

__all__ = ["Bucket", "BucketLayout"]

_MB = 1 << 20
_FIRST_BUCKET_BYTES = 1 << 20
_DEFAULT_BUCKET_MB = 25


def _assign(params: Sequence[torch.Tensor], limits: list[int]) -> list[list[torch.Tensor]]:
    """The parameters, in this order, cut into buckets per dtype: a bucket closes once its bytes reach its limit
    (each dtype moves on to the next limit after each closed bucket, staying at the last); the open ones after,
    the last dtype met first (the order PyTorch's reducer, on Linux, finds them in its hash map)."""
    open_: dict[Any, tuple[list[torch.Tensor], list[int]]] = {}     # per dtype: (params, [bytes, limit index])
    closed: list[list[torch.Tensor]] = []
    for p in params:
        group, state = open_.setdefault(p.dtype, ([], [0, 0]))
        group.append(p)
        state[0] += p.numel() * p.element_size()
        if state[0] >= limits[state[1]]:
            closed.append(group)
            open_[p.dtype] = ([], [0, min(state[1] + 1, len(limits) - 1)])
    return closed + [group for group, _ in reversed(open_.values()) if group]


@dataclass(frozen=True)
class BucketLayout:
    """How a DistributedDataParallel lays out its buckets (bucket_cap_mb, bucket_cap_mb_list and the two flags
    that decide the first layout and whether a later one comes)."""
    bucket_bytes_cap: int
    bucket_bytes_cap_list: tuple[int, ...]
    first_bucket_bytes_cap: int
    find_unused_parameters: bool
    static_graph: bool

    @classmethod
    def of(cls, bucket_cap_mb: float | None, bucket_cap_mb_list: list[float] | None, find_unused_parameters: bool,
           static_graph: bool) -> BucketLayout:
        caps = tuple(int(mb * _MB) for mb in bucket_cap_mb_list or ())
        cap = max(caps) if caps else int((_DEFAULT_BUCKET_MB if bucket_cap_mb is None else bucket_cap_mb) * _MB)
        default = bucket_cap_mb is None and not caps
        return cls(cap, caps, _FIRST_BUCKET_BYTES if default else cap, find_unused_parameters, static_graph)

    @property
    def rebuilds(self) -> bool:
        """Whether the buckets are laid out again in the order gradients become ready."""
        return self.static_graph or not self.find_unused_parameters

    @property
    def backwards_before_rebuild(self) -> int:
        """The reducing backwards before the one whose order lays the buckets out again."""
        return 1 if self.static_graph else 0

    def first(self, params: Sequence[torch.Tensor]) -> list[list[torch.Tensor]]:
        if self.bucket_bytes_cap_list:
            limits = list(self.bucket_bytes_cap_list)
        elif self.rebuilds:
            limits = [sys.maxsize]
        else:
            limits = [self.first_bucket_bytes_cap, self.bucket_bytes_cap] \
                if self.first_bucket_bytes_cap < self.bucket_bytes_cap else [self.bucket_bytes_cap]
        index = {id(p): i for i, p in enumerate(params)}
        return sorted(_assign(params, limits), key=lambda group: index[id(group[0])])[::-1]

    def again(self, ready: Sequence[torch.Tensor]) -> list[list[torch.Tensor]]:
        limits = list(self.bucket_bytes_cap_list) or [self.first_bucket_bytes_cap, self.bucket_bytes_cap]
        return _assign(ready, limits)


class Bucket:
    """Parameters whose gradients are reduced together, in one flat buffer."""

    def __init__(self, params: list[torch.Tensor]) -> None:
        self.params = params
        self.buffer = torch.zeros(sum(p.numel() for p in params), dtype=params[0].dtype)
        offsets = [0]
        for p in params:
            offsets.append(offsets[-1] + p.numel())
        self.offsets = offsets
        self.views = self.views_of(self.buffer)
        self.pending = len(params)
        self.work: Any = None       # the reduction started: a Work, or the Future a communication hook returned
        self.hooked = False

    def views_of(self, buffer: torch.Tensor) -> list[torch.Tensor]:
        """Each parameter's gradient as a view of a flat buffer of the bucket's layout."""
        return [buffer[self.offsets[i]:self.offsets[i + 1]].view(p.shape) for i, p in enumerate(self.params)]

    def launch(self, ddp: Any, index: int, used: set[int]) -> None:
        """Start the bucket's reduction: a parameter the forward did not use, or without a gradient, gives zeros."""
        for p, view in zip(self.params, self.views):
            if p.grad is None or id(p) not in used:
                view.zero_()
            elif p.grad.data_ptr() != view.data_ptr():
                view.copy_(p.grad)
        self.work = ddp._reduce(index, self.buffer)
        self.hooked = ddp._comm_hook is not None

    def poll(self) -> None:
        """Let MPI move the reduction on (it progresses only while polled). Not a hook's Future: finding it done
        would run its then() callbacks, which may start collectives (PowerSGD's), at a moment that differs from
        rank to rank; waited for in _finish, in bucket order, they start in the same order everywhere."""
        if not self.hooked:
            self.work.is_completed()

    def reduced(self, world_size: int, index: int) -> None:
        """Wait for the reduction; the buffer then holds the average (a hook's result is its own)."""
        if self.hooked:
            result = self.work.wait()
            if not isinstance(result, torch.Tensor) or result.shape != self.buffer.shape:
                raise RuntimeError(f"Communication hook: the Future of bucket {index} must hold a tensor of the "
                                   f"bucket's {self.buffer.numel()} gradients, got "
                                   f"{tuple(result.shape) if isinstance(result, torch.Tensor) else type(result)}")
            if result.data_ptr() != self.buffer.data_ptr():
                self.buffer.copy_(result)
        else:
            self.work.wait()
            self.buffer.div_(world_size)
