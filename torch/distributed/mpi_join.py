"""torch.distributed.mpi_join: processes not started by mpiexec (torchrun's, torch.multiprocessing.spawn's, or
started by hand with RANK and WORLD_SIZE), each an MPI singleton, joined into one communicator over the process
group's store, with MPI's own dynamic-process support.

Rank 0 opens an MPI port and publishes its name in the store; every other rank connects to it
(MPI_Comm_connect) and says which rank it is; the growing group accepts each connection together
(MPI_Comm_accept) and merges it in (MPI_Intercomm_merge), until every rank is in.

MPI_Comm_accept has no timeout: a rank that reached the rendezvous but dies or hangs before it connects would
leave the group waiting forever. So rank 0 keeps the group's timeout as a deadline: if ranks are still missing
when it passes, a short-lived stand-in process connects in their place and says so, and every rank in the group
raises DistBackendError naming the ranks that never joined. A process that connects but does not say which rank
it is within a grace period (it died in between) is dropped, and the others go on accepting: which rank it was
shows at the deadline. Rank 0 admits each rank it heard from with a message of its own, so a rank too slow to say
which it is raises instead of waiting in MPI_Intercomm_merge for a group that dropped it. A rank still trying to
connect gives up a grace period after the timeout (MPI_Comm_connect's "timeout" hint): rank 0's deadline, which
started before its own wait, decides."""
from __future__ import annotations

import logging
import math
import subprocess
import sys
import threading
import time
from typing import Any

from torch.distributed.errors import DistBackendError

__all__ = ["join"]

_STAND_IN = -1          # what the stand-in says in place of a rank
_DROPPED = -2           # a process connected, then said nothing within _grace (it died in between): go on accepting
_SILENT = -3            # the same, but the deadline has passed meanwhile: nobody else is coming


def _grace(timeout_s: float) -> float:
    """How long a process that connects has to say which rank it is: a third of the timeout, from 1 to 10 s (a
    rank that stalls longer is dropped, and the others wait out the timeout)."""
    return min(10.0, max(1.0, timeout_s / 3))
_STAND_IN_CODE = ("import sys\n"
                  "from mpi4py import MPI\n"
                  "info = MPI.Info.Create()\n"
                  "info.Set('timeout', '2')\n"
                  "inter = MPI.COMM_SELF.Connect(sys.argv[1], info)\n"
                  f"inter.send({_STAND_IN}, dest=0)\n"
                  "inter.Disconnect()\n")


def join(MPI: Any, store: Any, rank: int, world_size: int, timeout_s: float) -> Any:
    """An intracommunicator of the world_size processes meeting over `store`, in which this one has `rank`."""
    store.set(f"mpi/arrived/{rank}", b"1")
    deadline: _Deadline | None = None
    if rank == 0:
        store.wait([f"mpi/arrived/{r}" for r in range(world_size)])      # each will connect: accepts end
        port = MPI.Open_port()
    else:
        port = store.get("mpi/port").decode()
        inter = _connect(MPI, port, rank, timeout_s)
        inter.send(rank, dest=0)
        _await_admission(inter, rank, timeout_s)
        comm = inter.Merge(high=True)
        inter.Free()
    try:
        if rank == 0:
            store.set("mpi/port", port.encode())
            comm = MPI.COMM_SELF.Dup()
            deadline = _Deadline(port, timeout_s)
        comm = _accept_the_others(comm, port, rank, world_size, timeout_s, deadline)
    finally:
        if deadline is not None:
            deadline.cancel()
        if rank == 0:
            MPI.Close_port(port)
    ordered = comm.Split(0, rank)
    comm.Free()
    return ordered


def _accept_the_others(comm: Any, port: str, rank: int, world_size: int, timeout_s: float,
                       deadline: _Deadline | None) -> Any:
    """The group grown by each connecting rank in turn (every member accepts together; rank 0 is the root and
    holds the deadline)."""
    joined = list(range(comm.Get_size()))       # (rank 0's list; rank 0 is alone at first)
    while comm.Get_size() < world_size:
        inter = comm.Accept(port, root=0)
        if deadline is not None:
            who = _who(inter, deadline)
            if who >= 0:
                joined = joined + [who]
                inter.send(True, dest=0)            # admitted: it may merge
        who, joined = comm.bcast((who, joined) if deadline is not None else None, root=0)
        if who in (_DROPPED, _SILENT):
            inter.Free()        # its peer is gone: nothing to disconnect from
        if who == _DROPPED:
            continue
        if who in (_STAND_IN, _SILENT):
            if who == _STAND_IN:
                inter.Disconnect()
            comm.Free()
            missing = sorted(set(range(world_size)) - set(joined))
            raise DistBackendError(f"[Rank {rank}] init_process_group: rank(s) {missing} reached the rendezvous but "
                                   f"did not join the MPI communicator within the timeout ({timeout_s:g} s)")
        merged = inter.Merge(high=False)
        inter.Free()
        comm.Free()
        comm = merged
    return comm


def _who(inter: Any, deadline: _Deadline) -> Any:
    """The rank the process just accepted says it is (it says so right after connecting), or, where it says
    nothing within _grace seconds, _DROPPED (or _SILENT once the deadline has passed)."""
    done, who = _receive(inter, time.monotonic() + _grace(deadline.timeout_s))
    if done:
        return who
    return _SILENT if time.monotonic() >= deadline.end else _DROPPED


def _await_admission(inter: Any, rank: int, timeout_s: float) -> None:
    """Wait for rank 0's word that this rank is in; without it (rank 0 gave up on it as too slow), raise rather
    than wait in the merge for a group that dropped it."""
    if not _receive(inter, time.monotonic() + timeout_s)[0]:
        inter.Free()
        raise DistBackendError(f"[Rank {rank}] init_process_group: rank 0 did not admit this rank into the MPI "
                               f"communicator within the timeout ({timeout_s:g} s)")


def _receive(inter: Any, end: float) -> tuple[bool, Any]:
    """(True, the message) from the other side's first process, or (False, None) where none came by `end`."""
    request = inter.irecv(source=0)
    pause = 1e-5
    while True:
        done, message = request.test()
        if done:
            return True, message
        if time.monotonic() >= end:
            request.Cancel()
            return False, None
        time.sleep(pause)
        pause = min(pause * 2, 1e-3)


def _connect(MPI: Any, port: str, rank: int, timeout_s: float) -> Any:
    """An intercommunicator with the group accepting on `port`, or DistBackendError a grace period after the
    timeout (rank 0's deadline, which started before this wait, is what decides)."""
    info = MPI.Info.Create()
    info.Set("timeout", str(max(1, math.ceil(timeout_s + _grace(timeout_s)))))
    try:
        return MPI.COMM_SELF.Connect(port, info)
    except MPI.Exception as error:
        raise DistBackendError(f"[Rank {rank}] init_process_group: could not join rank 0's MPI communicator "
                               f"(waiting up to the timeout, {timeout_s:g} s): "
                               f"{MPI.Get_error_string(error.Get_error_class())}") from None
    finally:
        info.Free()


class _Deadline:
    """Rank 0's deadline for the join: when it passes, a process connects that says it stands in for the missing
    ranks (it exits on its own, within seconds also where the group completed meanwhile and the port is
    closed; a thread waits for it, so it leaves no zombie)."""

    def __init__(self, port: str, timeout_s: float) -> None:
        self.port, self.timeout_s = port, timeout_s
        self.end = time.monotonic() + timeout_s
        self.timer = threading.Timer(timeout_s, self._stand_in)
        self.timer.daemon = True
        self.timer.start()

    def cancel(self) -> None:
        self.timer.cancel()

    def _stand_in(self) -> None:
        try:
            process = subprocess.Popen([sys.executable, "-c", _STAND_IN_CODE, self.port],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError as error:
            logging.getLogger("torch.distributed").error(
                "init_process_group: ranks are missing at the timeout, and the process that would stop the others "
                "waiting for them could not start (%s)", error)
            return
        threading.Thread(target=process.wait, name="MPI join stand-in", daemon=True).start()
