"""Target: Cython CPU inner loops and kernels for `ember_pointwise` ops, one module per base name."""
from __future__ import annotations

from typing import Any

from torchgen.dtypes import DType
from torchgen.formula import render
from torchgen.model import NativeFunction
from torchgen.targets.pointwise import PointwiseOp


def _loop(op: PointwiseOp, dt: DType) -> dict[str, Any]:
    T = dt.ctype               # what the operands hold
    CT = dt.compute.ctype      # what the formula computes in (float for float16)
    out = op.out_dtype(dt)
    OT = out.ctype
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
    """The functional kernel, and the in-place and out= ones its variants register. `opmath_out`
    is the out= call that computes float16 in the float32 loop (opmath_scalar_args)."""
    f32 = f"{op.table}[ST_FLOAT32], inputs, ST_FLOAT32, ST_FLOAT32, extra"
    kernels = [dict(name=kernel_name(op.fn), op=op.name, extra_params="",
                    call="pointwise(fn, inputs, compute, out_type, extra)",
                    opmath_call=f"pointwise_out({f32}, _empty_float16(), False)")]
    if op.variants.inplace is not None:
        kernels.append(dict(name=kernel_name(op.variants.inplace), op=str(op.variants.inplace.func.name),
                            extra_params="", call=f"pointwise_out(fn, inputs, compute, out_type, extra, {op.tensors[0]}, True)",
                            opmath_call=f"pointwise_out({f32}, {op.tensors[0]}, True)"))
    if op.variants.out is not None:
        kernels.append(dict(name=kernel_name(op.variants.out), op=str(op.variants.out.func.name),
                            extra_params=", TensorImpl out=None",
                            call="pointwise_out(fn, inputs, compute, out_type, extra, out, False)",
                            opmath_call=f"pointwise_out({f32}, out, False)"))
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
