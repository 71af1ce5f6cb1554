"""memory: which buffers a compiled graph's kernels write into can be ones an earlier kernel wrote and nothing
reads any more (PyTorch's Inductor plans its buffers likewise).

A buffer the wrapper allocated for a kernel's result is dead after the last read of it or of anything aliasing
it (its views, an in-place operator's result on it, by the schema's alias annotations), unless the graph
returns it or one of those. A later kernel result of the same sizes, strides, dtype and device then takes
that buffer instead of a new one: no allocation, and memory the caches still hold. Nothing is reused in a
graph autograd records (an operator it records may save a buffer for its backward)."""
from __future__ import annotations

import operator
from typing import Any

from torch._inductor.scheduler import FusedGroup
from torch._inductor.views import View

__all__ = ["plan_reuse"]


def _aliases_first_input(node: Any) -> bool:
    if node.op != "call_function":
        return False
    if node.target is operator.getitem:
        return _aliases_first_input(node.args[0]) if hasattr(node.args[0], "op") else False
    schema = getattr(node.target, "_schema", None)
    return schema is not None and any(bool(r.alias) for r in schema.returns)


def _storage_of(node: Any, views: dict[Any, View], memo: dict[Any, Any]) -> Any:
    """The node whose buffer node's value lives in (itself, unless it is a view or an in-place result)."""
    if node in memo:
        return memo[node]
    owner = node
    if node in views:
        owner = _storage_of(views[node].root, views, memo)
    elif _aliases_first_input(node):
        first = next((a for a in node.all_input_nodes), None)
        owner = _storage_of(first, views, memo) if first is not None else node
    memo[node] = owner
    return owner


def plan_reuse(graph: Any, groups: list[FusedGroup], views: dict[Any, View],
               last_read: dict[Any, Any]) -> dict[Any, Any]:
    """{kernel result: the earlier kernel result whose buffer it takes}. last_read gives, per value, the node
    (or group's last member) after which nothing reads it."""
    order = {node: i for i, node in enumerate(graph.nodes)}
    memo: dict[Any, Any] = {}
    dies: dict[Any, int] = {}
    returned: set[Any] = set()
    for node in graph.nodes:
        if node.op == "output":
            returned.update(_storage_of(n, views, memo) for n in node.all_input_nodes)
            continue
        owner = _storage_of(node, views, memo)
        seen = max(order[node], order[last_read[node]] if node in last_read else -1)
        dies[owner] = max(dies.get(owner, -1), seen)
    free: dict[tuple[Any, ...], list[tuple[int, Any]]] = {}     # layout -> (dies at, buffer), oldest first
    donors: dict[Any, Any] = {}
    for group in sorted(groups, key=lambda g: order[g.members[-1]]):
        now = order[group.members[-1]]
        for store in group.stores:
            key = _layout(store)
            pool = free.get(key, [])
            chosen = next((i for i, (died, _) in enumerate(pool) if died < now), None)
            if chosen is not None:
                donors[store] = pool.pop(chosen)[1]
        for store in group.stores:
            if store not in returned and store in dies:
                free.setdefault(_layout(store), []).append((dies[store], store))
    return donors


def _layout(node: Any) -> tuple[Any, ...]:
    shape, stride, dtype, device, _ = node.meta["example"]
    return tuple(shape), tuple(stride), dtype, str(device)
