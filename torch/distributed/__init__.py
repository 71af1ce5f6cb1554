"""torch.distributed: process groups, collectives and stores, as PyTorch's, on MPI (mpi4py, with MPICH's wheel:
`pip install 'torch[distributed]'`) for CPU tensors; MPI starts at the first init_process_group.
torch/distributed/README.md says how ranks join, what "gloo" names here, and which of PyTorch's distributed
namespaces exist only to be named (DTensor, FSDP, distributed checkpoints raise when used)."""
from __future__ import annotations

from torch.distributed.c10d_types import Backend, GradBucket, P2POp, ReduceOp, default_pg_timeout
from torch.distributed.collectives import (all_gather, all_gather_into_tensor, all_gather_object, all_reduce,
                                           all_to_all, all_to_all_single, barrier, batch_isend_irecv, broadcast,
                                           broadcast_object_list, gather, gather_object, irecv, isend,
                                           monitored_barrier, recv, reduce, reduce_scatter, reduce_scatter_tensor,
                                           scatter, scatter_object_list, send)
from torch.distributed.distributed_c10d import (GroupMember, destroy_process_group, get_backend, get_global_rank,
                                                get_group_rank, get_process_group_ranks, get_rank, get_world_size,
                                                group, init_process_group, is_backend_available, is_gloo_available,
                                                is_initialized, is_mpi_available, is_nccl_available,
                                                is_torchelastic_launched, is_ucc_available, new_group)
from torch.distributed.errors import DistBackendError, DistError, DistNetworkError, DistStoreError
from torch.distributed.mpi_engine import Work
from torch.distributed.process_group import ProcessGroup
from torch.distributed.stores import FileStore, HashStore, PrefixStore, Store, TCPStore

__all__ = ["Backend", "DistBackendError", "DistError", "DistNetworkError", "DistStoreError", "FileStore",
           "GradBucket", "GroupMember", "HashStore", "P2POp", "PrefixStore", "ProcessGroup", "ReduceOp", "Store",
           "TCPStore", "Work",
           "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_to_all",
           "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list",
           "default_pg_timeout", "destroy_process_group", "gather", "gather_object", "get_backend",
           "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size", "group",
           "init_process_group", "irecv", "is_available", "is_backend_available", "is_gloo_available",
           "is_initialized", "is_mpi_available", "is_nccl_available", "is_torchelastic_launched",
           "is_ucc_available", "isend", "monitored_barrier", "new_group", "recv", "reduce", "reduce_scatter",
           "reduce_scatter_tensor", "scatter", "scatter_object_list", "send"]


def is_available() -> bool:
    """True: this package's process groups, collectives, DDP and join, and the namespaces libraries import when it
    is (device meshes, placements, functional collectives), exist; a group needs mpi4py (is_mpi_available())."""
    return True
