"""torch._dynamo: torch.compile's capture, guards and caches (see capture.py for how Ember captures a
call without rewriting bytecode, and what that cannot reproduce)."""
from torch._dynamo import config, eval_frame, exc, utils
from torch._dynamo.backends.registry import list_backends, lookup_backend, register_backend
from torch._dynamo.capture import active as _capture_active
from torch._dynamo.decorators import (allow_in_graph, assume_constant_result, graph_break, mark_dynamic,
                                      mark_static, mark_static_address, maybe_mark_dynamic)
from torch._dynamo.eval_frame import OptimizedModule, disable, optimize, reset
from torch._dynamo.explain import explain


def is_compiling() -> bool:
    """Whether the caller runs inside a torch.compile capture (torch.compiler.is_compiling)."""
    return _capture_active()

__all__ = ["OptimizedModule", "allow_in_graph", "assume_constant_result", "config", "disable", "eval_frame", "exc",
           "explain", "graph_break", "is_compiling", "list_backends", "lookup_backend", "mark_dynamic", "mark_static",
           "mark_static_address", "maybe_mark_dynamic", "optimize", "register_backend", "reset", "utils"]
