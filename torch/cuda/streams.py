"""torch.cuda streams. Ember queues all CUDA work on the device's default stream, so a Stream is
that stream under another name: work "on a side stream" runs after the work queued before it
instead of beside it. PyTorch's ordering guarantees all hold (a single stream orders more); what
is lost is the overlap, not correctness."""
from __future__ import annotations

from types import TracebackType
from typing import Any

from c10 import cuda as _c10_cuda
from c10.cuda import Event


class Stream:
    __module__ = "torch.cuda"

    def __init__(self, device: Any = None, priority: int = 0, **kwargs: Any) -> None:
        _c10_cuda.lazy_init()
        self.priority = priority
        self.cuda_stream = 0          # the default stream's handle
        self.device_index = 0

    @property
    def device(self) -> Any:
        from c10.device import canonical
        return canonical("cuda:0")

    def synchronize(self) -> None:
        _c10_cuda.synchronize()

    def query(self) -> bool:
        """Whether all work queued so far has finished."""
        event = Event()
        event.record()
        return event.query()

    def wait_stream(self, stream: "Stream") -> None:
        """Later work here waits for the work queued on stream: one stream already orders it."""

    def wait_event(self, event: Event) -> None:
        """Later work here waits for event: recorded on the one stream, it is already ordered."""

    def record_event(self, event: Event | None = None) -> Event:
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream) and (other.cuda_stream, other.device_index) == (self.cuda_stream,
                                                                                            self.device_index)

    def __hash__(self) -> int:
        return hash((self.cuda_stream, self.device_index))

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>"


def current_stream(device: Any = None) -> Stream:
    return Stream(device)


def default_stream(device: Any = None) -> Stream:
    return Stream(device)


class StreamContext:
    """`with torch.cuda.stream(s):` work inside goes to s (here, as everywhere, the default stream)."""

    __module__ = "torch.cuda"

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream

    def __enter__(self) -> Stream | None:
        return self.stream

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        return None


def stream(stream: Stream | None) -> StreamContext:
    return StreamContext(stream)
