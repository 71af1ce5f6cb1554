"""Target: Cython CPU inner loops and kernels for `ember_pointwise` ops, one module per base name."""
from __future__ import annotations

from typing import Any

from torchgen.dtypes import DType
from torchgen.formula import VECTOR_FLOAT32, render, tokenize
from torchgen.model import NativeFunction, SchemaError
from torchgen.targets.pointwise import PointwiseOp


def _vector_loop(op: PointwiseOp, dt: DType) -> dict[str, Any] | None:
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
    xs = [f"x{i}" for i in range(nin)]
    cs = [f"c{i}" for i in range(len(op.scalars))]
    ins = [f"p{i}" for i in range(nin)]
    vec_params = ", ".join([f"const float* {p}" for p in ins] + ["float* out", "Py_ssize_t n"] + [f"float {c}" for c in cs])
    scalar_params = "".join(f", float {c}" for c in cs)
    scalar_args = "".join(f", {c}" for c in cs)
    body = f"{{ for (Py_ssize_t i = 0; i < n; i++) {{ {' '.join(f'float {x} = p{i}[i];' for i, x in enumerate(xs))} " \
           f"out[i] = {expr}; }} }}"
    c_code = [
        "#pragma GCC push_options",
        '#pragma GCC optimize("no-trapping-math")  /* selects stay selects: see vec_math.h */',
        f"static void {name}_vec_base({vec_params}) {body}",
        "#ifdef EMBER_HAVE_AVX2",
        f"EMBER_AVX2_ATTR static void {name}_vec_avx2({vec_params}) {body}",
        "#endif",
        f"static void {name}_vec({vec_params}) {{",
        "#ifdef EMBER_HAVE_AVX2",
        f"    if (ember_use_avx2()) {{ {name}_vec_avx2({', '.join(ins)}, out, n{scalar_args}); return; }}",
        "#endif",
        f"    {name}_vec_base({', '.join(ins)}, out, n{scalar_args});",
        "}",
        f"static void {name}_strided(char** data, const Py_ssize_t* steps, Py_ssize_t n{scalar_params}) {{",
        f"    float in[{nin}][EMBER_VM_BLOCK], res[EMBER_VM_BLOCK];",
        "    for (Py_ssize_t s = 0; s < n; s += EMBER_VM_BLOCK) {",
        "        Py_ssize_t m = n - s < EMBER_VM_BLOCK ? n - s : EMBER_VM_BLOCK;",
        f"        for (int j = 0; j < {nin}; j++)",
        "            for (Py_ssize_t i = 0; i < m; i++) in[j][i] = *(const float*)(data[j + 1] + (s + i) * steps[j + 1]);",
        f"        {name}_vec({', '.join(f'in[{i}]' for i in range(nin))}, res, m{scalar_args});",
        "        for (Py_ssize_t i = 0; i < m; i++) *(float*)(data[0] + (s + i) * steps[0]) = res[i];",
        "    }",
        "}",
        "#pragma GCC pop_options",
    ]
    c_decls = [f"void {name}_vec({vec_params}) noexcept nogil",
               f"void {name}_strided(char** data, const Py_ssize_t* steps, Py_ssize_t n{scalar_params}) noexcept nogil"]
    loop = _loop(op, dt, "unused")
    contiguous = " and ".join(["steps[0] == sizeof(float)"] + [f"steps[{i + 1}] == sizeof(float)" for i in range(nin)])
    loop["prologue"] = [line for line in loop["prologue"] if not line.startswith("cdef float x0")]
    loop["paths"] = [dict(keyword="if", cond=contiguous, hoisted=[], loop=False,
                          body=[f"{name}_vec({', '.join(ins)}, out, n{scalar_args})"]),
                     dict(keyword="else", cond="", hoisted=[], loop=False,
                          body=[f"{name}_strided(data, steps, n{scalar_args})"])]
    loop.update(c_code=c_code, c_decls=c_decls)
    return loop


def _loop(op: PointwiseOp, dt: DType, value: str | None = None) -> dict[str, Any]:
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
    paths = [dict(keyword="if", cond=" and ".join(contiguous), hoisted=[],
                  body=[f"{x} = p{i}[i]" for i, x in enumerate(xs)] + [f"out[i] = {value}"])]
    if nin > 1:
        # One operand broadcast (a scalar or a row): hoist its load out of the loop.
        for j in range(nin):
            cond = [c if k != j + 1 else f"steps[{j + 1}] == 0" for k, c in enumerate(contiguous)]
            paths.append(dict(keyword="elif", cond=" and ".join(cond), hoisted=[f"x{j} = p{j}[0]"],
                              body=[f"x{i} = p{i}[i]" for i in range(nin) if i != j] + [f"out[i] = {value}"]))
    strided = [f"x{i} = (<const {T}*>(data[{i + 1}] + i * steps[{i + 1}]))[0]" for i in range(nin)]
    paths.append(dict(keyword="else", cond="", hoisted=[],
                      body=strided + [f"(<{OT}*>(data[0] + i * steps[0]))[0] = {value}"]))
    paths[-1]["keyword"] = "else"
    return dict(name=f"{op.cname}_{dt.name}", scalar_type=dt.scalar_type, prologue=prologue, paths=paths)


def _promotion(op: PointwiseOp) -> list[str]:
    if op.promote == "int_to_float":
        return ["if not is_floating(compute):", "    compute = default_float_type()", "out_type = compute"]
    if op.promote == "always_bool":
        return ["out_type = ST_BOOL"]
    return ["out_type = compute"]


def bool_checks(op: PointwiseOp) -> list[dict[str, str]]:
    """Conditions over the inputs' dtypes (Cython) and the message to raise."""
    assert op.fn.pointwise is not None
    join = {"all": " and ", "any": " or "}
    checks = [dict(cond=join[when].join(f"{t}.scalar_type == ST_BOOL" for t in op.tensors), message=repr(message))
              for when, message in op.fn.pointwise.bool_inputs]
    for arg in op.fn.pointwise.bool_args:
        checks.append(dict(cond=f"{arg}.scalar_type != ST_BOOL",
                           message=f"f\"{op.fn.func.name.name} expected {arg} to be a boolean tensor, but got a tensor "
                                   f"with dtype {{dtype_of({arg}.scalar_type).type_name}}\""))
    return checks


def kernel_name(fn: NativeFunction) -> str:
    return f"{fn.func.name.unambiguous_name()}_cpu"


def _kernels(op: PointwiseOp) -> list[dict[str, str]]:
    """The functional kernel, and the in-place and out= ones its variants register. `opmath_call`
    computes float16 in the float32 loop (opmath_scalar_args), when `opmath_when` holds: an out=
    of another dtype takes the float16 result, rounded, as PyTorch's does."""
    f32 = f"{op.table}[ST_FLOAT32], inputs, ST_FLOAT32, ST_FLOAT32, extra"
    kernels = [dict(name=kernel_name(op.fn), op=op.name, extra_params="",
                    call="pointwise(fn, inputs, compute, out_type, extra)",
                    opmath_call=f"pointwise_out({f32}, _empty_float16(), False)", opmath_when="True")]
    if op.variants.inplace is not None:
        kernels.append(dict(name=kernel_name(op.variants.inplace), op=str(op.variants.inplace.func.name),
                            extra_params="", call=f"pointwise_out(fn, inputs, compute, out_type, extra, {op.tensors[0]}, True)",
                            opmath_call=f"pointwise_out({f32}, {op.tensors[0]}, True)", opmath_when="True"))
    if op.variants.out is not None:
        kernels.append(dict(name=kernel_name(op.variants.out), op=str(op.variants.out.func.name),
                            extra_params=", TensorImpl out=None",
                            call="pointwise_out(fn, inputs, compute, out_type, extra, out, False)",
                            opmath_call=f"pointwise_out({f32}, out, False)", opmath_when="out.scalar_type == ST_FLOAT16"))
    return kernels


def _late_checks(op: PointwiseOp) -> list[dict[str, str]]:
    """Checks that need the compute dtype: integral division by zero."""
    assert op.fn.pointwise is not None
    return [dict(cond=f"is_integral(compute, True) and any_zero({arg})", message='"ZeroDivisionError"')
            for arg in op.fn.pointwise.nonzero_args]


def op_context(op: PointwiseOp) -> dict[str, Any]:
    return dict(
        kernels=_kernels(op),
        late_checks=_late_checks(op),
        bool_checks=bool_checks(op),
        name=op.name,
        formula=op.formula,
        kernel=f"{op.cname}_cpu",
        table=op.table,
        opmath_scalar_args=op.fn.pointwise.opmath_scalar_args if op.fn.pointwise else (),
        params=op.params("TensorImpl"),
        tensor_args=", ".join(op.tensors),
        extra_bytes=max(8, 8 * len(op.scalars)),
        promotion=_promotion(op),
        scalars=[dict(name=s, offset=8 * i) for i, s in enumerate(op.scalars)],
        loops=[_loop(op, dt) for dt in op.dtypes],
    )
