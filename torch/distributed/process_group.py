"""A process group: its ranks' MPI communicator and the collectives on tensors, each started nonblocking and
returned as a Work (torch.distributed.mpi_engine). Ranks here are the group's own (0..size-1);
torch.distributed.distributed_c10d translates global ranks."""
from __future__ import annotations

from datetime import timedelta
from typing import Any, Callable, Sequence

import numpy as np

import torch
from torch.distributed.c10d_types import op_name
from torch.distributed.errors import DistBackendError
from torch.distributed.mpi_engine import Work, buffer_of, mpi, reduce_buffer

__all__ = ["ProcessGroup"]

_PRUNE_AT = 32      # Works kept before the completed ones are dropped


class ProcessGroup:
    """The ranks of a group (global_ranks[i] is group rank i's global rank) and their communicator."""

    __module__ = "torch.distributed"

    def __init__(self, comm: Any, global_ranks: list[int], backend: str, timeout: timedelta, name: str,
                 global_rank: int) -> None:
        self.comm = comm
        self.global_ranks = global_ranks
        self.backend = backend
        self.timeout = timeout
        self.group_name = name
        self.global_rank = global_rank
        self.broken = False
        self.pending: list[Work] = []

    # -- PyTorch's ProcessGroup methods programs call ------------------------------------------------------------
    def rank(self) -> int:
        return int(self.comm.Get_rank())

    def size(self) -> int:
        return int(self.comm.Get_size())

    def name(self) -> str:
        return self.backend

    @property
    def group_desc(self) -> str:
        return self.group_name

    @property
    def timeout_seconds(self) -> float:
        return self.timeout.total_seconds()

    def __repr__(self) -> str:
        return f"ProcessGroup(name={self.group_name!r}, backend={self.backend!r}, size={self.size()})"

    # -- collectives ----------------------------------------------------------------------------------------------
    def _work(self, what: str, requests: list[Any], finish: Callable[[], Any], *keep: Any, status: Any = None,
              outputs: list[Any] | None = None) -> Work:
        """The operation as a Work the group keeps until it completes: one the program drops unwaited still
        finishes (its buffers alive meanwhile, its results written back when a later operation finds it done)."""
        work = Work(requests, finish, what, self, keep, status, outputs)
        if len(self.pending) >= _PRUNE_AT:      # (pruning at every call cost a small collective a fifth of its time)
            self.pending = [w for w in self.pending if not w._test()]
        self.pending.append(work)
        return work

    def complete_pending(self) -> None:
        """Wait for every operation started on the group (a barrier, destroy_process_group)."""
        pending, self.pending = self.pending, []
        for work in pending:
            work.wait()

    def _check(self) -> None:
        if self.broken:
            raise DistBackendError(f"[Rank {self.global_rank}] process group {self.group_name!r} failed earlier (a "
                                   "collective timed out) and cannot be used")

    def allreduce(self, tensor: torch.Tensor, op: Any) -> Work:
        self._check()
        MPI, name = mpi(), op_name(op)
        array, written = buffer_of(tensor, for_reduction=True)
        request = self.comm.Iallreduce(MPI.IN_PLACE, array, op=reduce_buffer(MPI, name, array))
        return self._work("all_reduce", [request], self._finisher(array, written, name == "AVG"), array,
                          outputs=[tensor])

    def _finisher(self, array: np.ndarray, written: Callable[[], None], average: bool) -> Callable[[], None]:
        size = self.size()

        def finish() -> None:
            if average:
                np.divide(array, size, out=array)
            written()
        return finish

    def broadcast(self, tensor: torch.Tensor, root: int) -> Work:
        self._check()
        array, written = buffer_of(tensor)
        return self._work("broadcast", [self.comm.Ibcast(array, root=root)], written, array, outputs=[tensor])

    def reduce(self, tensor: torch.Tensor, root: int, op: Any) -> Work:
        self._check()
        MPI, name = mpi(), op_name(op)
        array, written = buffer_of(tensor, for_reduction=True)
        mpi_op = reduce_buffer(MPI, name, array)
        if self.rank() == root:
            request = self.comm.Ireduce(MPI.IN_PLACE, array, op=mpi_op, root=root)
            return self._work("reduce", [request], self._finisher(array, written, name == "AVG"), array,
                              outputs=[tensor])
        return self._work("reduce", [self.comm.Ireduce(array, None, op=mpi_op, root=root)], _nothing, array,
                          outputs=[tensor])

    def allgather(self, outputs: Sequence[torch.Tensor], tensor: torch.Tensor) -> Work:
        self._check()
        self._same_shapes("all_gather", outputs, tensor)
        array, _ = buffer_of(tensor)
        gathered = np.empty((self.size(),) + array.shape, dtype=array.dtype)
        request = self.comm.Iallgather(array, gathered)
        return self._work("all_gather", [request], lambda: _scatter_rows(gathered, outputs), array,
                          outputs=list(outputs))

    def allgather_into(self, output: torch.Tensor, tensor: torch.Tensor) -> Work:
        self._check()
        _same_dtype(output, tensor)
        if output.numel() != tensor.numel() * self.size():
            raise ValueError(f"all_gather_into_tensor: output of {output.numel()} elements for {self.size()} ranks "
                             f"of {tensor.numel()}")
        array, _ = buffer_of(tensor)
        out, written = buffer_of(output)
        return self._work("all_gather_into_tensor", [self.comm.Iallgather(array, out)], written, array, out,
                          outputs=[output])

    def gather(self, outputs: Sequence[torch.Tensor] | None, tensor: torch.Tensor, root: int) -> Work:
        self._check()
        array, _ = buffer_of(tensor)
        if self.rank() != root:
            return self._work("gather", [self.comm.Igather(array, None, root=root)], _nothing, array)
        if outputs is None or len(outputs) != self.size():
            raise ValueError(f"gather: the destination needs a gather_list of {self.size()} tensors")
        self._same_shapes("gather", outputs, tensor)
        gathered = np.empty((self.size(),) + array.shape, dtype=array.dtype)
        request = self.comm.Igather(array, gathered, root=root)
        return self._work("gather", [request], lambda: _scatter_rows(gathered, outputs), array)

    def scatter(self, tensor: torch.Tensor, inputs: Sequence[torch.Tensor] | None, root: int) -> Work:
        self._check()
        out, written = buffer_of(tensor)
        if self.rank() != root:
            return self._work("scatter", [self.comm.Iscatter(None, out, root=root)], written, out,
                              outputs=[tensor])
        if inputs is None or len(inputs) != self.size():
            raise ValueError(f"scatter: the source needs a scatter_list of {self.size()} tensors")
        self._same_shapes("scatter", inputs, tensor)
        stacked = _stacked(inputs)
        return self._work("scatter", [self.comm.Iscatter(stacked, out, root=root)], written, stacked, out,
                          outputs=[tensor])

    def reduce_scatter(self, output: torch.Tensor, inputs: Sequence[torch.Tensor] | torch.Tensor, op: Any) -> Work:
        self._check()
        if isinstance(inputs, torch.Tensor):
            _same_dtype(output, inputs)
        MPI, name = mpi(), op_name(op)
        if isinstance(inputs, torch.Tensor):
            if inputs.numel() != output.numel() * self.size():
                raise ValueError(f"reduce_scatter_tensor: input of {inputs.numel()} elements for {self.size()} "
                                 f"ranks of {output.numel()}")
            send, _ = buffer_of(inputs, for_reduction=True)
        else:
            if len(inputs) != self.size():
                raise ValueError(f"reduce_scatter: {len(inputs)} inputs for {self.size()} ranks")
            self._same_shapes("reduce_scatter", inputs, output)
            send = _stacked(inputs, widen=True)
        send = np.ascontiguousarray(send)
        out, written = buffer_of(output, for_reduction=True)
        request = self.comm.Ireduce_scatter_block(send, out, op=reduce_buffer(MPI, name, out))
        return self._work("reduce_scatter", [request], self._finisher(out, written, name == "AVG"), send, out,
                          outputs=[output])

    def alltoall(self, output: torch.Tensor, tensor: torch.Tensor, output_splits: Sequence[int] | None,
                 input_splits: Sequence[int] | None) -> Work:
        self._check()
        _same_dtype(output, tensor)
        send, _ = buffer_of(tensor)
        out, written = buffer_of(output)
        row_in = int(np.prod(tensor.shape[1:])) if tensor.dim() > 1 else 1
        row_out = int(np.prod(output.shape[1:])) if output.dim() > 1 else 1
        size = self.size()
        sends = [s * row_in for s in input_splits] if input_splits else [tensor.numel() // size] * size
        receives = [s * row_out for s in output_splits] if output_splits else [output.numel() // size] * size
        if sum(sends) != tensor.numel() or sum(receives) != output.numel():
            raise ValueError("all_to_all_single: the split sizes do not add up to the tensors' first dimension")
        request = self.comm.Ialltoallv([send.reshape(-1), (sends, _offsets(sends))],
                                       [out.reshape(-1), (receives, _offsets(receives))])
        return self._work("all_to_all", [request], written, send, out, outputs=[output])

    def send(self, tensor: torch.Tensor, peer: int, tag: int) -> Work:
        self._check()
        array, _ = buffer_of(tensor)
        return self._work("send", [self.comm.Isend(array, dest=peer, tag=tag)], _nothing, array)

    def recv(self, tensor: torch.Tensor, peer: int | None, tag: int) -> Work:
        self._check()
        MPI = mpi()
        array, written = buffer_of(tensor)
        status = MPI.Status()
        request = self.comm.Irecv(array, source=MPI.ANY_SOURCE if peer is None else peer, tag=tag)
        return self._work("recv", [request], written, array, status=status)

    def barrier(self) -> Work:
        self._check()
        self.complete_pending()         # (as gloo's barrier, after the work started before it)
        return self._work("barrier", [self.comm.Ibarrier()], _nothing)

    @staticmethod
    def _same_shapes(what: str, tensors: Sequence[torch.Tensor], like: torch.Tensor) -> None:
        for t in tensors:
            if t.shape != like.shape or t.dtype != like.dtype:
                raise RuntimeError(f"{what}: every tensor must have the shape {tuple(like.shape)} and dtype "
                                 f"{like.dtype} of the input (got {tuple(t.shape)}, {t.dtype})")


def _nothing() -> None:
    return None


def _same_dtype(output: torch.Tensor, tensor: torch.Tensor) -> None:
    if output.dtype != tensor.dtype:
        raise RuntimeError(f"output tensor must have the same type as input tensor (got {output.dtype} and "
                           f"{tensor.dtype})")


def _stacked(tensors: Sequence[torch.Tensor], widen: bool = False) -> np.ndarray:
    return np.stack([buffer_of(t, for_reduction=widen)[0] for t in tensors])


def _scatter_rows(gathered: np.ndarray, outputs: Sequence[torch.Tensor]) -> None:
    for row, out in zip(gathered, outputs):
        array, written = buffer_of(out)
        array[...] = row
        written()


def _offsets(counts: Sequence[int]) -> list[int]:
    offsets, total = [], 0
    for count in counts:
        offsets.append(total)
        total += count
    return offsets
