"""Launch generated CUDA pointwise kernels (the _gen_*.cu beside this file, through the _gen_*.py
launchers torchgen writes).

The generated launchers apply the schema's dtype rules; the broadcast shape is the device-neutral
one (aten/native/meta); operands of another dtype, and CPU scalars (wrapped numbers), are converted
on the device first.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.copy import copy_cuda
from aten.native.cuda.runtime.compiler import prepared_kernel
from aten.native.cuda.runtime.contiguous_launch import contiguous_launch
from aten.native.cuda.runtime.launch import byte_extent, device_meta, grid_for
from aten.native.cuda.runtime.transfer import complex_parts, scalar_on_device, to_device
from aten.native.meta.errors import device_mismatch_error
from aten.native.meta.pointwise import broadcast_shapes
from c10 import cuda as c10_cuda
from c10 import scalar_type, tensor_impl
from c10.scalar_type import opmath_dtype


def launch(source: str, cname: str, tensors: tuple[Any, ...], scalars: tuple[Any, ...], compute: Any, out_dtype: Any,
           into: Any = None) -> Any:
    """The op's result, computed in dtype compute and stored as out_dtype (both decided by the
    generated launcher, from the schema's rules), as a new tensor, or written into `into` (an
    in-place or out= target) and `into` returned, when that is safe: it has the result's shape and
    dtype, is contiguous, and every operand is either it or memory apart from it. Otherwise the
    new tensor, for write_into."""
    c10_cuda.lazy_init()
    done = contiguous_launch(source, cname, tensors, scalars, compute, out_dtype, into, _kernel_for, scalar_on_device,
                             device_meta)
    if done is not None:
        return done
    device = None
    operands = []
    for t in tensors:
        if t.is_cuda:
            device = device or t.device
            operands.append(t if t.dtype is compute else to_device(t, compute))
        elif t.dim() != 0:
            # As PyTorch: CPU operands are allowed only as scalars (0-dim, e.g. wrapped Python numbers).
            raise device_mismatch_error(next(t.device for t in tensors if t.is_cuda), "cpu")
        else:
            operands.append(scalar_on_device(t, compute))
    shape = broadcast_shapes(*tensors)
    if into is not None and _can_write_into(into, shape, out_dtype, operands):
        out = into
    else:
        out = tensor_impl.empty(shape, out_dtype, device)
    n = out.numel()
    if n == 0:
        return out
    c_scalars, scalar_format = _kernel_scalars(scalars, compute)
    grid, block = grid_for(n)
    # the arguments: n, (the strided kernels: meta,) out and the inputs as pointers, then the scalars
    pointers = "P" * (len(operands) + 1)
    plain = True
    for t in operands:
        if t._sizes() != shape or not t.is_contiguous():
            plain = False
            break
    if plain:
        prepared_kernel(source, cname + _SUFFIX[compute], "q" + pointers + scalar_format).prepared_call(
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
    prepared_kernel(source, cname + _SUFFIX[compute] + "_strided", "qP" + pointers + scalar_format).prepared_call(
        grid, block, n, int(meta_dev), out.data_ptr(), *[t.data_ptr() for t in operands], *c_scalars)
    return out


def _kernel_for(source: str, cname: str, compute: Any, operands: int, scalars: int, strided: bool) -> tuple[Any, Any]:
    """contiguous_launch's kernel of dtype compute (the strided one, taking its shapes and strides
    first, or the contiguous one), prepared, and the type its (real) scalars are passed as."""
    scalar_type_, char = _SCALAR_KINDS[compute]
    pointers = "P" * (operands + 1) + char * scalars
    if strided:
        return prepared_kernel(source, cname + _SUFFIX[compute] + "_strided", "qP" + pointers), scalar_type_
    return prepared_kernel(source, cname + _SUFFIX[compute], "q" + pointers), scalar_type_


class _Suffixes(dict):     # type: ignore[type-arg]
    """A kernel's name after its op's: _<compute dtype>."""

    def __missing__(self, dtype: Any) -> str:
        self[dtype] = "_" + dtype.name
        return str(self[dtype])


_SUFFIX = _Suffixes()


class _ScalarKinds(dict):     # type: ignore[type-arg]
    """Per compute dtype: the type a real kernel takes its scalars as, and its struct format."""

    def __missing__(self, compute: Any) -> tuple[Any, str]:
        scalar_type_ = (opmath_dtype(compute).numpy_dtype or np.dtype(np.float32)).type
        self[compute] = found = (scalar_type_, np.dtype(scalar_type_).char)
        return found


_SCALAR_KINDS = _ScalarKinds()


def _kernel_scalars(scalars: tuple[Any, ...], compute: Any) -> tuple[list[Any], str]:
    """The scalars as the kernel of dtype compute takes them, and their struct format: float16,
    bfloat16 and float8 kernels take them as float (the dtype they compute in), complex ones as
    their two parts (PyCUDA packs no complex numbers)."""
    if not scalars:
        return [], ""
    if compute.is_complex:
        values = [p for v in scalars for p in complex_parts(v, compute)]
        return values, np.dtype(compute.to_real().numpy_dtype).char * len(values)
    scalar_type_, char = _SCALAR_KINDS[compute]
    return [scalar_type_(v) for v in scalars], char * len(scalars)


def _can_write_into(target: Any, shape: tuple[int, ...], dtype: Any, operands: list[Any]) -> bool:
    """Whether a pointwise kernel may write its result straight into target: each element is read
    and written by one thread, so an operand may be target itself but must not overlap it otherwise."""
    if not (target.is_cuda and target.dtype is dtype and target._sizes() == shape and target.is_contiguous()):
        return False
    start, end = byte_extent(target)
    for t in operands:
        same = t.data_ptr() == start and t._sizes() == shape and t.is_contiguous()
        if same and t.element_size() == target.element_size():
            continue
        t_start, t_end = byte_extent(t)
        if t_start <= end and start <= t_end:
            return False
    return True


def write_into(target: Any, result: Any, inplace: bool) -> Any:
    """An in-place (inplace) or out= variant: the functional result written into target, with
    PyTorch's checks: the result's dtype must cast to target's, and an in-place target must have
    the broadcast shape (an out= one is resized to it). A result that is target (launch wrote it
    there) only counts as a new version."""
    if result is target:
        target._bump_version()
        return target
    if not target.is_cuda:      # an out= tensor on the CPU (in-place ones are refused by launch)
        raise device_mismatch_error("cpu", result.device)
    if not scalar_type.can_cast(result.dtype, target.dtype):
        raise RuntimeError(f"result type {result.dtype.type_name} can't be cast to the desired output type "
                           f"{target.dtype.type_name}")
    if tuple(target.shape) != tuple(result.shape):
        if inplace:
            raise RuntimeError(f"output with shape {list(target.shape)} doesn't match the broadcast shape "
                               f"{list(result.shape)}")
        target.resize_(tuple(result.shape))
    return copy_cuda(target, result)
