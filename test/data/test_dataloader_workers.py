"""DataLoader with worker processes (num_workers > 0): order, seeding, worker info, errors, timeout.

Two workers and a handful of samples at most, so the module runs in a few seconds on 2 cores.
Workers start with the platform's default method (fork on Linux). Seeds and the iterable-dataset
interleaving are literal PyTorch 2.13 output for the same generator seed.
"""
import math
import os
import random
import re
import signal
import time

import numpy as np
import pytest

import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info


class WhoAmI(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return (i, info.id, info.num_workers, info.seed, torch.initial_seed(),
                int(np.random.randint(1000)), random.randint(0, 999))


class Range(IterableDataset):
    """PyTorch's documented example: each worker takes its own slice of [start, end)."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.start, self.end))
        per_worker = int(math.ceil((self.end - self.start) / info.num_workers))
        lo = self.start + info.id * per_worker
        return iter(range(lo, min(lo + per_worker, self.end)))


class Failing(Dataset):
    def __init__(self, exc):
        self.exc = exc

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            raise self.exc
        return i


class Slow(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(0.6)
        return i


class Dies(Dataset):
    """Its worker exits with status 3 once the main process waits for the batch: a SIGCHLD that came while the main
    process still sends indices, or in a finalizer the garbage collector runs, would be reported there instead."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(0.5)
        os._exit(3)


class KilledBySignal(Dataset):
    """Its worker is killed (as the kernel's OOM killer would) on the third item."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            time.sleep(0.2)
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Tagged(Dataset):
    tag = "main"

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return f"{self.tag}-{i}", os.getpid()


def test_batches_come_back_in_sampler_order_as_tensors():
    x = torch.arange(14.0).reshape(7, 2)
    ds = TensorDataset(x, torch.arange(7))
    single = list(DataLoader(ds, batch_size=2))
    multi = list(DataLoader(ds, batch_size=2, num_workers=2))
    assert len(multi) == len(single) == 4
    for (xs, ys), (xm, ym) in zip(single, multi):
        np.testing.assert_array_equal(xs.numpy(), xm.numpy())
        assert ys.tolist() == ym.tolist() and ym.dtype == torch.int64


def test_shuffle_with_workers_matches_the_single_process_order():
    one = [b.tolist() for b in DataLoader(range(10), batch_size=3, shuffle=True,
                                          generator=torch.Generator().manual_seed(3))]
    two = [b.tolist() for b in DataLoader(range(10), batch_size=3, shuffle=True, num_workers=2,
                                          generator=torch.Generator().manual_seed(3))]
    assert one == two == [[7, 4, 2], [9, 1, 5], [0, 8, 6], [3]]


def test_workers_are_seeded_base_seed_plus_id_as_pytorch():
    rows = list(DataLoader(WhoAmI(), batch_size=None, num_workers=2, generator=torch.Generator().manual_seed(0)))
    # PyTorch 2.13, same loader: index, worker id, num_workers, seed, torch seed, numpy draw, random draw
    assert rows == [
        [0, 0, 2, 900450186894289455, 900450186894289455, 522, 218],
        [1, 1, 2, 900450186894289456, 900450186894289456, 234, 791],
        [2, 0, 2, 900450186894289455, 900450186894289455, 297, 818],
        [3, 1, 2, 900450186894289456, 900450186894289456, 407, 832],
    ]


def test_iterable_dataset_workers_each_iterate_their_own_copy():
    # PyTorch 2.13's documented output for this dataset with two workers
    assert [t.tolist() for t in DataLoader(Range(3, 7), num_workers=2)] == [[3], [5], [4], [6]]
    assert [t.tolist() for t in DataLoader(Range(3, 10), num_workers=2, batch_size=2)] == [[3, 4], [7, 8], [5, 6], [9]]


def test_worker_init_fn_configures_each_workers_copy_only():
    ds = Tagged()

    def init(worker_id):
        get_worker_info().dataset.tag = f"w{worker_id}"

    out = list(DataLoader(ds, batch_size=None, num_workers=2, worker_init_fn=init))
    assert [name for name, _ in out] == ["w0-0", "w1-1", "w0-2", "w1-3"]
    assert ds.tag == "main"
    assert os.getpid() not in {pid for _, pid in out}


@pytest.mark.parametrize("exc, kind", [(ValueError("bad sample"), ValueError), (KeyError("missing"), KeyError)])
def test_errors_in_workers_are_reraised_with_the_workers_traceback(exc, kind):
    with pytest.raises(kind) as info:
        list(DataLoader(Failing(exc), num_workers=2))
    text = str(info.value)
    assert text.startswith("Caught %s in DataLoader worker process 0.\nOriginal Traceback (most recent call last):"
                           % kind.__name__)
    assert "in __getitem__" in text and "raise self.exc" in text


def test_an_error_in_worker_init_fn_surfaces_in_the_main_process():
    def init(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")

    with pytest.raises(RuntimeError, match="Caught RuntimeError in DataLoader worker process 0"):
        list(DataLoader(range(4), num_workers=2, worker_init_fn=init))


def test_timeout_raises_when_a_batch_takes_too_long():
    with pytest.raises(RuntimeError, match="^DataLoader timed out after 0.1 seconds$"):
        next(iter(DataLoader(Slow(), num_workers=1, timeout=0.1)))


def test_a_worker_that_dies_is_reported():
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly") as info:
        list(DataLoader(Dies(), num_workers=1, timeout=60))    # (the death, not the timeout: a loaded machine)
    assert re.fullmatch(r"DataLoader worker \(pid \d+\) exited unexpectedly with exit code 3\. Details are lost due "
                        r"to multiprocessing\. Rerunning with num_workers=0 may give better error trace\.",
                        str(info.value.__cause__))


def test_a_worker_killed_by_a_signal_is_reported_at_once_with_the_signal():
    started = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly") as info:
        for _ in DataLoader(KilledBySignal(), num_workers=1, prefetch_factor=1):
            pass
    assert time.monotonic() - started < 3.0         # the queue poll alone takes 5 s
    assert re.fullmatch(r"DataLoader worker \(pid \d+\) is killed by signal: Killed\. ", str(info.value.__cause__))


def test_workers_that_finish_normally_raise_nothing_after_the_loader_is_done():
    for _ in range(3):
        assert [int(b) for b in DataLoader(range(6), num_workers=2)] == list(range(6))
    time.sleep(0.2)       # their SIGCHLDs arrive while the main process does something else
    assert sum(range(10)) == 45


def test_persistent_workers_serve_every_epoch():
    loader = DataLoader(Tagged(), batch_size=2, num_workers=2, persistent_workers=True)
    first = list(loader)
    second = list(loader)
    assert first[0][0] == second[0][0] == ("main-0", "main-1")
    pids = [{pid for b in epoch for pid in b[1].tolist()} for epoch in (first, second)]
    assert pids[0] == pids[1]  # the same two processes
    assert len(pids[0]) == 2


def test_prefetch_factor_and_out_of_order_delivery_still_yield_every_batch():
    batches = list(DataLoader(range(6), batch_size=2, num_workers=2, prefetch_factor=1, in_order=False))
    assert sorted(b.tolist() for b in batches) == [[0, 1], [2, 3], [4, 5]]


def test_multiprocessing_context_is_validated():
    with pytest.raises(ValueError, match="multiprocessing_context option should specify a valid start method"):
        DataLoader(range(2), num_workers=1, multiprocessing_context="nope")
    loader = DataLoader(range(3), num_workers=1, multiprocessing_context="fork")
    assert [b.tolist() for b in loader] == [[0], [1], [2]]
