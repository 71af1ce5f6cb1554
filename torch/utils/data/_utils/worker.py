"""The DataLoader worker process: its loop, its seeding and get_worker_info().

As PyTorch 2.13's _utils/worker.py: worker `worker_id` seeds `random`, torch and numpy from
base_seed + worker_id (numpy through the SeedSequence-style hash _generate_state), sets
torch's threads to 1, runs worker_init_fn, then answers (task index, indices) requests from
its index queue with (task index, batch) on the shared result queue. Exceptions travel back
as ExceptionWrapper, re-raised in the main process with the worker's traceback.
"""
from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass
from typing import Any, NoReturn

import torch

from . import MP_STATUS_CHECK_INTERVAL
from .fetch import _DatasetKind

__all__ = ["WorkerInfo", "get_worker_info"]


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """What a worker knows about itself: its id, the worker count, its seed and its dataset copy."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current DataLoader worker's WorkerInfo, or None in the main process."""
    return _worker_info


class KeyErrorMessage(str):
    """A str whose repr is itself: KeyError reprs its argument, which would mangle a traceback."""

    __slots__ = ()

    def __repr__(self) -> str:
        return self


class ExceptionWrapper:
    """An exception's type and formatted traceback, picklable across processes."""

    def __init__(self, exc_info: Any = None, where: str = "in background") -> None:
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type: type[BaseException] = exc_info[0]
        # NB: keep only the text; the traceback object holds frames and cannot be pickled.
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self) -> NoReturn:
        """Raise the wrapped exception type here, its message carrying the original traceback."""
        msg: str = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)  # type: ignore[call-arg]
        try:
            exception = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        try:
            raise exception
        finally:
            # NB: the local would tie exception -> traceback -> this frame -> exception, a cycle that
            # keeps the failed DataLoader iterator (and its worker handles) alive until a gc pass.
            del exception


@dataclass(frozen=True)
class _IterableDatasetStopIteration:
    """A worker's iterable dataset copy is exhausted."""

    worker_id: int


@dataclass(frozen=True)
class _ResumeIteration:
    """Persistent workers: start a new epoch (fresh fetcher)."""

    seed: int | None = None


class IndexChannel:
    """The main process's one-way line to one worker: a pipe written synchronously.

    NB: not a multiprocessing.Queue: a Queue writes through a feeder thread that its finalizer
    stops when a garbage cycle holding the DataLoader iterator is collected, before the
    iterator's __del__ can tell the workers to stop, so the workers would wait out the join
    timeout. One writer and one reader need no lock; indices are small.
    """

    def __init__(self, context: Any) -> None:
        self._reader, self._writer = context.Pipe(duplex=False)

    def put(self, obj: Any) -> None:
        self._writer.send(obj)

    def get(self, timeout: float) -> Any:
        """The next message; queue.Empty after `timeout` seconds; None once the writer is gone."""
        if not self._reader.poll(timeout):
            raise queue.Empty
        try:
            return self._reader.recv()
        except EOFError:
            return None

    def close(self) -> None:
        self._writer.close()


class ManagerWatchdog:
    """Tells a worker whether the process that started it still lives."""

    def __init__(self) -> None:
        self.manager_pid = os.getppid()
        self.manager_dead = False

    def is_alive(self) -> bool:
        if not self.manager_dead:
            self.manager_dead = os.getppid() != self.manager_pid
        return not self.manager_dead


_MASK32 = 0xFFFFFFFF


def _generate_state(base_seed: int, worker_id: int) -> list[int]:
    """numpy's seed for a worker: numpy's SeedSequence pool mixing of [worker_id, base_seed], 4 words.

    The constants are numpy's (bit_generator.pyx), as PyTorch uses them, so a worker's numpy
    stream matches PyTorch's for the same base seed.
    """
    init_a, mult_a = 0x43B0D7E5, 0x931E8875
    init_b, mult_b = 0x8B51F9DD, 0x58F38DED
    mix_mult_l, mix_mult_r = 0xCA01F9DD, 0x4973F715
    xshift = 16
    entropy = [worker_id, base_seed & _MASK32, base_seed >> 32, 0]
    const_a = init_a

    def hashmix(value: int) -> int:
        nonlocal const_a
        value = (value ^ const_a) & _MASK32
        const_a = (const_a * mult_a) & _MASK32
        value = (value * const_a) & _MASK32
        return (value ^ (value >> xshift)) & _MASK32

    def mix(x: int, y: int) -> int:
        result = ((mix_mult_l * x) & _MASK32) - ((mix_mult_r * y) & _MASK32) & _MASK32
        return (result ^ (result >> xshift)) & _MASK32

    pool = [hashmix(word) for word in entropy]
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hashmix(pool[i_src]))
    const_b = init_b
    state = []
    for value in pool:
        value = (value ^ const_b) & _MASK32
        const_b = (const_b * mult_b) & _MASK32
        value = (value * const_b) & _MASK32
        state.append((value ^ (value >> xshift)) & _MASK32)
    return state


def _seed_worker(base_seed: int, worker_id: int) -> int:
    seed = base_seed + worker_id
    random.seed(seed)
    torch.manual_seed(seed)
    numpy = sys.modules.get("numpy")  # torch itself loads numpy; see collate.py's note
    if numpy is not None:
        numpy.random.seed(_generate_state(base_seed, worker_id))
    return seed


def _worker_loop(
    dataset_kind: int,
    dataset: Any,
    index_queue: Any,
    data_queue: Any,
    done_event: Any,
    auto_collation: bool,
    collate_fn: Any,
    drop_last: bool,
    base_seed: int,
    init_fn: Any,
    worker_id: int,
    num_workers: int,
    persistent_workers: bool,
) -> None:
    """Serve (task index, indices) requests until told to stop (None) or the parent dies."""
    global _worker_info
    try:
        torch.set_num_threads(1)
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_exception: ExceptionWrapper | None = None
        fetcher: Any = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        iteration_end = False
        watchdog = ManagerWatchdog()
        while watchdog.is_alive():
            try:
                request = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                continue
            if isinstance(request, _ResumeIteration):
                data_queue.put((request, None))
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                continue
            if request is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # draining: the main process is shutting this worker down
            task_idx, index = request
            data: Any
            if init_exception is not None:
                data = init_exception
                init_exception = None
            else:
                try:
                    data = fetcher.fetch(index)
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        data = _IterableDatasetStopIteration(worker_id)
                        iteration_end = True
                    else:
                        data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
            data_queue.put((task_idx, data))
            del data, task_idx, index, request  # drop references before blocking on the queue again
    except KeyboardInterrupt:
        pass  # the main process handles the interrupt and shuts workers down
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()
