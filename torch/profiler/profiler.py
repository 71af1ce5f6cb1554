"""torch.profiler.profile: the profiler with activities, a step schedule and a trace handler, on
the recorder the dispatcher feeds (torch.autograd.profiler)."""
from __future__ import annotations

import enum
import gzip
import os
import socket
import time
from typing import Any, Callable, Iterable

from torch.autograd import profiler as _autograd_profiler
from torch.autograd.profiler_util import EventList, FunctionEvent, Recorder

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "schedule", "supported_activities",
           "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set[ProfilerActivity]:
    """What this build can record: the CPU side of operators (CUDA work is inside it)."""
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """The action for each step: skip_first steps, then cycles of wait, warmup and active steps
    (the last active one saves the trace), repeat times (0: forever)."""
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        import warnings
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", UserWarning, stacklevel=2)

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError("Step must be non-negative")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step / cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False) -> Callable[["profile"], None]:
    """An on_trace_ready that writes each trace to dir_name/<worker>.<time>.pt.trace.json[.gz]."""
    def handler(prof: "profile") -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns()}.pt.trace.json"
        path = os.path.join(dir_name, name)
        prof.export_chrome_trace(path)
        if use_gzip:
            with open(path, "rb") as source, gzip.open(path + ".gz", "wb") as target:
                target.write(source.read())
            os.remove(path)
    return handler


_COLLECTING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile:
    """`with profile(activities=[ProfilerActivity.CPU], schedule=..., on_trace_ready=...) as prof:`
    with prof.step() after each training step; prof.key_averages().table(), export_chrome_trace()."""

    def __init__(self, *, activities: Iterable[ProfilerActivity] | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[["profile"], Any] | None = None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None, execution_trace_observer: Any = None,
                 acc_events: bool = False, use_cuda: bool | None = None, custom_trace_id_callback: Any = None) -> None:
        self.activities = set(activities) if activities is not None else supported_activities()
        self.schedule = schedule if schedule is not None else (lambda step: ProfilerAction.RECORD)
        self._record_steps = schedule is not None      # ProfilerStep#N ranges, as PyTorch's, with a schedule
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self._recorder: Recorder | None = None
        self._step_event: FunctionEvent | None = None
        self._events = EventList()
        self._metadata: dict[str, str] = {}

    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def start(self) -> None:
        self.step_num = 0
        self.current_action = self.schedule(0)
        if self.current_action in _COLLECTING:
            self._begin()

    def stop(self) -> None:
        if self._recorder is not None:
            self._finish(save=True)
        self.current_action = ProfilerAction.NONE

    def step(self) -> None:
        """Mark the end of a step: the schedule's next action takes effect."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if self._recorder is not None:
            if previous == ProfilerAction.RECORD_AND_SAVE or self.current_action not in _COLLECTING:
                self._finish(save=True)      # a cycle ends: its trace is handed over
            else:
                self._next_step_range()
        if self._recorder is None and self.current_action in _COLLECTING:
            self._begin()

    def _begin(self) -> None:
        self._recorder = _autograd_profiler._start(self.record_shapes)
        self._next_step_range()

    def _next_step_range(self) -> None:
        assert self._recorder is not None
        if not self._record_steps:
            return
        if self._step_event is not None:
            self._recorder.end(self._step_event)
        self._step_event = self._recorder.begin(f"ProfilerStep#{self.step_num}", None, user=True)

    def _finish(self, save: bool) -> None:
        assert self._recorder is not None
        if self._step_event is not None:
            self._recorder.end(self._step_event)
            self._step_event = None
        events = _autograd_profiler._stop(self._recorder)
        self._recorder = None
        if save:
            self._events = events
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def events(self) -> EventList:
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self._events.key_averages(group_by_input_shape, group_by_stack_n, group_by_overload_name)

    def export_chrome_trace(self, path: str) -> None:
        self._events.export_chrome_trace(path, self._metadata)

    def add_metadata(self, key: str, value: str) -> None:
        self._metadata[key] = value

    def add_metadata_json(self, key: str, value: str) -> None:
        import json
        self._metadata[key] = json.loads(value)
