"""Checks that kernels make of their inputs (an index out of range, a class target beyond the
classes), reported without the host waiting for the kernel.

Reading a kernel's verdict back at once would make the host wait for everything queued before
it, on every embedding lookup and every loss. PyTorch's kernels instead assert on the device and
the error surfaces at a later call. Here each such launch gets a slot of device memory (zero until
the kernel finds a bad input: such a kernel skips that input and records it) and a function
that turns a set slot into the exception to raise. The slots are read, and the first error
raised, where the host waits for the device anyway: every copy to the host (`.cpu()`, `.item()`,
printing), `torch.cuda.synchronize()`, and when every slot is taken.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from c10 import cuda as c10_cuda

SLOTS = 64
WIDTH = 4                   # int64 values per slot: [0] non-zero means the kernel found a bad input
_NOTE = ("\nCUDA kernel errors are reported at the next synchronisation with the device, so the traceback may point "
         "past the failing call.")

_lock = threading.Lock()
_buffer: Any = None
_pending: list[Callable[[list[int]], Exception]] = []


def slot(on_error: Callable[[list[int]], Exception]) -> int:
    """The device address of a zeroed slot (WIDTH int64) for one launch to record a bad input in;
    on_error turns the slot's values, once set, into the exception to raise."""
    global _buffer
    if len(_pending) >= SLOTS:
        check()
    with _lock:
        if _buffer is None:
            _buffer = c10_cuda.lazy_init().drv.to_device(np.zeros(SLOTS * WIDTH, dtype=np.int64))
        _pending.append(on_error)
        return int(_buffer) + (len(_pending) - 1) * WIDTH * 8


def check() -> None:
    """Read the slots in use (one copy to the host, which waits for the device) and raise the first
    error a kernel recorded, its message followed by a note that it is reported late."""
    with _lock:
        if not _pending:
            return
        pending = list(_pending)
        _pending.clear()
        drv = c10_cuda.lazy_init().drv
        values = np.empty(len(pending) * WIDTH, dtype=np.int64)
        drv.memcpy_dtoh(values, int(_buffer))
        if not values.any():
            return
        drv.memcpy_htod(int(_buffer), np.zeros_like(values))
    for i, on_error in enumerate(pending):
        found = [int(v) for v in values[i * WIDTH:(i + 1) * WIDTH]]
        if found[0]:
            error = on_error(found)
            raise type(error)(f"{error}{_NOTE}")


def _forget() -> None:
    global _buffer
    _pending.clear()
    _buffer = None


c10_cuda.at_synchronize(check)
c10_cuda.at_shutdown(_forget)
