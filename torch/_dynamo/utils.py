"""torch._dynamo.utils: what PyTorch's utils module offers programs and their tests, as far as Ember has it:
`counters`, the counts of what torch.compile did in this process (never cleared by torch._dynamo.reset(), as in
PyTorch; tests clear it themselves)."""
from __future__ import annotations

import collections
from typing import Any

__all__ = ["count_frame", "counters"]

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
