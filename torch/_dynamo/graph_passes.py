"""torch._dynamo.graph_passes: rewrites of a captured graph that keep what it computes, and its table for the logs.

elide_fresh_copies: a backward traced into a graph stores each leaf's first gradient as a copy into a fresh
tensor (AccumulateGrad's _grad_like: while capturing, the tracer's references keep the engine from taking the
gradient itself, as it does eagerly when nothing else holds it). Where the copied value has the fresh tensor's
layout and nothing reads it, or the tensor it views, after the copy, the copy is the value itself: the graph
stores that, as eager does, without the allocation and the copy."""
from __future__ import annotations

from typing import Any

import torch

__all__ = ["elide_fresh_copies", "graph_table"]

_FRESH = frozenset({"new_empty_strided", "empty_strided", "new_empty", "empty_like"})


def _is_view(node: Any) -> bool:
    schema = getattr(node.target, "_schema", None)
    return schema is not None and bool(schema.returns) and bool(schema.returns[0].alias) \
        and not schema.returns[0].is_write


def _read_only_by(node: Any, reader: Any, metadata_reader: Any) -> bool:
    """Whether node's value (and the tensor it views, up its chain of views) is read by reader alone (and its
    metadata by metadata_reader: new_empty_strided takes the dtype and device of the tensor it is called on)."""
    while True:
        if node.op != "call_function" or reader not in node.users or \
                any(user is not reader and user is not metadata_reader for user in node.users):
            return False
        if not _is_view(node):
            return True
        reader, metadata_reader, node = node, None, node.args[0]
        if not isinstance(node, torch.fx.Node):
            return False


def elide_fresh_copies(graph: Any) -> int:
    """Replace `fresh.copy_(value)` into a just-made tensor by value itself where that is the same; returns how
    many copies went."""
    elided: dict[Any, tuple[Any, Any]] = {}        # copy -> (the value it copies, the fresh tensor)
    for copy in list(graph.nodes):
        if copy.op != "call_function" or copy.target is not torch.ops.aten.copy_.default or len(copy.args) < 2:
            continue
        fresh, value = copy.args[0], copy.args[1]
        if not (isinstance(fresh, torch.fx.Node) and isinstance(value, torch.fx.Node)):
            continue
        packet = getattr(getattr(fresh.target, "overloadpacket", None), "__name__", "")
        if fresh.op != "call_function" or packet not in _FRESH or set(fresh.users) != {copy}:
            continue
        if fresh.meta.get("example", (None,))[:4] != value.meta.get("example", (0,))[:4]:
            continue            # another layout, dtype or device: the copy converts
        if not _read_only_by(value, copy, fresh):
            continue
        while value in elided:      # a copy of an elided copy: the value that one copied
            value = elided[value][0]
        elided[copy] = (value, fresh)
    # each reader rewired once for all its copies (the output reads every gradient: one by one, the pass was
    # quadratic in the parameters)
    for reader in {user: None for copy in elided for user in copy.users}:
        reader.args = torch.fx.map_arg(reader.args, lambda n: elided[n][0] if n in elided else n)
        reader.kwargs = torch.fx.map_arg(reader.kwargs, lambda n: elided[n][0] if n in elided else n)
    for copy, (_, fresh) in reversed(elided.items()):     # a later copy may read an earlier one
        graph.erase_node(copy)
        graph.erase_node(fresh)
    return len(elided)


def graph_table(graph: Any) -> str:
    """The graph's nodes as a table (PyTorch's `graph` log prints Graph.print_tabular's)."""
    rows = [("opcode", "name", "target", "args", "kwargs")]
    rows += [(n.op, n.name, str(n.target), str(n.args), str(n.kwargs)) for n in graph.nodes]
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
