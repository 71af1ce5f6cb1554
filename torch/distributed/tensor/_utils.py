"""Where a rank's shard lies in the global tensor, from the mesh and the placements (PyTorch's DTensor helper
that libraries use to read only their rows of a checkpoint)."""
from __future__ import annotations

from typing import Any, Sequence

from torch.distributed.tensor.placement_types import Placement, Shard, _StridedShard

__all__ = ["compute_local_shape_and_global_offset"]


def compute_local_shape_and_global_offset(global_shape: Sequence[int], mesh: Any,
                                          placements: Sequence[Placement]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(local shape, offset of its first element in the global tensor) for this rank; ((0,), ()) for a rank
    outside the mesh. A dimension sharded on several mesh dimensions is cut again within the piece before; an
    empty shard's offset is the dimension's size."""
    coordinate = mesh.get_coordinate()
    if coordinate is None:
        return (0,), ()
    if len(placements) != mesh.ndim:
        raise ValueError(f"{len(placements)} placements for a mesh of {mesh.ndim} dimensions")
    local = [int(s) for s in global_shape]
    offset = [0] * len(local)
    for mesh_dim, placement in enumerate(placements):
        if isinstance(placement, _StridedShard):
            raise ValueError(f"{placement!r}: a strided shard is not one block of the global tensor, so it has no "
                             "single offset")
        if not isinstance(placement, Shard):
            continue
        dim = placement.dim % len(local) if local else 0
        size, start = Shard.local_shard_size_and_offset(local[dim], mesh.size(mesh_dim), coordinate[mesh_dim])
        local[dim] = size
        # an empty shard lies at the dimension's end, however deep the cut (as PyTorch places it)
        offset[dim] = int(global_shape[dim]) if size == 0 else offset[dim] + start
    return tuple(local), tuple(offset)
