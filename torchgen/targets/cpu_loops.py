"""Target: Cython CPU inner loops and kernels for `ember_pointwise` ops, one module per base name
(template cpu_pointwise.pyx.j2; a float32 loop that vectorises renders cpu_vector_loop.c.j2)."""
from __future__ import annotations

from dataclasses import dataclass

from torchgen.dtypes import DType
from torchgen.formula import VECTOR_FLOAT32, render, tokenize
from torchgen.model import SchemaError
from torchgen.native_yaml import NativeFunction
from torchgen.targets.pointwise import PointwiseOp


@dataclass(frozen=True)
class LoopPath:
    """One branch of an inner loop: `keyword cond:` then the hoisted loads, then the body, inside
    `for i in range(n)` when `loop`, else once (a call that loops itself)."""
    keyword: str                 # if | elif | else
    cond: str
    hoisted: tuple[str, ...]
    body: tuple[str, ...]
    loop: bool = True


@dataclass(frozen=True)
class VectorLoop:
    """The pieces of a float32 loop compiled per ISA (cpu_vector_loop.c.j2)."""
    expr: str                    # the formula in C, over x0, x1... and c0, c1...
    inputs: int
    loads: str                   # `float x0 = p0[i]; ...`
    vec_params: str
    pointers: str                # p0, p1...
    blocks: str                  # in[0], in[1]...
    scalar_params: str           # `, float c0...`
    scalar_args: str             # `, c0...`


@dataclass(frozen=True)
class Loop:
    name: str
    scalar_type: int
    prologue: tuple[str, ...]
    paths: tuple[LoopPath, ...]
    vector: VectorLoop | None = None
    c_decls: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    cond: str
    message: str                 # a Python expression (a literal or an f-string)


@dataclass(frozen=True)
class Kernel:
    """A kernel an overload registers: the functional one, or its in-place / out= variant.
    `opmath_call` computes float16 in the float32 loop (opmath_scalar_args) when `opmath_when`
    holds: an out= of another dtype takes the float16 result, rounded, as PyTorch's does."""
    name: str
    op: str
    extra_params: str
    call: str
    opmath_call: str
    opmath_when: str


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
    params: str
    tensor_args: str
    extra_bytes: int
    kernels: tuple[Kernel, ...]
    late_checks: tuple[Check, ...]
    bool_checks: tuple[Check, ...]
    opmath_scalar_args: tuple[str, ...]
    promotion: tuple[str, ...]
    scalars: tuple[ScalarSlot, ...]
    loops: tuple[Loop, ...]


def _vector_loop(op: PointwiseOp, dt: DType) -> Loop | None:
    """A float32 loop whose formula calls exp, log, tanh... (VECTOR_FLOAT32 only, no helpers):
    the formula rendered to C with aten/native/cpu/vec_math.h's branch-free spellings, over
    contiguous blocks compiled for the baseline and for AVX2+FMA and picked at run time
    (ember_use_avx2). Strided and broadcast operands are gathered into blocks of VM_BLOCK
    elements, so every layout gets the same vector code and the same results. None when the
    formula has no such function, or calls a helper or a function without a vector spelling."""
    if dt.name != "float32" or op.out_dtype(dt).name != "float32":
        return None
    formula = op.formula_for(dt)
    if not any(kind == "name" and text in VECTOR_FLOAT32 for kind, text in tokenize(formula)):
        return None
    try:
        expr = render(formula, op.names(), dt, "c")
    except SchemaError:  # a helper or a function without a vectorised float32 spelling: libm loop
        return None
    name = f"{op.cname}_{dt.name}"
    nin = len(op.tensors)
    cs = [f"c{i}" for i in range(len(op.scalars))]
    ins = [f"p{i}" for i in range(nin)]
    vector = VectorLoop(
        expr=expr, inputs=nin, loads=" ".join(f"float x{i} = p{i}[i];" for i in range(nin)),
        vec_params=", ".join([f"const float* {p}" for p in ins] + ["float* out", "Py_ssize_t n"]
                             + [f"float {c}" for c in cs]),
        pointers=", ".join(ins), blocks=", ".join(f"in[{i}]" for i in range(nin)),
        scalar_params="".join(f", float {c}" for c in cs), scalar_args="".join(f", {c}" for c in cs))
    c_decls = (f"void {name}_vec({vector.vec_params}) noexcept nogil",
               f"void {name}_strided(char** data, const Py_ssize_t* steps, Py_ssize_t n{vector.scalar_params}) "
               "noexcept nogil")
    plain = _loop(op, dt, "unused")
    contiguous = " and ".join(["steps[0] == sizeof(float)"] + [f"steps[{i + 1}] == sizeof(float)" for i in range(nin)])
    paths = (LoopPath("if", contiguous, (), (f"{name}_vec({vector.pointers}, out, n{vector.scalar_args})",), False),
             LoopPath("else", "", (), (f"{name}_strided(data, steps, n{vector.scalar_args})",), False))
    prologue = tuple(line for line in plain.prologue if not line.startswith("cdef float x0"))
    return Loop(plain.name, plain.scalar_type, prologue, paths, vector, c_decls)


def _loop(op: PointwiseOp, dt: DType, value: str | None = None) -> Loop:
    if value is None and (vector := _vector_loop(op, dt)) is not None:
        return vector
    T = dt.ctype               # what the operands hold
    CT = dt.compute.ctype      # what the formula computes in (float for float16)
    out = op.out_dtype(dt)
    OT = out.ctype
    if value is None:
        expr = render(op.formula_for(dt), op.names(), dt.compute, "cython")
        if out.is_bool:
            value = f"<uint8_t>(({expr}) != 0)"
        else:
            value = expr if out.compute is out else f"<{OT}>({expr})"
    nin = len(op.tensors)
    xs = [f"x{i}" for i in range(nin)]
    prologue = [f"cdef {CT} {', '.join(xs)}"]
    for i, s in enumerate(op.scalars):
        prologue.append(f"cdef {CT} c{i} = (<const {CT}*>(<const char*>extra + {8 * i}))[0]")
    prologue.append(f"cdef {OT}* out = <{OT}*>data[0]")
    prologue += [f"cdef const {T}* p{i} = <const {T}*>data[{i + 1}]" for i in range(nin)]
    contiguous = [f"steps[0] == sizeof({OT})"] + [f"steps[{i + 1}] == sizeof({T})" for i in range(nin)]
    paths = [LoopPath("if", " and ".join(contiguous), (),
                      tuple(f"{x} = p{i}[i]" for i, x in enumerate(xs)) + (f"out[i] = {value}",))]
    if nin > 1:
        # One operand broadcast (a scalar or a row): hoist its load out of the loop.
        for j in range(nin):
            cond = [c if k != j + 1 else f"steps[{j + 1}] == 0" for k, c in enumerate(contiguous)]
            paths.append(LoopPath("elif", " and ".join(cond), (f"x{j} = p{j}[0]",),
                                  tuple(f"x{i} = p{i}[i]" for i in range(nin) if i != j) + (f"out[i] = {value}",)))
    strided = tuple(f"x{i} = (<const {T}*>(data[{i + 1}] + i * steps[{i + 1}]))[0]" for i in range(nin))
    paths.append(LoopPath("else", "", (), strided + (f"(<{OT}*>(data[0] + i * steps[0]))[0] = {value}",)))
    return Loop(f"{op.cname}_{dt.name}", dt.scalar_type, tuple(prologue), tuple(paths))


def _promotion(op: PointwiseOp) -> tuple[str, ...]:
    if op.promote == "int_to_float":
        return ("if not is_floating(compute):", "    compute = default_float_type()", "out_type = compute")
    if op.promote == "always_bool":
        return ("out_type = ST_BOOL",)
    return ("out_type = compute",)


def bool_checks(op: PointwiseOp) -> tuple[Check, ...]:
    """Conditions over the inputs' dtypes (Cython) and the message to raise."""
    assert op.fn.pointwise is not None
    join = {"all": " and ", "any": " or "}
    checks = [Check(join[when].join(f"{t}.scalar_type == ST_BOOL" for t in op.tensors), repr(message))
              for when, message in op.fn.pointwise.bool_inputs]
    for arg in op.fn.pointwise.bool_args:
        checks.append(Check(f"{arg}.scalar_type != ST_BOOL",
                            f"f\"{op.fn.func.name.name} expected {arg} to be a boolean tensor, but got a tensor "
                            f"with dtype {{dtype_of({arg}.scalar_type).type_name}}\""))
    return tuple(checks)


def kernel_name(fn: NativeFunction) -> str:
    return f"{fn.func.name.unambiguous_name()}_cpu"


def _kernels(op: PointwiseOp) -> tuple[Kernel, ...]:
    """The functional kernel, and the in-place and out= ones its variants register."""
    f32 = f"{op.table}[ST_FLOAT32], inputs, ST_FLOAT32, ST_FLOAT32, extra"
    kernels = [Kernel(kernel_name(op.fn), op.name, "", "pointwise(fn, inputs, compute, out_type, extra)",
                      f"pointwise_out({f32}, _empty_float16(), False)", "True")]
    if op.variants.inplace is not None:
        kernels.append(Kernel(kernel_name(op.variants.inplace), str(op.variants.inplace.func.name), "",
                              f"pointwise_out(fn, inputs, compute, out_type, extra, {op.tensors[0]}, True)",
                              f"pointwise_out({f32}, {op.tensors[0]}, True)", "True"))
    if op.variants.out is not None:
        kernels.append(Kernel(kernel_name(op.variants.out), str(op.variants.out.func.name), ", TensorImpl out=None",
                              "pointwise_out(fn, inputs, compute, out_type, extra, out, False)",
                              f"pointwise_out({f32}, out, False)", "out.scalar_type == ST_FLOAT16"))
    return tuple(kernels)


def _late_checks(op: PointwiseOp) -> tuple[Check, ...]:
    """Checks that need the compute dtype: integral division by zero."""
    assert op.fn.pointwise is not None
    return tuple(Check(f"is_integral(compute, True) and any_zero({arg})", '"ZeroDivisionError"')
                 for arg in op.fn.pointwise.nonzero_args)


def op_context(op: PointwiseOp) -> OpContext:
    return OpContext(
        name=op.name,
        formula=op.formula,
        kernel=f"{op.cname}_cpu",
        table=op.table,
        params=op.params("TensorImpl"),
        tensor_args=", ".join(op.tensors),
        extra_bytes=max(8, 8 * len(op.scalars)),
        kernels=_kernels(op),
        late_checks=_late_checks(op),
        bool_checks=bool_checks(op),
        opmath_scalar_args=tuple(op.fn.pointwise.opmath_scalar_args) if op.fn.pointwise else (),
        promotion=_promotion(op),
        scalars=tuple(ScalarSlot(s, 8 * i) for i, s in enumerate(op.scalars)),
        loops=tuple(_loop(op, dt) for dt in op.dtypes),
    )
