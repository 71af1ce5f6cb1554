"""torch.distributed.elastic_rendezvous: torchrun's c10d rendezvous (--rdzv_backend=c10d), as PyTorch's dynamic
rendezvous behaves.

The agents meet over a TCPStore at --rdzv_endpoint, served by the first agent on that machine to bind its port (the
others connect to it), in rounds. A round closes once every agent of the round before has left that one, as soon
as max nodes have joined it, or once min have and the last call (rdzv_conf last_call_timeout, 30 s) has passed
since; node ranks follow the order in which the agents first arrived, so they keep their place from round to round,
and the workers' ranks follow those of the nodes before theirs. An agent that arrives after a round closed waits
for the next: while the running round has room for it, its agents stop their workers and meet again with it (a
membership change, not counted against --max_restarts); while it has none, it waits as a spare, and leaves when the
job completes. An agent whose workers failed, with restarts left, asks the others to meet again; without, it
closes the rendezvous and every agent stops. The agent serving the store leaves last."""
from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from torch.distributed.errors import DistError, DistNetworkError

__all__ = ["Assignment", "Rendezvous", "RendezvousClosedError", "RendezvousGracefulExit", "RendezvousTimeoutError",
           "agent_store"]


class RendezvousClosedError(DistError):
    """The rendezvous was closed: an agent's workers failed past its last restart."""


class RendezvousGracefulExit(DistError):
    """The job completed while this agent waited as a spare."""


class RendezvousTimeoutError(DistError):
    """Fewer than min nodes joined within the join timeout."""


@dataclass(frozen=True)
class Assignment:
    """This node's place in a closed round."""
    round: int
    group_rank: int             # the node's rank
    group_world_size: int       # the nodes in the round
    rank_offset: int            # the rank of this node's first worker
    world_size: int             # the workers of every node in the round


def agent_store(host: str, port: int, timeout: timedelta) -> tuple[Any, bool]:
    """(the rendezvous store at host:port, whether this agent serves it): the first agent on the endpoint's
    machine to bind the port serves it; every other agent connects."""
    from torch.distributed.stores import TCPStore
    if _is_this_machine(host):
        try:
            return TCPStore(host, port, None, is_master=True, timeout=timeout, wait_for_workers=False,
                            multi_tenant=True), True
        except DistNetworkError:        # another agent on this machine serves it
            pass
    return TCPStore(host, port, None, is_master=False, timeout=timeout, wait_for_workers=False), False


def _is_this_machine(host: str) -> bool:
    if host in ("localhost", "127.0.0.1", "0.0.0.0", "::1", socket.gethostname(), socket.getfqdn()):
        return True
    try:
        address = socket.gethostbyname(host)
        return address.startswith("127.") or address == socket.gethostbyname(socket.gethostname())
    except OSError:
        return False


# How long a round waits for an agent of the round before that never left it, once that round's agents have stopped
# beating (they died)
_LEFT_WAIT = 30.0


class Rendezvous:
    """One agent's view of the rounds of run `run_id` in `store`."""

    def __init__(self, store: Any, run_id: str, min_nodes: int, max_nodes: int, nproc: int,
                 last_call_timeout: float = 30.0, join_timeout: float = 600.0) -> None:
        if not 1 <= min_nodes <= max_nodes:
            raise ValueError(f"The minimum number of nodes ({min_nodes}) must be at least 1 and at most the maximum "
                             f"({max_nodes})")
        self.store, self.prefix = store, f"torchelastic/rdzv/{run_id}"
        self.min_nodes, self.max_nodes, self.nproc = min_nodes, max_nodes, nproc
        self.last_call_timeout, self.join_timeout = last_call_timeout, join_timeout
        self.agent_id = store.add(self._key("agents"), 1)      # (its place among the nodes: first come, first)
        self.member_of: Assignment | None = None       # the round this agent is in and has not left

    def _key(self, *parts: object) -> str:
        return "/".join([self.prefix, *map(str, parts)])

    def _count(self, *parts: object) -> int:
        return int(self.store.add(self._key(*parts), 0))

    def next_round(self, leaving: Assignment | None = None, failed: bool = False) -> Assignment:
        """Join the first round still open (having left `leaving`, if any; `failed`: because this agent's workers
        failed) and wait for it to close; an agent that joined just as it closed goes on to the next."""
        deadline = time.monotonic() + self.join_timeout
        round_ = leaving.round + 1 if leaving is not None else 0
        while True:
            self._raise_if_closed(failed)
            while self.store.check([self._key(round_, "size")]):
                round_ += 1
            index = self.store.add(self._key(round_, "joined"), 1) - 1
            self.store.set(self._key(round_, "member", index), str(self.agent_id))
            self.store.set(self._key(round_, "nproc", self.agent_id), str(self.nproc))
            if leaving is not None:         # (joined first: the round before is over only once its agents are in)
                self.store.add(self._key(leaving.round, "left"), 1)
                leaving = self.member_of = None
            size = self._closed_size(round_, deadline, failed)
            if index < size:
                self.member_of = self._assign(round_, size)
                return self.member_of
            round_ += 1

    def _over(self, round_: int) -> bool:
        """Whether every agent of round_ has left it (round -1: there was none)."""
        return round_ < 0 or self._count(round_, "left") >= int(self.store.get(self._key(round_, "size")))

    def _closed_size(self, round_: int, deadline: float, failed: bool) -> int:
        """The number of nodes round_ closed with (the agent that sees it full, or past its last call, with the
        round before over, closes it; the first to close decides)."""
        last_call_end: float | None = None
        beats, beaten = -1, time.monotonic()        # the round before's heartbeats, and when they last moved
        while True:
            if self.store.check([self._key(round_, "size")]):
                return int(self.store.get(self._key(round_, "size")))
            self._raise_if_closed(failed)
            joined, now = self._count(round_, "joined"), time.monotonic()
            beat = self._count(round_ - 1, "beat") if round_ > 0 else beats
            if beat != beats:
                beats, beaten = beat, now
            # (the round before is over once its agents left it, or, those left having died, once it is quiet)
            if joined >= self.min_nodes and last_call_end is None and \
                    (self._over(round_ - 1) or now >= beaten + _LEFT_WAIT):
                last_call_end = now + self.last_call_timeout
            if last_call_end is not None and (joined >= self.max_nodes or now >= last_call_end):
                self.store.compare_set(self._key(round_, "size"), "", str(min(joined, self.max_nodes)))
                continue
            if now >= deadline:
                raise RendezvousTimeoutError(
                    f"The node has not joined a round of the rendezvous within the join timeout "
                    f"({self.join_timeout:g} s): {joined} of at least {self.min_nodes} nodes have joined")
            time.sleep(0.05)

    def _assign(self, round_: int, size: int) -> Assignment:
        members = sorted(int(self.store.get(self._key(round_, "member", i))) for i in range(size))
        counts = [int(self.store.get(self._key(round_, "nproc", member))) for member in members]
        place = members.index(self.agent_id)
        return Assignment(round_, place, size, sum(counts[:place]), sum(counts))

    def should_meet_again(self, assignment: Assignment) -> bool:
        """Whether this round's workers are to stop: another agent's failed and it asks to meet again, or an agent
        waits for the next round while this one has room for it (or the rendezvous was closed)."""
        self.store.add(self._key(assignment.round, "beat"), 1)     # (this round's agents are alive)
        if self.store.check([self._key(assignment.round, "again")]) or self.store.check([self._key("closed")]):
            return True
        # (once a node has finished, the job admits nobody: its round cannot start again)
        return assignment.group_world_size < self.max_nodes and \
            self.store.check([self._key(assignment.round + 1, "joined")]) and \
            not self.store.check([self._key("completed")])

    def meet_again(self, assignment: Assignment) -> None:
        """This agent's workers failed, and it restarts them: every agent of the round meets again."""
        self.store.set(self._key(assignment.round, "again"), b"1")

    def close(self, assignment: Assignment | None = None, serving: bool = False) -> None:
        """This agent's workers failed past its last restart: every agent stops. The agent serving the store waits
        (up to 30 s) for the round's other agents to leave, so that they learn why rather than lose the store."""
        self.store.set(self._key("closed"), b"1")
        if assignment is not None:
            self._leave_and_wait(assignment, serving, 30)

    def finished(self, assignment: Assignment, serving: bool) -> None:
        """This node's workers succeeded: the job is complete (spares leave too), and it leaves the round; the agent
        serving the store waits (up to 300 s, as PyTorch's exit barrier) for the round's other agents to leave."""
        self.store.set(self._key("completed"), b"1")
        self._leave_and_wait(assignment, serving, 300)

    def _leave_and_wait(self, assignment: Assignment, serving: bool, wait_s: float) -> None:
        self.leave()
        deadline = time.monotonic() + wait_s
        while serving and self._count(assignment.round, "left") < assignment.group_world_size \
                and time.monotonic() < deadline:
            time.sleep(0.05)

    def leave(self) -> None:
        """Leave the round this agent is in, if any (also on the way out after an error or a signal)."""
        if self.member_of is not None:
            self.store.add(self._key(self.member_of.round, "left"), 1)
            self.member_of = None

    def _raise_if_closed(self, failed: bool) -> None:
        if self.store.check([self._key("closed")]):
            raise RendezvousClosedError("The rendezvous was closed: an agent's workers failed past its last restart")
        if self.store.check([self._key("completed")]):
            if failed:
                raise RendezvousClosedError("The job completed on the other nodes while this node's workers failed")
            raise RendezvousGracefulExit("The job completed without this node (it waited as a spare)")


class Presence:
    """The agents using a rendezvous store, of every run (the agent serving it waits for the others to leave
    before it stops serving)."""

    _KEY = "torchelastic/agents"

    def __init__(self, store: Any, serving: bool, wait_s: float = 300.0) -> None:
        self.store, self.serving, self.wait_s = store, serving, wait_s

    def __enter__(self) -> Presence:
        self.store.add(self._KEY, 1)
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        """Leave; the serving agent, on success only (as PyTorch's exit barrier), waits up to wait_s for the
        others."""
        try:
            self.store.add(self._KEY, -1)
            deadline = time.monotonic() + self.wait_s
            while self.serving and kind is None and int(self.store.add(self._KEY, 0)) > 0 \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
        except DistError:       # (the store is gone: nobody to wait for)
            pass
