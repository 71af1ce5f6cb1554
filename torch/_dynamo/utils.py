"""torch._dynamo.utils: what PyTorch's utils module offers programs and their tests, as far as Ember has it:
`counters`, the counts of what torch.compile did in this process (never cleared by torch._dynamo.reset(), as in
PyTorch; tests clear it themselves)."""
from __future__ import annotations

import collections
import contextlib
import gc
from typing import Any, Callable, Iterator

__all__ = ["counted_capture", "counters", "older_objects_frozen"]

# counters["frames"]["total" | "ok"]: captures begun, and those that did not raise;
# counters["stats"]["unique_graphs" | "calls_captured"]: graphs compiled and the operator calls they hold;
# counters["graph_break"][reason]: captures that hit a graph break (their frame runs eagerly), by reason.
counters: collections.defaultdict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)


def counted_capture(capture: Callable[[], Any]) -> Any:
    """Run a capture (the older objects frozen meanwhile), counting its frame, and its graph or its graph break."""
    counters["frames"]["total"] += 1
    with older_objects_frozen():
        captured = capture()
    counters["frames"]["ok"] += 1
    if captured.graph_module is None:
        counters["graph_break"][captured.break_reason or "unknown"] += 1
    else:
        counters["stats"]["unique_graphs"] += 1
        counters["stats"]["calls_captured"] += sum(node.op == "call_function"
                                                   for node in captured.graph_module.graph.nodes)
    return captured


@contextlib.contextmanager
def older_objects_frozen() -> Iterator[None]:
    """The objects alive before a capture left out of the cyclic garbage collector's passes while it runs
    (gc.freeze): the many short-lived objects a capture makes set off collections that otherwise walk the whole
    heap, about a third of its time. What the capture itself makes is still collected, a program's own
    gc.disable() holds, and a process forked meanwhile keeps its collector on."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
