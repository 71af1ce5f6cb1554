"""Checks that kernels make of their inputs (an index out of range, a class target beyond the
classes), reported without the host waiting for the kernel.

Reading a kernel's verdict back at once would make the host wait for everything queued before
it, on every embedding lookup and every loss. PyTorch's kernels instead assert on the device and
the error surfaces at a later call. Here each such launch gets a slot of device memory (zero until
the kernel finds a bad input: such a kernel skips that input and records it) and a function
that turns a set slot into the exception to raise. The slots are read, and the first error
raised, where the host waits for the device anyway: every copy to the host (`.cpu()`, `.item()`,
printing), `torch.cuda.synchronize()`, and when every slot is taken, in the thread that launched.
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


class _Slots(threading.local):
    """Each thread's own slots (a device buffer) and what their kernels mean: a launch takes a slot
    and launches before anything else in its thread reads them, and no thread reads another's."""

    def __init__(self) -> None:
        self.buffer: Any = None
        self.pending: list[Callable[[list[int]], Exception]] = []


_mine = _Slots()
_buffers: list[Any] = []        # every thread's, released at shutdown


def slot(on_error: Callable[[list[int]], Exception]) -> int:
    """The device address of a zeroed slot (WIDTH int64) for one launch to record a bad input in;
    on_error turns the slot's values, once set, into the exception to raise."""
    if len(_mine.pending) >= SLOTS:
        check()
    if _mine.buffer is None:
        _mine.buffer = c10_cuda.lazy_init().drv.to_device(np.zeros(SLOTS * WIDTH, dtype=np.int64))
        _buffers.append(_mine.buffer)
    _mine.pending.append(on_error)
    return int(_mine.buffer) + (len(_mine.pending) - 1) * WIDTH * 8


def check() -> None:
    """Read this thread's slots in use (one copy to the host, which waits for the device) and raise
    the first error a kernel recorded, its message followed by a note that it is reported late (a
    second error in the same batch is not reported: the first one stops the program's step)."""
    pending = _mine.pending
    if not pending:
        return
    _mine.pending = []
    drv = c10_cuda.lazy_init().drv
    values = np.empty(len(pending) * WIDTH, dtype=np.int64)
    drv.memcpy_dtoh(values, int(_mine.buffer))
    if not values.any():
        return
    drv.memcpy_htod(int(_mine.buffer), np.zeros_like(values))
    for i, on_error in enumerate(pending):
        found = [int(v) for v in values[i * WIDTH:(i + 1) * WIDTH]]
        if found[0]:
            error = on_error(found)
            raise type(error)(f"{error}{_NOTE}")


def _forget() -> None:
    _buffers.clear()
    _mine.buffer, _mine.pending = None, []


c10_cuda.at_synchronize(check)
c10_cuda.at_shutdown(_forget)
