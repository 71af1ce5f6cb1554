"""The stores behind a process group's rendezvous, as PyTorch's: set, get (waiting for the key), add, compare_set,
wait with a timeout, check, delete_key and num_keys, on HashStore, FileStore, TCPStore and PrefixStore."""
import threading
from datetime import timedelta

import pytest

import torch.distributed as dist


def _stores(tmp_path):
    server = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=timedelta(seconds=5))
    client = dist.TCPStore("127.0.0.1", server.port, timeout=timedelta(seconds=5))
    return {"hash": (dist.HashStore(),) * 2, "file": (dist.FileStore(str(tmp_path / "f")),
                                                      dist.FileStore(str(tmp_path / "f"))),
            "tcp": (server, client), "prefix": (dist.PrefixStore("p", dist.HashStore()),) * 2}


@pytest.mark.parametrize("kind", ["hash", "file", "tcp", "prefix"])
def test_a_store_shares_values_counters_and_waits(tmp_path, kind):
    one, other = _stores(tmp_path)[kind]
    one.set("k", "v")
    assert other.get("k") == b"v"
    assert other.add("n", 2) == 2 and one.add("n", 3) == 5 and other.get("n") == b"5"
    assert one.compare_set("k", "v", "w") == b"w" and one.compare_set("k", "zz", "q") == b"w"
    assert one.compare_set("fresh", "", "x") == b"x"
    assert one.check(["k", "n"]) and not one.check(["k", "absent"])
    threading.Timer(0.2, lambda: one.set("late", b"\x00\x01")).start()
    assert other.get("late") == b"\x00\x01"
    other.set_timeout(timedelta(seconds=0.3))
    with pytest.raises(dist.DistStoreError):
        other.wait(["never"])
    with pytest.raises(dist.DistStoreError):
        other.get("never")
    one.append("log", "a")
    other.append("log", b"b")
    assert one.multi_get(["log", "n"]) == [b"ab", b"5"]
    with pytest.raises(TypeError):
        one.set("k", 5)
    assert one.delete_key("k") and not one.delete_key("k")
    assert one.num_keys() >= 3


def test_a_tcp_client_without_a_server_raises_after_its_timeout():
    with socket_closed() as port:
        with pytest.raises(dist.DistNetworkError, match="timed out"):
            dist.TCPStore("127.0.0.1", port, timeout=timedelta(seconds=0.5))


class socket_closed:
    """A port nothing listens on."""

    def __enter__(self):
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        return self.port

    def __exit__(self, *exc):
        return False
