"""How a tensor is laid out along one dimension of a device mesh, as PyTorch's DTensor names it: Shard(dim) cuts
it into torch.chunk's pieces, one per rank; Replicate() gives every rank all of it; Partial() gives every rank a
value that sums (or reduces otherwise) to it. The shard arithmetic here is what libraries use to find which rows
of a checkpoint a rank loads (transformers' sharding_utils)."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import torch

__all__ = ["Partial", "Placement", "Replicate", "Shard"]


class Placement:
    """The base of the placements; answers what kind it is."""

    __module__ = "torch.distributed.tensor.placement_types"

    def is_shard(self, dim: int | None = None) -> bool:
        return False

    def is_replicate(self) -> bool:
        return False

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return False


@dataclass(frozen=True)
class Shard(Placement):
    """The tensor cut along `dim` into num_chunks pieces of ceil(size / num_chunks) rows (the last ones shorter
    or empty), as torch.chunk cuts it."""

    dim: int

    __module__ = "torch.distributed.tensor.placement_types"

    def is_shard(self, dim: int | None = None) -> bool:
        return dim is None or dim == self.dim

    @staticmethod
    def local_shard_size_and_offset(curr_local_size: int, num_chunks: int, rank: int) -> tuple[int, int]:
        """The rows rank holds of a dimension of curr_local_size cut into num_chunks: (how many, first one)."""
        if num_chunks <= 0:
            raise ValueError(f"Shard: {num_chunks} chunks")
        full = -(-curr_local_size // num_chunks)
        start = min(full * rank, curr_local_size)
        return min(curr_local_size, start + full) - start, start

    def _local_shard_size_and_offset(self, curr_local_size: int, num_chunks: int, rank: int) -> tuple[int, int]:
        return Shard.local_shard_size_and_offset(curr_local_size, num_chunks, rank)

    def _split_tensor(self, tensor: torch.Tensor, num_chunks: int, *, with_padding: bool = True,
                      contiguous: bool = True) -> tuple[list[torch.Tensor], list[int]]:
        """The num_chunks pieces (empty ones where torch.chunk gives fewer) and, with_padding, each padded with
        zeros to a full piece, with the rows each lacked (else no pad sizes)."""
        dim = self.dim % tensor.dim() if tensor.dim() else 0
        length = tensor.size(dim)
        pieces = [tensor.narrow(dim, offset, size) for size, offset in
                  (Shard.local_shard_size_and_offset(length, num_chunks, rank) for rank in range(num_chunks))]
        return _padded(pieces, dim, -(-length // num_chunks), with_padding, contiguous)

    def __repr__(self) -> str:
        return f"Shard(dim={self.dim})"

    def __str__(self) -> str:
        return f"S({self.dim})"


def _padded(pieces: list[torch.Tensor], dim: int, full: int, with_padding: bool,
            contiguous: bool) -> tuple[list[torch.Tensor], list[int]]:
    pads: list[int] = []
    if with_padding:
        pads = [full - p.size(dim) for p in pieces]
        pieces = [torch.cat([p, p.new_zeros(p.shape[:dim] + (pad,) + p.shape[dim + 1:])], dim) if pad else p
                  for p, pad in zip(pieces, pads)]
    return [p.contiguous() if contiguous else p for p in pieces], pads


class _StridedShardOffsetMode(enum.IntEnum):
    FIRST = 0
    ALL = 1
    NONE = 2


@dataclass(frozen=True)
class _StridedShard(Placement):
    """The dimension `dim` of a tensor whose rows interleave split_factor groups (fused weights such as gate and
    up projections): cut into num_chunks * split_factor pieces, rank r holds pieces r, r + num_chunks, ... (not a
    Shard: its rows are not one block)."""

    dim: int
    split_factor: int = 1

    __module__ = "torch.distributed.tensor.placement_types"

    def _indices(self, length: int, num_chunks: int, rank: int) -> list[int]:
        rows = list(range(length))
        chunks = [rows[offset:offset + size] for size, offset in
                  (Shard.local_shard_size_and_offset(length, num_chunks * self.split_factor, i)
                   for i in range(num_chunks * self.split_factor))]
        return [i for j in range(self.split_factor) for i in chunks[rank + j * num_chunks]]

    def local_shard_size_and_offset(self, curr_local_size: int, num_chunks: int, rank: int,
                                    offset_mode: int = _StridedShardOffsetMode.FIRST) -> tuple[int, Any]:
        """(rows rank holds, their first row / all of them / None, as offset_mode asks)."""
        rows = self._indices(int(curr_local_size), num_chunks, rank)
        if offset_mode == _StridedShardOffsetMode.ALL:
            return len(rows), rows
        if offset_mode == _StridedShardOffsetMode.NONE:
            return len(rows), None
        return len(rows), (rows[0] if rows else int(curr_local_size))

    def _local_shard_size_and_offset(self, curr_local_size: int, num_chunks: int, rank: int,
                                     offset_mode: int = _StridedShardOffsetMode.FIRST) -> tuple[int, Any]:
        return self.local_shard_size_and_offset(curr_local_size, num_chunks, rank, offset_mode)

    def _split_tensor(self, tensor: torch.Tensor, num_chunks: int, *, with_padding: bool = True,
                      contiguous: bool = True) -> tuple[list[torch.Tensor], list[int]]:
        dim = self.dim % tensor.dim()
        pieces = [tensor.index_select(dim, torch.tensor(self._indices(tensor.size(dim), num_chunks, rank),
                                                        dtype=torch.int64)) for rank in range(num_chunks)]
        return _padded(pieces, dim, max(p.size(dim) for p in pieces), with_padding, contiguous)

    def __repr__(self) -> str:
        return f"_StridedShard(dim={self.dim}, sf={self.split_factor})"

    def __str__(self) -> str:
        return f"_S({self.dim}, {self.split_factor})"


@dataclass(frozen=True)
class Replicate(Placement):
    """Every rank holds the whole tensor."""

    __module__ = "torch.distributed.tensor.placement_types"

    def is_replicate(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "Replicate()"

    def __str__(self) -> str:
        return "R"


@dataclass(frozen=True)
class Partial(Placement):
    """Every rank holds a part that reduce_op ("sum", "avg", "max", "min") combines into the tensor."""

    reduce_op: str = "sum"

    __module__ = "torch.distributed.tensor.placement_types"

    def is_partial(self, reduce_op: str | None = None) -> bool:
        return reduce_op is None or reduce_op == self.reduce_op

    def __repr__(self) -> str:
        return f"Partial({self.reduce_op})"

    def __str__(self) -> str:
        return f"P({self.reduce_op})"
