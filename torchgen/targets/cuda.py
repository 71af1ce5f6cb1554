"""Target: CUDA C kernels for `ember_pointwise` ops (from the same formula as the CPU loops),
and the Python launchers that register them."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.dtypes import DType
from torchgen.formula import render
from torchgen.native_yaml import NativeFunction
from torchgen.targets.pointwise import DtypeRules, KernelParam, PointwiseOp


@dataclass(frozen=True)
class CudaKernel:
    """One (op, dtype) kernel of cuda_pointwise.cu.j2, contiguous and strided (its code lives in the
    template): the operands hold in_t (reduced floats are widened to float as they load, by the
    `load` function), the formula `expr` computes in compute_t over x0, x1... and the scalars c0,
    c1..., and the result is stored as out_t: as it is ("same"), as 0/1 ("bool") or rounded once
    by the `store` function ("convert"). A complex kernel takes each scalar as its two parts, of
    component_t (PyCUDA packs no complex numbers)."""
    op: str
    dtype: str
    formula: str
    name: str
    in_t: str
    compute_t: str
    out_t: str
    inputs: int
    scalars: int
    load: str
    expr: str
    store: str
    store_fn: str
    component_t: str


@dataclass(frozen=True)
class VariantKernel:
    """The CUDA kernel an in-place or out= variant registers."""
    name: str
    kernel: str


@dataclass(frozen=True)
class Launcher:
    """One op's launchers in cuda_launchers.py.j2. The dtype rules (bool checks, the computation
    dtype, the result dtype) are the schema's, rendered into the launcher as the CPU kernels have
    them, so the runtime's launch only launches."""
    name: str
    formula: str
    kernel: str
    cname: str
    params: tuple[KernelParam, ...]
    tensor_args: str
    promoted_args: str          # the tensors the computation dtype is promoted from (not a bool_args condition)
    scalars: tuple[str, ...]
    rules: DtypeRules
    dtypes: str
    complex_real_out: bool      # a complex computation stores its real-valued result (abs)
    call_args: str
    inplace: VariantKernel | None
    out: VariantKernel | None


def _kernel(op: PointwiseOp, dt: DType) -> CudaKernel:
    out = op.out_dtype(dt)
    store = "bool" if out.is_bool else ("same" if out.compute is out else "convert")
    return CudaKernel(
        op=op.name, dtype=dt.name, formula=op.formula, name=f"{op.cname}_{dt.name}", in_t=dt.cuda_type,
        compute_t=dt.compute.cuda_type, out_t=out.cuda_type, inputs=len(op.tensors), scalars=len(op.scalars),
        load=dt.cuda_load, expr=render(op.formula_for(dt), op.names(), dt.compute, "cuda"), store=store,
        store_fn=out.cuda_store, component_t=dt.component.cuda_type if dt.is_complex else "")


def cu_kernels(ops: list[PointwiseOp]) -> tuple[CudaKernel, ...]:
    return tuple(_kernel(op, dt) for op in ops for dt in op.loop_dtypes)


def launchers(ops: list[PointwiseOp]) -> tuple[Launcher, ...]:
    return tuple(Launcher(
        name=op.name, formula=op.formula, kernel=f"{op.cname}_cuda", cname=op.cname, params=op.params(),
        tensor_args=", ".join(op.tensors),
        promoted_args=", ".join(t for t in op.tensors if t not in op.dtype_rules.bool_args),
        scalars=tuple(op.scalars), rules=op.dtype_rules,
        dtypes=repr(tuple(d.name for d in op.loop_dtypes)),
        complex_real_out=op.complex_real_out, call_args=", ".join(a.name for a in op.args),
        inplace=variant_kernel(op.variants.inplace), out=variant_kernel(op.variants.out)) for op in ops)


def variant_kernel(fn: NativeFunction | None) -> VariantKernel | None:
    """The CUDA kernel an in-place or out= variant registers: the functional result written into
    self or out (pointwise.write_into)."""
    if fn is None:
        return None
    return VariantKernel(str(fn.func.name), f"{fn.func.name.unambiguous_name()}_cuda")
