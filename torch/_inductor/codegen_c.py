"""C source of a graph's fused kernels.

Each kernel is one C function over the group's shape: its loads and stores with their strides (a load
broadcast along a dimension has stride 0), the dimensions that every operand steps through uniformly
merged, then one flat loop, or rows of a contiguous inner loop, split across OpenMP threads above the
grain. Sizes and strides are constants in the source (a graph is specialised on them), so the inner loop
is a plain strided loop that gcc vectorises with the branch-free math of vec_math.h; a graph compiled for
sizes that vary reads them from an array instead (Values), so that every size's source is the same text,
compiled once. Each member is a local of the loop body; the source carries, as a comment, the graph node
every line comes from."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch._inductor.scheduler import FusedGroup

__all__ = ["C_TYPES", "ReductionLoops", "RowLoops", "Values", "coalesce", "kernel_source", "module_source",
           "reduction_loops", "row_body", "statements", "strides_for"]

# The C type of each dtype a fused kernel reads or writes (the CUDA generator's too).
C_TYPES = {torch.float32: "float", torch.bool: "unsigned char", torch.int64: "long long"}


class Values:
    """How a kernel's sizes and strides (and the counts made of them) appear in its source: as literals, for a
    graph specialised on its shapes, or, for a graph compiled for sizes that vary (generic), as n[k], read from
    the array the call passes (`values`, in the order the source reads them; `pattern` names the k-th: a GPU
    kernel takes them as parameters s0, s1...): two sizes' kernels are then the same text, compiled once. 0 and
    1 stay literals even so: they decide the code (a broadcast, a contiguous inner loop gcc vectorises, a
    dimension dropped), and a size that takes them makes a source of its own."""

    def __init__(self, generic: bool = False, pattern: str = "n[{}]") -> None:
        self.generic = generic
        self.pattern = pattern
        self.values: list[int] = []

    def __call__(self, value: int) -> str:
        if not self.generic or value in (0, 1):
            return f"{value}L"
        self.values.append(int(value))
        return self.pattern.format(len(self.values) - 1)


_LITERAL = Values()


def strides_for(shape: tuple[int, ...], operand_shape: tuple[int, ...], operand_stride: tuple[int, ...]) -> list[int]:
    """The operand's strides over the kernel's shape (right-aligned; broadcast dimensions step by 0)."""
    pad = len(shape) - len(operand_shape)
    strides = [0] * pad + [0 if size == 1 else stride for size, stride in zip(operand_shape, operand_stride)]
    return [0 if shape[d] == 1 else strides[d] for d in range(len(shape))]


def coalesce(shape: tuple[int, ...], strides: list[list[int]]) -> tuple[list[int], list[list[int]]]:
    """Merge neighbouring dimensions that every operand steps through as one (size-1 dimensions dropped)."""
    keep = [d for d in range(len(shape)) if shape[d] != 1]
    sizes = [shape[d] for d in keep]
    per = [[s[d] for d in keep] for s in strides]
    d = len(sizes) - 1
    while d > 0:
        if all(p[d - 1] == p[d] * sizes[d] for p in per):
            sizes[d - 1] *= sizes[d]
            for p in per:
                p[d - 1] = p[d]
                del p[d]
            del sizes[d]
        d -= 1
    if not sizes:
        return [1], [[0] for _ in per]
    return sizes, per


def statements(group: FusedGroup, offset: dict[int, str], indent: str) -> tuple[list[str], dict[Any, str]]:
    """The loop body's locals (one per member, the reduction aside) and its element-wise stores."""
    body = []
    names: dict[Any, str] = {}
    for i, node in enumerate(group.loads):
        load = f"p{i}[{offset[i]}]"
        names[node] = f"((float){load})" if node.meta["example"][2] is torch.bool else load
    for k, member in enumerate(group.members):
        if member is group.reduction:
            continue
        lowered = group.lowered[member]
        expr = lowered.expr.format(*(names[o] for o in lowered.operands))
        ctype = "int" if lowered.out == "bool" else "float"
        body.append(f"{indent}{ctype} t{k} = {expr};  /* {member.name}: {member.target} */")
        names[member] = f"t{k}"
    for i, member in enumerate(group.stores):
        if member is group.reduction:
            continue
        slot = len(group.loads) + i
        value = names[member]
        if member.meta["example"][2] is torch.bool:
            value = f"(unsigned char)({value} != 0)"
        body.append(f"{indent}p{slot}[{offset[slot]}] = {value};")
    return body, names


def _reduction_strides(group: FusedGroup) -> list[int]:
    """The reduction's output strides over the group's shape (0 along the reduced dims)."""
    assert group.reduced is not None
    _, out_stride, *_ = group.reduction.meta["example"]
    kept = [d for d in range(len(group.shape)) if d not in group.reduced.dims]
    keepdim = len(out_stride) == len(group.shape)
    return [0 if d in group.reduced.dims or group.shape[d] == 1 else out_stride[d if keepdim else kept.index(d)]
            for d in range(len(group.shape))]


def _decompose(index: str, sizes: list[int], steps: list[list[int]], prefix: str, indent: str,
               v: Values) -> list[str]:
    """Each operand's offset (prefix0, prefix1...) for a flat index over the dims of sizes (the last fastest)."""
    lines = [f"{indent}long {prefix}rest = {index};"] + [f"{indent}long {prefix}{i} = 0;" for i in range(len(steps))]
    for d in range(len(sizes) - 1, -1, -1):
        size = v(sizes[d])
        lines.append(f"{indent}{{ long at = {prefix}rest % {size}; {prefix}rest /= {size};")
        lines += [f"{indent}  {prefix}{i} += at * {v(step[d])};" for i, step in enumerate(steps) if step[d]]
        lines.append(f"{indent}}}")
    lines.append(f"{indent}(void){prefix}rest;")
    return lines


@dataclass
class ReductionLoops:
    """The two loops of a group ending in a sum or mean: over its outputs (the kept dims) and, inside, over the
    elements each output sums; the operands' offsets in both, and the body of the inner loop. Counts are C
    expressions (Values)."""
    outputs: str
    count: str
    elements: str               # outputs * count
    outer: list[str]            # the offsets o0, o1... of output r (statements)
    inner: list[str]            # the statements of element j: offsets, members, element-wise stores
    accumulate: str             # the member summed
    store: str                  # the statement storing output r's total (from acc)


def _reduction_layout(group: FusedGroup) -> tuple[list[int], list[list[int]], list[int], list[list[int]]]:
    """A reduction group's kept and reduced dims, each coalesced: (kept sizes, each operand's steps over them,
    reduced sizes, each operand's steps over those); operands are the loads, then the stores."""
    assert group.reduced is not None and group.reduction is not None
    shape, dims = group.shape, group.reduced.dims
    strides = [_reduction_strides(group) if node is group.reduction
               else strides_for(shape, node.meta["example"][0], node.meta["example"][1])
               for node in [*group.loads, *group.stores]]
    kept = [d for d in range(len(shape)) if d not in dims]
    kept_sizes, kept_steps = coalesce(tuple(shape[d] for d in kept), [[st[d] for d in kept] for st in strides])
    red_sizes, red_steps = coalesce(tuple(shape[d] for d in dims), [[st[d] for d in dims] for st in strides])
    return kept_sizes, kept_steps, red_sizes, red_steps


def reduction_loops(group: FusedGroup, indent: str, v: Values = _LITERAL) -> ReductionLoops:
    """A reduction group's loops (shared by the CPU and CUDA generators)."""
    assert group.reduced is not None and group.reduction is not None
    shape, dims = group.shape, group.reduced.dims
    operands = [*group.loads, *group.stores]
    kept = [d for d in range(len(shape)) if d not in dims]
    kept_sizes, kept_steps, red_sizes, red_steps = _reduction_layout(group)
    outputs = math.prod(shape[d] for d in kept)
    count = math.prod(shape[d] for d in dims)
    if len(red_sizes) == 1:
        offset = {i: f"o{i} + j * {v(step[0])}" if step[0] else f"o{i}" for i, step in enumerate(red_steps)}
        per_element: list[str] = []
    else:
        offset = {i: f"o{i} + u{i}" for i in range(len(operands))}
        per_element = _decompose("j", red_sizes, red_steps, "u", indent + "    ", v)
    body, names = statements(group, offset, indent + "    ")
    slot = len(group.loads) + group.stores.index(group.reduction)
    counted = v(count)
    total = "(float)acc" if group.reduced.kind == "sum" else f"(float)(acc / {counted})"
    return ReductionLoops(
        v(outputs), counted, v(outputs * count), _decompose("r", kept_sizes, kept_steps, "o", indent, v),
        per_element + body,
        f"{indent}    acc += (double){names[group.reduced.operand]};  /* {group.reduction.name}: {group.reduction.target} */",
        f"{indent}p{slot}[o{slot}] = {total};")


def _reduction_kernel(group: FusedGroup, grain: int, v: Values) -> list[str]:
    """Each output (the kept dims, split across threads) sums its elements in a vectorised loop that computes the
    members too, in its own order: the same bits on any thread count."""
    loops = reduction_loops(group, "        ", v)
    return [f"    #pragma omp parallel for num_threads(threads) schedule(static) "
            f"if({loops.elements} >= {grain})",
            f"    for (long r = 0; r < {loops.outputs}; r++) {{", *loops.outer,
            "        double acc = 0.0;          /* in double: the eager sums' accuracy (they sum in cascades) */",
            "        #pragma omp simd reduction(+:acc)",
            f"        for (long j = 0; j < {loops.count}; j++) {{", *loops.inner, loops.accumulate, "        }",
            loops.store, "    }"]


_COLUMNS = 64       # outputs a column reduction sums side by side (its accumulators live on the stack)


def _column_reduction_kernel(group: FusedGroup, grain: int, v: Values) -> list[str] | None:
    """A sum over outer dims of operands contiguous along the kept inner dim (a bias gradient: (batch, n) -> n):
    blocks of up to _COLUMNS neighbouring outputs accumulate together, element j of each added in one vector
    instruction, instead of each output striding through memory alone. Each output still adds its elements in
    their order, in double: the same bits on any thread count. None where the kept inner dim is not contiguous
    or the reduced one is (the per-output loop reads that one in order)."""
    assert group.reduced is not None and group.reduction is not None
    if len(group.reduced.dims) == len(group.shape):
        return None             # a full sum: no kept dim to lay side by side
    operands = [*group.loads, *group.stores]
    kept_sizes, kept_steps, red_sizes, red_steps = _reduction_layout(group)
    width = kept_sizes[-1]
    if width < 8 or any(step[-1] not in (0, 1) for step in kept_steps) or \
            any(red_steps[i][-1] == 1 for i in range(len(group.loads))):
        return None
    blocks = -(-width // _COLUMNS)
    rows = math.prod(kept_sizes[:-1])
    count = math.prod(red_sizes)
    slot = len(group.loads) + group.stores.index(group.reduction)
    numel, width_c, blocks_c = v(rows * width * count), v(width), v(blocks)
    lines = [f"    #pragma omp parallel for num_threads(threads) schedule(static) if({numel} >= {grain})",
             f"    for (long r = 0; r < {v(rows * blocks)}; r++) {{",
             f"        const long c0 = (r % {blocks_c}) * {_COLUMNS}L;",
             f"        const long cn = {width_c} - c0 < {_COLUMNS}L ? {width_c} - c0 : {_COLUMNS}L;",
             *_decompose(f"r / {blocks_c}", kept_sizes[:-1], [st[:-1] for st in kept_steps], "o", "        ", v),
             *[f"        o{i} += c0 * {v(st[-1])};" for i, st in enumerate(kept_steps) if st[-1]],
             f"        double acc[{_COLUMNS}];",
             "        for (long c = 0; c < cn; c++) acc[c] = 0.0;",
             f"        for (long j = 0; j < {v(count)}; j++) {{",
             *_decompose("j", red_sizes, red_steps, "u", "            ", v)]
    offset = {i: f"o{i} + u{i}" + (" + c" if kept_steps[i][-1] else "") for i in range(len(operands))}
    body, names = statements(group, offset, "                ")
    lines += ["            #pragma omp simd", "            for (long c = 0; c < cn; c++) {", *body,
              f"                acc[c] += (double){names[group.reduced.operand]};  "
              f"/* {group.reduction.name}: {group.reduction.target} */",
              "            }", "        }"]
    total = "(float)acc[c]" if group.reduced.kind == "sum" else f"(float)(acc[c] / {v(count)})"
    step = kept_steps[slot][-1]
    lines += [f"        for (long c = 0; c < cn; c++) p{slot}[o{slot} + c * {v(step)}] = {total};", "    }"]
    return lines


@dataclass(frozen=True)
class RowLoops:
    """How a row kernel walks a row: on the CPU one thread per row, in vectorised loops over its elements; on a
    GPU one block of `threads` (a power of two) per row, each thread striding over the row (its k-th element is
    j = threadIdx.x + k * threads) and the threads' partial maxima and sums combined in shared memory."""
    gpu: bool = False
    threads: int = 1
    longest: int = 0            # on a GPU, the longest row the kernel serves (its rows' buffers are that long)

    def over(self, length: str) -> str:
        """The header of a loop over the row's elements (j: the element, k: its slot in a row buffer); length is
        a C expression."""
        if self.gpu:
            return f"for (long j = threadIdx.x, k = 0; j < {length}; j += {self.threads}L, k++)"
        return f"for (long j = 0; j < {length}; j++)"

    def simd(self, indent: str, clause: str = "") -> list[str]:
        return [] if self.gpu else [f"{indent}#pragma omp simd{clause}"]

    def combined(self, indent: str, *partials: tuple[str, str, str]) -> list[str]:
        """Each (variable, "max" or "sum", its C type) made the whole row's from the threads' partial values."""
        if not self.gpu:
            return []
        return [f"{indent}{name} = ember_block_reduce({name}, scratch_{ctype}, Ember{op.capitalize()}());"
                for name, op, ctype in partials]

    @property
    def slot(self) -> str:
        """An element's index in a row buffer."""
        return "k" if self.gpu else "j"

    def buffer_length(self, length: int, v: Values) -> str:
        return f"{-(-max(length, self.longest) // self.threads)}" if self.gpu else v(length)

    def once(self, statement: str) -> str:
        """A statement made once per row (a row's statistics stored), as a line of the row's body."""
        return f"        {'if (threadIdx.x == 0) ' if self.gpu else ''}{statement}"


_CPU_ROWS = RowLoops()


def row_body(group: FusedGroup, loops: RowLoops, v: Values = _LITERAL) -> list[str]:
    """A group with softmaxes over the last dim, row by row: the members between two softmaxes form one loop
    over the row; a softmax first finds its row's maximum and sum (as the eager kernel, nn_vec.h, with its
    flushing exp); values a later loop reads are kept in row buffers (the thread's stack; on a GPU, each
    thread's own elements); an nll_loss takes the row's value at its class (_nll_row). The statements inside
    the loop over rows r (shared by the CPU and CUDA generators)."""
    shape = group.shape
    operands = [*group.loads, *group.stores]
    # a class per row (nll_loss's target) and a loss per row line up with the rows, not the last dim as
    # broadcasting would
    per_row_values = {row.target for row in group.rows.values() if row.target is not None} | \
        {stat for stat, (source, index) in group.stats.items()
         if group.rows[source].kind == "nll" and index == 0 and group.rows[source].reduction == 0}
    strides = [strides_for(shape[:-1], n.meta["example"][0], n.meta["example"][1]) + [0] if n in per_row_values
               else strides_for(shape, n.meta["example"][0], n.meta["example"][1]) for n in operands]
    length, row_length = shape[-1], v(shape[-1])
    outer_sizes, outer_steps = coalesce(tuple(shape[:-1]), [st[:-1] for st in strides])
    at = {i: f"o{i} + j * {v(st[-1])}" if st[-1] else f"o{i}" for i, st in enumerate(strides)}
    phase_of: dict[Any, int] = {}
    phase = 0
    for member in group.members:
        if member in group.rows:
            phase += 1
        phase_of[member] = phase
    # nll_loss reads its softmax's value at one element a row: computed there again, not kept for it
    recomputed = {row.operand for row in group.rows.values() if row.kind == "nll" and row.operand in group.rows
                  and group.rows[row.operand].kind.endswith("softmax")}
    buffered = {o for m in group.members if m not in group.stats for o in group.operands(m)
                if o in phase_of and (phase_of[o] < phase_of[m] or m in group.rows)
                and not (o in recomputed and m in group.rows and group.rows[m].kind == "nll")}
    exprs: dict[Any, str] = {}
    local = {m: f"t{k}" for k, m in enumerate(group.members)}

    # a load one value per row (a layer norm's statistics, a broadcast scalar) read once, before the row's loops:
    # read inside them, gcc reloads it each element and leaves the loop scalar
    per_row = {i for i in range(len(group.loads)) if not strides[i][-1]}

    def value(node: Any) -> str:
        if node in group.loads:
            i = group.loads.index(node)
            load = f"r{i}" if i in per_row else f"p{i}[{at[i]}]"
            return f"((float){load})" if node.meta["example"][2] is torch.bool else load
        return local[node]

    lines = [*_decompose("r", outer_sizes, outer_steps, "o", "        ", v),
             *[f"        const {C_TYPES[group.loads[i].meta['example'][2]]} r{i} = p{i}[o{i}];"
               for i in sorted(per_row)],
             *[f"        float b_{local[m]}[{loops.buffer_length(length, v)}];"
               for m in group.members if m in buffered]]
    loop_open = "\n".join([*loops.simd("        "), f"        {loops.over(row_length)} {{"])
    buffer = f"[{loops.slot}]"
    lines.append(loop_open)
    for member in group.members:
        if member in group.stats:           # stored with its layer norm's statistics
            continue
        if member in group.rows and group.rows[member].kind == "layer_norm":
            row = group.rows[member]
            source = f"b_{local[row.operand]}{buffer}" if row.operand in buffered else value(row.operand)
            name = local[member]
            lines += ["        }", *_layer_norm_statistics(name, source, row_length, row.eps, loops)]
            for stat, (_, index) in group.stats.items():
                if stat in group.stores and group.stats[stat][0] is member:
                    slot = len(group.loads) + group.stores.index(stat)
                    lines.append(loops.once(f"p{slot}[o{slot}] = {'mu' if index == 1 else 'rs'}_{name};"))
            expr = f"(({source} - mu_{name}) * rs_{name})"
            expr = f"({expr} * {value(row.weight)})" if row.weight is not None else expr
            expr = f"({expr} + {value(row.bias)})" if row.bias is not None else expr
            lines.append(loop_open)
        elif member in group.rows and group.rows[member].kind == "nll":
            row = group.rows[member]
            read = exprs[row.operand] if row.operand in recomputed else \
                f"b_{local[row.operand]}{buffer}" if row.operand in buffered else value(row.operand)
            lines += ["        }", *_nll_row(group, member, row, read, value(row.target), at), loop_open]
            continue
        elif member in group.rows and group.rows[member].kind.endswith("_backward"):
            lines.append("        }")
            expr = _row_backward(group.rows[member], local[member], row_length,
                                 lambda o: f"b_{local[o]}{buffer}" if o in buffered else value(o), lines, loops)
            lines.append(loop_open)
        elif member in group.rows:
            row = group.rows[member]
            source = f"b_{local[row.operand]}{buffer}" if row.operand in buffered else value(row.operand)
            name = local[member]
            lines += ["        }", f"        float m_{name} = -INFINITY, s_{name} = 0.0f;",
                      *loops.simd("        ", f" reduction(max:m_{name})"),
                      f"        {loops.over(row_length)} m_{name} = {source} > m_{name} ? {source} : m_{name};",
                      *loops.combined("        ", (f"m_{name}", "max", "float")),
                      *loops.simd("        ", f" reduction(+:s_{name})"),
                      f"        {loops.over(row_length)} s_{name} += ember_vm_expf_flush({source} - m_{name});",
                      *loops.combined("        ", (f"s_{name}", "sum", "float"))]
            if row.kind == "softmax":
                lines.append(f"        float k_{name} = 1.0f / s_{name};")
                expr = f"ember_vm_expf_flush({source} - m_{name}) * k_{name}"
            else:
                lines.append(f"        float k_{name} = logf(s_{name});")
                expr = f"({source} - m_{name}) - k_{name}"
            lines.append(loop_open)
        else:
            lowered = group.lowered[member]
            args = [f"b_{local[o]}{buffer}" if o in buffered and phase_of.get(o, -1) < phase_of[member] else value(o)
                    for o in lowered.operands]
            expr = lowered.expr.format(*args)
        ctype = "int" if member not in group.rows and group.lowered[member].out == "bool" else "float"
        exprs[member] = expr
        lines.append(f"            {ctype} {local[member]} = {expr};  /* {member.name}: {member.target} */")
        if member in buffered:
            lines.append(f"            b_{local[member]}{buffer} = {local[member]};")
        if member in group.stores:
            slot = len(group.loads) + group.stores.index(member)
            stored = f"(unsigned char)({local[member]} != 0)" if member.meta["example"][2] is torch.bool \
                else local[member]
            lines.append(f"            p{slot}[{at[slot]}] = {stored};")
    lines.append("        }")
    return lines


def _nll_row(group: FusedGroup, member: Any, row: Any, read: str, target: str, at: dict[int, str]) -> list[str]:
    """nll_loss's statements in a row's body: minus the log-probability at the row's class (read at element j =
    the class), 0 for ignore_index; stored as the row's loss (reduction none) or kept in the row's slot of
    losses, summed after the rows."""
    name = f"l_t{group.members.index(member)}"
    lines = [f"        float {name} = 0.0f;  /* {member.name}: {member.target} */",
             f"        if ({target} != {row.ignore_index}LL) {{ const long j = (long){target}; {name} = -({read}); }}"]
    if row.reduction != 0:
        return [*lines, f"        losses[r] = {name};"]
    stored = [stat for stat, (source, index) in group.stats.items() if source is member and index == 0]
    for stat in stored if stored and stored[0] in group.stores else []:
        slot = len(group.loads) + group.stores.index(stat)
        lines.append(f"        p{slot}[{at[slot]}] = {name};")
    return lines


def _over_classes(group: FusedGroup, row: Any, v: Values) -> tuple[str, str]:
    """A loop over the rows outside the row kernel's loop, and row r's class as a C expression."""
    rows, step = group.shape[0], row.target.meta["example"][1][0]
    return (f"    for (long r = 0; r < {v(rows)}; r++) {{",
            f"p{group.loads.index(row.target)}[r * {v(step if rows > 1 else 0)}]")


def _nll_checks(group: FusedGroup, row: Any, v: Values) -> list[str]:
    """Every row's class checked before the loops, in row order: the first out of [0, classes) that is not
    ignore_index is returned (the caller raises IndexError with it), as the eager kernel checks before its
    loop; ignore_index is returned when all are good."""
    loop, target = _over_classes(group, row, v)
    return [loop, f"        const long long c = {target};",
            f"        if (c != {row.ignore_index}LL && (c < 0 || c >= {v(group.shape[1])})) return c;", "    }"]


def _nll_totals(group: FusedGroup, member: Any, row: Any, v: Values) -> list[str]:
    """After the rows: the losses summed in row order in double and the rows counted (the total weight), as
    the eager kernel; a mean is their quotient (NaN for no rows counted)."""
    loop, target = _over_classes(group, row, v)
    lines = ["    double total = 0.0, counted = 0.0;", loop,
             f"        if ({target} == {row.ignore_index}LL) continue;",
             "        total += (double)losses[r];", "        counted += 1.0;", "    }"] if row.reduction else []
    loss = {0: "", 1: "(float)(counted != 0.0 ? total / counted : NAN)", 2: "(float)total"}[row.reduction]
    for stat, (source, index) in group.stats.items():
        if source is member and stat in group.stores and (index == 1 or row.reduction):
            slot = len(group.loads) + group.stores.index(stat)
            lines.append(f"    p{slot}[0] = {loss if index == 0 else '(float)counted' if row.reduction else '0.0f'};")
    return lines


def _row_kernel(group: FusedGroup, grain: int, v: Values) -> list[str]:
    """A row group's C loop: its rows split across threads (an nll_loss's classes checked before them and its
    sums made after them)."""
    rows, length = math.prod(group.shape[:-1]), group.shape[-1]
    nll = group.loss
    loop = [f"    #pragma omp parallel for num_threads(threads) schedule(static) if({v(rows * length)} >= {grain})",
            f"    for (long r = 0; r < {v(rows)}; r++) {{", *row_body(group, _CPU_ROWS, v), "    }"]
    if nll is None:
        return loop
    return [*_nll_checks(group, nll[1], v), *loop, *_nll_totals(group, *nll, v),
            f"    return {nll[1].ignore_index}LL;"]


def _row_backward(row: Any, name: str, length: str, read: Any, lines: list[str], loops: RowLoops) -> str:
    """The row sums a softmax's, log_softmax's or layer norm's backward needs (in double, as the eager kernels),
    appended to lines; returns the element's expression (nll_loss's gradient needs no sum). read(node) is a
    value's expression at element j."""
    if row.kind == "nll_backward":              # -grad (/ total weight) at the row's class
        scale = read(row.operand)
        if row.total is not None:
            scale = f"({scale} / ({read(row.total)} == 0.0f ? 1.0f : {read(row.total)}))"
        target = read(row.target)
        return f"(({target} != {row.ignore_index}LL && (long long)j == {target}) ? -{scale} : 0.0f)"
    g, y = read(row.operand), read(row.other)
    sum_loop = f"        {loops.over(length)}"
    if row.kind == "softmax_backward":          # y (g - sum(g y))
        lines += [f"        double s_{name} = 0.0;", *loops.simd("        ", f" reduction(+:s_{name})"),
                  f"{sum_loop} s_{name} += (double){g} * (double){y};",
                  *loops.combined("        ", (f"s_{name}", "sum", "double")),
                  f"        const float k_{name} = (float)s_{name};"]
        return f"{y} * ({g} - k_{name})"
    if row.kind == "log_softmax_backward":      # g - exp(y) sum(g)
        lines += [f"        double s_{name} = 0.0;", *loops.simd("        ", f" reduction(+:s_{name})"),
                  f"{sum_loop} s_{name} += (double){g};", *loops.combined("        ", (f"s_{name}", "sum", "double")),
                  f"        const float k_{name} = (float)s_{name};"]
        return f"{g} - ember_vm_expf({y}) * k_{name}"
    # a layer norm's input gradient: rstd (g w - mean(g w) - xhat mean(g w xhat)), xhat = (x - mean) rstd
    gw = f"({g} * {read(row.weight)})" if row.weight is not None else g
    mu, rs = read(row.mean), read(row.rstd)
    lines += [f"        double a_{name} = 0.0, c_{name} = 0.0;",
              *loops.simd("        ", f" reduction(+:a_{name}, c_{name})"),
              f"{sum_loop} {{ double gw = (double){gw}; a_{name} += gw; "
              f"c_{name} += gw * (((double){read(row.other)} - (double){mu}) * (double){rs}); }}",
              *loops.combined("        ", (f"a_{name}", "sum", "double"), (f"c_{name}", "sum", "double")),
              f"        const float ma_{name} = (float)(a_{name} / {length}), "
              f"mc_{name} = (float)(c_{name} / {length});"]
    return f"{rs} * ({gw} - ma_{name} - (({read(row.other)} - {mu}) * {rs}) * mc_{name})"


def _layer_norm_statistics(name: str, source: str, length: str, eps: float, loops: RowLoops) -> list[str]:
    """A row's mean and rstd = 1 / sqrt(biased variance + eps), accumulated in double as the eager kernel
    (norm_rows.h) and used in float."""
    return [
        f"        double sum_{name} = 0.0, var_{name} = 0.0;",
        *loops.simd("        ", f" reduction(+:sum_{name})"),
        f"        {loops.over(length)} sum_{name} += (double){source};",
        *loops.combined("        ", (f"sum_{name}", "sum", "double")),
        f"        const double mean_{name} = sum_{name} / {length};",
        *loops.simd("        ", f" reduction(+:var_{name})"),
        f"        {loops.over(length)} {{ double d = (double){source} - mean_{name}; var_{name} += d * d; }}",
        *loops.combined("        ", (f"var_{name}", "sum", "double")),
        f"        const float mu_{name} = (float)mean_{name}, rs_{name} = (float)(1.0 / sqrt(var_{name} / {length} + "
        f"{eps!r}));"]


def kernel_source(group: FusedGroup, grain: int, v: Values = _LITERAL) -> str:
    """The C function of one fused group: void kernelN(loads..., stores..., [const long* n,] int threads); n holds
    v.values, for a generic kernel."""
    shape = group.shape
    operands = [*group.loads, *group.stores]
    strides = [strides_for(shape, node.meta["example"][0], node.meta["example"][1]) for node in operands]
    sizes, steps = coalesce(shape, strides)
    numel = 1
    for size in shape:
        numel *= size
    params = [f"const {C_TYPES[n.meta['example'][2]]}* __restrict p{i}" for i, n in enumerate(group.loads)]
    params += [f"{C_TYPES[n.meta['example'][2]]}* __restrict p{len(group.loads) + i}"
               for i, n in enumerate(group.stores)]
    over = f"a rank-{len(shape)} shape (its sizes in n)" if v.generic else f"shape {list(shape)}"
    header = [f"/* {group.name}: {len(group.members)} fused node(s) over {over} */"]
    footer: list[str] = []
    if any(row.kind != "layer_norm" for row in group.rows.values()) or \
            any(lowered.approximates for lowered in group.lowered.values()):
        # as the eager loops of such formulas: products and sums may contract into FMAs (its bits are its own)
        header += ["#pragma GCC push_options", '#pragma GCC optimize("fp-contract=fast")']
        footer = ["#pragma GCC pop_options"]
    nll = group.loss
    if nll is not None and nll[1].reduction != 0:
        params.append("float* __restrict losses")          # a row's loss each, summed after the rows
    if v.generic:
        params.append("const long* __restrict n")
    returns = "long long" if nll is not None else "void"
    signature = f"{returns} {group.name}({', '.join([*params, 'int threads'])}) {{"
    if group.reduction is not None:
        loops = _column_reduction_kernel(group, grain, v) or _reduction_kernel(group, grain, v)
        return "\n".join([*header, signature, *loops, "}", *footer])
    if group.rows:
        return "\n".join([*header, signature, *_row_kernel(group, grain, v), "}", *footer])
    inner, rows = sizes[-1], numel // sizes[-1] if sizes[-1] else 0
    parallel = f"#pragma omp parallel for num_threads(threads) schedule(static) if({v(numel)} >= {grain})"
    if rows == 1:           # one flat loop: offsets are multiples of j
        offset = {i: f"j * {v(step[-1])}" if step[-1] != 1 else "j" for i, step in enumerate(steps)}
        body, _ = statements(group, offset, "            ")
        loop = ["    " + parallel,
                f"    for (long j = 0; j < {v(inner)}; j++) {{", *(line[4:] for line in body), "    }"]
    else:
        loop = ["    " + parallel, f"    for (long r = 0; r < {v(rows)}; r++) {{",
                *_decompose("r", sizes[:-1], [step[:-1] for step in steps], "o", "        ", v)]
        offset = {i: f"o{i} + j * {v(step[-1])}" if step[-1] else f"o{i}" for i, step in enumerate(steps)}
        body, _ = statements(group, offset, "            ")
        loop += [f"        for (long j = 0; j < {v(inner)}; j++) {{", *body, "        }", "    }"]
    return "\n".join([*header, signature, *loop, "}", *footer])


def module_source(groups: list[FusedGroup], grain: int, generic: bool = False) -> tuple[str, dict[str, list[int]]]:
    """The C file of a graph's kernels, and each generic kernel's values (its array n), by kernel name."""
    parts = ["/* Generated by torch._inductor (Ember) from a captured graph: fused pointwise kernels. */",
             "#include <math.h>", '#include "vec_math.h"',
             "#pragma GCC optimize(\"no-trapping-math\", \"no-math-errno\")", ""]
    values: dict[str, list[int]] = {}
    for group in groups:
        v = Values(generic)
        parts.append(kernel_source(group, grain, v) + "\n")
        if generic:
            values[group.name] = v.values
    return "\n".join(parts), values
