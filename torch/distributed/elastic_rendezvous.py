"""torch.distributed.elastic_rendezvous: torchrun's c10d rendezvous (--rdzv_backend=c10d), as PyTorch's dynamic
rendezvous behaves.

The agents meet over a TCPStore at --rdzv_endpoint, served by the first agent on that machine to bind its port (the
others connect to it), in rounds. A round closes as soon as max nodes have joined it, or once min have and the last
call (rdzv_conf last_call_timeout, 30 s) has passed since; an agent's node rank is its place in the round, and its
workers' ranks follow those of the nodes before it. An agent that arrives after a round closed waits for the next:
while the running round has room for it, its agents stop their workers and meet again with it (a membership
change, not counted against --max_restarts). An agent whose workers failed, with restarts left, asks the others to
meet again; without, it closes the rendezvous and every agent stops."""
from __future__ import annotations

import socket
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from torch.distributed.errors import DistError, DistNetworkError

__all__ = ["Assignment", "Rendezvous", "RendezvousClosedError", "RendezvousTimeoutError", "agent_store"]


class RendezvousClosedError(DistError):
    """The rendezvous was closed: an agent's workers failed past its last restart."""


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

    def _key(self, *parts: object) -> str:
        return "/".join([self.prefix, *map(str, parts)])

    def next_round(self) -> Assignment:
        """Join the first round still open and wait for it to close; an agent that joined just as it closed
        goes on to the next."""
        deadline = time.monotonic() + self.join_timeout
        round_ = 0
        while True:
            self._raise_if_closed()
            while self.store.check([self._key(round_, "size")]):
                round_ += 1
            index = self.store.add(self._key(round_, "joined"), 1) - 1
            size = self._closed_size(round_, deadline)
            if index < size:
                return self._assign(round_, index, size)
            round_ += 1

    def _closed_size(self, round_: int, deadline: float) -> int:
        """The number of nodes round_ closed with (the agent that sees it full, or past its last call, closes it;
        the first to close decides)."""
        last_call_end: float | None = None
        while True:
            if self.store.check([self._key(round_, "size")]):
                return int(self.store.get(self._key(round_, "size")))
            self._raise_if_closed()
            joined, now = self.store.add(self._key(round_, "joined"), 0), time.monotonic()
            if joined >= self.min_nodes and last_call_end is None:
                last_call_end = now + self.last_call_timeout
            if joined >= self.max_nodes or (last_call_end is not None and now >= last_call_end):
                self.store.compare_set(self._key(round_, "size"), "", str(min(joined, self.max_nodes)))
                continue
            if now >= deadline:
                raise RendezvousTimeoutError(
                    f"The node has not joined a round of the rendezvous within the join timeout "
                    f"({self.join_timeout:g} s): {joined} of at least {self.min_nodes} nodes have joined")
            time.sleep(0.05)

    def _assign(self, round_: int, index: int, size: int) -> Assignment:
        self.store.set(self._key(round_, "nproc", index), str(self.nproc))
        counts = [int(self.store.get(self._key(round_, "nproc", i))) for i in range(size)]
        return Assignment(round_, index, size, sum(counts[:index]), sum(counts))

    def should_meet_again(self, assignment: Assignment) -> bool:
        """Whether this round's workers are to stop: another agent's failed and it asks to meet again, or an agent
        waits for the next round while this one has room for it (or the rendezvous was closed)."""
        if self.store.check([self._key(assignment.round, "again")]) or self.store.check([self._key("closed")]):
            return True
        return assignment.group_world_size < self.max_nodes and \
            self.store.check([self._key(assignment.round + 1, "joined")])

    def meet_again(self, assignment: Assignment) -> None:
        """This agent's workers failed, and it restarts them: every agent of the round meets again."""
        self.store.set(self._key(assignment.round, "again"), b"1")

    def close(self, assignment: Assignment, serving: bool) -> None:
        """This agent's workers failed past its last restart: every agent stops. The agent serving the store waits
        (up to the join timeout) for the round's other agents to have seen it."""
        self.store.set(self._key("closed"), b"1")
        deadline = time.monotonic() + self.join_timeout
        while serving and self.store.add(self._key("closed", "seen"), 0) < assignment.group_world_size - 1 \
                and time.monotonic() < deadline:
            time.sleep(0.05)

    def _raise_if_closed(self) -> None:
        if self.store.check([self._key("closed")]):
            self.store.add(self._key("closed", "seen"), 1)
            raise RendezvousClosedError("The rendezvous was closed: an agent's workers failed past its last restart")

    def finished(self, assignment: Assignment, serving: bool) -> None:
        """This node's workers succeeded: the agent serving the store waits (up to the join timeout) for the
        round's other agents to finish with it."""
        self.store.add(self._key(assignment.round, "done"), 1)
        deadline = time.monotonic() + self.join_timeout
        while serving and self.store.add(self._key(assignment.round, "done"), 0) < assignment.group_world_size \
                and time.monotonic() < deadline and not self.store.check([self._key("closed")]):
            time.sleep(0.05)
