"""aten::copy_ on CUDA (clone and contiguous go through it): a broadcast scalar (fill_, zeros, ones, full), or an element-wise
copy between any two views (kernels/copy.cu's strided copy), converting the dtype on the device."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.pointwise import CUDA_TYPES, byte_extent, device_meta, grid_for, kernel_function, to_device
from c10 import cuda as c10_cuda
from c10 import tensor_impl


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
        state["drv"].memcpy_dtod(dst.data_ptr(), src.data_ptr(), n * dst.element_size())
        return
    shape = tuple(dst.shape)
    meta = device_meta([len(shape), *shape, *dst.stride(), *src.stride()])
    fn = kernel_function("kernels/copy.cu", f"strided_copy_{dst.element_size()}")
    grid, block = grid_for(n)
    fn(np.int64(n), meta, np.uintp(dst.data_ptr()), np.uintp(src.data_ptr()), grid=grid, block=block)


def contiguous_cuda(t: Any) -> Any:
    """t itself when contiguous, else a contiguous copy."""
    if t.is_contiguous():
        return t
    out = tensor_impl.empty(tuple(t.shape), t.dtype, t.device)
    strided_copy(out, t)
    return out


def copy_cuda(self: Any, src: Any, non_blocking: bool = False) -> Any:
    n = self.numel()
    if n == 0:
        return self
    if not self.is_cuda:
        _copy_to_host(self, src)
    elif src.numel() == 1 and tuple(self.shape) != tuple(src.shape) and self.is_contiguous():
        value = src.item()
        ctype = CUDA_TYPES[self.dtype.name]
        # PyCUDA packs neither numpy bools nor halves: bool goes as a byte, float16 as a float
        # rounded to half on the device
        arg: Any
        if self.dtype.name == "float16":
            arg_type, arg, store = "float", np.float32(value), "__float2half_rn(v)"
        elif self.dtype.name == "bool":
            arg_type, arg, store = "unsigned char", np.uint8(bool(value)), "v"
        else:
            arg_type, arg, store = ctype, self.dtype.numpy_dtype.type(value), "v"
        text = (
            '#include <cuda_fp16.h>\n'
            f'extern "C" __global__ void fill(long long n, {ctype}* out, {arg_type} v) {{\n'
            "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)\n"
            f"    out[i] = {store};\n}}\n")
        grid, block = grid_for(n)
        kernel_function(text, "fill")(np.int64(n), np.uintp(self.data_ptr()), arg, grid=grid, block=block)
    else:
        source = src.expand(tuple(self.shape)) if tuple(self.shape) != tuple(src.shape) else src
        if source.is_cuda and source.dtype is self.dtype:
            strided_copy(self, source)
        else:
            # to another dtype or from the host: made contiguous on the device first, then placed
            strided_copy(self, to_device(_host_contiguous(source), self.dtype))
    self._bump_version()
    return self


def _copy_to_host(dst: Any, src: Any) -> None:
    """A CPU dst written from a CUDA src: src broadcast, made contiguous and converted to dst's
    dtype on the device, then one device-to-host copy (through a buffer when dst is a view)."""
    source = src.expand(tuple(dst.shape)) if tuple(dst.shape) != tuple(src.shape) else src
    on_device = to_device(contiguous_cuda(source), dst.dtype)
    host = dst._numpy_view()
    buffer = host if host.flags.c_contiguous else np.empty(host.shape, dtype=host.dtype)
    c10_cuda.lazy_init()["drv"].memcpy_dtoh(buffer, on_device.data_ptr())
    if buffer is not host:
        host[...] = buffer


def _host_contiguous(t: Any) -> Any:
    """A CPU tensor as is (to_device copies it out contiguously); a CUDA one made contiguous."""
    return contiguous_cuda(t) if t.is_cuda else t
