"""torch._dynamo.outside_calls: the C functions a compiled function calls, itself or through a library, that read
or change state the capture cannot see: the clock (however the program reached it: `from time import
perf_counter`, a clock kept in a dict or an attribute), datetime's now and today, the operating system's
randomness (os.urandom, which random.SystemRandom, secrets, uuid and NumPy's entropy draw from), files and
streams (a file's or a StringIO's methods, sys.stdout.write, os.write, open, pickle.dump, a csv writer's rows,
ndarray.tofile), the program's warnings, and what the program reads of the operating system, the process and its
thread (os.path.exists, os.listdir, os.getcwd, os.getpid, threading.current_thread) and of an object's identity
(id()). A replay would repeat the value read or skip the effect, so each is
a graph break, as in PyTorch's Dynamo, which breaks the graph on such calls.

A profile function (watching, for the capture's call) sees them: its c_call
events name the C function called and the frame calling it, whose caller is the first past the standard
library's frames (json.dump's writes are its caller's). Calls Ember's own code makes (its kernel cache, its
imports) are not the program's; a library's are, but for the clock and warnings it uses for itself. A C
function calling another (csv's writer calling its file's write) makes no event: the outer call is the one
named here."""
from __future__ import annotations

import builtins
import contextlib
import datetime
import importlib
import io
import os
import time
import types
from typing import Any, Callable, Iterator

from torch._dynamo import call_watch
from torch._dynamo.program_state import is_ember_file, is_program_file, is_standard_library

__all__ = ["NAMES", "outside_call", "reporter", "watching"]

_CLOCK = frozenset({"time", "time_ns", "perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns",
                    "process_time", "process_time_ns", "thread_time", "thread_time_ns", "localtime", "gmtime",
                    "ctime", "asctime", "strftime"})
_DATES = frozenset({"now", "utcnow", "today"})
_OS = frozenset({"urandom", "getrandom", "write", "read", "pwrite", "pread", "writev", "readv", "open",
                 "remove", "unlink", "rename", "replace", "truncate", "ftruncate"})
# What the operating system, the process and its threads are now (os.path.exists, os.listdir, os.getcwd,
# os.getpid, threading.current_thread) and an object's identity: a replay would repeat the value the capture read.
# (A torch.Generator's methods are Cython's, which make no C-call event: c10.generator's state_hook sees them.)
_OS_STATE = frozenset({"stat", "lstat", "listdir", "scandir", "getcwd", "getcwdb", "getpid", "getppid", "access",
                       "readlink", "get_ident", "get_native_id"})
_STREAM = frozenset({"write", "writelines", "read", "read1", "readinto", "readinto1", "readline", "readlines",
                     "seek", "tell", "truncate", "flush", "getvalue", "close"})
_WRITERS = frozenset({"dump", "writerow", "writerows", "tofile", "open"})
NAMES = _CLOCK | _DATES | _OS | _OS_STATE | _STREAM | _WRITERS | {"warn", "warn_explicit", "id"}
_OS_MODULES = ("posix", "nt")
_STATE_MODULES = (*_OS_MODULES, "_thread")
_WRITER_OWNERS = ("_pickle", "_io")         # pickle.dump, open (the builtin is _io.open)
_WRITER_TYPES = ("_pickle.Pickler", "_csv.writer", "numpy.ndarray")
_IMPORTS = ("<frozen importlib", os.path.dirname(importlib.__file__))


def outside_call(function: Any, frame: Any) -> str | None:
    """Why calling this C function inside a compiled function breaks the graph, or None when it does not
    (frame: the one calling it; None: the program, which holds it in a functools.partial)."""
    owner, name = getattr(function, "__self__", None), function.__name__
    caller = _caller(frame) if frame is not None else ""
    if caller is None:
        return None
    why = _effect(owner, name)
    if why is None and name in ("warn", "warn_explicit") and getattr(owner, "__name__", None) == "_warnings":
        why = "a replay would not warn"
    if why is None or (why in _PROGRAMS_OWN and frame is not None and not is_program_file(caller)):
        return None
    if name == "id" and frame is not None and not is_program_file(frame.f_code.co_filename):
        return None         # the standard library's own use (copy.deepcopy's memo) is not the program's
    spelled = f"{getattr(owner, '__name__', type(owner).__name__)}.{name}" if isinstance(owner, (types.ModuleType,
                                                                                                  type)) \
        else f"{type(owner).__name__}.{name}"
    return f"{spelled}() inside a compiled function ({why})"


def _caller(frame: Any) -> str | None:
    """The file of the code that made the call, past the standard library's frames (json.dump's writes are
    its caller's); None when that is Ember's own code or an import (importlib reads the module's files)."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if filename.startswith(_IMPORTS) or is_ember_file(filename):
            return None
        if not is_standard_library(filename):
            return filename
        frame = frame.f_back
    return ""


_REPEATED = "a replay would repeat its value"
# What a library does for itself is not the program's: its timing (a test tool's deadlines, a tracer's) and its
# warnings (transformers warns of deprecations inside forward: breaking there would run whole models eagerly).
_PROGRAMS_OWN = (_REPEATED, "a replay would not warn")


def _effect(owner: Any, name: str) -> str | None:
    if owner is time and name in _CLOCK:
        return _REPEATED
    if name in _DATES and isinstance(owner, type) and issubclass(owner, datetime.date):
        return _REPEATED
    if isinstance(owner, types.ModuleType):
        if (name in _OS_STATE and owner.__name__ in _STATE_MODULES) or (name == "id" and owner is builtins):
            return _REPEATED
        if name in _OS and owner.__name__ in _OS_MODULES:
            return "the operating system's randomness or files: a replay would repeat or skip it"
        if name in _WRITERS and owner.__name__ in _WRITER_OWNERS:
            return "a file written or opened: a replay would not do it again"
        return None
    if name in _STREAM and isinstance(owner, io.IOBase):
        return "a file or stream read or written: a replay would not do it again"
    if name in _WRITERS and f"{type(owner).__module__}.{type(owner).__qualname__}" in _WRITER_TYPES:
        return "a file written: a replay would not do it again"
    return None


def reporter(report: Callable[[str], None]) -> Callable[[Any, Any], None]:
    """What a profile function calls with (frame, C function) for a C function of these names."""
    def called(frame: Any, function: Any) -> None:
        reason = outside_call(function, frame)
        if reason is not None:
            report(reason)
    return called


@contextlib.contextmanager
def watching(seen: set[Any], entered: Callable[[Any], None], report: Callable[[str], None]) -> Iterator[None]:
    """For the block, on this thread: entered(frame) for each Python function entered whose code is not in seen,
    and report(reason) for each of these C functions called. One profile function in C does both
    (torch._dynamo.call_watch), in front of a profiler the program runs already (cProfile, or one in Python),
    which it calls after itself at every event."""
    watcher = call_watch.Watcher(seen, entered, NAMES, reporter(report))
    call_watch.watch(watcher)
    try:
        yield
    finally:
        call_watch.unwatch(watcher)
