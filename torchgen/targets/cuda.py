"""Target: CUDA C kernels for `ember_pointwise` ops (from the same formula as the CPU loops),
and the Python launchers that register them."""
from __future__ import annotations

from typing import Any

from torchgen.dtypes import DType
from torchgen.formula import render
from torchgen.model import NativeFunction
from torchgen.targets.pointwise import PointwiseOp


def _kernel(op: PointwiseOp, dt: DType) -> dict[str, Any]:
    out = op.out_dtype(dt)
    CT = dt.compute.cuda_type          # float16 loads widen to float; the store rounds once
    expr = render(op.formula_for(dt), op.names(), dt.compute, "cuda")
    if out.is_bool:
        value = f"(unsigned char)(({expr}) != 0)"
    else:
        value = f"({out.cuda_type})({expr})" if out.compute is out else f"__float2half_rn({expr})"
    nin = len(op.tensors)
    scalar_params = [f"{CT} c{i}" for i in range(len(op.scalars))]
    return dict(
        op=op.name, dtype=dt.name, formula=op.formula, name=f"{op.cname}_{dt.name}", out_t=out.cuda_type,
        params=[f"const {dt.cuda_type}* __restrict__ in{i}" for i in range(nin)] + scalar_params,
        loads=[f"const {CT} x{i} = {_widen(dt, f'in{i}[i]')};" for i in range(nin)],
        strided_params=[f"const char* in{i}" for i in range(nin)] + scalar_params,
        strided_loads=[f"const {CT} x{i} = {_widen(dt, f'*(const {dt.cuda_type}*)(in{i} + off[{i + 1}])')};"
                       for i in range(nin)],
        noperands=nin + 1, value=value)


def _widen(dt: DType, load: str) -> str:
    return load if dt.compute is dt else f"__half2float({load})"


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
            bool_inputs=repr(op.fn.pointwise.bool_inputs if op.fn.pointwise else ()),
            call_args=", ".join(a.name for a in op.args),
            inplace=variant_kernel(op.variants.inplace), out=variant_kernel(op.variants.out)))
    return dict(ops=contexts, source=source)


def variant_kernel(fn: NativeFunction | None) -> dict[str, str] | None:
    """The CUDA kernel an in-place or out= variant registers: the functional result written into
    self or out (pointwise.write_into)."""
    if fn is None:
        return None
    return dict(name=str(fn.func.name), kernel=f"{fn.func.name.unambiguous_name()}_cuda")
