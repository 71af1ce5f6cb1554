"""torch._dynamo.utils: what PyTorch's utils module offers programs and their tests, as far as Ember has it:
`counters`, the counts of what torch.compile did in this process (never cleared by torch._dynamo.reset(), as in
PyTorch; tests clear it themselves)."""
from __future__ import annotations

import collections
import contextlib
import gc
from typing import Any, Iterator

__all__ = ["count_frame", "counters", "gc_paused"]

# counters["frames"]["total" | "ok"]: calls captured, and those that did not raise;
# counters["stats"]["unique_graphs" | "calls_captured"]: graphs compiled and the operator calls they hold;
# counters["graph_break"][reason]: captures that hit a graph break (their frame runs eagerly), by reason.
counters: collections.defaultdict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)


def count_frame(graph_module: Any, break_reason: str | None) -> None:
    """Count a capture that finished: a graph (graph_module) or a graph break (break_reason)."""
    counters["frames"]["total"] += 1
    counters["frames"]["ok"] += 1
    if graph_module is None:
        counters["graph_break"][break_reason or "unknown"] += 1
        return
    counters["stats"]["unique_graphs"] += 1
    counters["stats"]["calls_captured"] += sum(node.op == "call_function" for node in graph_module.graph.nodes)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a while (a capture: it makes many short-lived objects, and the
    collections they set off took about a third of its time); the garbage it leaves waits for the next collection."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
