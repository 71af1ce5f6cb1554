"""torch.fx.passes.shape_prop: ShapeProp runs a GraphModule on example inputs and records, on each
node, the shape, dtype, strides and layout facts of the tensors it produced."""
from __future__ import annotations

import traceback
from typing import Any, NamedTuple

import torch
from torch.fx.graph_module import GraphModule
from torch.fx.interpreter import Interpreter
from torch.fx.node import Node, map_aggregate

__all__ = ["TensorMetadata", "ShapeProp"]


class TensorMetadata(NamedTuple):
    shape: torch.Size
    dtype: torch.dtype
    requires_grad: bool
    stride: tuple[int, ...]
    memory_format: torch.memory_format | None
    is_quantized: bool
    qparams: dict[str, Any]


# the layouts a tensor's memory_format is reported in, most common first, with how many dims each needs
_LAYOUTS: tuple[tuple[str, int | None], ...] = (
    ("contiguous_format", None), ("channels_last", 4), ("channels_last_3d", 5))


def _dense_layout(tensor: torch.Tensor) -> torch.memory_format | None:
    """The first layout of _LAYOUTS the tensor is laid out contiguously in, or None."""
    rank = tensor.dim()
    for layout_name, needs_rank in _LAYOUTS:
        layout = getattr(torch, layout_name, None)
        if layout is None or needs_rank not in (None, rank):
            continue
        try:
            if tensor.is_contiguous(memory_format=layout):
                return layout
        except (RuntimeError, ValueError):
            pass
    return None


def _quantization(tensor: torch.Tensor) -> dict[str, Any] | None:
    """The quantization parameters of a quantized tensor; None for any other tensor."""
    if not getattr(tensor, "is_quantized", False):
        return None
    quantized: Any = tensor
    return {"qscheme": quantized.qscheme(), "scale": quantized.q_scale(), "zero_point": quantized.q_zero_point()}


def _tensor_facts(tensor: torch.Tensor, include_contiguity: bool = True) -> TensorMetadata:
    """The TensorMetadata of one tensor (memory_format left None unless include_contiguity)."""
    quant = _quantization(tensor)
    return TensorMetadata(
        shape=tensor.shape,
        dtype=tensor.dtype,
        requires_grad=tensor.requires_grad,
        stride=tensor.stride(),
        memory_format=_dense_layout(tensor) if include_contiguity else None,
        is_quantized=quant is not None,
        qparams=quant if quant is not None else {},
    )


def _metadata_or_same(leaf: Any) -> Any:
    return _tensor_facts(leaf) if isinstance(leaf, torch.Tensor) else leaf


def _holds_tensor(value: Any) -> bool:
    """Whether a tensor sits anywhere in value, looking through what map_aggregate looks through."""
    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, (tuple, list)):
        return any(_holds_tensor(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_tensor(item) for item in value.values())
    if isinstance(value, slice):
        return any(_holds_tensor(end) for end in (value.start, value.stop, value.step))
    return False


class ShapeProp(Interpreter):
    """Runs the module node by node on sample inputs, setting ``node.meta['tensor_meta']`` (a
    TensorMetadata, or a structure of them for nodes returning several tensors) and
    ``node.meta['type']`` (the type of the value)."""

    def __init__(self, gm: GraphModule, fake_mode: Any = None) -> None:
        super().__init__(gm)
        self.fake_mode = fake_mode
        # PyTorch runs a fake-tensor copy of the module under fake_mode; Ember has no fake tensors, so the
        # real module is the only one
        self.real_module: torch.nn.Module = gm
        self.fake_module: torch.nn.Module | None = None

    def run_node(self, n: Node) -> Any:
        """Run n as the Interpreter does, then record the metadata of what it produced in ``n.meta``."""
        produced = self._run_or_explain(n)
        if _holds_tensor(produced):
            n.meta["tensor_meta"] = map_aggregate(produced, _metadata_or_same)
        n.meta["type"] = type(produced)
        return produced

    def _run_or_explain(self, n: Node) -> Any:
        """super().run_node(n); a failure is printed and re-raised naming the node and its meta."""
        try:
            return super().run_node(n)
        except Exception as failure:
            traceback.print_exc()
            raise RuntimeError(f"ShapeProp error for: node={n.format_node()} with meta={n.meta}") from failure

    def propagate(self, *args: Any) -> Any:
        """Run the module on args, recording metadata; returns the module's output."""
        return super().run(*args)
