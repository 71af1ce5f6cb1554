"""torch.autograd.profiler: profile (the legacy profiler) and record_function. While a profiler is
active, the dispatcher times every operator call (aten.dispatcher.set_profiler_hook) and
record_function adds named ranges; the summaries are profiler_util's."""
from __future__ import annotations

import contextlib
from typing import Any

from aten import dispatcher as _dispatcher
from torch.autograd.profiler_util import EventList, FunctionEvent, FunctionEventAvg, Recorder

__all__ = ["profile", "record_function", "emit_nvtx", "EventList", "FunctionEvent", "FunctionEventAvg"]

_current: list[Recorder | None] = [None]


def _start(record_shapes: bool) -> Recorder:
    if _current[0] is not None:
        raise RuntimeError("Profiler is already enabled on this thread")
    # another observer (FlopCounterMode) may hold the hook: the recorder passes its calls on
    recorder = Recorder(record_shapes, previous_hook=_dispatcher.get_profiler_hook())
    _current[0] = recorder
    _dispatcher.set_profiler_hook(recorder)
    return recorder


def _stop(recorder: Recorder) -> EventList:
    if _current[0] is recorder:
        _current[0] = None
        _dispatcher.set_profiler_hook(recorder.previous_hook)
    return recorder.event_list()


class emit_nvtx:
    """`with emit_nvtx():` marks each operator as an NVTX range for NVIDIA's profilers. Ember's
    profiler emits no NVTX ranges, so entering it enabled raises; disabled, it does nothing."""

    def __init__(self, enabled: bool = True, record_shapes: bool = False) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self) -> emit_nvtx:
        if self.enabled:
            raise RuntimeError("emit_nvtx needs NVTX ranges, which Ember's profiler does not emit")
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


class record_function(contextlib.ContextDecorator):
    """A named range in the profile (a context manager or a decorator); nothing without a profiler."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self.args = args
        self._scopes: list[tuple[Recorder, FunctionEvent]] = []

    def __enter__(self) -> "record_function":
        recorder = _current[0]
        if recorder is not None:
            self._scopes.append((recorder, recorder.begin(self.name, None, user=True)))
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._scopes:
            recorder, event = self._scopes.pop()
            recorder.end(event)


class profile:
    """`with profile() as prof:` every operator call inside is timed; prof.key_averages().table()."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device: str | None = None,
                 record_shapes: bool = False, with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True,
                 experimental_config: Any = None, acc_events: bool = False,
                 custom_trace_id_callback: Any = None) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.function_events: EventList | None = None
        self._recorder: Recorder | None = None

    def __enter__(self) -> "profile":
        if self.enabled:
            self._recorder = _start(self.record_shapes)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._recorder is not None:
            self.function_events = _stop(self._recorder)
            self._recorder = None

    def _events(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def events(self) -> EventList:
        return self._events()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self._events().key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        return self._events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> FunctionEventAvg:
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        return self._events().self_cpu_time_total

    def export_chrome_trace(self, path: str) -> None:
        self._events().export_chrome_trace(path)

    def __str__(self) -> str:
        return self.table()
