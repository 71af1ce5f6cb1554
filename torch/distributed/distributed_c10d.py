"""torch.distributed's process groups, as PyTorch's distributed_c10d: init_process_group and
destroy_process_group, new_group, the ranks and sizes, and the collectives on tensors and on Python objects
(collectives.py). Ranks a program passes (src, dst, peer) are global; group_src, group_dst and group_peer are
ranks in the group."""
from __future__ import annotations

import os
import warnings
from datetime import timedelta
from typing import Any

import torch.futures
from torch.distributed import mpi_engine
from torch.distributed.c10d_types import Backend, default_pg_timeout
from torch.distributed.process_group import ProcessGroup
from torch.distributed.rendezvous import rendezvous
from torch.distributed.stores import HashStore, PrefixStore, Store

__all__ = ["GroupMember", "destroy_process_group", "get_backend", "get_global_rank", "get_group_rank",
           "get_process_group_ranks", "get_rank", "get_world_size", "group", "init_process_group",
           "is_backend_available", "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available",
           "is_torchelastic_launched", "is_ucc_available", "new_group"]


class _NonMember:
    def __repr__(self) -> str:
        return "GroupMember.NON_GROUP_MEMBER"


class _WorldProperty:
    def __get__(self, instance: Any, owner: Any) -> ProcessGroup | None:
        return _world.default


class GroupMember:
    """GroupMember.WORLD, the default group (None before init_process_group); NON_GROUP_MEMBER, what new_group
    gives a rank outside the group."""

    __module__ = "torch.distributed"
    WORLD = _WorldProperty()
    NON_GROUP_MEMBER: Any = _NonMember()


class group:  # noqa: N801 - PyTorch's name
    __module__ = "torch.distributed"
    WORLD = _WorldProperty()


class _World:
    def __init__(self) -> None:
        self.default: ProcessGroup | None = None
        self.store: Store | None = None
        self.owned_store: Store | None = None       # made by init_process_group's rendezvous: closed by destroy
        self.groups: list[ProcessGroup] = []
        self.generation = 0         # init_process_group calls so far: each joins its ranks under its own keys


_world = _World()


# -- backends ---------------------------------------------------------------------------------------------------
def is_mpi_available() -> bool:
    return mpi_engine.available()


def is_gloo_available() -> bool:
    """True where the MPI engine is: Ember serves "gloo" with it (torch/distributed/README.md)."""
    return mpi_engine.available()


def is_nccl_available() -> bool:
    return False


def is_ucc_available() -> bool:
    return False


def is_backend_available(backend: str) -> bool:
    return Backend(backend) in (Backend.GLOO, Backend.MPI) and mpi_engine.available()


def is_torchelastic_launched() -> bool:
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


def _backend_name(backend: str | None) -> str:
    """The name get_backend reports: the one the program gave ("gloo", "mpi", "cpu:gloo"), lower case; "gloo"
    when it gave none (the CPU's default, as PyTorch's on a machine without CUDA)."""
    if backend is None:
        return Backend.GLOO
    name = str(backend).lower()
    for part in name.split(","):
        device, _, engine = part.rpartition(":")
        if engine == Backend.NCCL:
            raise RuntimeError(f"Backend {engine!r} ({part!r}) is not available in Ember: NCCL, for CUDA tensors, is "
                               "not built in (torch.distributed.is_nccl_available() is False)")
        if engine not in (Backend.GLOO, Backend.MPI):
            raise ValueError(f"Invalid backend: '{engine}'")
        if device not in ("", "cpu"):
            raise ValueError(f"Invalid device {device!r} in backend {backend!r}")
    return name


# -- groups -----------------------------------------------------------------------------------------------------
def is_initialized() -> bool:
    return _world.default is not None


def _default() -> ProcessGroup:
    if _world.default is None:
        raise ValueError("Default process group has not been initialized, please make sure to call "
                         "init_process_group.")
    return _world.default


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store: Store | None = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None) -> None:
    """Join this process to the default group: over init_method's rendezvous (env:// when neither it nor a
    store is given), its ranks joined into one MPI communicator (torch.distributed.mpi_engine); processes
    mpiexec started, given no init_method, store or RANK, are MPI_COMM_WORLD's ranks."""
    if _world.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if not mpi_engine.available():
        raise RuntimeError("torch.distributed needs mpi4py and an MPI library (pip install 'torch[distributed]' "
                           "installs mpi4py and MPICH)")
    name = _backend_name(backend)
    timeout = timeout or default_pg_timeout
    by_mpiexec = mpi_engine.launched() if store is None and init_method is None and "RANK" not in os.environ \
        else None
    if by_mpiexec is not None:      # mpiexec's ranks: MPI_COMM_WORLD, no rendezvous needed
        rank, world_size = by_mpiexec if rank < 0 else (rank, world_size)
        store = HashStore()
    elif store is None:
        store, rank, world_size = rendezvous(init_method or "env://", rank, world_size, timeout)
        _world.owned_store = store
    elif init_method is not None:
        raise ValueError("Cannot specify both init_method and store.")
    elif rank < 0 or world_size <= 0:
        raise ValueError("init_process_group: a store needs rank and world_size")
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank} for a world of {world_size}")
    _world.generation += 1
    # a worker group torchrun started again (--max_restarts, a new node) meets over the same store: its keys are
    # its round's
    meeting = os.environ.get("EMBER_RDZV_MEETING", os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    scoped = PrefixStore(f"ember/{meeting}/{_world.generation}", store)
    comm = mpi_engine.communicator(scoped, rank, world_size, timeout.total_seconds())
    _world.store = store
    _world.default = ProcessGroup(comm, list(range(world_size)), name, timeout, group_name or "0", rank)
    _world.groups = [_world.default]


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Free a group's communicator (the default group: every group's, and this process can init again)."""
    if group is None or group is _world.default:
        for member in _world.groups:
            member.complete_pending()
            member.comm.Free()
        if _world.owned_store is not None:      # the rendezvous' store: its port or file can serve again
            _world.owned_store.close()
        _world.default, _world.store, _world.owned_store, _world.groups = None, None, None, []
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    group.complete_pending()
    group.comm.Free()
    _world.groups.remove(group)


def _complete_futures_in_flight() -> None:
    """Wait, in the order they started, for the operations in flight whose Futures were asked for: their
    callbacks then run (a Future waited on may be one a callback completes)."""
    for group in list(_world.groups):
        for work in list(group.pending):
            if work._future is not None and not work._future._done:
                try:
                    work.wait()
                except Exception:
                    pass        # its Future carries the error


torch.futures._PROGRESS.append(_complete_futures_in_flight)


def new_group(ranks: list[int] | None = None, timeout: timedelta | None = None, backend: str | None = None,
              pg_options: Any = None, use_local_synchronization: bool = False, group_desc: str | None = None,
              device_id: Any = None) -> Any:
    """A group of these global ranks (all of them when None): its members make it together (the others need not
    call it; those that do get GroupMember.NON_GROUP_MEMBER)."""
    world = _default()
    members = sorted(set(range(world.size()) if ranks is None else ranks))
    if any(not 0 <= r < world.size() for r in members):
        raise ValueError(f"new_group: ranks {ranks} outside the world of {world.size()}")
    me = world.global_rank
    if me not in members:       # only the members take part (MPI_Comm_create_group)
        return GroupMember.NON_GROUP_MEMBER
    comm = world.comm.Create_group(world.comm.Get_group().Incl(members), tag=_group_tag(members))
    made = ProcessGroup(comm, members, _backend_name(backend) if backend else world.backend,
                        timeout or world.timeout, group_desc or "group_" + "_".join(map(str, members)), me)
    _world.groups.append(made)
    return made


def _group_tag(members: list[int]) -> int:
    """The tag of MPI_Comm_create_group for these members: the same on each of them."""
    return sum((r + 1) * 7919 ** i for i, r in enumerate(members)) % 32000


def resolve(group: Any) -> ProcessGroup | None:
    """The group a collective runs on (None for a rank outside it: the collective does nothing, as PyTorch's)."""
    if group is None:
        return _default()
    if group is GroupMember.NON_GROUP_MEMBER:
        warnings.warn("Running a collective on a process group this rank is not in: nothing is done", stacklevel=3)
        return None
    return group


def group_rank_of(group: ProcessGroup, global_rank: int | None, group_rank: int | None, what: str,
                  default: int | None = None) -> int:
    """A rank in group, from a global rank or a group rank (at most one given; neither: the global rank
    default, where the collective has one, as gather's dst=0)."""
    if global_rank is None and group_rank is None:
        global_rank = default
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError(f"{what}: give either a global rank or a group rank, not both")
        if not 0 <= group_rank < group.size():
            raise ValueError(f"{what}: group rank {group_rank} outside the group of {group.size()}")
        return group_rank
    if global_rank is None:
        raise ValueError(f"{what}: a rank must be given")
    return get_group_rank(group, global_rank)


def get_rank(group: Any = None) -> int:
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    pg = _default() if group is None else group
    return pg.rank()


def get_world_size(group: Any = None) -> int:
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    pg = _default() if group is None else group
    return pg.size()


def get_backend(group: Any = None) -> str:
    pg = _default() if group is None else group
    if pg is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    return str(pg.backend)


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    try:
        return (_default() if group is None else group).global_ranks.index(global_rank)
    except ValueError:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}") from None


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    pg = _default() if group is None else group
    if not 0 <= group_rank < len(pg.global_ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return pg.global_ranks[group_rank]


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    return list((_default() if group is None else group).global_ranks)


def _get_default_group() -> ProcessGroup:
    return _default()


def _get_default_store() -> Store:
    _default()
    assert _world.store is not None
    return _world.store
