"""torch._dynamo.explain: what compiling a function produces, without keeping it compiled: its graphs,
graph breaks and their reasons, operators and guards (PyTorch's ExplainOutput)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["BreakReason", "ExplainOutput", "explain"]


@dataclass
class BreakReason:
    reason: str
    user_stack: list[Any] = field(default_factory=list)
    graph_break: bool = True


@dataclass
class ExplainOutput:
    graphs: list[Any]
    graph_count: int
    graph_break_count: int
    break_reasons: list[BreakReason]
    op_count: int
    ops_per_graph: list[list[Any]] | None = None
    out_guards: list[str] | None = None
    compile_times: str | None = None

    def __str__(self) -> str:
        lines = [f"Graph Count: {self.graph_count}", f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}", "Break Reasons:"]
        for i, reason in enumerate(self.break_reasons, 1):
            lines += [f"  Break Reason {i}:", f"    Reason: {reason.reason}"]
        if self.ops_per_graph is not None:
            lines.append("Ops per Graph:")
            for i, ops in enumerate(self.ops_per_graph, 1):
                lines.append(f"  Ops {i}:")
                lines += [f"    {op}" for op in ops]
        if self.out_guards is not None:
            lines.append("Out Guards:")
            lines += [f"  Guard {i}: {guard}" for i, guard in enumerate(self.out_guards, 1)]
        if self.compile_times is not None:
            lines.append(f"Compile Times: {self.compile_times}")
        return "\n".join(lines) + "\n"


def explain(f: Callable[..., Any], *extra_args: Any, **extra_kwargs: Any) -> Callable[..., ExplainOutput]:
    """explain(f)(*args, **kwargs): capture one call of f (it runs) and describe the result."""
    from torch._dynamo.eval_frame import CompiledFunction

    def inner(*args: Any, **kwargs: Any) -> ExplainOutput:
        graphs: list[Any] = []

        def collect(gm: Any, example_inputs: list[Any]) -> Callable[..., Any]:
            graphs.append(gm)
            return gm.forward

        compiled = CompiledFunction(f, collect)
        started = time.perf_counter()
        compiled(*args, *extra_args, **kwargs, **extra_kwargs)
        seconds = time.perf_counter() - started
        entry = compiled.entries[-1]
        breaks = [] if entry.compiled is not None else [BreakReason(str(entry.captured.break_reason))]
        ops = [[node.target for node in gm.graph.nodes if node.op == "call_function"] for gm in graphs]
        guards = entry.guards.describe()
        return ExplainOutput(graphs, len(graphs), len(breaks), breaks, sum(len(o) for o in ops), ops, guards,
                             f"capture and compile: {seconds:.4f} s")
    return inner
