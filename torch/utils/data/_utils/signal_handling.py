"""A DataLoader worker that dies is reported at once, as PyTorch's signal_handling does: a SIGCHLD
handler in the main process looks at the workers of every live iterator, and one that was killed
by a signal or exited with an error raises in the main thread ("DataLoader worker (pid N) is
killed by signal: Killed."), instead of the next queue poll finding it gone seconds later.

Only the main thread can install a signal handler; elsewhere (and where SIGCHLD does not exist)
the poll in multiprocessing_iter.py still finds a dead worker.
"""
from __future__ import annotations

import os
import signal
import threading
from typing import Any

_worker_pids: dict[int, tuple[int, ...]] = {}   # id of an iterator -> its workers' pids
_handler_installed = False
_previous_handler: Any = None


def _set_worker_pids(key: int, pids: tuple[int, ...]) -> None:
    if key in _worker_pids:
        raise RuntimeError("_set_worker_pids should be called only once for each _BaseDataLoaderIter.")
    _worker_pids[key] = pids


def _remove_worker_pids(key: int) -> None:
    """Before an iterator stops its workers: their exits are expected from now on."""
    _worker_pids.pop(key, None)


def _error_if_any_worker_fails() -> None:
    """PyTorch's check: each registered worker that has ended (looked at without reaping it, so
    multiprocessing still collects its status) with a signal or a non-zero exit code raises."""
    for key, pids in list(_worker_pids.items()):
        for pid in pids:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:       # reaped already, or not our child (a forked copy of this table)
                continue
            if info is None or info.si_pid == 0:
                continue
            if info.si_code == os.CLD_EXITED and info.si_status != 0:
                _worker_pids.pop(key, None)      # else each later SIGCHLD raises again
                raise RuntimeError(f"DataLoader worker (pid {pid}) exited unexpectedly with exit code "
                                   f"{info.si_status}. Details are lost due to multiprocessing. Rerunning with "
                                   "num_workers=0 may give better error trace.")
            if info.si_code in (os.CLD_KILLED, os.CLD_DUMPED):
                _worker_pids.pop(key, None)
                message = f"DataLoader worker (pid {pid}) is killed by signal: {signal.strsignal(info.si_status)}. "
                if info.si_status == signal.SIGBUS:
                    message += ("It is possible that dataloader's workers are out of shared memory. Please try to "
                                "raise your shared memory limit.")
                raise RuntimeError(message)


def _set_SIGCHLD_handler() -> None:  # noqa: N802 - PyTorch's name
    """Install the handler once, in the main thread, keeping whatever handler was there before."""
    global _handler_installed, _previous_handler
    if _handler_installed or not hasattr(signal, "SIGCHLD") or threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGCHLD)
    if not callable(previous):
        previous = None

    def handler(signum: int, frame: Any) -> None:
        _error_if_any_worker_fails()
        if previous is not None:
            previous(signum, frame)

    signal.signal(signal.SIGCHLD, handler)
    _previous_handler = previous
    _handler_installed = True
