"""Target: CUDA C kernels for `ember_pointwise` ops (from the same formula as the CPU loops),
and the Python launchers that register them."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.dtypes import DType
from torchgen.formula import render
from torchgen.native_yaml import NativeFunction
from torchgen.targets.pointwise import PointwiseOp


@dataclass(frozen=True)
class CudaKernel:
    """One (op, dtype) kernel of cuda_pointwise.cu.j2, contiguous and strided."""
    op: str
    dtype: str
    formula: str
    name: str
    out_t: str
    params: tuple[str, ...]
    loads: tuple[str, ...]
    strided_params: tuple[str, ...]
    strided_loads: tuple[str, ...]
    noperands: int
    value: str


@dataclass(frozen=True)
class VariantKernel:
    """The CUDA kernel an in-place or out= variant registers."""
    name: str
    kernel: str


@dataclass(frozen=True)
class BoolInputs:
    """An op refused when all (or any) of its tensor inputs are bool, with its message."""
    every: bool
    message: str


@dataclass(frozen=True)
class Launcher:
    """One op's launchers in cuda_launchers.py.j2. The dtype rules (bool checks, the computation
    dtype, the result dtype) are the schema's, rendered into the launcher as the CPU kernels have
    them, so the runtime's launch only launches."""
    name: str
    base: str
    formula: str
    kernel: str
    cname: str
    params: str
    tensor_args: str
    scalars: tuple[str, ...]
    bool_inputs: tuple[BoolInputs, ...]
    bool_args: tuple[str, ...]
    to_float: bool              # an integral computation runs in the default float dtype
    bool_out: bool              # the result is bool whatever the computation dtype
    dtypes: str
    call_args: str
    inplace: VariantKernel | None
    out: VariantKernel | None


def _kernel(op: PointwiseOp, dt: DType) -> CudaKernel:
    out = op.out_dtype(dt)
    CT = dt.compute.cuda_type          # float16 loads widen to float; the store rounds once
    expr = render(op.formula_for(dt), op.names(), dt.compute, "cuda")
    if out.is_bool:
        value = f"(unsigned char)(({expr}) != 0)"
    else:
        value = f"({out.cuda_type})({expr})" if out.compute is out else f"__float2half_rn({expr})"
    nin = len(op.tensors)
    scalar_params = [f"{CT} c{i}" for i in range(len(op.scalars))]
    return CudaKernel(
        op=op.name, dtype=dt.name, formula=op.formula, name=f"{op.cname}_{dt.name}", out_t=out.cuda_type,
        params=tuple([f"const {dt.cuda_type}* __restrict__ in{i}" for i in range(nin)] + scalar_params),
        loads=tuple(f"const {CT} x{i} = {_widen(dt, f'in{i}[i]')};" for i in range(nin)),
        strided_params=tuple([f"const char* in{i}" for i in range(nin)] + scalar_params),
        strided_loads=tuple(f"const {CT} x{i} = {_widen(dt, f'*(const {dt.cuda_type}*)(in{i} + off[{i + 1}])')};"
                            for i in range(nin)),
        noperands=nin + 1, value=value)


def _widen(dt: DType, load: str) -> str:
    return load if dt.compute is dt else f"__half2float({load})"


def cu_kernels(ops: list[PointwiseOp]) -> tuple[CudaKernel, ...]:
    return tuple(_kernel(op, dt) for op in ops for dt in op.dtypes)


def launchers(ops: list[PointwiseOp]) -> tuple[Launcher, ...]:
    contexts = []
    for op in ops:
        rules = op.fn.pointwise
        contexts.append(Launcher(
            name=op.name, base=str(op.fn.func.name.name), formula=op.formula, kernel=f"{op.cname}_cuda",
            cname=op.cname, params=op.params(), tensor_args=", ".join(op.tensors), scalars=tuple(op.scalars),
            bool_inputs=tuple(BoolInputs(when == "all", repr(message))
                              for when, message in (rules.bool_inputs if rules else ())),
            bool_args=tuple(rules.bool_args if rules else ()),
            to_float=op.promote == "int_to_float", bool_out=op.promote == "always_bool",
            dtypes=repr(tuple(d.name for d in op.dtypes)),
            call_args=", ".join(a.name for a in op.args),
            inplace=variant_kernel(op.variants.inplace), out=variant_kernel(op.variants.out)))
    return tuple(contexts)


def variant_kernel(fn: NativeFunction | None) -> VariantKernel | None:
    """The CUDA kernel an in-place or out= variant registers: the functional result written into
    self or out (pointwise.write_into)."""
    if fn is None:
        return None
    return VariantKernel(str(fn.func.name), f"{fn.func.name.unambiguous_name()}_cuda")
