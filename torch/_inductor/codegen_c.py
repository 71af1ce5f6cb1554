"""C source of a graph's fused kernels.

Each kernel is one C function over the group's shape: its loads and stores with their strides (a load
broadcast along a dimension has stride 0), the dimensions that every operand steps through uniformly
merged, then one flat loop, or rows of a contiguous inner loop, split across OpenMP threads above the
grain. Sizes and strides are constants in the source (a graph is specialised on them), so the inner loop
is a plain strided loop that gcc vectorises with the branch-free math of vec_math.h; a graph compiled for
sizes that vary reads them from an array instead (Values), so that every size's source is the same text,
compiled once. Each member is a local of the loop body; the source carries, as a comment, the graph node
every line comes from. Row kernels (softmaxes, layer norms, losses) are torch._inductor.codegen_rows'; the pieces
the CUDA generator shares, torch._inductor.codegen_common's."""
from __future__ import annotations

import math
from dataclasses import dataclass

from torch._inductor.codegen_common import C_TYPES, LITERAL, Values, coalesce, decompose, statements, strides_for
from torch._inductor.codegen_rows import row_kernel
from torch._inductor.scheduler import FusedGroup

__all__ = ["ReductionLoops", "kernel_source", "module_source", "reduction_loops"]


def _reduction_strides(group: FusedGroup) -> list[int]:
    """The reduction's output strides over the group's shape (0 along the reduced dims)."""
    assert group.reduced is not None
    _, out_stride, *_ = group.reduction.meta["example"]
    kept = [d for d in range(len(group.shape)) if d not in group.reduced.dims]
    keepdim = len(out_stride) == len(group.shape)
    return [0 if d in group.reduced.dims or group.shape[d] == 1 else out_stride[d if keepdim else kept.index(d)]
            for d in range(len(group.shape))]


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


def reduction_loops(group: FusedGroup, indent: str, v: Values = LITERAL) -> ReductionLoops:
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
        per_element = decompose("j", red_sizes, red_steps, "u", indent + "    ", v)
    body, names = statements(group, offset, indent + "    ")
    slot = len(group.loads) + group.stores.index(group.reduction)
    counted = v(count)
    total = "(float)acc" if group.reduced.kind == "sum" else f"(float)(acc / {counted})"
    return ReductionLoops(
        v(outputs), counted, v(outputs * count), decompose("r", kept_sizes, kept_steps, "o", indent, v),
        per_element + body,
        f"{indent}    acc += (double){names[group.reduced.operand]};  "
        f"/* {group.reduction.name}: {group.reduction.target} */",
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
             *decompose(f"r / {blocks_c}", kept_sizes[:-1], [st[:-1] for st in kept_steps], "o", "        ", v),
             *[f"        o{i} += c0 * {v(st[-1])};" for i, st in enumerate(kept_steps) if st[-1]],
             f"        double acc[{_COLUMNS}];",
             "        for (long c = 0; c < cn; c++) acc[c] = 0.0;",
             f"        for (long j = 0; j < {v(count)}; j++) {{",
             *decompose("j", red_sizes, red_steps, "u", "            ", v)]
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



def _around(group: FusedGroup, v: Values) -> tuple[list[str], list[str]]:
    """The lines before a kernel's function (its comment, its compile options) and after it."""
    over = f"a rank-{len(group.shape)} shape (its sizes in n)" if v.generic else f"shape {list(group.shape)}"
    header = [f"/* {group.name}: {len(group.members)} fused node(s) over {over}"
              + (f", the epilogue of {group.epilogue_of.name} */" if group.epilogue_of is not None else " */")]
    footer: list[str] = []
    if any(row.kind != "layer_norm" for row in group.rows.values()) or \
            any(lowered.approximates for lowered in group.lowered.values()):
        # as the eager loops of such formulas: products and sums may contract into FMAs (its bits are its own)
        header += ["#pragma GCC push_options", '#pragma GCC optimize("fp-contract=fast")']
        footer = ["#pragma GCC pop_options"]
    return header, footer


def _epilogue_kernel(group: FusedGroup, v: Values) -> str:
    """A matmul's epilogue (torch._inductor.epilogues): void kernelN(void* const* a, long r0, long r1, long c0,
    long c1), a holding its loads', stores' (and for a generic kernel, n's) addresses, run by each thread of the
    product on rows r0..r1, columns c0..c1 of it: the group's leading dims flattened are the product's rows, its
    last dim the product's columns."""
    shape = group.shape
    operands = [*group.loads, *group.stores]
    strides = [strides_for(shape, node.meta["example"][0], node.meta["example"][1]) for node in operands]
    lead_sizes, lead_steps = coalesce(shape[:-1], [st[:-1] for st in strides])
    types = [f"const {C_TYPES[n.meta['example'][2]]}*" for n in group.loads]
    types += [f"{C_TYPES[n.meta['example'][2]]}*" for n in group.stores]
    if v.generic:
        types.append("const long*")
    unpack = [f"    {kind} __restrict {'n' if i == len(operands) else f'p{i}'} = ({kind})a[{i}];"
              for i, kind in enumerate(types)]
    header, footer = _around(group, v)
    lines = [*header, f"void {group.name}(void* const* a, long r0, long r1, long c0, long c1) {{", *unpack,
             "    for (long r = r0; r < r1; r++) {",
             *decompose("r", lead_sizes, [list(step) for step in lead_steps], "o", "        ", v)]
    offset = {i: f"o{i} + j * {v(st[-1])}" if st[-1] else f"o{i}" for i, st in enumerate(strides)}
    body, _ = statements(group, offset, "            ")
    lines += ["        for (long j = c0; j < c1; j++) {", *body, "        }", "    }", "}", *footer]
    return "\n".join(lines)


def kernel_source(group: FusedGroup, grain: int, v: Values = LITERAL) -> str:
    """The C function of one fused group: void kernelN(loads..., stores..., [const long* n,] int threads); n holds
    v.values, for a generic kernel."""
    if group.epilogue_of is not None:
        return _epilogue_kernel(group, v)
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
    header, footer = _around(group, v)
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
        return "\n".join([*header, signature, *row_kernel(group, grain, v), "}", *footer])
    inner, rows = sizes[-1], numel // sizes[-1] if sizes[-1] else 0
    parallel = f"#pragma omp parallel for num_threads(threads) schedule(static) if({v(numel)} >= {grain})"
    if rows == 1:           # one flat loop: offsets are multiples of j
        offset = {i: f"j * {v(step[-1])}" if step[-1] != 1 else "j" for i, step in enumerate(steps)}
        body, _ = statements(group, offset, "            ")
        loop = ["    " + parallel,
                f"    for (long j = 0; j < {v(inner)}; j++) {{", *(line[4:] for line in body), "    }"]
    else:
        loop = ["    " + parallel, f"    for (long r = 0; r < {v(rows)}; r++) {{",
                *decompose("r", sizes[:-1], [step[:-1] for step in steps], "o", "        ", v)]
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
