"""torch.cuda.graphs: CUDA graph capture and replay (PyTorch's names).

Ember's CUDA backend launches every kernel eagerly through PyCUDA and has no stream capture yet, so
a graph cannot be recorded: constructing one raises a RuntimeError that says so, and
is_current_stream_capturing() is truthfully False. The names exist because libraries name them at
import (type annotations, feature checks) without capturing anything on a CPU."""
from __future__ import annotations

from typing import Any

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables"]

_MISSING = ("Ember does not support CUDA graphs yet: its CUDA backend launches kernels eagerly and cannot capture "
            "a stream into a graph")


def is_current_stream_capturing() -> bool:
    """Whether the current stream is being captured into a graph: never, in Ember."""
    return False


def graph_pool_handle() -> Any:
    raise RuntimeError(_MISSING)


class CUDAGraph:
    """A captured CUDA graph: not available in Ember (see the module's docstring)."""

    __module__ = "torch.cuda.graphs"

    def __new__(cls, keep_graph: bool = False) -> CUDAGraph:
        raise RuntimeError(_MISSING)


class graph:
    """`with torch.cuda.graph(g):` captures the work inside into g: not available in Ember."""

    __module__ = "torch.cuda.graphs"

    def __init__(self, cuda_graph: CUDAGraph, pool: Any = None, stream: Any = None,
                 capture_error_mode: str = "global", enable_annotations: bool = False,
                 check_input_liveness: bool = False) -> None:
        raise RuntimeError(_MISSING)


def make_graphed_callables(callables: Any, sample_args: Any, num_warmup_iters: int = 3,
                           allow_unused_input: bool = False, pool: Any = None) -> Any:
    raise RuntimeError(_MISSING)
