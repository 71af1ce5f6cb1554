"""The C source of row kernels (torch._inductor.row_ops): a group whose softmaxes, log-softmaxes, layer norms
and their backwards, and nll losses reduce over the last dim, walked row by row, on the CPU or, with the CUDA
generator's RowLoops, on a GPU."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
from torch._inductor.codegen_common import C_TYPES, LITERAL, Values, coalesce, decompose, strides_for
from torch._inductor.scheduler import FusedGroup

__all__ = ["RowLoops", "row_body", "row_kernel"]


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


def row_body(group: FusedGroup, loops: RowLoops, v: Values = LITERAL) -> list[str]:
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

    lines = [*decompose("r", outer_sizes, outer_steps, "o", "        ", v),
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


def row_kernel(group: FusedGroup, grain: int, v: Values) -> list[str]:
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


