"""The profiler's events and their summaries: the recorder the dispatcher calls around each operator
(aten.dispatcher.set_profiler_hook), FunctionEvent / FunctionEventAvg / EventList, PyTorch's table
and the Chrome trace format (what chrome://tracing and Perfetto open)."""
from __future__ import annotations

import itertools
import json
import os
import threading
import time
from typing import Any, Callable, Iterable

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "Recorder"]


def _format_time(time_us: float) -> str:
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_us: float) -> str:
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


def _shapes(args: Iterable[Any]) -> list[list[int]]:
    """Each argument's shape ([] for what is not a tensor), as record_shapes reports them."""
    out = []
    for a in args:
        shape = getattr(a, "shape", None)
        out.append(list(shape) if shape is not None and hasattr(a, "_version") else [])
    return out


class FunctionEvent:
    """One timed call: an operator (aten::...) or a record_function range, with its children."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float = 0.0,
                 input_shapes: list[list[int]] | None = None, is_user_annotation: bool = False) -> None:
        self.id = id
        self.name = name
        self.thread = thread
        self.start_us = start_us
        self.end_us = end_us
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.is_user_annotation = is_user_annotation
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.count = 1
        self.is_async = False
        self.device_type = "cpu"
        self.stack: list[str] = []
        self.node_id = -1

    @property
    def key(self) -> str:
        return self.name

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    # Ember's profiler times the host: each operator's device work is inside its CPU time.
    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0

    def __repr__(self) -> str:
        children = [c.id for c in self.cpu_children]
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_time(self.cpu_time_total)} "
                f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} cpu_children={children} "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events of one name (and, grouped by shape, one list of input shapes) added up."""

    def __init__(self, key: str, input_shapes: list[list[int]] | None = None) -> None:
        self.key = key
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_parent: FunctionEvent | None = None
        self.is_user_annotation = False
        self.is_async = False
        self.stack: list[str] = []
        self.node_id = -1

    def add(self, event: FunctionEvent) -> "FunctionEventAvg":
        if self.count == 0:
            self.is_user_annotation = event.is_user_annotation
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def self_cpu_time(self) -> float:
        return self.self_cpu_time_total / self.count if self.count else 0.0

    device_time_total = self_device_time_total = cuda_time_total = self_cuda_time_total = 0.0

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
                f"cpu_time={_format_time(self.cpu_time)} input_shapes={self.input_shapes}>")


class EventList(list):  # type: ignore[type-arg]
    """The events of one profiling run, with PyTorch's summaries."""

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> "EventList":
        groups: dict[Any, FunctionEventAvg] = {}
        for event in self:
            key = (event.key, str(event.input_shapes)) if group_by_input_shapes else event.key
            if key not in groups:
                groups[key] = FunctionEventAvg(event.key, event.input_shapes if group_by_input_shapes else None)
            groups[key].add(event)
        return EventList(groups.values())

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for event in self:
            total.add(event)
        return total

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        return _build_table(self, sort_by, header, row_limit, max_name_column_width, max_shapes_column_width,
                            top_level_events_only)

    def __str__(self) -> str:
        return self.table()

    def export_chrome_trace(self, path: str, metadata: dict[str, Any] | None = None) -> None:
        """The events as a Chrome trace ("X" complete events, microseconds): chrome://tracing and
        Perfetto open it. metadata's entries go to the trace's top level, as PyTorch's add_metadata."""
        pid = os.getpid()
        events = []
        for event in self:
            entry: dict[str, Any] = {"ph": "X", "cat": "user_annotation" if event.is_user_annotation else "cpu_op",
                                     "name": event.name, "pid": pid, "tid": event.thread, "ts": event.start_us,
                                     "dur": event.cpu_time_total, "args": {"External id": event.id}}
            if event.input_shapes:
                entry["args"]["Input Dims"] = event.input_shapes
            events.append(entry)
        with open(path, "w") as f:
            json.dump({"schemaVersion": 1, **(metadata or {}), "displayTimeUnit": "ms", "traceEvents": events}, f)


def _build_table(events: EventList, sort_by: str | None, header: str | None, row_limit: int,
                 max_name_column_width: int | None, max_shapes_column_width: int | None,
                 top_level_events_only: bool) -> str:
    if not events:
        return ""
    if sort_by is not None:
        attribute = sort_by.replace("cuda", "device").replace("xpu", "device")
        events = EventList(sorted(events, key=lambda e: getattr(e, attribute), reverse=True))
    has_shapes = any(e.input_shapes for e in events)
    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(e.input_shapes)) for e in events) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_width] + [12] * 6
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
    row_format = "".join("{: >" + str(w) + "}  " for w in widths)
    separator = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2
    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        row = [name, _format_time_share(e.self_cpu_time_total, total), _format_time(e.self_cpu_time_total),
               _format_time_share(e.cpu_time_total, total), _format_time(e.cpu_time_total),
               _format_time(e.cpu_time_total / e.count if e.count else 0.0), e.count]
        if has_shapes:
            row.append(str(e.input_shapes)[:shapes_width])
        lines.append(row_format.format(*row))
    lines += [separator, f"Self CPU time total: {_format_time(total)}"]
    return "\n".join(lines) + "\n"


class Recorder:
    """Collects events while installed as the dispatcher's profiler hook: each operator call and
    each record_function range, nested per thread (parents and children)."""

    def __init__(self, record_shapes: bool = False, previous_hook: Any = None) -> None:
        self.record_shapes = record_shapes
        self.previous_hook = previous_hook
        self.events: list[FunctionEvent] = []
        self._ids = itertools.count()
        self._local = threading.local()
        self._t0 = time.perf_counter_ns()
        self._epoch_us = time.time_ns() / 1000.0

    def _now_us(self) -> float:
        return self._epoch_us + (time.perf_counter_ns() - self._t0) / 1000.0

    def begin(self, name: str, args: Iterable[Any] | None = None, user: bool = False) -> FunctionEvent:
        stack = self._local.__dict__.setdefault("stack", [])
        shapes = _shapes(args) if self.record_shapes and args is not None else None
        event = FunctionEvent(next(self._ids), name, threading.get_native_id(), self._now_us(), 0.0, shapes, user)
        if stack:
            event.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(event)
        stack.append(event)
        self.events.append(event)
        return event

    def end(self, event: FunctionEvent) -> None:
        event.end_us = self._now_us()
        stack = self._local.__dict__.get("stack")
        if stack and stack[-1] is event:
            stack.pop()
        elif stack and event in stack:
            stack.remove(event)

    def wrap(self, op_name: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
        """What the dispatcher calls instead of kernel: the call timed as aten::<op name>."""
        name = "aten::" + op_name.split(".", 1)[0]
        if self.previous_hook is not None:
            kernel = self.previous_hook.wrap(op_name, kernel)

        def timed(*args: Any, **kwargs: Any) -> Any:
            event = self.begin(name, args)
            try:
                return kernel(*args, **kwargs)
            finally:
                self.end(event)
        return timed

    def event_list(self) -> EventList:
        return EventList(e for e in self.events if e.end_us)
