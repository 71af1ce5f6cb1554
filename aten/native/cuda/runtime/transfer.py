"""Data movement on the device that every CUDA kernel builds on: a strided copy between any two
views (kernels/copy.cu), a contiguous copy, a dtype conversion or an upload from the host, and a
fill with one value (both _gen_cast.cu, generated from the dtype table)."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import byte_extent, device_meta, grid_for
from c10 import cuda as c10_cuda
from c10 import tensor_impl
from c10.device import canonical
from c10.scalar_type import opmath_dtype


def strided_copy(dst: Any, src: Any) -> None:
    """dst[...] = src[...] element by element for two CUDA views of one shape and dtype. Views of
    the same memory: the same view is nothing to do; contiguous ones overlapping in part are
    PyTorch's error; other overlapping ones go through a temporary copy of src."""
    n = dst.numel()
    if n == 0:
        return
    state = c10_cuda.lazy_init()
    (d0, d1), (s0, s1) = byte_extent(dst), byte_extent(src)
    if d0 <= s1 and s0 <= d1:
        if d0 == s0 and dst.stride() == src.stride():
            return
        if dst.is_contiguous() and src.is_contiguous():
            raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor "
                               "refer to a single memory location. Please clone() the tensor before performing "
                               "the operation.")
        temp = tensor_impl.empty(tuple(src.shape), src.dtype, src.device)
        strided_copy(temp, src)
        src = temp
    if dst.is_contiguous() and src.is_contiguous():
        state.drv.memcpy_dtod(dst.data_ptr(), src.data_ptr(), n * dst.element_size())
        return
    shape = tuple(dst.shape)
    meta = device_meta([len(shape), *shape, *dst.stride(), *src.stride()])
    grid, block = grid_for(n)
    launch_kernel("kernels/copy.cu", f"strided_copy_{dst.element_size()}", grid, block, np.int64(n),
                  np.uintp(int(meta)), np.uintp(dst.data_ptr()), np.uintp(src.data_ptr()))


def contiguous_cuda(t: Any) -> Any:
    """t itself when contiguous, else a contiguous copy."""
    if t.is_contiguous():
        return t
    out = tensor_impl.empty(tuple(t.shape), t.dtype, t.device)
    strided_copy(out, t)
    return out


def to_device(t: Any, dtype: Any) -> Any:
    """t on the GPU as dtype: a CPU tensor is uploaded, another dtype converted there."""
    if t.is_cuda and t.dtype is dtype:
        return t
    if not t.is_cuda:
        # the bits uploaded as they are, then converted on the device by the generated casts
        host = np.ascontiguousarray(t._numpy_view(raw=True))
        out = tensor_impl.empty(t._sizes(), t.dtype, canonical("cuda"))
        c10_cuda.lazy_init().drv.memcpy_htod(out.data_ptr(), host)
        return to_device(out, dtype)
    out = tensor_impl.empty(t._sizes(), dtype, t.device)
    cast_into(out, contiguous_cuda(t))
    return out


def cast_into(out: Any, t: Any) -> None:
    """out[...] = t converted to out's dtype, for two contiguous CUDA tensors of one size apart in
    memory (the generated casts)."""
    n = t.numel()
    if n:
        grid, block = grid_for(n)
        launch_kernel("_gen_cast.cu", f"cast_{t.dtype.name}_to_{out.dtype.name}", grid, block, np.int64(n),
                      np.uintp(out.data_ptr()), np.uintp(t.data_ptr()))


_kept: dict[tuple[Any, ...], Any] = {}
_MAX_KEPT = 1024
SMALL_CONSTANT = 1024       # bytes: host tensors up to this size are kept on the device by their contents
c10_cuda.at_shutdown(_kept.clear)


def scalar_on_device(t: Any, dtype: Any) -> Any:
    """A 0-dim CPU tensor (a wrapped Python number, say) as a 0-dim CUDA tensor of dtype, uploaded
    and converted once per distinct value and kept: kernels only read it, and a launch taking a
    number seen before copies nothing from the host (a copy that would wait for the device)."""
    value = t.item()
    if isinstance(value, complex) or value != value or value == 0:
        # keyed by the bits where values compare equal across bits (-0.0, 0.0) or never (NaN)
        return _kept_on_device((t.dtype, dtype, np.ascontiguousarray(t._numpy_view(raw=True)).tobytes()), t, dtype)
    return _kept_on_device((t.dtype, dtype, value), t, dtype)


def constant_on_device(t: Any, dtype: Any) -> Any:
    """A small CPU tensor (at most SMALL_CONSTANT bytes: an arange, a mask, an index list) as a
    contiguous CUDA tensor of dtype, kept by its contents as scalar_on_device keeps numbers: only
    read, never written, so copies of the same values into fresh tensors wait for nothing."""
    host = np.ascontiguousarray(t._numpy_view(raw=True))
    return _kept_on_device((t.dtype, dtype, t._sizes(), host.tobytes()), t, dtype)


def _kept_on_device(key: tuple[Any, ...], t: Any, dtype: Any) -> Any:
    found = _kept.get(key)
    if found is None:
        if len(_kept) >= _MAX_KEPT:
            _kept.clear()     # tensors still in use stay alive through their users
        found = _kept[key] = to_device(t, dtype)
    return found


def complex_parts(value: Any, dtype: Any) -> tuple[Any, Any]:
    """A Python number as a complex kernel argument of dtype takes it: its real and imaginary parts,
    of the dtype's component type (PyCUDA packs no complex numbers)."""
    part = dtype.to_real().numpy_dtype.type
    z = complex(value)
    return part(z.real), part(z.imag)


def fill_contiguous(t: Any, value: Any) -> None:
    """Every element of a contiguous CUDA tensor set to value (a Python number)."""
    name = t.dtype.name
    # PyCUDA packs neither numpy bools nor the floats NumPy lacks: bool goes as a byte, float16,
    # bfloat16 and float8 as a float rounded on the device (_gen_cast.cu's fill kernels)
    args: tuple[Any, ...]
    if isinstance(value, complex) and not t.dtype.is_complex:   # its imaginary part is 0 (fill_ checked)
        value = value.real
    if t.dtype.is_complex:
        args = complex_parts(value, t.dtype)
    elif t.dtype.is_floating_point and (opmath_dtype(t.dtype) is not t.dtype or t.dtype.numpy_dtype is None):
        args = (np.float32(value),)
    elif name == "bool":
        args = (np.uint8(bool(value)),)
    else:       # through an array: out-of-range integers wrap as PyTorch's C conversion does
        args = (np.array(value).astype(t.dtype.numpy_dtype)[()],)
    n = t.numel()
    grid, block = grid_for(n)
    launch_kernel("_gen_cast.cu", f"fill_{name}", grid, block, np.int64(n), np.uintp(t.data_ptr()), *args)
