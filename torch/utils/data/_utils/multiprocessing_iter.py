"""The DataLoader iterator that loads in worker processes (PyTorch's _MultiProcessingDataLoaderIter).

Protocol: task i (one index or one list of indices) goes to worker i mod num_workers (the
next live one) on that worker's index queue; results come back as (i, batch) on one shared
queue. At most prefetch_factor * num_workers tasks are outstanding; out-of-order results wait
in _task_info until their turn (unless in_order=False). An iterable dataset's worker answers
_IterableDatasetStopIteration once exhausted and gets no more tasks. Sending None stops a
worker; a worker that dies is reported at once by the SIGCHLD handler (signal_handling.py),
else found by the main process's poll of the queue every MP_STATUS_CHECK_INTERVAL seconds.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
from typing import TYPE_CHECKING, Any

from . import MP_STATUS_CHECK_INTERVAL
from . import signal_handling as _signal_handling
from . import worker as _worker
from .fetch import _DatasetKind
from .loader_iter import _BaseDataLoaderIter

if TYPE_CHECKING:
    from ..dataloader import DataLoader


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader[Any]) -> None:
        super().__init__(loader)
        self._prefetch_factor: int = loader.prefetch_factor or 2
        self._in_order = loader.in_order
        if self._num_workers <= 0:
            raise AssertionError("num_workers must be greater than 0 for MultiProcessingDataLoaderIter")
        if self._prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for MultiProcessingDataLoaderIter")
        context = loader.multiprocessing_context or multiprocessing.get_context()
        self._worker_init_fn = loader.worker_init_fn
        self._worker_result_queue: Any = context.Queue()
        self._shutdown = False
        # NB: a worker forked while another loader's iterator lives inherits a copy of it; that copy
        # must never manage processes it did not start (multiprocessing refuses, and it would stop them).
        self._owner_pid = os.getpid()
        self._unreachable: set[int] = set()
        self._workers_done_event = context.Event()
        self._index_queues: list[Any] = []
        self._workers: list[Any] = []
        for worker_id in range(self._num_workers):
            index_queue = _worker.IndexChannel(context)
            process = context.Process(
                target=_worker._worker_loop,
                args=(
                    self._dataset_kind, self._dataset, index_queue, self._worker_result_queue,
                    self._workers_done_event, self._auto_collation, self._collate_fn, self._drop_last,
                    self._base_seed, self._worker_init_fn, worker_id, self._num_workers,
                    self._persistent_workers,
                ),
            )
            process.daemon = True
            process.start()
            self._index_queues.append(index_queue)
            self._workers.append(process)
        # A worker killed or failing is reported as it happens (SIGCHLD), not at the next poll.
        _signal_handling._set_worker_pids(id(self), tuple(process.pid for process in self._workers))
        _signal_handling._set_SIGCHLD_handler()
        self._worker_pids_set = True
        self._data_queue = self._worker_result_queue
        self._reset(loader, first_iter=True)

    def _reset(self, loader: DataLoader[Any], first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task index to send
        self._rcvd_idx = 0  # the next task index to return
        # task index -> (worker_id,) while outstanding, (worker_id, data) once arrived out of order
        self._task_info: dict[int, tuple[Any, ...]] = {}
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers: start every worker on a new epoch, and drain the acknowledgements.
            for index_queue in self._index_queues:
                index_queue.put(_worker._ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                returned_idx, _ = self._get_data()
                if isinstance(returned_idx, _worker._ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_get_data(self, timeout: float = MP_STATUS_CHECK_INTERVAL) -> tuple[bool, Any]:
        try:
            return True, self._data_queue.get(timeout=timeout)
        except Exception as e:
            failed = []
            for worker_id, process in enumerate(self._workers):
                if self._workers_status[worker_id] and not process.is_alive():
                    failed.append(process)
                    self._mark_worker_as_unavailable(worker_id)
            if failed:
                pids = ", ".join(str(process.pid) for process in failed)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from e
            if isinstance(e, queue.Empty):
                return False, None
            raise

    def _get_data(self) -> Any:
        if self._timeout > 0:
            success, data = self._try_get_data(self._timeout)
            if success:
                return data
            raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
        while True:
            success, data = self._try_get_data()
            if success:
                return data

    def _next_data(self) -> Any:
        while True:
            # Skip tasks whose worker has finished (an exhausted iterable dataset's copy).
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info:
                    worker_id = info[0]
                    if len(info) == 2 or self._workers_status[worker_id]:
                        break
                    del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:  # arrived earlier, out of order
                worker_id, data = self._task_info.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)
            if self._shutdown or self._tasks_outstanding <= 0:
                raise AssertionError("Invalid iterator state: shutdown or no outstanding tasks when fetching next data")
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._dataset_kind == _DatasetKind.Iterable and isinstance(data, _worker._IterableDatasetStopIteration):
                if self._persistent_workers:
                    self._workers_status[data.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(data.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if not self._in_order:
                    worker_id = self._task_info.pop(idx)[0]
                    return self._process_data(data, worker_id)
                self._task_info[idx] += (data,)
            else:
                worker_id = self._task_info.pop(idx)[0]
                self._rcvd_idx += 1
                return self._process_data(data, worker_id)

    def _try_put_index(self) -> None:
        max_tasks = self._prefetch_factor * self._num_workers
        if self._tasks_outstanding >= max_tasks:
            raise AssertionError("Number of outstanding tasks exceeded maximum allowed tasks")
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next live worker, round robin
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                if self._in_order:
                    break
                if self._workers_num_tasks[worker_queue_idx] < max_tasks // sum(self._workers_status):
                    break
        else:
            return  # every worker is done
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._workers_num_tasks[worker_queue_idx] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, data: Any, worker_idx: int) -> Any:
        self._workers_num_tasks[worker_idx] -= 1
        self._try_put_index()
        if isinstance(data, _worker.ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_as_unavailable(self, worker_id: int, shutdown: bool = False) -> None:
        # None tells the worker to exit; a dead worker simply never reads it.
        try:
            self._index_queues[worker_id].put(None)
        except OSError:
            # The channel is gone: a garbage collection finalised its pipe before this iterator.
            # The worker cannot be told to stop, so it is terminated at once, not waited for.
            self._unreachable.add(worker_id)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self) -> None:
        if self._shutdown or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        if getattr(self, "_worker_pids_set", False):
            _signal_handling._remove_worker_pids(id(self))     # their exits are expected from now on
            self._worker_pids_set = False
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            for worker_id, process in enumerate(self._workers):
                if worker_id not in self._unreachable:
                    process.join(timeout=MP_STATUS_CHECK_INTERVAL)
            for index_queue in self._index_queues:
                try:
                    index_queue.close()
                except OSError:
                    pass
        finally:
            for process in self._workers:
                if process.is_alive():
                    process.terminate()
                    process.join(timeout=MP_STATUS_CHECK_INTERVAL)

    def __del__(self) -> None:
        if hasattr(self, "_workers"):
            self._shutdown_workers()
