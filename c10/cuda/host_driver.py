"""A stand-in for PyCUDA's driver that runs Ember's CUDA kernels on the CPU, for machines without a
GPU (CI, this project's development machines). Chosen by setting EMBER_CUDA_EMULATOR=1.

Device memory is host memory; a kernel source is compiled by g++ with ember_cuda_host.h forced in
front (host_emulator/ beside this file, whose cuda_fp16.h stands in for CUDA's), into a shared
library cached on disk by the source's hash; a launch runs the grid on the calling thread. It
checks what a GPU run would: the kernels' indexing and barriers, and that the launchers pass
PyCUDA-typed arguments, and that every pointer a copy or a kernel is given is device memory (a
host address there is the GPU's "invalid argument" or "illegal memory access", which host memory
standing in for device memory would otherwise hide), and that the calling thread has a current
context (PyCUDA's context stack is per thread; a thread ending with one pushed is recorded in
context_errors, see ended_threads(), where PyCUDA would abort). It says nothing of speed, and the float
results may differ from a GPU's in the last bits (no fused multiply-adds, the C library's math
functions).
"""
from __future__ import annotations

import bisect
import ctypes
import functools
import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import numpy as np

_HEADERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "host_emulator")
_PRELUDE = os.path.join(_HEADERS, "ember_cuda_host.h")
_BARRIER_CALL = re.compile(r"__syncthreads\s*\(\s*\)\s*;")    # a call: the prelude only defines it
_KERNEL = re.compile(r"__attribute__\(\(ember_kernel\)\)\s+void\s+(\w+)\s*\(([^)]*)\)")
_FLAGS = ["-std=c++17", "-O1", "-shared", "-fPIC", "-fvisibility=hidden", "-Wno-attributes"]
_lock = threading.Lock()


class Error(Exception):
    """pycuda.driver.Error's stand-in."""


class MemoryError(Error):  # noqa: A001 - the name PyCUDA's driver module uses
    pass


class LaunchError(Error):
    pass


class CompileError(Error):
    pass


class LogicError(Error):
    pass


def init(flags: int = 0) -> None:
    pass


# PyCUDA's context stack, one per thread, as CUDA makes a context current per thread: what the
# emulator checks so that a thread without a current context fails here as it would on a GPU.
# Keyed by thread ident (a thread's own thread-locals are gone while its finalizers run) with
# the Thread, which is_alive() only until its teardown, finalizers included, is over.
_stacks: dict[int, tuple[threading.Thread, list[Any]]] = {}
# Threads that ended with a context still pushed: PyCUDA aborts the process there (the emulator
# cannot abort a test run, so it records them; ended_threads() brings the record up to date).
context_errors: list[str] = []


def ended_threads() -> list[str]:
    """context_errors, after looking at every thread that has ended since the last look."""
    for ident, (thread, stack) in list(_stacks.items()):
        if not thread.is_alive() and thread is not threading.main_thread():   # which stops before atexit
            del _stacks[ident]
            if stack:
                context_errors.append(thread.name)
    return context_errors


def _stack() -> list[Any]:
    ident = threading.get_ident()
    entry = _stacks.get(ident)
    if entry is not None and not entry[0].is_alive() and entry[0] is not threading.main_thread():
        # a new thread with an ended one's ident
        ended_threads()
        entry = None
    if entry is None:
        ended_threads()                  # (a new thread: the ended ones are let go of now)
        entry = _stacks[ident] = (threading.current_thread(), [])
    return entry[1]


def _require_context(call: str) -> None:
    if not _stack():
        raise LogicError(f"{call} failed: invalid device context - no currently active context?")


class _Context:
    def push(self) -> None:
        _stack().append(self)

    def pop(self) -> None:
        stack = _stack()
        if not stack:
            raise LogicError("context::pop failed: invalid device context - cannot pop non-current context")
        stack.pop()


class Context:
    @staticmethod
    def synchronize() -> None:
        """Launches run to completion before they return: nothing is ever pending."""
        _require_context("cuCtxSynchronize")


class Device:
    def __init__(self, index: int) -> None:
        if index != 0:
            raise Error(f"cuDeviceGet failed: invalid device ordinal ({index})")

    @staticmethod
    def count() -> int:
        return 1

    def name(self) -> str:
        return "Ember CUDA host emulator"

    def total_memory(self) -> int:
        return 8 << 30

    def retain_primary_context(self) -> _Context:
        return _Context()

    def compute_capability(self) -> tuple[int, int]:
        """sm_90's: the emulator accepts the CUDA C that nvcc compiles for it (make test checks that)."""
        return 9, 0

    def get_attribute(self, attribute: int) -> int:
        return {device_attribute.MULTIPROCESSOR_COUNT: 1, device_attribute.MAX_THREADS_PER_BLOCK: 1024}[attribute]


class device_attribute:  # noqa: N801 - PyCUDA's name
    MAX_THREADS_PER_BLOCK = 1
    MULTIPROCESSOR_COUNT = 16


# The live allocations: start addresses (sorted) and the host buffer behind each, to tell device
# pointers from host ones. An allocation is live while its DeviceAllocation holds the buffer. That is
# read from the buffer's reference count, not from a finalizer: the garbage collector runs the
# finalizer of an allocation that only cyclic garbage reaches even when another finalizer then
# keeps it (the caching allocator's Block returns its handle to the cache), whereas PyCUDA's
# allocation frees its memory only when it is really deallocated.
_starts: list[int] = []
_buffers: dict[int, Any] = {}
_SWEEP_EVERY = 256
_allocations_since_sweep = 0


def _is_live(start: int) -> bool:
    """Whether the allocation at start is still held (by its DeviceAllocation): the registry's
    reference and getrefcount's argument are then not the only ones."""
    return sys.getrefcount(_buffers[start]) > 2


def _forget(start: int) -> None:
    del _starts[bisect.bisect_left(_starts, start)]
    del _buffers[start]


def _sweep() -> None:
    """Forget the allocations no DeviceAllocation holds any more (their host memory goes with them)."""
    for start in [start for start in _starts if not _is_live(start)]:
        _forget(start)


class DeviceAllocation:
    """Device memory: a host buffer whose address stands for the device pointer."""

    def __init__(self, nbytes: int) -> None:
        global _allocations_since_sweep
        _allocations_since_sweep += 1
        if _allocations_since_sweep >= _SWEEP_EVERY:
            _allocations_since_sweep = 0
            _sweep()
        self._buffer: Any = np.empty(max(int(nbytes), 1), dtype=np.uint8)
        self.nbytes = int(nbytes)
        start = int(self._buffer.ctypes.data)
        bisect.insort(_starts, start)
        _buffers[start] = self._buffer

    def __int__(self) -> int:
        return int(self._buffer.ctypes.data) if self._buffer is not None else 0

    __index__ = __int__

    def free(self) -> None:
        if self._buffer is not None:
            _forget(int(self._buffer.ctypes.data))
            self._buffer = None


def _is_device_memory(address: int, nbytes: int = 0) -> bool:
    """Whether [address, address + nbytes) lies in one live allocation (its end counts as in it)."""
    i = bisect.bisect_right(_starts, address) - 1
    if i < 0:
        return False
    start = _starts[i]
    if not _is_live(start):
        _forget(start)
        return False
    return address + nbytes <= start + _buffers[start].nbytes


def _check_device_memory(address: int, nbytes: int, call: str) -> None:
    if not _is_device_memory(address, nbytes):
        raise LogicError(f"{call} failed: invalid argument (address {address:#x} is not device memory)")


def mem_get_info() -> tuple[int, int]:
    """cuMemGetInfo: the emulated device's capacity, less the blocks allocated and not yet freed."""
    _require_context("cuMemGetInfo")
    _sweep()
    total = Device(0).total_memory()
    return max(total - sum(_buffers[start].nbytes for start in _starts), 0), total


def mem_alloc(nbytes: int) -> DeviceAllocation:
    _require_context("cuMemAlloc")
    if nbytes > Device(0).total_memory():
        raise MemoryError("cuMemAlloc failed: out of memory")
    return DeviceAllocation(nbytes)


def to_device(array: Any) -> DeviceAllocation:
    array = np.ascontiguousarray(array)
    allocation = mem_alloc(array.nbytes)
    memcpy_htod(allocation, array)
    return allocation


def memcpy_htod(dest: Any, source: Any) -> None:
    source = np.ascontiguousarray(source)
    _require_context("cuMemcpyHtoD")
    _check_device_memory(int(dest), source.nbytes, "cuMemcpyHtoD")
    ctypes.memmove(int(dest), source.ctypes.data, source.nbytes)


def memcpy_dtoh(dest: Any, source: Any) -> None:
    if not dest.flags.c_contiguous:
        raise Error("memcpy_dtoh needs a contiguous host array")
    _require_context("cuMemcpyDtoH")
    _check_device_memory(int(source), dest.nbytes, "cuMemcpyDtoH")
    ctypes.memmove(dest.ctypes.data, int(source), dest.nbytes)


def memcpy_dtod(dest: Any, source: Any, nbytes: int) -> None:
    _require_context("cuMemcpyDtoD")
    _check_device_memory(int(dest), int(nbytes), "cuMemcpyDtoD")
    _check_device_memory(int(source), int(nbytes), "cuMemcpyDtoD")
    ctypes.memmove(int(dest), int(source), int(nbytes))


class In:
    """A host array copied to the device for the duration of one launch (as pycuda.driver.In)."""

    def __init__(self, array: Any) -> None:
        self.array = np.ascontiguousarray(array)


class event_flags:  # noqa: N801 - PyCUDA's name
    DEFAULT = 0
    BLOCKING_SYNC = 1
    DISABLE_TIMING = 2


class Event:
    def __init__(self, flags: int = 0) -> None:
        _require_context("cuEventCreate")
        self._time: float | None = None

    def record(self, stream: Any = None) -> "Event":
        _require_context("cuEventRecord")
        self._time = time.perf_counter()
        return self

    def query(self) -> bool:
        return True

    def synchronize(self) -> "Event":
        return self

    def time_till(self, end: "Event") -> float:
        assert self._time is not None and end._time is not None
        return (end._time - self._time) * 1000.0


@functools.lru_cache(maxsize=None)
def _compiler_identity() -> str:
    """What besides the source decides the compiled code: g++'s version and the flags."""
    version = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.split("\n", 1)[0]
    return version + " " + " ".join(_FLAGS) + "\n"


def _preprocess(text: str, include_dirs: list[str]) -> str:
    command = ["g++", "-std=c++17", "-E", "-P", "-x", "c++", "-I", _HEADERS, *[f"-I{d}" for d in include_dirs],
               "-include", _PRELUDE, "-"]
    done = subprocess.run(command, input=text, capture_output=True, text=True)
    if done.returncode:
        raise CompileError(f"g++ -E failed for a kernel source:\n{done.stderr}")
    return done.stdout


class SourceModule:
    """A kernel source compiled for the host; the signature of pycuda.compiler.SourceModule."""

    def __init__(self, source: str, no_extern_c: bool = False, options: list[str] | None = None,
                 include_dirs: list[str] | None = None, cache_dir: str | None = None, **_: Any) -> None:
        include_dirs = list(include_dirs or [])
        _require_context("cuModuleLoadData")
        if not no_extern_c:
            source = 'extern "C" {\n' + source + "\n}\n"
        expanded = _preprocess(source, include_dirs)
        # each kernel's pointer parameters (by position), whose arguments must be device memory
        self._pointers = {name: frozenset(i for i, p in enumerate(params.split(",")) if "*" in p)
                          for name, params in _KERNEL.findall(expanded)}
        self._kernels = sorted(self._pointers)
        # Barriers need a stack per thread; kernels without them run each thread as a plain call.
        self._barriers = bool(_BARRIER_CALL.search(expanded))
        trampolines = "".join(f'extern "C" __attribute__((visibility("default"))) void ember_entry_{k}(void** a) '
                              f"{{ ember_emu::invoke(&{k}, a); }}\n" for k in self._kernels)
        full = source + "\n" + trampolines
        digest = hashlib.sha256((_compiler_identity() + full + expanded).encode()).hexdigest()[:24]
        if cache_dir is None:
            with tempfile.TemporaryDirectory() as tmp:
                self._library = self._build(full, include_dirs, os.path.join(tmp, f"{digest}.so"))
        else:
            library = os.path.join(cache_dir, f"{digest}.so")
            self._library = self._build(full, include_dirs, library) if not os.path.exists(library) \
                else ctypes.CDLL(library)
        self._library.ember_emu_launch.restype = ctypes.c_char_p
        self._library.ember_emu_launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, *[ctypes.c_uint] * 6, ctypes.c_int]

    @staticmethod
    def _build(source: str, include_dirs: list[str], library: str) -> Any:
        # beside the library, so the final rename never crosses file systems
        with tempfile.TemporaryDirectory(dir=os.path.dirname(library)) as tmp:
            path = os.path.join(tmp, "kernel.cpp")
            with open(path, "w") as f:
                f.write(source)
            built = os.path.join(tmp, "kernel.so")
            command = ["g++", *_FLAGS, "-I", _HEADERS, *[f"-I{d}" for d in include_dirs], "-include", _PRELUDE, path,
                       "-o", built]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode:
                raise CompileError(f"g++ failed for a kernel source:\n{done.stderr[-4000:]}")
            os.replace(built, library)    # atomic: a concurrent process sees no half-written library
        return ctypes.CDLL(library)

    def get_function(self, name: str) -> "Function":
        if name not in self._kernels:
            raise LogicError(f"cuModuleGetFunction failed: named symbol not found ({name})")
        return Function(self, name, getattr(self._library, f"ember_entry_{name}"), self._pointers[name])


class Function:
    def __init__(self, module: SourceModule, name: str, entry: Any, pointers: frozenset[int]) -> None:
        self._module = module
        self.name = name
        self._entry = entry
        self._pointers = pointers

    def __call__(self, *args: Any, grid: tuple[int, ...] = (1, 1, 1), block: tuple[int, ...] = (1, 1, 1),
                 shared: int = 0, stream: Any = None) -> None:
        _require_context("cuLaunchKernel")
        keep: list[Any] = []
        pointers = (ctypes.c_void_p * max(len(args), 1))()
        for i, arg in enumerate(args):
            pointers[i] = ctypes.addressof(_argument(arg, i, keep, i in self._pointers))
        grid = tuple(grid) + (1,) * (3 - len(grid))
        block = tuple(block) + (1,) * (3 - len(block))
        if any(b < 1 for b in block) or block[0] * block[1] * block[2] > 1024 or any(g < 1 for g in grid):
            raise LaunchError(f"cuLaunchKernel failed: invalid argument (grid {grid}, block {block})")
        if grid[1] > 65535 or grid[2] > 65535:
            raise LaunchError(f"cuLaunchKernel failed: invalid argument (grid {grid} beyond 65535 in y or z)")
        with _lock:
            error = self._module._library.ember_emu_launch(ctypes.cast(self._entry, ctypes.c_void_p), pointers,
                                                           *grid, *block, int(self._module._barriers))
        if error:
            raise LaunchError(f"{self.name}: {error.decode()}")

    def prepare(self, arg_types: Any) -> "Function":
        """PyCUDA's prepared form: the arguments' struct format, from numpy types or a string."""
        self.arg_format = arg_types if isinstance(arg_types, str) else "".join(np.dtype(t).char for t in arg_types)
        return self

    def prepared_call(self, grid: tuple[int, ...], block: tuple[int, ...], *args: Any, shared_size: int = 0) -> None:
        """Packed as PyCUDA packs them (so its TypeErrors and range errors), then launched."""
        struct.pack(self.arg_format, *args)
        self(*[np.dtype(char).type(arg) for char, arg in zip(self.arg_format, args)], grid=grid, block=block,
             shared=shared_size)


def _argument(arg: Any, index: int, keep: list[Any], is_pointer: bool) -> Any:
    """The bytes of one kernel argument, as PyCUDA packs it: numpy scalars by their dtype, device
    memory and In() as pointers; anything else is the TypeError PyCUDA raises. An address given
    for a pointer parameter outside device memory is refused, where a GPU would fault on it."""
    value: Any
    if is_pointer and isinstance(arg, np.integer) and arg and not _is_device_memory(int(arg)):
        raise LaunchError(f"cuLaunchKernel: an illegal memory access would follow: argument #{index} "
                          f"({int(arg):#x}) is not device memory")
    if isinstance(arg, np.number):
        value = ctypes.create_string_buffer(arg.tobytes(), max(arg.nbytes, 1))
    elif isinstance(arg, DeviceAllocation):
        value = ctypes.c_void_p(int(arg))
    elif isinstance(arg, In):
        keep.append(arg.array)
        value = ctypes.c_void_p(arg.array.ctypes.data)
    else:
        raise TypeError(f"invalid type on parameter #{index} (0-based)")
    keep.append(value)
    return value
