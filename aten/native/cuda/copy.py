"""aten::copy_ on CUDA (clone and contiguous go through it): a broadcast scalar (fill_, zeros, ones,
full), or an element-wise copy between any two views, converting the dtype on the device (the
runtime's transfers: aten/native/cuda/runtime/transfer.py)."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.launch import byte_extent
from aten.native.cuda.runtime.transfer import (SMALL_CONSTANT, cast_into, constant_on_device, contiguous_cuda,
                                               fill_contiguous, scalar_on_device, strided_copy, to_device)
from c10 import cuda as c10_cuda


def copy_cuda(self: Any, src: Any, non_blocking: bool = False) -> Any:
    n = self.numel()
    if n == 0:
        return self
    if not self.is_cuda:
        _copy_to_host(self, src)
    elif not src.is_cuda and src.numel() == 1 and tuple(self.shape) != tuple(src.shape) and self.is_contiguous():
        fill_contiguous(self, src.item())
    else:
        source = src.expand(tuple(self.shape)) if tuple(self.shape) != tuple(src.shape) else src
        if source.is_cuda and source.dtype is self.dtype:
            strided_copy(self, source)
        elif source is src and src.is_cuda and self.is_contiguous() and src.is_contiguous() and _apart(self, src):
            cast_into(self, src)        # .to(dtype), .float() ...: converted straight into self
        elif not src.is_cuda and src.dim() == 0:
            # a number from the host, converted on the device once per value and kept: no host copy
            strided_copy(self, scalar_on_device(src, self.dtype).expand(tuple(self.shape)))
        elif not src.is_cuda and src.numel() * src.element_size() <= SMALL_CONSTANT:
            # a few values from the host (an arange, a mask), kept likewise by their contents
            strided_copy(self, constant_on_device(src, self.dtype).expand(tuple(self.shape)))
        elif src.is_cuda:
            # another dtype: src's own elements converted, then broadcast as they are placed
            strided_copy(self, to_device(src, self.dtype).expand(tuple(self.shape)))
        else:
            # from the host: uploaded contiguous, converted on the device, then placed
            strided_copy(self, to_device(_host_contiguous(source), self.dtype))
    self._bump_version()
    return self


def _apart(a: Any, b: Any) -> bool:
    (a0, a1), (b0, b1) = byte_extent(a), byte_extent(b)
    return a1 < b0 or b1 < a0


def _copy_to_host(dst: Any, src: Any) -> None:
    """A CPU dst written from a CUDA src: src broadcast, made contiguous and converted to dst's
    dtype on the device, then one device-to-host copy (through a buffer when dst is a view)."""
    source = src.expand(tuple(dst.shape)) if tuple(dst.shape) != tuple(src.shape) else src
    on_device = to_device(contiguous_cuda(source), dst.dtype)
    host = dst._numpy_view(raw=True)
    buffer = host if host.flags.c_contiguous else np.empty(host.shape, dtype=host.dtype)
    c10_cuda.copy_to_host(buffer, on_device.data_ptr())     # errors kernels found are raised there
    if buffer is not host:
        host[...] = buffer


def _host_contiguous(t: Any) -> Any:
    """A CPU tensor as is (to_device copies it out contiguously); a CUDA one made contiguous."""
    return contiguous_cuda(t) if t.is_cuda else t
