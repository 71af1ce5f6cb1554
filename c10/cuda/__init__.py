"""CUDA memory through PyCUDA, imported only when a CUDA tensor is first made.

Without PyCUDA (`pip install -e .[cuda]`) or without a driver and GPU, is_available() is
False and any CUDA allocation raises PyTorch's error, saying which of the two is missing: an
AssertionError("Torch not compiled with CUDA enabled...") without PyCUDA, else a RuntimeError.
With EMBER_CUDA_EMULATOR=1 the driver is c10.cuda.host_driver instead: one emulated device whose
kernels run on the CPU (for testing the CUDA paths where there is no GPU).
"""
from __future__ import annotations

import atexit
import os
import threading
from dataclasses import dataclass
from typing import Any, Callable

from c10.cuda.caching_allocator import Block, CachingAllocator

_lock = threading.Lock()


@dataclass(frozen=True)
class CudaState:
    """What initialising CUDA found, once per process: the driver module (PyCUDA's, or the
    emulator's), its device count, device 0's primary context and the caching allocator; or,
    where CUDA cannot run, the error to raise and its type (PyTorch's AssertionError when Ember
    was installed without PyCUDA, a RuntimeError without a driver or device)."""
    drv: Any = None
    count: int = 0
    context: Any = None
    allocator: CachingAllocator | None = None
    error: str | None = None
    error_type: type[Exception] = RuntimeError

    @property
    def usable(self) -> bool:
        return self.error is None


_state: CudaState | None = None     # set once, as a whole: a thread reading it without the lock sees all or none


def _init() -> CudaState:
    """Import PyCUDA, initialise the driver and make a context on device 0, once."""
    global _state
    with _lock:
        if _state is None:
            _state = _discover()
        return _state


def _discover() -> CudaState:
    try:
        drv = _driver_module()
    except ImportError as e:
        # PyTorch's words for a build without CUDA (an AssertionError), then what Ember lacks
        return CudaState(error=("Torch not compiled with CUDA enabled: PyCUDA is not importable "
                                f"({e}). Install it with `pip install -e .[cuda]` on a machine with an NVIDIA "
                                "driver."), error_type=AssertionError)
    try:
        drv.init()
        count = drv.Device.count()
    except Exception as e:  # pycuda._driver.Error subclasses, raised by cuInit without a driver
        return CudaState(error=f"Found no NVIDIA driver on your system ({e}).")
    if count == 0:
        return CudaState(error="CUDA driver found but no CUDA device is present.")
    context = drv.Device(0).retain_primary_context()
    atexit.register(_shutdown)
    return CudaState(drv=drv, count=count, context=context,
                     allocator=CachingAllocator(0, _driver_malloc(drv), lambda handle: handle.free(),
                                                drv.Device(0).total_memory()))


class _CurrentContext:
    """The context pushed on one thread's stack (PyCUDA keeps a stack per thread, and a CUDA
    context is current per thread): popped when that thread ends, as its thread-local goes, since
    PyCUDA aborts a process whose thread ends with a context still pushed; or at exit."""

    def __init__(self, context: Any) -> None:
        self.context: Any = context
        context.push()

    def release(self) -> None:
        context, self.context = self.context, None
        if context is not None:
            context.pop()

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:       # at interpreter exit the driver may be gone already
            pass


_thread = threading.local()


def _make_current(state: CudaState) -> None:
    """Device 0's context current on the calling thread (every CUDA entry point passes here:
    a Python thread other than the first would otherwise find no context)."""
    if getattr(_thread, "current", None) is None:
        _thread.current = _CurrentContext(state.context)


def emulated() -> bool:
    """Whether CUDA is (to be) the host emulator rather than PyCUDA and a GPU."""
    return os.environ.get("EMBER_CUDA_EMULATOR", "") not in ("", "0")


def _driver_module() -> Any:
    if emulated():
        from c10.cuda import host_driver
        return host_driver
    import pycuda.driver
    return pycuda.driver


def source_module(source: str, include_dirs: list[str]) -> Any:
    """A compiled kernel module (PyCUDA's SourceModule, or the emulator's) for a CUDA C++ source
    whose kernels are extern "C". Compiled code is cached on disk (kernel_cache_dir()) by a hash of
    the preprocessed source, so a second run loads it instead of compiling: PyCUDA hashes nvcc's
    preprocessed text, the options and nvcc's version; the emulator g++'s preprocessed text."""
    lazy_init()
    if emulated():
        from c10.cuda.host_driver import SourceModule as HostSourceModule
        return HostSourceModule(source, no_extern_c=True, include_dirs=include_dirs,
                                cache_dir=kernel_cache_dir("host-kernels"))
    from pycuda.compiler import SourceModule
    return SourceModule(source, no_extern_c=True, options=["-O3"], include_dirs=include_dirs,
                        cache_dir=kernel_cache_dir("cuda-kernels"))


def kernel_cache_dir(kind: str) -> str:
    """Where compiled kernels of a kind are kept: $EMBER_KERNEL_CACHE/kind, by default under the
    user's cache directory ($XDG_CACHE_HOME or ~/.cache) in ember/."""
    root = os.environ.get("EMBER_KERNEL_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ember")
    path = os.path.join(root, kind)
    os.makedirs(path, exist_ok=True)
    return path


_shutdown_hooks: list[Callable[[], None]] = []


def at_shutdown(hook: Callable[[], None]) -> None:
    """Run hook at exit before the context goes (to free device memory a module keeps)."""
    _shutdown_hooks.append(hook)


_synchronize_hooks: list[Callable[[], None]] = []


def at_synchronize(hook: Callable[[], None]) -> None:
    """Run hook whenever the host has waited for the device: synchronize(), Event.synchronize()
    and copy_to_host()."""
    _synchronize_hooks.append(hook)


def _shutdown() -> None:
    """At exit: kept device memory freed, cached blocks back to the driver and the context popped;
    PyCUDA aborts the process when it finds a context still pushed at its own cleanup."""
    state = _state
    if state is None or state.context is None or state.allocator is None:
        return
    _make_current(state)                # the hooks and empty_cache free device memory
    for hook in _shutdown_hooks:
        hook()
    state.allocator.empty_cache()
    _thread.current.release()
    _thread.current = None
    if emulated():
        return
    from pycuda.tools import clear_context_caches
    clear_context_caches()


def _driver_malloc(drv: Any) -> Any:
    def malloc(nbytes: int) -> tuple[int, Any]:
        try:
            handle = drv.mem_alloc(nbytes)
        except drv.MemoryError as e:      # PyCUDA's, not Python's: the allocator retries on MemoryError
            raise MemoryError(str(e)) from e
        return int(handle), handle
    return malloc


def is_initialized() -> bool:
    """Whether CUDA was initialised successfully (without initialising it)."""
    return _state is not None and _state.usable


def is_available() -> bool:
    return _init().usable


def device_count() -> int:
    return _init().count


def lazy_init() -> CudaState:
    """The CUDA state, initialised on first use, with device 0's context current on this thread;
    PyTorch's errors where there is no CUDA (AssertionError without it, RuntimeError without a
    driver or device)."""
    state = _state or _init()
    if state.error is not None:
        raise state.error_type(state.error)
    if getattr(_thread, "current", None) is None:
        _make_current(state)
    return state


def allocate(nbytes: int, device: Any) -> tuple[int, Any]:
    """(device address, owner) of nbytes on a CUDA device, from the caching allocator: the block
    goes back to its cache when the owner is collected."""
    state = _state
    if not device.index and state is not None and state.allocator is not None \
            and getattr(_thread, "current", None) is not None:
        block = state.allocator.allocate(nbytes)    # device 0, initialised and current on this thread
    else:
        block = allocator(device.index or 0).allocate(max(int(nbytes), 1))
    return block.address, block


def regrow(owner: Any, old_nbytes: int, nbytes: int, device: Any) -> tuple[int, Any] | None:
    """A bigger block for a storage's device memory (resize_), its old bytes copied over; None when
    the memory is not the caching allocator's (borrowed through DLPack, say), which cannot grow."""
    if not isinstance(owner, Block):
        return None
    address, block = allocate(nbytes, device)
    lazy_init().drv.memcpy_dtod(address, owner.address, old_nbytes)
    return address, block


def allocator(index: int) -> CachingAllocator:
    """The caching allocator of device `index` (only device 0 has a context so far)."""
    state = lazy_init()
    if index >= state.count:
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {index} requested, {state.count} present)")
    if index != 0:
        raise NotImplementedError(f"Ember uses CUDA device 0 only so far (device {index} requested)")
    assert state.allocator is not None     # a usable state has one
    return state.allocator


def synchronize() -> None:
    """Wait for all work queued on the device (the default stream) to finish, then run the hooks
    that read what kernels left for the host (errors they found)."""
    lazy_init().drv.Context.synchronize()
    _after_waiting()


def copy_to_host(host: Any, address: int) -> None:
    """host (a NumPy array) filled from device memory at address. The host waits for the device
    there, so the synchronize hooks run after it (errors kernels found are raised)."""
    lazy_init().drv.memcpy_dtoh(host, address)
    _after_waiting()


def _after_waiting() -> None:
    for hook in _synchronize_hooks:
        hook()


def device_name(index: int) -> str:
    state = lazy_init()
    if not 0 <= index < state.count:
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {index} requested, {state.count} present)")
    return str(state.drv.Device(index).name())


def mem_get_info(index: int) -> tuple[int, int]:
    """(free, total) bytes of device memory, as the driver reports them (cuMemGetInfo)."""
    allocator(index)        # the device checks, and the context current
    free, total = lazy_init().drv.mem_get_info()
    return int(free), int(total)


def device_properties(index: int) -> dict[str, Any]:
    """name, major, minor (compute capability), total_memory (bytes), multi_processor_count."""
    state = lazy_init()
    if not 0 <= index < state.count:
        raise RuntimeError(f"CUDA error: invalid device ordinal (device {index} requested, {state.count} present)")
    drv = state.drv
    device = drv.Device(index)
    major, minor = device.compute_capability()
    return {"name": str(device.name()), "major": int(major), "minor": int(minor),
            "total_memory": int(device.total_memory()),
            "multi_processor_count": int(device.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT))}


class Event:
    """torch.cuda.Event on the default stream: record(), query(), synchronize(), elapsed_time()."""

    __module__ = "torch.cuda"

    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        drv = lazy_init().drv
        flags = 0 if enable_timing else drv.event_flags.DISABLE_TIMING
        if blocking:
            flags |= drv.event_flags.BLOCKING_SYNC
        self.enable_timing = enable_timing
        self._event = drv.Event(flags)
        self._recorded = False

    def record(self, stream: Any = None) -> None:
        lazy_init()                      # this thread's context current (an event may move between threads)
        self._event.record()
        self._recorded = True

    def query(self) -> bool:
        lazy_init()
        return bool(self._event.query())

    def synchronize(self) -> None:
        lazy_init()
        self._event.synchronize()
        _after_waiting()

    def elapsed_time(self, end_event: "Event") -> float:
        """Milliseconds between this event and end_event (both recorded, with timing)."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if not (self._recorded and end_event._recorded):
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return float(self._event.time_till(end_event._event))
