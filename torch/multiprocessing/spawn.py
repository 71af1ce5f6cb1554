"""torch.multiprocessing.spawn / start_processes: run fn(i, *args) in nprocs processes, and raise in
the parent, with the child's traceback, when one of them fails."""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback
from typing import Any, Callable

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessRaisedException", "ProcessExitedException"]


class ProcessException(Exception):
    def __init__(self, msg: str, error_index: int, pid: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a nonzero code (or was killed by a signal)."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: str | None = None) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn: Callable[..., Any], i: int, args: tuple[Any, ...], error_queue: Any) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    def __init__(self, processes: list[Any], error_queues: list[Any]) -> None:
        self.processes = processes
        self.error_queues = error_queues
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self) -> list[int]:
        return [int(process.pid) for process in self.processes]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait for the processes: True when all have exited cleanly, False on timeout; the first
        failure terminates the others and raises here."""
        if not self.sentinels:
            return True
        ready = multiprocessing.connection.wait(self.sentinels.keys(), timeout=timeout)
        failed = None
        for sentinel in ready:
            index = self.sentinels.pop(sentinel)
            process = self.processes[index]
            process.join()
            if process.exitcode != 0:
                failed = index
                break
        if failed is None:
            return not self.sentinels
        for process in self.processes:
            if process.is_alive():
                process.terminate()
            process.join()
        process = self.processes[failed]
        if self.error_queues[failed].empty():
            code = process.exitcode
            if code < 0:
                name = signal.Signals(-code).name
                raise ProcessExitedException(f"process {failed} terminated with signal {name}", failed, process.pid,
                                             code, name)
            raise ProcessExitedException(f"process {failed} terminated with exit code {code}", failed, process.pid,
                                         code)
        original = self.error_queues[failed].get()
        raise ProcessRaisedException(f"\n\n-- Process {failed} terminated with the following error:\n{original}",
                                     failed, process.pid)


def start_processes(fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True,
                    daemon: bool = False, start_method: str = "spawn") -> ProcessContext | None:
    context: Any = multiprocessing.get_context(start_method)
    processes, error_queues = [], []
    for i in range(nprocs):
        error_queue = context.SimpleQueue()
        process = context.Process(target=_wrap, args=(fn, i, args, error_queue), daemon=daemon)
        process.start()
        processes.append(process)
        error_queues.append(error_queue)
    process_context = ProcessContext(processes, error_queues)
    if not join:
        return process_context
    while not process_context.join():
        pass
    return None


def spawn(fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True,
          daemon: bool = False, start_method: str = "spawn") -> ProcessContext | None:
    """fn(i, *args) in nprocs new processes (i = 0 .. nprocs-1)."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
