"""torch.distributed's key-value stores, as PyTorch's: the rendezvous of a process group's ranks (who they are,
the engine's address) and a place for small shared values. TCPStore (one rank serves, the others connect),
FileStore (a file every rank can reach), HashStore (one process) and PrefixStore (a namespace in another).

Values are bytes (a str is stored encoded). get and wait block until the keys exist, up to the store's timeout,
and then raise DistStoreError; add keeps a counter as its decimal text, as PyTorch's stores do, so that get
reads it too."""
from __future__ import annotations

import fcntl
import os
import pickle
import socket
import struct
import threading
import time
from datetime import timedelta
from typing import Any

from torch.distributed.errors import DistNetworkError, DistStoreError

__all__ = ["FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]

_DEFAULT_TIMEOUT = timedelta(seconds=300)


def _bytes(value: str | bytes | bytearray) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"a store's value is a str or bytes, not {type(value).__name__}")


def _seconds(timeout: timedelta | float | None, default: float) -> float:
    if timeout is None:
        return default
    return timeout.total_seconds() if isinstance(timeout, timedelta) else float(timeout)


class Store:
    """The interface of every store; a subclass implements _apply (one operation on its table, atomically)."""

    def __init__(self, timeout: timedelta = _DEFAULT_TIMEOUT) -> None:
        self._timeout = timeout

    @property
    def timeout(self) -> timedelta:
        return self._timeout

    def set_timeout(self, timeout: timedelta) -> None:
        self._timeout = timeout

    def set(self, key: str, value: str | bytes) -> None:
        self._apply("set", key, _bytes(value))

    def get(self, key: str) -> bytes:
        self.wait([key])
        value = self._apply("get", key)
        if value is None:       # deleted meanwhile
            raise DistStoreError(f"Key {key!r} was deleted while it was read")
        return value

    def add(self, key: str, amount: int) -> int:
        return int(self._apply("add", key, int(amount)))

    def compare_set(self, key: str, expected_value: str | bytes, desired_value: str | bytes) -> bytes:
        """Set key to desired_value if it holds expected_value (or is missing and expected_value is empty);
        return what it holds afterwards."""
        return self._apply("compare_set", key, (_bytes(expected_value), _bytes(desired_value)))

    def append(self, key: str, value: str | bytes) -> None:
        self._apply("append", key, _bytes(value))

    def multi_get(self, keys: list[str]) -> list[bytes]:
        return [self.get(key) for key in keys]

    def multi_set(self, keys: list[str], values: list[str | bytes]) -> None:
        for key, value in zip(keys, values, strict=True):
            self.set(key, value)

    def close(self) -> None:
        """Release what the store holds (a server's port, a file): PyTorch's stores do when freed."""

    def check(self, keys: list[str]) -> bool:
        return bool(self._apply("check", "", list(keys)))

    def delete_key(self, key: str) -> bool:
        return bool(self._apply("delete", key))

    def num_keys(self) -> int:
        return int(self._apply("num_keys", ""))

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        seconds = _seconds(timeout, self._timeout.total_seconds())
        deadline = time.monotonic() + seconds
        while not self.check(keys):
            if time.monotonic() >= deadline:
                missing = [k for k in keys if not self.check([k])]
                raise DistStoreError(f"Timeout after {seconds:g} s waiting for keys {missing} in {type(self).__name__}")
            time.sleep(0.002)

    def _apply(self, op: str, key: str, arg: Any = None) -> Any:
        raise NotImplementedError


def apply_to_table(table: dict[str, bytes], op: str, key: str, arg: Any) -> Any:
    """One store operation on a table (a dict of bytes): what every store does to its own."""
    if op == "set":
        table[key] = arg
        return None
    if op == "get":
        return table.get(key)
    if op == "append":
        table[key] = table.get(key, b"") + arg
        return None
    if op == "add":
        value = int(table.get(key, b"0")) + arg
        table[key] = str(value).encode()
        return value
    if op == "compare_set":
        expected, desired = arg
        current = table.get(key)
        if (current is None and expected == b"") or current == expected:
            table[key] = desired
            return desired
        return expected if current is None else current
    if op == "check":
        return all(k in table for k in arg)
    if op == "delete":
        return table.pop(key, None) is not None
    if op == "num_keys":
        return len(table)
    raise ValueError(f"unknown store operation {op!r}")


class HashStore(Store):
    """A store in this process's memory (threads share it)."""

    def __init__(self) -> None:
        super().__init__()
        self._table: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def _apply(self, op: str, key: str, arg: Any = None) -> Any:
        with self._lock:
            return apply_to_table(self._table, op, key, arg)


_DONE = "__file_store_done__"       # how many of a FileStore's world_size users closed it


class FileStore(Store):
    """A store in a file (on a filesystem every rank reaches): each operation reads, changes and writes the
    table under an exclusive lock on the file."""

    def __init__(self, file_name: str, world_size: int = -1) -> None:
        super().__init__()
        self.path = file_name
        self.world_size = world_size
        with open(self.path, "ab"):     # made if missing
            pass
        self._closed = world_size <= 0         # (a store of no declared size is never deleted)

    def close(self) -> None:
        """This user is done: the last of world_size users deletes the file (as PyTorch's FileStore does), so a
        later run can use its name again."""
        if self._closed:
            return
        self._closed = True
        if self.add(_DONE, 1) >= self.world_size:
            try:
                os.remove(self.path)
            except FileNotFoundError:
                pass

    def _apply(self, op: str, key: str, arg: Any = None) -> Any:
        with open(self.path, "r+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                data = f.read()
                table: dict[str, bytes] = pickle.loads(data) if data else {}
                result = apply_to_table(table, op, key, arg)
                if op in ("set", "add", "compare_set", "delete", "append"):
                    f.seek(0)
                    f.truncate()
                    f.write(pickle.dumps(table))
                    f.flush()
                return result
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)


class PrefixStore(Store):
    """The keys of another store under `prefix/`."""

    def __init__(self, prefix: str, store: Store) -> None:
        super().__init__(store.timeout)
        self.prefix = prefix
        self.underlying_store = store

    def _apply(self, op: str, key: str, arg: Any = None) -> Any:
        if op == "check":
            arg = [f"{self.prefix}/{k}" for k in arg]
        return self.underlying_store._apply(op, f"{self.prefix}/{key}", arg)

    def num_keys(self) -> int:
        return self.underlying_store.num_keys()


# TCPStore's wire format: a request is (op, key, arg) pickled, a reply (ok, value) pickled, each framed by its
# length as 8 bytes.
_FRAME = struct.Struct("!Q")


def _send(sock: socket.socket, message: Any) -> None:
    data = pickle.dumps(message)
    sock.sendall(_FRAME.pack(len(data)) + data)


def _receive(sock: socket.socket) -> Any:
    header = _exactly(sock, _FRAME.size)
    return pickle.loads(_exactly(sock, _FRAME.unpack(header)[0]))


def _exactly(sock: socket.socket, n: int) -> bytes:
    chunks, left = [], n
    while left:
        chunk = sock.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("the store's peer closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


class _Server:
    """TCPStore's server: a thread accepting connections, a thread per connection, one table."""

    def __init__(self, host: str, port: int) -> None:
        self.table: dict[str, bytes] = {}
        self.lock = threading.Lock()
        try:
            self.listener = socket.create_server((host, port), reuse_port=False)
        except OSError as error:
            raise DistNetworkError(f"The server socket has failed to listen on any local network address. port: "
                                   f"{port}, useIpv6: 0, code: -{error.errno}, name: {os.strerror(error.errno or 0)}, "
                                   f"message: {error}") from error
        self.port = self.listener.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, name="TCPStore server", daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=self._serve, args=(conn,), name="TCPStore connection", daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            while True:
                try:
                    op, key, arg = _receive(conn)
                except (ConnectionError, OSError, EOFError):
                    return
                try:
                    with self.lock:
                        reply = (True, apply_to_table(self.table, op, key, arg))
                except Exception as error:      # sent back to the client, which raises it
                    reply = (False, f"{type(error).__name__}: {error}")
                try:
                    _send(conn, reply)
                except OSError:
                    return

    def close(self) -> None:
        self.closed = True
        try:
            self.listener.shutdown(socket.SHUT_RDWR)        # wakes the accepting thread
        except OSError:
            pass
        self.listener.close()


# Servers of multi-tenant TCPStores, by port, as PyTorch keeps them: init_process_group over env:// or tcp:// made
# again after destroy_process_group serves from the same one (while another rank may still be connected to it).
_SHARED_SERVERS: dict[int, _Server] = {}


class TCPStore(Store):
    """A store served over TCP by the rank made with is_master=True (the others connect to host_name:port,
    retrying until the timeout); port 0 lets the system choose (the `port` attribute says which)."""

    def __init__(self, host_name: str, port: int, world_size: int | None = None, is_master: bool = False,
                 timeout: timedelta = _DEFAULT_TIMEOUT, wait_for_workers: bool = True, multi_tenant: bool = False,
                 master_listen_fd: int | None = None, use_libuv: bool = True) -> None:
        super().__init__(timeout)
        self.host = host_name
        self.world_size = world_size
        self._server: _Server | None = None      # the server this store owns (a multi-tenant one is shared)
        if is_master:
            server = _SHARED_SERVERS.get(port) if multi_tenant and port else None
            if server is None:
                server = _Server("" if host_name in ("localhost", "127.0.0.1", "0.0.0.0") else host_name, port)
                if multi_tenant:
                    _SHARED_SERVERS[server.port] = server
            if not multi_tenant:
                self._server = server
            port = server.port
        self.port = port
        self._lock = threading.Lock()
        self._sock = self._connect(timeout.total_seconds())
        if is_master and wait_for_workers and world_size is not None and world_size > 1:
            self.add("__workers__", 1)
            self._wait_count("__workers__", world_size)
        elif world_size is not None and world_size > 1:
            self.add("__workers__", 1)

    def _connect(self, seconds: float) -> socket.socket:
        deadline = time.monotonic() + seconds
        host = "127.0.0.1" if self.host in ("localhost", "0.0.0.0") else self.host
        while True:
            try:
                sock = socket.create_connection((host, self.port), timeout=max(1.0, seconds))
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.settimeout(None)
                return sock
            except OSError as error:
                if time.monotonic() >= deadline:
                    raise DistNetworkError(f"The client socket has timed out after {seconds:g} s while trying to "
                                           f"connect to ({self.host}, {self.port}): {error}") from error
                time.sleep(0.05)

    def _wait_count(self, key: str, count: int) -> None:
        deadline = time.monotonic() + self._timeout.total_seconds()
        while int(self._apply("add", key, 0)) < count:
            if time.monotonic() >= deadline:
                raise DistStoreError(f"Timed out after {self._timeout.total_seconds():g} s waiting for {count} "
                                     f"workers to join the TCPStore at {self.host}:{self.port}")
            time.sleep(0.01)

    def _apply(self, op: str, key: str, arg: Any = None) -> Any:
        with self._lock:
            try:
                _send(self._sock, (op, key, arg))
                ok, value = _receive(self._sock)
            except OSError as error:
                raise DistNetworkError(f"TCPStore at {self.host}:{self.port}: {error}") from error
        if not ok:
            raise DistStoreError(value)
        return value

    def close(self) -> None:
        """Disconnect; the master also stops serving (its port is free again)."""
        sock = getattr(self, "_sock", None)
        if sock is not None:
            sock.close()
        server = getattr(self, "_server", None)
        if server is not None:
            server.close()
            self._server = None

    def __del__(self) -> None:
        self.close()

    @property
    def libuvBackend(self) -> bool:  # noqa: N802 - PyTorch's name
        return False

