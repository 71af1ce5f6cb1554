"""torch.multiprocessing: tensors put on queues travel as shared memory (both sides see each other's
writes, views keep their offsets), with fork and spawn; spawn raises a child's error in the parent."""
import importlib
from pathlib import Path

import pytest

import torch
import torch.multiprocessing as mp


@pytest.fixture
def children(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent))
    return importlib.import_module("mp_children")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_tensors_cross_processes_in_shared_memory(children, method):
    ctx = mp.get_context(method)
    inbox, outbox, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    t = torch.arange(4.0)
    child = ctx.Process(target=children.add_ten_and_send_a_view_back, args=(inbox, outbox, done))
    child.start()
    inbox.put(t)
    view = outbox.get(timeout=60)
    view.mul_(2)
    done.set()
    child.join(timeout=60)
    assert child.exitcode == 0
    assert t.tolist() == [10.0, 22.0, 24.0, 13.0] and view.tolist() == [22.0, 24.0]
    assert t.is_shared() and view.is_shared()


def test_share_memory_moves_the_storage_under_every_view():
    t = torch.arange(6.0).view(2, 3)
    row = t[1]
    assert not t.is_shared()
    assert t.share_memory_() is t and t.is_shared() and row.is_shared()
    row.add_(1)
    assert t.tolist() == [[0.0, 1.0, 2.0], [4.0, 5.0, 6.0]]


def test_non_leaf_tensors_that_require_grad_are_refused():
    x = torch.ones(2, requires_grad=True) * 2
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        from multiprocessing.reduction import ForkingPickler
        ForkingPickler.dumps(x)
    queue.close()


def test_spawn_raises_the_child_error_in_the_parent(children):
    with pytest.raises(mp.ProcessRaisedException, match="rank one failed with 7") as caught:
        mp.spawn(children.fail_on_rank_one, args=(7,), nprocs=2)
    assert caught.value.error_index == 1
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3"):
        mp.spawn(children.exit_with_code, nprocs=1, start_method="fork")
    context = mp.start_processes(children.fail_on_rank_one, args=(1,), nprocs=1, join=False, start_method="fork")
    assert context.join() and len(context.pids()) == 1


def test_sharing_strategies():
    assert mp.get_sharing_strategy() == "file_descriptor" and mp.get_all_sharing_strategies() == {"file_descriptor"}
    with pytest.raises(RuntimeError, match="file_system strategy is not provided"):
        mp.set_sharing_strategy("file_system")
    assert mp.get_start_method(allow_none=True) in (None, "fork", "spawn", "forkserver")
