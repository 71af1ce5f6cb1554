"""torch.distributed's CPU engine: MPI, through mpi4py (MPICH's wheel by default; any MPI mpi4py loads).

The communicator: processes started by mpiexec share MPI_COMM_WORLD. Processes started otherwise (by torchrun,
torch.multiprocessing.spawn, or by hand with RANK and WORLD_SIZE) each begin as MPI singletons; they join into
one communicator over the process group's store, with MPI's dynamic-process support (torch.distributed.mpi_join).
The ranks are then ordered as torch.distributed numbers them (MPI_Comm_split keyed by rank).

Every operation is nonblocking (MPI_Iallreduce, MPI_Isend...) and waited on by polling its request up to the
group's timeout, so that a rank that died or hangs makes the others raise DistBackendError instead of hanging.

Tensors are handed to MPI as NumPy views of their memory, without copies where they are contiguous CPU tensors.
MPI has no 16-bit floating types: float16 and bfloat16 reduce in float32 (each rank's values widened, the
result rounded back), and move as raw 16-bit words."""
from __future__ import annotations

import importlib.util
import os
import time
from typing import Any, Callable

import numpy as np

import torch
from torch.distributed import mpi_join
from torch.distributed.errors import DistBackendError

__all__ = ["Work", "available", "buffer_of", "communicator", "launched", "mpi", "reduce_buffer"]

# Environment variables a launcher sets for processes that share MPI_COMM_WORLD (MPICH's hydra, Open MPI's).
_LAUNCHED = ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")


def available() -> bool:
    """Whether mpi4py is installed (torch.distributed.is_available); MPI itself starts at the first group."""
    return importlib.util.find_spec("mpi4py") is not None


_MPI: Any = None


def mpi() -> Any:
    """mpi4py.MPI (importing it starts MPI in this process)."""
    global _MPI
    if _MPI is None:
        from mpi4py import MPI
        _MPI = MPI
    return _MPI


def launched() -> tuple[int, int] | None:
    """(rank, size) in MPI_COMM_WORLD when mpiexec started this process (its environment says so), else None."""
    if not any(name in os.environ for name in _LAUNCHED):
        return None
    world = mpi().COMM_WORLD
    return int(world.Get_rank()), int(world.Get_size())


def communicator(store: Any, rank: int, world_size: int, timeout_s: float) -> Any:
    """An MPI intracommunicator of world_size processes in which this process has `rank` (timeout_s: how long the
    ranks not started by mpiexec wait for each other to join it)."""
    MPI = mpi()
    world = MPI.COMM_WORLD
    if any(name in os.environ for name in _LAUNCHED) and world.Get_size() > 1:
        if world.Get_size() != world_size:
            raise ValueError(f"init_process_group: world_size={world_size}, but mpiexec started "
                             f"{world.Get_size()} processes")
        return world.Split(0, rank)
    if world_size == 1:
        return MPI.COMM_SELF.Dup()
    return mpi_join.join(MPI, store, rank, world_size, timeout_s)


# -- tensors as MPI buffers -------------------------------------------------------------------------------------
_WIDENED = (torch.float16, torch.bfloat16)
_WORDS = {torch.bfloat16: torch.int16}


def buffer_of(tensor: torch.Tensor, for_reduction: bool = False) -> tuple[np.ndarray, Callable[[], None]]:
    """(a NumPy array over tensor's values, what to call once MPI has written it). The array is a view of the
    tensor's memory where it is a contiguous CPU tensor of a type MPI carries; else a copy, written back after.
    for_reduction: 16-bit floats widened to float32 (MPI cannot add them)."""
    if tensor.device.type != "cpu":
        raise DistBackendError(f"Ember's MPI engine carries CPU tensors; got one on {tensor.device} (NCCL, for "
                               "CUDA tensors, is not available in this build)")
    data: Any = tensor.detach() if tensor.requires_grad else tensor
    if for_reduction and data.dtype in _WIDENED:
        wide = data.to(torch.float32).contiguous()
        return wide.numpy(), lambda: data.copy_(wide)
    if data.is_contiguous():
        return _numpy(data), _nothing
    dense = data.contiguous()
    return _numpy(dense), lambda: data.copy_(dense)


def _numpy(tensor: torch.Tensor) -> np.ndarray:
    word = _WORDS.get(tensor.dtype)
    return (tensor.view(word) if word is not None else tensor).numpy()


def _nothing() -> None:
    return None


_REDUCE_OPS: dict[tuple[str, str], Any] = {}     # (array kind, op name) -> the MPI operation, once checked


def reduce_buffer(MPI: Any, op_name: str, array: np.ndarray) -> Any:
    """The MPI operation for a torch.distributed ReduceOp on an array of this type (AVG sums: the caller
    divides)."""
    key = (array.dtype.kind, op_name)
    found = _REDUCE_OPS.get(key)
    if found is None:
        found = _REDUCE_OPS[key] = _checked_reduce_op(MPI, op_name, array.dtype)
    return found


def _checked_reduce_op(MPI: Any, op_name: str, dtype: np.dtype) -> Any:
    kind = dtype.kind
    if kind == "b":         # bool: a sum or a maximum is "any", a product or a minimum "all"
        logical = {"SUM": MPI.LOR, "MAX": MPI.LOR, "AVG": None, "PRODUCT": MPI.LAND, "MIN": MPI.LAND,
                   "BAND": MPI.LAND, "BOR": MPI.LOR, "BXOR": MPI.LXOR}[op_name]
        if logical is None:
            raise ValueError("ReduceOp.AVG is not supported for bool tensors")
        return logical
    if op_name in ("BAND", "BOR", "BXOR") and kind not in "iu":
        raise ValueError(f"ReduceOp.{op_name} needs an integer or bool tensor, got {dtype}")
    if op_name == "AVG" and kind not in "fc":
        raise ValueError(f"ReduceOp.AVG needs a floating-point or complex tensor, got {dtype}")
    if op_name in ("MIN", "MAX") and kind == "c":
        raise ValueError(f"ReduceOp.{op_name} is not defined for complex tensors")
    return {"SUM": MPI.SUM, "AVG": MPI.SUM, "PRODUCT": MPI.PROD, "MIN": MPI.MIN, "MAX": MPI.MAX,
            "BAND": MPI.BAND, "BOR": MPI.BOR, "BXOR": MPI.BXOR}[op_name]


def _seconds(timeout: Any) -> float:
    if timeout is None:
        return 0.0
    return timeout.total_seconds() if hasattr(timeout, "total_seconds") else float(timeout)


# -- waiting ----------------------------------------------------------------------------------------------------
_SPIN = 0.05        # seconds a wait polls without pausing (MPI progresses only while it is polled)


class Work:
    """A collective or point-to-point operation in flight (torch.distributed's Work): wait() completes it,
    then runs what finishes it (a copy back, AVG's division)."""

    def __init__(self, requests: list[Any], finish: Callable[[], Any], what: str, group: Any,
                 keep: tuple[Any, ...] = (), status: Any = None, outputs: list[Any] | None = None) -> None:
        self._requests = requests
        self._finish = finish
        self._what = what
        self._group = group
        self._keep = keep           # the buffers MPI reads or writes until the operation completes
        self._status = status       # a receive's (its source rank)
        self._result: Any = outputs     # result(): the output tensors, or a receive's source rank
        self._future: Any = None        # get_future()'s
        self._done = False
        self._error: BaseException | None = None

    def wait(self, timeout: Any = None) -> bool:
        """Complete the operation (up to timeout, else the group's: 0 or None), then finish it."""
        if self._done:
            self._settle_future()
            if self._error is not None:
                raise self._error
            return True
        seconds = _seconds(timeout) or self._group.timeout_seconds
        start = time.monotonic()
        deadline = start + seconds
        while not self._test():
            now = time.monotonic()
            if now >= deadline:
                self._group.broken = True
                self._done = True
                self._error = DistBackendError(
                    f"[Rank {self._group.global_rank}] {self._what} timed out after {seconds:g} s in process group "
                    f"{self._group.group_name!r} (a rank of the group may have died or be hung); the group cannot "
                    "be used any more")
                self._settle_future()
                raise self._error
            if now - start > _SPIN:
                time.sleep(5e-5)
        self._settle_future()
        return True

    def _test(self) -> bool:
        """Whether the operation completed (then finished: its source read, its results written back)."""
        if self._done:
            return True
        statuses = None if self._status is None else [self._status]
        if not mpi().Request.Testall(self._requests, statuses):
            return False
        self._done = True
        if statuses is not None:
            self._result = self._group.global_ranks[statuses[0].Get_source()]
        self._finish()
        self._keep = ()
        return True

    def is_completed(self) -> bool:
        """Whether the operation completed; its Future's callbacks run when this or wait() first finds it has
        (never from the engine's own polling, so that collectives a callback starts begin at the same point of
        the program on every rank)."""
        if not self._test():
            return False
        self._settle_future()
        return True

    def is_success(self) -> bool:
        return self.is_completed() and self._error is None

    def exception(self) -> BaseException | None:
        return self._error

    def result(self) -> Any:
        self.wait()
        return self._result

    def get_future(self) -> Any:
        """A torch.futures.Future of the operation's output tensors (a list), completed when the operation is
        (its callbacks run then)."""
        if self._future is None:
            from torch.futures import Future
            self._future = Future()
            self._future._poll, self._future._complete = self.is_completed, self._wait_quietly
            if self._done:
                self._settle_future()
        return self._future

    def _wait_quietly(self) -> None:
        try:
            self.wait()
        except Exception:
            pass        # the future carries the error

    def _settle_future(self) -> None:
        if self._future is not None:
            from torch.futures import _settle
            _settle(self._future, self._result if isinstance(self._result, list) else [], self._error)

    def source_rank(self) -> int:
        self.wait()
        return int(self._result)

    def synchronize(self) -> None:
        self.wait()
