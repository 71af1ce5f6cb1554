"""Fusion: the graph's fusible pointwise nodes grouped into kernels, in one pass over the graph.

A node fuses when it lowers to a formula (formulas.lower: the CPU's for a CPU result, CUDA's for a GPU's),
computes in float32 (bool for comparisons), is not left unfused (left_unfused: autograd records it, or its
layout may vary between calls) and its operands are float32
(or bool where the formula takes a condition) on its device. It joins the open group of one of its
operands of the same shape, or starts one. A sum or mean of a member ends its group (the kernel's
epilogue: formulas.lower_reduction), on a GPU where it has enough outputs for a thread each. A group closes as soon as anything outside it reads one of its values, and
every group closes at an operator that writes into memory, so a kernel (run where its last member was)
never reads a value that the graph changes in between. A member is stored when something outside its
group reads it; the others live in registers."""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass, field
from typing import Any

import torch
from torch._inductor.formulas import Lowered, Reduction, lower, lower_reduction
from torch._inductor.row_ops import RowOp, lower_row

__all__ = ["CUDA_ROW_LENGTH", "FusedGroup", "left_unfused", "plan", "writes"]

# The fewest outputs a reduction on the GPU fuses with (its kernel runs one thread per output).
_CUDA_REDUCTION_OUTPUTS = 1024
# The longest row a GPU row kernel takes (each thread keeps its share of a row's buffered values in registers or
# local memory: at most 16 with a block of 256).
CUDA_ROW_LENGTH = 4096


@dataclass
class FusedGroup:
    """One kernel: its members in graph order, their expressions, the values it loads and stores."""
    index: int
    shape: tuple[int, ...]
    device: Any
    members: list[Any] = field(default_factory=list)
    lowered: dict[Any, Lowered] = field(default_factory=dict)
    closed: bool = False
    loads: list[Any] = field(default_factory=list)          # the nodes it reads from memory, in order
    stores: list[Any] = field(default_factory=list)         # the members something outside reads
    reduction: Any = None                                   # the member that sums its value (last)
    reduced: Reduction | None = None
    rows: dict[Any, RowOp] = field(default_factory=dict)    # members that are softmaxes over the last dim (CPU)
    stats: dict[Any, tuple[Any, int]] = field(default_factory=dict)     # a layer norm's mean (1) or rstd (2)
    epilogue_of: Any = None         # the mm or addmm whose result the kernel finishes inside it (epilogues.attach)

    def operands(self, member: Any) -> tuple[Any, ...]:
        """The values a member reads."""
        if member in self.rows:
            return self.rows[member].operands
        if member in self.stats:
            return (self.stats[member][0],)
        if member is self.reduction:
            assert self.reduced is not None
            return (self.reduced.operand,)
        return self.lowered[member].operands

    @property
    def loss(self) -> tuple[Any, RowOp] | None:
        """The group's nll_loss (its node and row), if it has one: a kernel sums one loss after its rows."""
        return next(((member, row) for member, row in self.rows.items() if row.kind == "nll"), None)

    @property
    def name(self) -> str:
        return f"kernel{self.index}"


def _example(node: Any) -> tuple[Any, ...] | None:
    return node.meta.get("example") if isinstance(node, torch.fx.Node) else None


def needs_autograd(graph: Any, grad_enabled: bool) -> set[Any]:
    """The nodes whose results autograd records (they run through it, never fused): under grad mode (as the
    graph switches it), results of operators with an input that requires grad. The capture records values
    below autograd, so their own requires_grad flags say nothing; inputs' and constants' do."""
    requiring: set[Any] = set()         # values that require grad: inputs and constants, then results
    recorded: set[Any] = set()
    for node in graph.nodes:
        if node.op in ("placeholder", "get_attr"):
            meta = node.meta.get("tensor_meta")
            if meta is not None and meta.requires_grad:
                requiring.add(node)
        elif node.op == "call_function":
            if node.target is torch._C._set_grad_enabled:
                grad_enabled = bool(node.args[0])
            elif grad_enabled and node.target is not torch.ops.aten.detach.default \
                    and any(used in requiring for used in node.all_input_nodes):
                requiring.add(node)
                recorded.add(node)
            elif _writes_first_input(node) and node.args and node.args[0] in requiring:
                requiring.add(node)         # written in place under no_grad: the same tensor, still requiring grad
    return recorded


def left_unfused(graph: Any, grad_enabled: bool) -> set[Any]:
    """The nodes no kernel computes or reads, nor buffer planning reuses: those autograd records
    (needs_autograd), and those whose layout the capture could not fix: the results of a call that says its
    results' layouts vary from call to call (`_layout_varies`: an autograd.Function's node, whose Python decides
    them) and every value computed from them."""
    varying: set[Any] = set()
    for node in graph.nodes:
        if node.op == "call_function" and (getattr(node.target, "_layout_varies", False)
                                           or any(used in varying for used in node.all_input_nodes)):
            varying.add(node)
    return needs_autograd(graph, grad_enabled) | varying


def _writes_first_input(node: Any) -> bool:
    """An in-place operator, whose result is its first input."""
    schema = getattr(node.target, "_schema", None)
    return schema is not None and len(schema.returns) == 1 and schema.returns[0].is_write


def _fusible(node: Any, lowered: Lowered, recorded: set[Any]) -> bool:
    example = _example(node)
    if example is None or node in recorded:
        return False
    shape, _, dtype, device, _ = example
    if device.type not in ("cpu", "cuda") or dtype is not (torch.bool if lowered.out == "bool" else torch.float32):
        return False
    for operand, is_bool in zip(lowered.operands, lowered.bools):
        operand_example = _example(operand)
        if operand_example is None or operand_example[3] != device:
            return False
        if operand_example[2] is not (torch.bool if is_bool else torch.float32):
            return False
        if len(operand_example[0]) > len(shape):
            return False
    return True


def writes(node: Any) -> bool:
    """Whether a node may write into memory a kernel reads (unknown callables are assumed to)."""
    target = node.target
    if target is torch._C._set_grad_enabled:
        return False
    schema = getattr(target, "_schema", None)
    if schema is None:
        return node.op == "call_function" and not getattr(target, "__module__", "").startswith("_operator")
    return any(getattr(argument, "is_write", False) for argument in schema.arguments)


def plan(graph: Any, recorded: set[Any]) -> list[FusedGroup]:
    """The fused groups of graph (groups of one node included: they still save a dispatch), but for the nodes
    left unfused (`recorded`: left_unfused)."""
    groups: list[FusedGroup] = []
    group_of: dict[Any, FusedGroup] = {}
    order = {node: i for i, node in enumerate(graph.nodes)}
    for node in graph.nodes:
        lowered = lower(node, _target(node)) if node.op == "call_function" else None
        reduced = lower_reduction(node) if lowered is None and node.op == "call_function" else None
        if reduced is not None and _reduction_joins(node, reduced, group_of, recorded):
            home = group_of[reduced.operand]
            home.members.append(node)
            home.reduction, home.reduced, home.closed = node, reduced, True
            group_of[node] = home
            continue
        if _takes_row_output(node, group_of):
            source, index = node.args
            home = group_of[source]
            home.members.append(node)
            if index == 0 and home.rows[source].kind == "layer_norm":   # the layer norm's own element value
                home.lowered[node] = Lowered("{0}", (source,), "float", (False,))
            else:
                home.stats[node] = (source, index)
            group_of[node] = home
            continue
        row = lower_row(node) if lowered is None and reduced is None and node.op == "call_function" else None
        if row is not None and _row_fusible(node, row, recorded):
            shape, _, _, device, _ = row.operand.meta["example"] if row.kind in _TUPLES else node.meta["example"]
            joined = group_of.get(row.operand)
            second_nll = row.kind == "nll" and joined is not None and joined.loss is not None
            if joined is None or joined.closed or joined.shape != shape or joined.reduction is not None or second_nll:
                groups.append(FusedGroup(len(groups), shape, device))
                joined = groups[-1]
            joined.rows[node] = row
            _join(joined, node, row.operands, group_of)
            continue
        if lowered is not None and _fusible(node, lowered, recorded):
            home = _home(node, lowered, groups, group_of, order)
            home.lowered[node] = lowered
            _join(home, node, lowered.operands, group_of)
            continue
        for used in node.all_input_nodes:
            if used in group_of:
                group_of[used].closed = True
        if node.op == "call_function" and writes(node):
            for group in groups:
                group.closed = True
    groups = [g for g in groups if g.members]
    for i, group in enumerate(groups):
        group.index = i
        _loads_and_stores(group, group_of)
    return groups


def _join(home: FusedGroup, node: Any, operands: tuple[Any, ...], group_of: dict[Any, FusedGroup]) -> None:
    """node becomes home's last member; the other groups computing its operands close (they are stored, and a
    later member joining them would run before node's kernel reads them)."""
    home.members.append(node)
    group_of[node] = home
    for operand in operands:
        if operand in group_of and group_of[operand] is not home:
            group_of[operand].closed = True


# The row operations whose results are a tuple (the group takes its getitems): a layer norm's values, means and
# rstds; nll_loss's loss and total weight.
_TUPLES = {"layer_norm": (0, 1, 2), "nll": (0, 1)}


def _takes_row_output(node: Any, group_of: dict[Any, FusedGroup]) -> bool:
    """Whether node is one of the results of a layer norm or nll_loss fused in an open group."""
    if node.op != "call_function" or node.target is not operator.getitem or len(node.args) != 2:
        return False
    source, index = node.args
    home = group_of.get(source)
    return home is not None and not home.closed and source in home.rows and index in _TUPLES[home.rows[source].kind]


def _row_fusible(node: Any, row: RowOp, recorded: set[Any]) -> bool:
    """A softmax or layer norm over the last dim of a float32 value (or the backward of one; on a GPU, rows of
    at most CUDA_ROW_LENGTH), or nll_loss on the CPU (its rows' losses summed after them, in order), autograd not
    recording it; every operand on the same device."""
    operand = _example(row.operand)
    example = operand if row.kind in _TUPLES else _example(node)        # a tuple's results: its getitems
    if example is None or operand is None or example[3].type not in ("cpu", "cuda"):
        return False
    if example[3].type == "cuda" and (not example[0] or example[0][-1] > CUDA_ROW_LENGTH or row.kind == "nll"):
        return False
    if row.kind in _TUPLES and not all(user.target is operator.getitem and user.args[1] in _TUPLES[row.kind]
                                       for user in node.users):
        return False
    return (node not in recorded and example[2] is torch.float32 and operand[2] is torch.float32
            and (operand[0] == example[0] or row.kind == "nll_backward")
            and all((_example(o) or (None,) * 4)[3] == example[3] for o in row.operands))


def _reduction_joins(node: Any, reduced: Reduction, group_of: dict[Any, FusedGroup], recorded: set[Any]) -> bool:
    """Whether a sum or mean ends the open group computing its operand (a reduction of a value read from memory
    stays Ember's kernel, which splits one sum across threads)."""
    home = group_of.get(reduced.operand)
    example, operand = _example(node), _example(reduced.operand)
    if home is None or home.closed or node in recorded or example is None or operand is None or home.rows:
        return False
    if home.device.type == "cuda" and math.prod(example[0]) < _CUDA_REDUCTION_OUTPUTS:
        return False            # a thread per output: too few outputs to keep a GPU busy
    return example[2] is torch.float32 and home.shape == operand[0] and operand[2] is torch.float32


def _target(node: Any) -> str:
    """Whose formulas a node lowers to: CUDA's for a result on a GPU, else the CPU's."""
    example = _example(node)
    return "cuda" if example is not None and example[3].type == "cuda" else "c"


def _home(node: Any, lowered: Lowered, groups: list[FusedGroup], group_of: dict[Any, FusedGroup],
          order: dict[Any, int]) -> FusedGroup:
    """The group node joins: the open groups of its shape that compute one of its operands, or else that
    read one of them (a kernel loads a value once for all its members), merged into one; or a new group.
    Merging open groups is safe: nothing outside either has read from them yet."""
    example = _example(node)
    assert example is not None
    shape, device = example[0], example[3]
    candidates = [group_of[o] for o in lowered.operands
                  if o in group_of and not group_of[o].closed and group_of[o].shape == shape]
    if not candidates:
        candidates = [g for g in groups if not g.closed and g.shape == shape and g.device == device and g.members
                      and any(o in g.operands(m) for m in g.members for o in lowered.operands)]
    if not candidates:
        groups.append(FusedGroup(len(groups), shape, device))
        return groups[-1]
    home = candidates[0]
    for other in candidates[1:]:
        if other is home or home.loss and other.loss:      # (stored, then read by home's kernel: one loss each)
            continue
        for member in other.members:
            group_of[member] = home
        home.members.extend(other.members)
        home.lowered.update(other.lowered)
        home.rows.update(other.rows)
        home.stats.update(other.stats)
        other.members, other.lowered, other.rows, other.stats = [], {}, {}, {}
    home.members.sort(key=order.__getitem__)
    return home


def _loads_and_stores(group: FusedGroup, group_of: dict[Any, FusedGroup]) -> None:
    for member in group.members:
        if member is group.reduction:
            group.stores.append(member)
            continue
        for operand in group.operands(member):
            if group_of.get(operand) is not group and operand not in group.loads:
                group.loads.append(operand)
        if any(group_of.get(user) is not group for user in member.users):
            group.stores.append(member)
