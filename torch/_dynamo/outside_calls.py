"""torch._dynamo.outside_calls: the C functions a program calls while it is captured that read or change state the
capture cannot see, however the program reached them: the clock (`from time import perf_counter` binds the
function itself, past the patch torch._dynamo.observers sets on the time module), datetime's now and today, the
operating system's randomness, and the methods of a file or stream (sys.stdout.write, a StringIO's write, a
file's read). A replay would repeat the value read or skip the write, so each is a graph break, as in PyTorch's
Dynamo, which breaks the graph on such calls.

A profile function (torch._dynamo.side_effects) sees them: its c_call events name the C function called. It
costs a Python call at every call and return, so a capture sets it only once the program enters a function that
may call one of them (may_call): one that names one (`.write`, `perf_counter`), or holds one under another name
in a global, an argument, a default or a closure (`from time import perf_counter as clock`). The operating
system's randomness is drawn by libraries (uuid.uuid4()) through os.urandom, which torch._dynamo.observers
patches."""
from __future__ import annotations

import datetime
import io
import sys
import time
import types
from typing import Any, Callable

from torch._dynamo.program_state import is_program_file

__all__ = ["may_call", "outside_call", "watch"]

_CLOCK = frozenset({"time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
                    "process_time", "process_time_ns", "thread_time", "thread_time_ns", "localtime", "gmtime",
                    "ctime", "asctime", "strftime"})
_DATES = frozenset({"now", "utcnow", "today"})
_RANDOMNESS = frozenset({"urandom", "getrandom"})
_STREAM = frozenset({"write", "writelines", "read", "read1", "readinto", "readline", "readlines", "seek",
                     "truncate", "flush"})
_NAMES = _CLOCK | _DATES | _RANDOMNESS | _STREAM
_OS_MODULES = ("posix", "nt")


def outside_call(function: Any, by_program: bool) -> str | None:
    """Why calling this C function inside a compiled function breaks the graph, or None when it does not
    (by_program: the program's own code calls it; the clock and streams a library uses for its own timing and
    messages are not the program's results, while randomness is, whoever draws it: uuid.uuid4())."""
    owner, name = getattr(function, "__self__", None), function.__name__
    if name in _RANDOMNESS and isinstance(owner, types.ModuleType) and owner.__name__ in _OS_MODULES:
        return f"os.{name}() inside a compiled function (a replay would repeat its bytes)"
    if not by_program:
        return None
    if owner is time and name in _CLOCK:
        return f"time.{name}() inside a compiled function (a replay would repeat its value)"
    if name in _DATES and isinstance(owner, type) and issubclass(owner, datetime.date):
        return f"{owner.__name__}.{name}() inside a compiled function (a replay would repeat its value)"
    if name in _STREAM and isinstance(owner, io.IOBase):
        return f"{type(owner).__name__}.{name}() inside a compiled function (a replay would not do it again)"
    return None


def may_call(code: Any, frame: Any) -> bool:
    """Whether the program's function running in frame (just entered) may call one of these functions."""
    if not _NAMES.isdisjoint(code.co_names):
        return True
    f_globals = frame.f_globals
    return any(_named(f_globals.get(name)) for name in code.co_names) or \
        any(_named(value) for value in frame.f_locals.values())


def _named(value: Any) -> bool:
    """A C function of these names bound under another."""
    return isinstance(value, types.BuiltinFunctionType) and value.__name__ in _NAMES


def watch(report: Callable[[str], None]) -> None:
    """From now on, on this thread, report(reason) for each of these functions called (the capture that set it
    restores the profile function it found). A profiler already set is called after it; one written in C
    (cProfile's) cannot be, and is kept: these calls then go unseen."""
    previous: Any = sys.getprofile()
    if previous is not None and not isinstance(previous, (types.FunctionType, types.MethodType)):
        return
    names = _NAMES

    def profile(frame: Any, event: str, arg: Any) -> Any:     # called at every call and return: kept short
        if event == "c_call" and getattr(arg, "__name__", None) in names:
            reason = outside_call(arg, is_program_file(frame.f_code.co_filename))
            if reason is not None:
                report(reason)
        return previous(frame, event, arg) if previous is not None else None
    sys.setprofile(profile)
