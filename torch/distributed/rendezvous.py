"""torch.distributed.rendezvous: how init_process_group's ranks find each other, as PyTorch's init methods do:
env:// (MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE), tcp://host:port and file:///path, each giving a store, the
rank and the world size. Rank 0 serves env's and tcp's store from one server per port for the process, as
PyTorch's multi-tenant stores: a group made again after destroy_process_group uses it again. Processes torchrun
starts connect to the store its agent serves (TORCHELASTIC_USE_AGENT_STORE), as PyTorch's do."""
from __future__ import annotations

import os
from datetime import timedelta
from urllib.parse import parse_qs, urlparse

from torch.distributed.stores import FileStore, Store, TCPStore

__all__ = ["rendezvous"]


def _number(name: str, given: int, query: dict[str, list[str]], where: str) -> int:
    if given is not None and given >= 0:
        return int(given)
    if name in query:
        return int(query[name][0])
    if where == "env":
        value = os.environ.get(name.upper())
        if value is None:
            raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable "
                             f"{name.upper()} expected, but not set")
        return int(value)
    raise ValueError(f"Error initializing torch.distributed using {where}:// rendezvous: {name} parameter missing")


def rendezvous(url: str, rank: int = -1, world_size: int = -1,
               timeout: timedelta = timedelta(minutes=30)) -> tuple[Store, int, int]:
    """The store, rank and world size init_method names."""
    parsed = urlparse(url)
    query = parse_qs(parsed.query)
    scheme = parsed.scheme
    if scheme == "env":
        rank, world_size = _number("rank", rank, query, "env"), _number("world_size", world_size, query, "env")
        host = os.environ.get("MASTER_ADDR")
        port = os.environ.get("MASTER_PORT")
        if host is None or port is None:
            missing = "MASTER_ADDR" if host is None else "MASTER_PORT"
            raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable "
                             f"{missing} expected, but not set")
        agent = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == str(True)
        store: Store = TCPStore(host, int(port), world_size, is_master=rank == 0 and not agent, timeout=timeout,
                                wait_for_workers=False, multi_tenant=True)
        return store, rank, world_size
    if scheme == "tcp":
        rank, world_size = _number("rank", rank, query, "tcp"), _number("world_size", world_size, query, "tcp")
        if parsed.hostname is None or parsed.port is None:
            raise ValueError(f"tcp:// init_method needs a host and a port: {url!r}")
        return TCPStore(parsed.hostname, parsed.port, world_size, is_master=rank == 0, timeout=timeout,
                        wait_for_workers=False, multi_tenant=True), rank, world_size
    if scheme == "file":
        rank, world_size = _number("rank", rank, query, "file"), _number("world_size", world_size, query, "file")
        path = parsed.path if not parsed.netloc else f"{parsed.netloc}{parsed.path}"
        file_store = FileStore(path, world_size)
        file_store.set_timeout(timeout)
        return file_store, rank, world_size
    raise ValueError(f"No rendezvous handler for {scheme}:// (Ember has env://, tcp:// and file://)")

