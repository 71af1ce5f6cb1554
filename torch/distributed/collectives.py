"""torch.distributed's collectives and point-to-point operations on tensors and on Python objects, as
PyTorch's: each runs on a group (the default one when None) and, with async_op=True, returns a Work to wait on;
otherwise it returns once done (None). A rank outside the group does nothing."""
from __future__ import annotations

import pickle
import time
from datetime import timedelta
from typing import Any, Sequence

import numpy as np

import torch
from torch.distributed.c10d_types import P2POp, ReduceOp
from torch.distributed.distributed_c10d import group_rank_of, resolve
from torch.distributed.mpi_engine import Work

__all__ = ["all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce", "all_to_all",
           "all_to_all_single", "barrier", "batch_isend_irecv", "broadcast", "broadcast_object_list", "gather",
           "gather_object", "irecv", "isend", "monitored_barrier", "recv", "reduce", "reduce_scatter",
           "reduce_scatter_tensor", "scatter", "scatter_object_list", "send"]


def _done(work: Work, async_op: bool) -> Work | None:
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(tensor: torch.Tensor, op: Any = ReduceOp.SUM, group: Any = None, async_op: bool = False) -> Any:
    pg = resolve(group)
    return None if pg is None else _done(pg.allreduce(tensor, op), async_op)


def broadcast(tensor: torch.Tensor, src: int | None = None, group: Any = None, async_op: bool = False,
              group_src: int | None = None) -> Any:
    pg = resolve(group)
    if pg is None:
        return None
    return _done(pg.broadcast(tensor, group_rank_of(pg, src, group_src, "broadcast")), async_op)


def reduce(tensor: torch.Tensor, dst: int | None = None, op: Any = ReduceOp.SUM, group: Any = None,
           async_op: bool = False, group_dst: int | None = None) -> Any:
    pg = resolve(group)
    if pg is None:
        return None
    return _done(pg.reduce(tensor, group_rank_of(pg, dst, group_dst, "reduce"), op), async_op)


def all_gather(tensor_list: list[torch.Tensor], tensor: torch.Tensor, group: Any = None,
               async_op: bool = False) -> Any:
    pg = resolve(group)
    if pg is None:
        return None
    if len(tensor_list) != pg.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors for a group of {pg.size()}")
    return _done(pg.allgather(tensor_list, tensor), async_op)


def all_gather_into_tensor(output_tensor: torch.Tensor, input_tensor: torch.Tensor, group: Any = None,
                           async_op: bool = False) -> Any:
    pg = resolve(group)
    return None if pg is None else _done(pg.allgather_into(output_tensor, input_tensor), async_op)


def gather(tensor: torch.Tensor, gather_list: list[torch.Tensor] | None = None, dst: int | None = None,
           group: Any = None, async_op: bool = False, group_dst: int | None = None) -> Any:
    pg = resolve(group)
    if pg is None:
        return None
    root = group_rank_of(pg, dst, group_dst, "gather", default=0)
    return _done(pg.gather(gather_list, tensor, root), async_op)


def scatter(tensor: torch.Tensor, scatter_list: list[torch.Tensor] | None = None, src: int | None = None,
            group: Any = None, async_op: bool = False, group_src: int | None = None) -> Any:
    pg = resolve(group)
    if pg is None:
        return None
    root = group_rank_of(pg, src, group_src, "scatter", default=0)
    return _done(pg.scatter(tensor, scatter_list, root), async_op)


def reduce_scatter(output: torch.Tensor, input_list: list[torch.Tensor], op: Any = ReduceOp.SUM, group: Any = None,
                   async_op: bool = False) -> Any:
    pg = resolve(group)
    return None if pg is None else _done(pg.reduce_scatter(output, input_list, op), async_op)


def reduce_scatter_tensor(output: torch.Tensor, input: torch.Tensor, op: Any = ReduceOp.SUM, group: Any = None,
                          async_op: bool = False) -> Any:
    pg = resolve(group)
    return None if pg is None else _done(pg.reduce_scatter(output, input, op), async_op)


def all_to_all_single(output: torch.Tensor, input: torch.Tensor, output_split_sizes: list[int] | None = None,
                      input_split_sizes: list[int] | None = None, group: Any = None, async_op: bool = False) -> Any:
    pg = resolve(group)
    if pg is None:
        return None
    return _done(pg.alltoall(output, input, output_split_sizes, input_split_sizes), async_op)


def all_to_all(output_tensor_list: list[torch.Tensor], input_tensor_list: list[torch.Tensor], group: Any = None,
               async_op: bool = False) -> Any:
    pg = resolve(group)
    if pg is None:
        return None
    if len(output_tensor_list) != pg.size() or len(input_tensor_list) != pg.size():
        raise ValueError(f"all_to_all: lists of {pg.size()} tensors expected")
    flat_in = torch.cat([t.reshape(-1) for t in input_tensor_list])
    flat_out = torch.empty(sum(t.numel() for t in output_tensor_list), dtype=flat_in.dtype)
    work = pg.alltoall(flat_out, flat_in, [t.numel() for t in output_tensor_list],
                       [t.numel() for t in input_tensor_list])
    finish_in_mpi = work._finish

    def finish() -> None:
        finish_in_mpi()
        for out, part in zip(output_tensor_list, flat_out.split([t.numel() for t in output_tensor_list])):
            out.copy_(part.view(out.shape))
    work._finish = finish
    return _done(work, async_op)


def send(tensor: torch.Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
         group_dst: int | None = None) -> None:
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor: torch.Tensor, src: int | None = None, group: Any = None, tag: int = 0,
         group_src: int | None = None) -> int:
    """Receive into tensor from src (any rank when None); returns the sender's global rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    return work.source_rank()


def isend(tensor: torch.Tensor, dst: int | None = None, group: Any = None, tag: int = 0,
          group_dst: int | None = None) -> Work | None:
    pg = resolve(group)
    if pg is None:
        return None
    peer = group_rank_of(pg, dst, group_dst, "send")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    return pg.send(tensor, peer, tag)


def irecv(tensor: torch.Tensor, src: int | None = None, group: Any = None, tag: int = 0,
          group_src: int | None = None) -> Work | None:
    pg = resolve(group)
    if pg is None:
        return None
    peer = None if src is None and group_src is None else group_rank_of(pg, src, group_src, "recv")
    return pg.recv(tensor, peer, tag)


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Start every send and receive of the list; their Works, to wait on."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    works = []
    for p in p2p_op_list:
        if p.op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        work = p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer)
        if work is not None:
            works.append(work)
    return works


def barrier(group: Any = None, async_op: bool = False, device_ids: Any = None) -> Any:
    pg = resolve(group)
    return None if pg is None else _done(pg.barrier(), async_op)


def monitored_barrier(group: Any = None, timeout: timedelta | None = None, wait_all_ranks: bool = False) -> None:
    """A barrier whose rank 0 names the ranks that did not reach it within timeout (RuntimeError)."""
    pg = resolve(group)
    if pg is None:
        return
    seconds = (timeout or pg.timeout).total_seconds()
    token = torch.zeros(1, dtype=torch.int64)
    if pg.rank() != 0:
        pg.send(token, 0, tag=_MONITORED).wait(seconds)
        pg.recv(token, 0, tag=_MONITORED).wait(seconds)
        return
    arrived = {r: pg.recv(torch.zeros(1, dtype=torch.int64), r, tag=_MONITORED) for r in range(1, pg.size())}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(w.is_completed() for w in arrived.values()):
        time.sleep(1e-4)
    missing = [pg.global_ranks[r] for r, w in arrived.items() if not w.is_completed()]
    if missing:
        for w in arrived.values():
            if not w.is_completed():
                for request in w._requests:
                    request.Cancel()
        named = missing if wait_all_ranks else missing[:1]
        raise RuntimeError(f"[Rank {pg.global_rank}]: Ranks {', '.join(map(str, named))} failed to pass "
                           f"monitoredBarrier in {int(seconds * 1000)} ms")
    for r in range(1, pg.size()):
        pg.send(token, r, tag=_MONITORED).wait(seconds)


_MONITORED = 32767      # the tag of monitored_barrier's messages


# -- Python objects -----------------------------------------------------------------------------------------------
def _pickled(obj: Any) -> torch.Tensor:
    return torch.from_numpy(np.frombuffer(bytearray(pickle.dumps(obj)), dtype=np.uint8))


def _unpickled(data: torch.Tensor) -> Any:
    return pickle.loads(data.numpy().tobytes())


def broadcast_object_list(object_list: list[Any], src: int | None = None, group: Any = None, device: Any = None,
                          group_src: int | None = None) -> None:
    """Replace object_list's items on every rank with src's (pickled)."""
    pg = resolve(group)
    if pg is None:
        return
    root = group_rank_of(pg, src, group_src, "broadcast_object_list", default=0)
    payloads = [_pickled(obj) for obj in object_list] if pg.rank() == root else []
    sizes = torch.tensor([p.numel() for p in payloads] if payloads else [0] * len(object_list), dtype=torch.int64)
    pg.broadcast(sizes, root).wait()
    data = torch.cat(payloads) if payloads else torch.empty(int(sizes.sum()), dtype=torch.uint8)
    pg.broadcast(data, root).wait()
    if pg.rank() != root:
        for i, part in enumerate(data.split(sizes.tolist())):
            object_list[i] = _unpickled(part)


def all_gather_object(object_list: list[Any], obj: Any, group: Any = None) -> None:
    """object_list[i] = rank i's obj, on every rank."""
    pg = resolve(group)
    if pg is None:
        return
    parts = _exchange(pg, _pickled(obj))
    for i, part in enumerate(parts):
        object_list[i] = _unpickled(part)


def gather_object(obj: Any, object_gather_list: list[Any] | None = None, dst: int | None = None, group: Any = None,
                  group_dst: int | None = None) -> None:
    pg = resolve(group)
    if pg is None:
        return
    root = group_rank_of(pg, dst, group_dst, "gather_object", default=0)
    parts = _exchange(pg, _pickled(obj))
    if pg.rank() == root:
        if object_gather_list is None or len(object_gather_list) != pg.size():
            raise ValueError(f"gather_object: the destination needs an object_gather_list of {pg.size()}")
        for i, part in enumerate(parts):
            object_gather_list[i] = _unpickled(part)


def scatter_object_list(scatter_object_output_list: list[Any], scatter_object_input_list: list[Any] | None = None,
                        src: int | None = None, group: Any = None, group_src: int | None = None) -> None:
    pg = resolve(group)
    if pg is None:
        return
    root = group_rank_of(pg, src, group_src, "scatter_object_list", default=0)
    objects: list[Any] = list(scatter_object_input_list or []) if pg.rank() == root else [None] * pg.size()
    broadcast_object_list(objects, group=pg, group_src=root)
    scatter_object_output_list[0] = objects[pg.rank()]


def _exchange(pg: Any, payload: torch.Tensor) -> Sequence[torch.Tensor]:
    """Every rank's bytes, on every rank."""
    size = pg.size()
    sizes = [torch.zeros(1, dtype=torch.int64) for _ in range(size)]
    pg.allgather(sizes, torch.tensor([payload.numel()], dtype=torch.int64)).wait()
    longest = max(int(s.item()) for s in sizes)
    padded = torch.zeros(longest, dtype=torch.uint8)
    padded[:payload.numel()] = payload
    gathered = [torch.empty(longest, dtype=torch.uint8) for _ in range(size)]
    pg.allgather(gathered, padded).wait()
    return [g[:int(s.item())] for g, s in zip(gathered, sizes)]

