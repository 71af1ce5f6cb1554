"""How a tensor is laid out along one dimension of a device mesh, as PyTorch's DTensor names it: Shard(dim) cuts
it into torch.chunk's pieces, one per rank; Replicate() gives every rank all of it; Partial() gives every rank a
value that sums (or reduces otherwise) to it. The shard arithmetic here is what libraries use to find which rows
of a checkpoint a rank loads (transformers' sharding_utils)."""
from __future__ import annotations

from dataclasses import dataclass

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
        if num_chunks <= 0 or not 0 <= rank < num_chunks:
            raise ValueError(f"Shard: rank {rank} is not one of {num_chunks} chunks")
        full = -(-curr_local_size // num_chunks)
        start = min(full * rank, curr_local_size)
        return min(curr_local_size, start + full) - start, start

    def _local_shard_size_and_offset(self, curr_local_size: int, num_chunks: int, rank: int) -> tuple[int, int]:
        return Shard.local_shard_size_and_offset(curr_local_size, num_chunks, rank)

    @staticmethod
    def _local_shard_size_on_dim(size_on_dim: int, num_chunks: int, rank: int,
                                 return_offset: bool = False) -> tuple[int, int]:
        size, offset = Shard.local_shard_size_and_offset(size_on_dim, num_chunks, rank)
        return size, (offset if return_offset else -1)

    def _split_tensor(self, tensor: torch.Tensor, num_chunks: int, *, with_padding: bool = True,
                      contiguous: bool = True) -> tuple[list[torch.Tensor], list[int]]:
        """The num_chunks pieces (empty ones where torch.chunk gives fewer) and, with_padding, the rows each
        lacks of a full piece."""
        dim = self.dim % tensor.dim() if tensor.dim() else 0
        length = tensor.size(dim)
        pieces, pads = [], []
        for rank in range(num_chunks):
            size, offset = Shard.local_shard_size_and_offset(length, num_chunks, rank)
            piece = tensor.narrow(dim, offset, size)
            pieces.append(piece.contiguous() if contiguous else piece)
            pads.append(-(-length // num_chunks) - size if with_padding else 0)
        return pieces, pads

    def __repr__(self) -> str:
        return f"Shard(dim={self.dim})"

    def __str__(self) -> str:
        return f"S({self.dim})"


@dataclass(frozen=True)
class _StridedShard(Shard):
    """A Shard of a tensor whose dimension interleaves split_factor groups (fused weights such as gate and up
    projections): cut into num_chunks * split_factor pieces, rank r holds pieces r, r + num_chunks, ..."""

    split_factor: int = 1

    __module__ = "torch.distributed.tensor.placement_types"

    def _split_tensor(self, tensor: torch.Tensor, num_chunks: int, *, with_padding: bool = True,
                      contiguous: bool = True) -> tuple[list[torch.Tensor], list[int]]:
        dim = self.dim % tensor.dim()
        chunks = Shard(dim)._split_tensor(tensor, num_chunks * self.split_factor, with_padding=False,
                                          contiguous=False)[0]
        pieces = [torch.cat([chunks[rank + j * num_chunks] for j in range(self.split_factor)], dim)
                  for rank in range(num_chunks)]
        longest = max(p.size(dim) for p in pieces)
        return pieces, [longest - p.size(dim) if with_padding else 0 for p in pieces]

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
        return "P" if self.reduce_op == "sum" else f"P({self.reduce_op})"
