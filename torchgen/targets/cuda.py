"""Target: CUDA C kernels for `ember_pointwise` ops (from the same formula as the CPU loops),
and the Python launchers that register them."""
from __future__ import annotations

from typing import Any

from torchgen.dtypes import DType
from torchgen.formula import render
from torchgen.targets.pointwise import PointwiseOp


def _kernel(op: PointwiseOp, dt: DType) -> dict[str, Any]:
    out = op.out_dtype(dt)
    expr = render(op.formula_for(dt), op.names(), dt, "cuda")
    value = f"(unsigned char)(({expr}) != 0)" if out.is_bool else f"({out.cuda_type})({expr})"
    nin = len(op.tensors)
    scalar_params = [f"{dt.cuda_type} c{i}" for i in range(len(op.scalars))]
    return dict(
        op=op.name, dtype=dt.name, formula=op.formula, name=f"{op.cname}_{dt.name}", out_t=out.cuda_type,
        params=[f"const {dt.cuda_type}* __restrict__ in{i}" for i in range(nin)] + scalar_params,
        loads=[f"const {dt.cuda_type} x{i} = in{i}[i];" for i in range(nin)],
        strided_params=[f"const char* in{i}" for i in range(nin)] + scalar_params,
        strided_loads=[f"const {dt.cuda_type} x{i} = *(const {dt.cuda_type}*)(in{i} + off[{i + 1}]);" for i in range(nin)],
        noperands=nin + 1, value=value)


def cu_context(ops: list[PointwiseOp]) -> dict[str, Any]:
    return dict(kernels=[_kernel(op, dt) for op in ops for dt in op.dtypes])


def launcher_context(ops: list[PointwiseOp], source: str) -> dict[str, Any]:
    contexts = []
    for op in ops:
        contexts.append(dict(
            name=op.name, formula=op.formula, kernel=f"{op.cname}_cuda", cname=op.cname, params=op.params(),
            tensor_args=", ".join(op.tensors), scalar_args="".join(f"{s}, " for s in op.scalars),
            scalar_names="".join(f"{s!r}, " for s in op.scalars), promote=op.promote,
            dtypes=repr(tuple(d.name for d in op.dtypes)),
            bool_inputs=repr(op.fn.pointwise.bool_inputs if op.fn.pointwise else ())))
    return dict(ops=contexts, source=source)
