"""CUDA C source of a graph's fused kernels on the GPU.

Each kernel is one `extern "C" __global__` function: a grid-stride loop over the group's elements, each
thread splitting its flat index into the (merged) dimensions with the sizes and strides as constants (or,
for a graph compiled for sizes that vary, as the parameters s0, s1... after the pointers), then
loading its operands, computing every member as a local and storing the members read outside. A group
with softmaxes, layer norms or their backwards runs a block per row instead, the CPU generator's row loops
(codegen_rows.row_body) with the block's threads striding over the row and combining their partial maxima and
sums in shared memory (block_reduce.cuh, as the eager row kernels). The
formulas are the schema's rendered for CUDA (CUDA's float math and the ember_ helpers of
aten/native/cuda/_gen_scalar_ops.cuh, the same functions the eager kernels call); the source is compiled
through c10.cuda (PyCUDA, or the host emulator) and cached on disk by its hash there."""
from __future__ import annotations

import math
from typing import Any

import torch
from torch._inductor.codegen_c import reduction_loops
from torch._inductor.codegen_common import C_TYPES, Values, coalesce, strides_for
from torch._inductor.codegen_rows import RowLoops, row_body
from torch._inductor.scheduler import CUDA_ROW_LENGTH, FusedGroup

__all__ = ["kernel_source", "launch_count", "module_source", "row_threads"]

# The row kernels' exp: CUDA's, flushing where the CPU's (vec_math.h) flushes to 0.
_ROW_MATH = """__device__ __forceinline__ float ember_vm_expf(float x) { return expf(x); }
__device__ __forceinline__ float ember_vm_expf_flush(float x) { return x < -87.33654475f ? 0.0f : expf(x); }
"""


def launch_count(group: FusedGroup) -> int:
    """What a kernel's grid strides over: its rows for a row group (a block each), its outputs for a
    reduction, else its elements (a thread each)."""
    if group.rows:
        return math.prod(group.shape[:-1])
    if group.reduced is not None:
        return math.prod(size for d, size in enumerate(group.shape) if d not in group.reduced.dims)
    return math.prod(group.shape)


_MOST_THREADS = 256


def row_threads(group: FusedGroup) -> int:
    """The threads of a row kernel's block: a power of two from 32 (a warp) to 256, no more than the row needs."""
    threads = 32
    while threads < min(group.shape[-1], _MOST_THREADS):
        threads *= 2
    return threads


def _over(group: FusedGroup, v: Values) -> str:
    return f"a rank-{len(group.shape)} shape" if v.generic else f"shape {list(group.shape)}"


def _signature(group: FusedGroup, params: list[str], v: Values) -> str:
    """The kernel's first line: the launch count n, the pointers, then a generic kernel's sizes."""
    sizes = [f"long long s{k}" for k in range(len(v.values))]
    return f'extern "C" __global__ void {group.name}({", ".join(["long long n", *params, *sizes])}) {{'


def _row_source(group: FusedGroup, params: list[str], v: Values) -> str:
    """A block per row (rows striding over the grid), its threads striding over the row; a generic kernel's
    row buffers as long as the longest row its block size serves."""
    threads = row_threads(group)
    longest = (threads if threads < _MOST_THREADS else CUDA_ROW_LENGTH) if v.generic else 0
    body = row_body(group, RowLoops(gpu=True, threads=threads, longest=longest), v)
    text = "\n".join(body)
    scratch = [f"    __shared__ {ctype} scratch_{ctype}[{threads}];" for ctype in ("float", "double")
               if f"scratch_{ctype}" in text]
    return "\n".join([
        f"// {group.name}: {len(group.members)} fused node(s) over {_over(group, v)}, a block of {threads} "
        "threads per row", _signature(group, params, v), *scratch,
        "    for (long long r = blockIdx.x; r < n; r += gridDim.x) {", *body, "    }", "}"])


def _reduction_source(group: FusedGroup, params: list[str], v: Values) -> str:
    """One thread per output, summing that output's elements in a plain loop."""
    loops = reduction_loops(group, "        ", v)
    return "\n".join([
        f"// {group.name}: {len(group.members)} fused node(s) over {_over(group, v)}, ending in a reduction",
        _signature(group, params, v),
        "    for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < n;"
        " r += (long long)blockDim.x * gridDim.x) {",
        *loops.outer, "        double acc = 0.0;", f"        for (long j = 0; j < {loops.count}; j++) {{",
        *loops.inner, loops.accumulate, "        }", loops.store, "    }", "}"])


def kernel_source(group: FusedGroup, v: Values | None = None) -> str:
    """void kernelN(long long n, loads..., stores..., [sizes...]); a generic kernel's sizes are v.values."""
    v = v or Values()
    params = [f"const {C_TYPES[n.meta['example'][2]]}* __restrict__ p{i}" for i, n in enumerate(group.loads)]
    params += [f"{C_TYPES[n.meta['example'][2]]}* __restrict__ p{len(group.loads) + i}"
               for i, n in enumerate(group.stores)]
    if group.rows:
        return _row_source(group, params, v)
    if group.reduced is not None:
        return _reduction_source(group, params, v)
    operands = [*group.loads, *group.stores]
    strides = [strides_for(group.shape, n.meta["example"][0], n.meta["example"][1]) for n in operands]
    sizes, steps = coalesce(group.shape, strides)
    lines = ["    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;"
             " i += (long long)blockDim.x * gridDim.x) {"]
    if len(sizes) == 1:
        offsets = {k: f"i * {v(step[0])}" if step[0] != 1 else "i" for k, step in enumerate(steps)}
    else:
        lines.append("        long long rest = i;")
        lines += [f"        long long o{k} = 0;" for k in range(len(operands))]
        for d in range(len(sizes) - 1, -1, -1):
            size = v(sizes[d])
            lines.append(f"        {{ long long at = rest % {size}; rest /= {size};")
            lines += [f"          o{k} += at * {v(step[d])};" for k, step in enumerate(steps) if step[d]]
            lines.append("        }")
        offsets = {k: f"o{k}" for k in range(len(operands))}
    names: dict[Any, str] = {}
    for k, node in enumerate(group.loads):
        load = f"p{k}[{offsets[k]}]"
        names[node] = f"((float){load})" if node.meta["example"][2] is torch.bool else load
    for k, member in enumerate(group.members):
        lowered = group.lowered[member]
        expr = lowered.expr.format(*(names[o] for o in lowered.operands))
        lines.append(f"        {'int' if lowered.out == 'bool' else 'float'} t{k} = {expr};"
                     f"  // {member.name}: {member.target}")
        names[member] = f"t{k}"
    for k, member in enumerate(group.stores):
        slot = len(group.loads) + k
        value = names[member]
        if member.meta["example"][2] is torch.bool:
            value = f"(unsigned char)({value} != 0)"
        lines.append(f"        p{slot}[{offsets[slot]}] = {value};")
    lines += ["    }", "}"]
    return "\n".join([f"// {group.name}: {len(group.members)} fused node(s) over {_over(group, v)}",
                      _signature(group, params, v), *lines])


def module_source(groups: list[FusedGroup], generic: bool = False) -> tuple[str, dict[str, list[int]]]:
    """The .cu source of a graph's GPU kernels, and each generic kernel's sizes (its last arguments), by name."""
    parts = ["// Generated by torch._inductor (Ember) from a captured graph: fused pointwise kernels.",
             '#include "_gen_scalar_ops.cuh"', ""]
    if any(group.rows for group in groups):
        parts[2:2] = ['#include "block_reduce.cuh"', _ROW_MATH]
    values: dict[str, list[int]] = {}
    for group in groups:
        v = Values(generic, "s{}")
        parts.append(kernel_source(group, v) + "\n")
        if generic:
            values[group.name] = v.values
    return "\n".join(parts), values
