"""Row operations: a node as a softmax, log_softmax, layer norm or nll_loss over the last dim of a float32 value,
or the backward of one, fused as a phase of a row kernel (codegen_rows.row_body), or None when it cannot be."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch._inductor.formulas import bind
from torch.fx.node import Node

__all__ = ["MAX_ROW", "RowOp", "lower_row"]


@dataclass(frozen=True)
class RowOp:
    """A softmax, log_softmax or layer norm of one float32 operand over its last dim, or the backward of one (the
    incoming gradient as operand): a kernel phase of its own. A layer norm's weight and bias (None when absent)
    and eps; a softmax's backward reads the forward's output (other); a layer norm's backward reads the forward's
    input (other), the rows' mean and rstd, and the weight."""
    operand: Any
    kind: str       # "softmax" | "log_softmax" | "layer_norm" | "softmax_backward" | "log_softmax_backward"
    #                 | "layer_norm_backward" | "nll" | "nll_backward"
    weight: Any = None
    bias: Any = None
    eps: float = 0.0
    other: Any = None
    mean: Any = None
    rstd: Any = None
    # nll_loss's backward (kind "nll_backward"; operand: the incoming gradient, one value): the class of each row
    # (an int64 per row), the mean's denominator (one value, None for a sum) and the class no loss is taken for;
    # nll_loss's forward (kind "nll"; operand: the log-probabilities) takes the class, the class ignored and the
    # reduction (upstream's enum: 0 none, 1 mean, 2 sum)
    target: Any = None
    total: Any = None
    ignore_index: int = -100
    reduction: int = 1

    @property
    def operands(self) -> tuple[Any, ...]:
        return tuple(o for o in (self.operand, self.other, self.mean, self.rstd, self.weight, self.bias,
                                 self.target, self.total) if o is not None)


# Rows longer than this stay Ember's kernel (a fused row keeps its values on the thread's stack).
MAX_ROW = 4096


def lower_row(node: Any) -> RowOp | None:
    """A node as a fusible row operation (a softmax over the last dim, computed in float32), or None."""
    op = node.target
    softmax, log_softmax = torch.ops.aten._softmax.default, torch.ops.aten._log_softmax.default
    if op is torch.ops.aten.native_layer_norm.default:
        return _layer_norm(op, node)
    if op in _ROW_BACKWARDS:
        return _row_backward(op, node)
    if op is torch.ops.aten.nll_loss_backward.default:
        return _nll_backward(op, node)
    if op is torch.ops.aten.nll_loss_forward.default:
        return _nll_forward(op, node)
    if op is softmax or op is log_softmax:
        bound = bind(op, node.args, node.kwargs)
        operand = bound.get("self") if bound is not None else None
        example = operand.meta.get("example") if isinstance(operand, Node) else None
        if example is None or not example[0] or bound is None or bound.get("half_to_float"):
            return None
        rank = len(example[0])
        dim = bound.get("dim")
        if isinstance(dim, int) and dim % rank == rank - 1 and 0 < example[0][-1] <= MAX_ROW:
            return RowOp(operand, "softmax" if op is softmax else "log_softmax")
    return None


_ROW_BACKWARDS = {torch.ops.aten._softmax_backward_data.default: "softmax_backward",
                  torch.ops.aten._log_softmax_backward_data.default: "log_softmax_backward",
                  torch.ops.aten._ember_layer_norm_backward_input.default: "layer_norm_backward"}


def _row_backward(op: Any, node: Any) -> RowOp | None:
    """A softmax's or log_softmax's backward over the last dim, or a layer norm's input gradient over it (with a
    float32 weight of the row's length, or none); their operands of the gradient's shape, the statistics one
    value per row."""
    bound = bind(op, node.args, node.kwargs)
    if bound is None:
        return None
    kind = _ROW_BACKWARDS[op]
    grad = bound.get("grad_output", bound.get("grad_out"))
    other = bound.get("output", bound.get("input"))
    if not (isinstance(grad, Node) and isinstance(other, Node)):
        return None
    example, other_example = grad.meta.get("example"), other.meta.get("example")
    if example is None or other_example is None or not example[0] or other_example[0] != example[0] \
            or not 0 < example[0][-1] <= MAX_ROW:
        return None
    if kind != "layer_norm_backward":
        dim = bound.get("dim")
        rank = len(example[0])
        if not isinstance(dim, int) or dim % rank != rank - 1 or bound.get("input_dtype") is not torch.float32:
            return None
        return RowOp(grad, kind, other=other)
    stats_shape = (*example[0][:-1], 1)
    mean, rstd, weight = bound.get("mean"), bound.get("rstd"), bound.get("weight")
    for stat in (mean, rstd):
        if not isinstance(stat, Node) or stat.meta.get("example") is None or stat.meta["example"][0] != stats_shape \
                or stat.meta["example"][2] is not torch.float32:
            return None
    if weight is not None and (not isinstance(weight, Node) or weight.meta.get("example") is None
                               or weight.meta["example"][0] != (example[0][-1],)
                               or weight.meta["example"][2] is not torch.float32):
        return None
    return RowOp(grad, kind, weight=weight, other=other, mean=mean, rstd=rstd)


def _nll_backward(op: Any, node: Any) -> RowOp | None:
    """nll_loss's gradient on (rows, classes) float32 log-probabilities, unweighted, summed or averaged: each row
    -grad (/ total weight) at its class, 0 elsewhere and on rows of ignore_index (so the log_softmax backward after
    it joins it in one kernel)."""
    bound = bind(op, node.args, node.kwargs)
    if bound is None or bound.get("weight") is not None or bound.get("reduction") not in (1, 2):
        return None
    nodes = [bound.get(k) for k in ("grad_output", "self", "target", "total_weight")]
    if not all(isinstance(n, Node) and n.meta.get("example") is not None for n in nodes):
        return None
    grad, log_probs, target, total = (n for n in nodes if isinstance(n, Node))
    shape = log_probs.meta["example"][0]
    if len(shape) != 2 or not 0 < shape[-1] <= MAX_ROW or log_probs.meta["example"][2] is not torch.float32:
        return None
    if target.meta["example"][0] != shape[:1] or target.meta["example"][2] is not torch.int64 \
            or any(n.meta["example"][0] != () or n.meta["example"][2] is not torch.float32 for n in (grad, total)):
        return None
    ignore = bound.get("ignore_index")
    if not isinstance(ignore, int):
        return None
    return RowOp(grad, "nll_backward", target=target, total=total if bound["reduction"] == 1 else None,
                 ignore_index=ignore)


def _nll_forward(op: Any, node: Any) -> RowOp | None:
    """nll_loss on (rows, classes) float32 log-probabilities with an int64 class per row, unweighted, under any
    reduction: each row's loss is minus its log-probability at its class (0 on rows of ignore_index)."""
    bound = bind(op, node.args, node.kwargs)
    if bound is None or bound.get("weight") is not None or bound.get("reduction") not in (0, 1, 2):
        return None
    log_probs, target, ignore = bound.get("self"), bound.get("target"), bound.get("ignore_index")
    if not (isinstance(log_probs, Node) and isinstance(target, Node) and isinstance(ignore, int)):
        return None
    example, target_example = log_probs.meta.get("example"), target.meta.get("example")
    if example is None or target_example is None or len(example[0]) != 2 or not 0 < example[0][-1] <= MAX_ROW \
            or example[2] is not torch.float32:
        return None
    if target_example[0] != example[0][:1] or target_example[2] is not torch.int64:
        return None
    return RowOp(log_probs, "nll", target=target, ignore_index=ignore, reduction=bound["reduction"])


def _layer_norm(op: Any, node: Any) -> RowOp | None:
    """native_layer_norm over the last dim alone, with float32 weight and bias of that length (or none)."""
    bound = bind(op, node.args, node.kwargs)
    if bound is None or not isinstance(bound.get("input"), Node):
        return None
    operand = bound["input"]
    example = operand.meta.get("example")
    shape = bound.get("normalized_shape")
    eps = bound.get("eps")
    if example is None or not example[0] or not 0 < example[0][-1] <= MAX_ROW or not isinstance(eps, float) \
            or list(shape or ()) != [example[0][-1]]:
        return None
    affine = [bound.get("weight"), bound.get("bias")]
    for tensor in affine:
        if tensor is not None and (not isinstance(tensor, Node) or tensor.meta.get("example") is None
                                   or tensor.meta["example"][0] != (example[0][-1],)
                                   or tensor.meta["example"][2] is not torch.float32):
            return None
    return RowOp(operand, "layer_norm", affine[0], affine[1], eps)
