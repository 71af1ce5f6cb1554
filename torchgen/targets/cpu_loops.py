"""Target: Cython CPU inner loops and kernels for `ember_pointwise` ops, one module per base name
(template cpu_pointwise.pyx.j2; a float32 loop that vectorises renders cpu_vector_loop.c.j2)."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.dtypes import DType
from torchgen.formula import VECTOR_APPROXIMATED, render, tokenize
from torchgen.model import SchemaError
from torchgen.native_yaml import NativeFunction
from torchgen.targets.pointwise import DtypeRules, KernelParam, PointwiseOp


@dataclass(frozen=True)
class Loop:
    """One (op, dtype) inner loop of cpu_pointwise.pyx.j2 (its code lives in the template): the
    operands hold in_t, the formula `expr` computes in compute_t over x0, x1... (the tensors) and
    c0, c1... (the scalars, read from `extra`), and the result is stored as out_t: as it is
    ("same"), converted ("convert") or as 0/1 ("bool"). `load` and `store_fn` name the C functions
    converting in_t to compute_t and compute_t to out_t where a C cast cannot (bfloat16). A float32
    loop whose formula vectorises has `vector_expr` instead: the formula in C, compiled per ISA by
    cpu_vector_loop.c.j2, where `contract` says whether the AVX builds may contract a product and a sum into an
    FMA (formulas calling exp, tanh...: their AVX builds' bits are their own; the others are compiled without
    contraction, so their bits are the scalar loops'). A float16 or bfloat16 loop of the same formula names that float32 loop in
    `via_float32` and runs it on widened blocks instead of converting element by element."""
    name: str
    scalar_type: int
    in_t: str
    compute_t: str
    out_t: str
    inputs: int
    scalars: int
    expr: str
    store: str
    vector_expr: str | None = None
    contract: bool = False
    load: str = ""
    store_fn: str = ""
    via_float32: str | None = None


@dataclass(frozen=True)
class Kernel:
    """A kernel an overload registers: the functional one, or its in-place or out= variant
    (`variant`), which cpu_pointwise.pyx.j2 renders from the same body."""
    name: str
    op: str
    variant: str                 # functional | inplace | out


# Bytes per scalar argument in a kernel's `extra` block: one value of the compute dtype, complex128 the widest.
SLOT = 16


@dataclass(frozen=True)
class ScalarSlot:
    name: str
    offset: int


@dataclass(frozen=True)
class OpContext:
    """Everything cpu_pointwise.pyx.j2 renders for one op."""
    name: str
    formula: str
    kernel: str
    table: str
    params: tuple[KernelParam, ...]
    tensors: tuple[str, ...]
    extra_bytes: int
    kernels: tuple[Kernel, ...]
    rules: DtypeRules
    nonzero_args: tuple[str, ...]          # divisors: an integral computation refuses a zero
    opmath_scalar_args: tuple[str, ...]
    scalars: tuple[ScalarSlot, ...]
    complex_real_out: bool                 # a complex computation stores its real-valued result (abs)
    loops: tuple[Loop, ...]


def _vector_expr(op: PointwiseOp, dt: DType) -> tuple[str | None, bool]:
    """The C formula of a float32 loop whose formula vectorises (arithmetic, selects and the functions of
    VECTOR_FLOAT32, no other helpers), rendered with aten/native/cpu/vec_math.h's branch-free spellings, over
    contiguous blocks compiled for the baseline, for AVX2+FMA and for AVX-512 and picked at run time
    (ember_use_avx2, ember_use_avx512); and whether the AVX builds may contract a product and a sum into an FMA:
    only where the formula calls a function vec_math.h approximates (its AVX bits are its own anyway). The
    others (add's `x0 + c0 * x1`, addcmul, lerp; sqrt, floor, maximum...) are compiled without contraction, so
    they round as the scalar loops and NumPy do. Strided operands are gathered into blocks of VM_BLOCK elements and broadcast ones filled into one, so
    every layout gets the same vector code and the same results. None when the formula calls a helper or a
    function without a vector spelling."""
    if dt.name != "float32" or op.out_dtype(dt).name != "float32":
        return None, False
    formula = op.formula_for(dt)
    calls_math = any(kind == "name" and text in VECTOR_APPROXIMATED for kind, text in tokenize(formula))
    try:
        return render(formula, op.names(), dt, "c"), calls_math
    except SchemaError:  # a helper or a function without a vectorised float32 spelling: libm loop
        return None, False


# The most operands a float16/bfloat16 loop widens into blocks (aten/native/cpu/vec_reduced.h).
WIDENED_INPUTS = 4


def _via_float32(op: PointwiseOp, dt: DType) -> str | None:
    """The float32 loop a float16 or bfloat16 loop runs on widened blocks: the same formula computed in
    float32 (the reduced loops' opmath), results of the input's dtype."""
    if (dt.name not in ("float16", "bfloat16") or dt.compute.name != "float32" or op.out_dtype(dt) is not dt
            or len(op.tensors) > WIDENED_INPUTS):
        return None
    f32 = next((d for d in op.loop_dtypes if d.name == "float32"), None)
    if f32 is None or op.out_dtype(f32) is not f32 or op.formula_for(f32) != op.formula_for(dt):
        return None
    return f"{op.cname}_float32"


def _loop(op: PointwiseOp, dt: DType) -> Loop:
    out = op.out_dtype(dt)
    vector_expr, contract = _vector_expr(op, dt)
    via = _via_float32(op, dt)
    expr = "" if vector_expr is not None or via else render(op.formula_for(dt), op.names(), dt.compute, "cython")
    store = "bool" if out.is_bool else ("same" if out.compute is out else "convert")
    return Loop(name=f"{op.cname}_{dt.name}", scalar_type=dt.scalar_type, in_t=dt.ctype, compute_t=dt.compute.ctype,
                out_t=out.ctype, inputs=len(op.tensors), scalars=len(op.scalars), expr=expr, store=store,
                vector_expr=vector_expr, contract=contract, load=dt.load, store_fn=out.store, via_float32=via)


def kernel_name(fn: NativeFunction) -> str:
    return f"{fn.func.name.unambiguous_name()}_cpu"


def _kernels(op: PointwiseOp) -> tuple[Kernel, ...]:
    """The functional kernel, and the in-place and out= ones its variants register."""
    kernels = [Kernel(kernel_name(op.fn), op.name, "functional")]
    if op.variants.inplace is not None:
        kernels.append(Kernel(kernel_name(op.variants.inplace), str(op.variants.inplace.func.name), "inplace"))
    if op.variants.out is not None:
        kernels.append(Kernel(kernel_name(op.variants.out), str(op.variants.out.func.name), "out"))
    return tuple(kernels)


def op_context(op: PointwiseOp) -> OpContext:
    assert op.fn.pointwise is not None
    return OpContext(
        name=op.name,
        formula=op.formula,
        kernel=f"{op.cname}_cpu",
        table=op.table,
        params=op.params(),
        tensors=op.tensors,
        extra_bytes=max(SLOT, SLOT * len(op.scalars)),
        kernels=_kernels(op),
        rules=op.dtype_rules,
        nonzero_args=tuple(op.fn.pointwise.nonzero_args),
        opmath_scalar_args=tuple(op.fn.pointwise.opmath_scalar_args),
        scalars=tuple(ScalarSlot(s, SLOT * i) for i, s in enumerate(op.scalars)),
        complex_real_out=op.complex_real_out,
        loops=tuple(_loop(op, dt) for dt in op.loop_dtypes),
    )
