"""Launch generated CUDA pointwise kernels (the _gen_*.cu beside this file) through PyCUDA.

The meta step (result dtype, broadcast shape) is the CPU path's (aten.native.pointwise_meta);
operands of another dtype, and CPU scalars (wrapped numbers), are converted on the device first.
"""
from __future__ import annotations

import os
import threading
from typing import Any, Callable

import numpy as np

from aten.native import pointwise_meta
from c10 import cuda as c10_cuda
from c10 import scalar_type, tensor_impl
from c10.device import canonical

_HERE = os.path.dirname(os.path.abspath(__file__))
_modules: dict[str, Any] = {}
_BLOCK = 256
CUDA_TYPES = {"bool": "unsigned char", "uint8": "unsigned char", "int8": "signed char", "int16": "short",
               "int32": "int", "int64": "long long", "float16": "__half", "float32": "float", "float64": "double"}


def compiled_module(source: str) -> Any:
    """The compiled module for a .cu text (compiled once per process, whichever threads ask at
    once; nvcc results cached on disk)."""
    found = _modules.get(source)
    if found is None:
        with _compiling:
            found = _modules.get(source)
            if found is None:
                if source.endswith(".cu"):
                    with open(os.path.join(_HERE, source)) as f:
                        text = f.read()
                else:
                    text = source
                found = _modules[source] = c10_cuda.source_module(text, include_dirs=[os.path.join(_HERE, "kernels")])
    return found


_compiling = threading.RLock()      # one compile at a time: nvcc takes every core anyway


_functions: dict[tuple[str, str], Any] = {}


def kernel_function(source: str, name: str) -> Any:
    """A kernel of a compiled module, looked up in the module once per process."""
    found = _functions.get((source, name))
    if found is None:
        with _compiling:
            found = _functions.get((source, name))
            if found is None:
                found = _functions[(source, name)] = compiled_module(source).get_function(name)
    c10_cuda.lazy_init()                # this thread's context current before the launch
    return found


def prepared_kernel(source: str, name: str, arg_format: str) -> Any:
    """A kernel in PyCUDA's prepared form (arguments packed by one struct format, the launch's
    fast path); prepare() keeps the format on the function, so it is prepared once per process."""
    found = kernel_function(source, name)
    if getattr(found, "arg_format", None) is None:
        found.prepare(arg_format)
    return found


_metas: dict[tuple[int, ...], Any] = {}
_MAX_METAS = 1024
c10_cuda.at_shutdown(_metas.clear)


def device_meta(values: Any) -> Any:
    """Device memory holding the int64 values (a kernel's shapes and strides): uploaded once per
    distinct list and kept, so a launch over a layout seen before copies nothing to the device."""
    key = tuple(int(v) for v in values)
    found = _metas.get(key)
    if found is None:
        if len(_metas) >= _MAX_METAS:
            _metas.clear()     # the dropped blocks are freed when no launch holds them any more
        found = _metas[key] = c10_cuda.lazy_init()["drv"].to_device(np.asarray(key, dtype=np.int64))
    return found


def grid_for(n: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    blocks = max(1, min((n + _BLOCK - 1) // _BLOCK, 65535))
    return (blocks, 1, 1), (_BLOCK, 1, 1)


def to_device(t: Any, dtype: Any) -> Any:
    """t on the GPU as dtype: a CPU tensor is uploaded, another dtype converted there."""
    if t.is_cuda and t.dtype is dtype:
        return t
    if not t.is_cuda:
        host = np.ascontiguousarray(t._numpy_view().astype(dtype.numpy_dtype))
        out = tensor_impl.empty(t._sizes(), dtype, canonical("cuda"))
        c10_cuda.lazy_init()["drv"].memcpy_htod(out.data_ptr(), host)
        return out
    out = tensor_impl.empty(t._sizes(), dtype, t.device)
    src_t, dst_t = CUDA_TYPES[t.dtype.name], CUDA_TYPES[dtype.name]
    value = "__half2float(in[i])" if t.dtype.name == "float16" else "in[i]"
    if dtype.name == "bool":
        convert = f"(unsigned char)({value} != 0)"
    elif dtype.name == "float16":
        convert = f"__float2half_rn((float){value})"   # double -> float -> half, as c10::Half
    else:
        convert = f"({dst_t}){value}"
    text = (
        '#include <cuda_fp16.h>\n'
        f'extern "C" __global__ void cast(long long n, {dst_t}* out, const {src_t}* in) {{\n'
        "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)\n"
        f"    out[i] = {convert};\n}}\n")
    if not t.is_contiguous():
        from aten.native.cuda.copy import contiguous_cuda
        t = contiguous_cuda(t)
    grid, block = grid_for(t.numel())
    kernel_function(text, "cast")(np.int64(t.numel()), np.uintp(out.data_ptr()), np.uintp(t.data_ptr()), grid=grid, block=block)
    return out


def launch(source: str, cname: str, tensors: tuple[Any, ...], scalars: tuple[Any, ...], scalar_names: tuple[str, ...],
           promote: str, dtypes: tuple[str, ...], bool_inputs: tuple[tuple[str, str], ...] = (),
           into: Any = None) -> Any:
    """The op's result as a new tensor, or written into `into` (an in-place or out= target) and
    `into` returned, when that is safe: it has the result's shape and dtype, is contiguous, and
    every operand is either it or memory apart from it. Otherwise the new tensor, for write_into."""
    c10_cuda.lazy_init()
    is_bool = [t.dtype.name == "bool" for t in tensors]
    for when, message in bool_inputs:
        if (all if when == "all" else any)(is_bool):
            raise RuntimeError(message)
    compute = pointwise_meta.result_type_of(*tensors)
    if promote == "int_to_float" and not compute.is_floating_point:
        compute = scalar_type.get_default_dtype()
    out_dtype = scalar_type.dtype_from_name("bool") if promote == "always_bool" else compute
    if compute.name not in dtypes:
        raise RuntimeError(f'"{cname}_cuda" not implemented for \'{compute.type_name}\'')
    if compute.is_floating_point is False:
        for name, value in zip(scalar_names, scalars):
            if isinstance(value, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")
    device = next(t.device for t in tensors if t.is_cuda)
    for t in tensors:
        # As PyTorch: CPU operands are allowed only as scalars (0-dim, e.g. wrapped Python numbers).
        if not t.is_cuda and t.dim() != 0:
            raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                               f"{device} and cpu!")
    shape = pointwise_meta.broadcast_shapes(*tensors)
    operands = [to_device(t, compute) for t in tensors]
    if into is not None and _can_write_into(into, shape, out_dtype, operands):
        out = into
    else:
        out = tensor_impl.empty(shape, out_dtype, device)
    n = out.numel()
    if n == 0:
        return out
    # float16 kernels take their scalars as float (the dtype they compute in).
    scalar_type_ = np.float32 if compute.name == "float16" else compute.numpy_dtype.type
    c_scalars = [scalar_type_(v) for v in scalars]
    grid, block = grid_for(n)
    # the arguments: n, (the strided kernels: meta,) out and the inputs as pointers, then the scalars
    pointers = "P" * (len(operands) + 1)
    scalar_format = np.dtype(scalar_type_).char * len(scalars)
    if all(t._sizes() == shape and t.is_contiguous() for t in operands):
        prepared_kernel(source, f"{cname}_{compute.name}", "q" + pointers + scalar_format).prepared_call(
            grid, block, n, out.data_ptr(), *[t.data_ptr() for t in operands], *c_scalars)
        return out
    nd = len(shape)
    meta = [nd, *shape, *[s * out.element_size() for s in out.stride()]]
    for t in operands:
        pad = nd - t.dim()
        strides = [0] * pad + [0 if size == 1 and full != 1 else st * t.element_size()
                               for size, st, full in zip(t._sizes(), t.stride(), shape[pad:])]
        meta += strides
    meta_dev = device_meta(meta)
    prepared_kernel(source, f"{cname}_{compute.name}_strided", "qP" + pointers + scalar_format).prepared_call(
        grid, block, n, int(meta_dev), out.data_ptr(), *[t.data_ptr() for t in operands], *c_scalars)
    return out


def _can_write_into(target: Any, shape: tuple[int, ...], dtype: Any, operands: list[Any]) -> bool:
    """Whether a pointwise kernel may write its result straight into target: each element is read
    and written by one thread, so an operand may be target itself but must not overlap it otherwise."""
    if not (target.is_cuda and target.dtype is dtype and target._sizes() == shape and target.is_contiguous()):
        return False
    start, end = byte_extent(target)
    for t in operands:
        if t.data_ptr() == start and t._sizes() == shape and t.is_contiguous():
            continue
        t_start, t_end = byte_extent(t)
        if t_start <= end and start <= t_end:
            return False
    return True


def byte_extent(t: Any) -> tuple[int, int]:
    """The first and last device addresses a view can touch (both inclusive)."""
    span = sum((size - 1) * stride for size, stride in zip(t.shape, t.stride()) if size > 0)
    return t.data_ptr(), t.data_ptr() + (span + 1) * t.element_size() - 1


def write_into(target: Any, result: Any, inplace: bool) -> Any:
    """An in-place (inplace) or out= variant: the functional result written into target, with
    PyTorch's checks: the result's dtype must cast to target's, and an in-place target must have
    the broadcast shape (an out= one is resized to it). A result that is target (launch wrote it
    there) only counts as a new version."""
    if result is target:
        target._bump_version()
        return target
    if not target.is_cuda:      # an out= tensor on the CPU (in-place ones are refused by launch)
        raise RuntimeError("Expected all tensors to be on the same device, but found at least two devices, "
                           f"cpu and {result.device}!")
    if not scalar_type.can_cast(result.dtype, target.dtype):
        raise RuntimeError(f"result type {result.dtype.type_name} can't be cast to the desired output type "
                           f"{target.dtype.type_name}")
    if tuple(target.shape) != tuple(result.shape):
        if inplace:
            raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the broadcast shape "
                               f"{list(result.shape)}")
        target.resize_(tuple(result.shape))
    from aten.native.cuda.copy import copy_cuda
    return copy_cuda(target, result)


_HALF = scalar_type.dtype_from_name("float16")
_FLOAT = scalar_type.dtype_from_name("float32")


def float16_via_float32(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for a CUDA kernel without float16 code (GEMM, reductions, softmax, norms, pools,
    convolution): a call whose floating tensors are all float16 runs on float32 copies, and its
    float32 results round to float16, as PyTorch's CUDA kernels compute half in float (opmath).
    A dtype argument of float16 becomes float32 for the call (whatever the inputs), the results
    rounding to float16; one naming another dtype keeps the results as they come. Only for
    functional kernels: nothing is written back."""
    def floating(v: Any) -> list[Any]:
        if isinstance(v, (tuple, list)):
            return [t for item in v for t in floating(item)]
        return [v] if hasattr(v, "is_cuda") and v.dtype.is_floating_point else []

    def widen(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return type(v)(widen(item) for item in v)
        if v is _HALF:
            return _FLOAT
        # CPU operands stay as they are, for the kernel's own device check
        return to_device(v, _FLOAT) if hasattr(v, "is_cuda") and v.is_cuda and v.dtype is _HALF else v

    def narrow(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return type(v)(narrow(item) for item in v)
        return to_device(v, _HALF) if hasattr(v, "is_cuda") and v.dtype is _FLOAT else v

    def run(*args: Any, **kwargs: Any) -> Any:
        values = list(args) + list(kwargs.values())
        tensors = floating(values)
        asks_half = any(v is _HALF for v in values)
        if not asks_half and (not tensors or any(t.dtype is not _HALF for t in tensors)):
            return kernel(*args, **kwargs)
        keep = any(isinstance(v, scalar_type.dtype) and v is not _HALF for v in values)
        result = kernel(*widen(args), **{k: widen(v) for k, v in kwargs.items()})
        return result if keep else narrow(result)

    run.__name__ = getattr(kernel, "__name__", "kernel")
    run.__doc__ = kernel.__doc__
    run.__wrapped__ = kernel        # type: ignore[attr-defined]
    return run
