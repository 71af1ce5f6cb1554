"""convolution (1-, 2- and 3-D), max_pool2d_with_indices, avg_pool2d and adaptive average pooling on CUDA:
kernels/conv.cu (convolutions as im2col + GEMM, transposed ones as GEMM + col2im, with gemm.cu;
pools one thread per output element); the argument checks and output shapes are the
device-neutral ones the CPU kernels use too (aten/native/meta: conv_geometry.convolution_params,
pool_geometry's *_geometry), so errors read the same on both devices. The pools' backward passes are composites over convolution and matmul."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.copy import copy_cuda
from aten.native.cuda.linalg import _same_device, gemm
from aten.native.cuda.runtime.compiler import launch_kernel
from aten.native.cuda.runtime.launch import grid_for
from aten.native.cuda.runtime.transfer import contiguous_cuda
from aten.native.meta.conv_geometry import convolution_params, transposed_output_sizes
from aten.native.meta.pool_geometry import adaptive_avg_pool2d_geometry, avg_pool2d_geometry, max_pool2d_geometry
from aten.native.meta.views import as_strided
from c10 import scalar_type, tensor_impl

_INT64 = scalar_type.dtype_from_name("int64")
_TYPES = ("float32", "float64")


def convolution_cuda(input: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any,
                     transposed: bool, output_padding: Any, groups: int) -> Any:
    _same_device(input, weight, *([bias] if bias is not None else []))
    stride, padding, dilation, output_padding = convolution_params(input, weight, bias, stride, padding, dilation,
                                                                   transposed, output_padding, groups)
    k = weight.dim() - 2
    if k > 3:
        raise RuntimeError("unsupported ConvNd parameters")
    if input.dtype.name not in _TYPES:
        raise NotImplementedError(f'"conv_cuda" not implemented for \'{input.dtype.type_name}\'')
    # as volumes: a 2-D convolution over a depth of 1, a 1-D one over a depth and height of 1
    lift = 3 - k
    stride, dilation = (1,) * lift + tuple(stride), (1,) * lift + tuple(dilation)
    padding, output_padding = (0,) * lift + tuple(padding), (0,) * lift + tuple(output_padding)
    x = contiguous_cuda(input)
    n, c = x.shape[0], x.shape[1]
    sizes = (1,) * lift + tuple(x.shape[2:])
    kernel = (1,) * lift + tuple(weight.shape[2:])
    if transposed:
        o = weight.shape[1] * groups
        outs = (1,) * lift + transposed_output_sizes(sizes[lift:], kernel[lift:], stride[lift:], padding[lift:],
                                                     dilation[lift:], output_padding[lift:])
    else:
        o = weight.shape[0]
        outs = tuple((sizes[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1
                     for d in range(3))
    out = tensor_impl.empty((n, o) + outs[lift:], input.dtype, input.device)
    if out.numel() == 0:
        return out
    geometry = (*kernel, *stride, *padding, *dilation)
    wt = contiguous_cuda(weight)
    b = contiguous_cuda(bias) if bias is not None else None
    if transposed:
        _transposed(x, wt, b, out, groups, (n, c, *sizes, o, *outs), geometry)
    else:
        _im2col_gemm(x, wt, b, out, groups, (n, c, *sizes, o, *outs), geometry)
    return out


def _view(t: Any, sizes: tuple[int, ...], strides: tuple[int, ...], offset: int = 0) -> Any:
    """A view of t's storage at t's own offset plus offset (elements)."""
    return as_strided(t, sizes, strides, t.storage_offset() + offset)


_COLS_LIMIT = 1 << 26      # elements of im2col's buffer at once; larger batches go in chunks


def _im2col_gemm(x: Any, wt: Any, b: Any, out: Any, groups: int, shape: tuple[int, ...],
                 geometry: tuple[int, ...]) -> None:
    """out (N, O, L) = W (O, C*KK) @ cols (N, C*KK, L) per group, the bias in the GEMM's epilogue;
    cols for as many samples at a time as fit _COLS_LIMIT."""
    n, c, d, h, w, o, do, ho, wo = shape
    kk, length = geometry[0] * geometry[1] * geometry[2], do * ho * wo
    cg, og = c // groups, o // groups
    chunk = max(1, min(n, _COLS_LIMIT // max(c * kk * length, 1)))
    cols = tensor_impl.empty((chunk, c * kk, length), x.dtype, x.device)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        grid, block = grid_for(m * c * kk * length)
        launch_kernel("kernels/conv.cu", f"im2col_{x.dtype.name}", grid, block,
            *(np.int64(v) for v in (m, c, d, h, w, *geometry[:3], do, ho, wo, *geometry[3:])),
            np.uintp(x.data_ptr() + start * c * d * h * w * x.element_size()), np.uintp(cols.data_ptr()))
        for g in range(groups):
            a = _view(wt, (m, og, cg * kk), (0, cg * kk, 1), g * og * cg * kk)
            rows = _view(cols, (m, cg * kk, length), (c * kk * length, length, 1), g * cg * kk * length)
            bias = _view(b, (og, length), (1, 0), g * og) if b is not None else None
            target = _view(out, (m, og, length), (o * length, length, 1), (start * o + g * og) * length)
            if groups == 1:
                gemm(a, rows, m, 1, 1 if b is not None else 0, bias, out=target)
            else:
                copy_cuda(target, gemm(a, rows, m, 1, 1 if b is not None else 0, bias))


def _transposed(x: Any, wt: Any, b: Any, out: Any, groups: int, shape: tuple[int, ...],
                geometry: tuple[int, ...]) -> None:
    """Per group, cols (N, OG*KK, D*H*W) = W_g^T (OG*KK, C_g) @ x_g (C_g, D*H*W), then col2im into the
    group's output channels (with the bias)."""
    n, c, d, h, w, o, do, ho, wo = shape
    kk, plane = geometry[0] * geometry[1] * geometry[2], d * h * w
    cg, og = c // groups, o // groups
    grid, block = grid_for(n * og * do * ho * wo)
    for g in range(groups):
        weight_t = _view(wt, (n, og * kk, cg), (0, 1, og * kk), g * cg * og * kk)
        x_g = _view(x, (n, cg, plane), (c * plane, plane, 1), g * cg * plane)
        cols = gemm(weight_t, x_g, n)
        launch_kernel("kernels/conv.cu", f"col2im_{x.dtype.name}", grid, block,
            *(np.int64(v) for v in (n, og, o, g * og, d, h, w, *geometry[:3], do, ho, wo, *geometry[3:])),
            np.uintp(cols.data_ptr()), np.uintp(b.data_ptr() if b is not None else 0), np.uintp(out.data_ptr()))


def max_pool2d_with_indices_cuda(self: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
                                 ceil_mode: bool = False) -> Any:
    kh, kw, sh, sw, ph, pw, dh, dw, n, c, h, w, ho, wo = max_pool2d_geometry(self, kernel_size, stride, padding,
                                                                             dilation, ceil_mode)
    if self.dtype.name not in _TYPES:
        raise NotImplementedError(f'"max_pool2d" not implemented for \'{self.dtype.type_name}\'')
    shape = tuple(self.shape[:-2]) + (ho, wo)
    out = tensor_impl.empty(shape, self.dtype, self.device)
    indices = tensor_impl.empty(shape, _INT64, self.device)
    if out.numel() == 0:
        return out, indices
    x = contiguous_cuda(self)
    grid, block = grid_for(out.numel())
    launch_kernel("kernels/conv.cu", f"max_pool2d_{self.dtype.name}", grid, block,
        *(np.int64(v) for v in (n * c, h, w, ho, wo, kh, kw, sh, sw, ph, pw, dh, dw)), np.uintp(x.data_ptr()),
        np.uintp(out.data_ptr()), np.uintp(indices.data_ptr()))
    return out, indices


def avg_pool2d_cuda(self: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, ceil_mode: bool = False,
                    count_include_pad: bool = True, divisor_override: Any = None) -> Any:
    kh, kw, sh, sw, ph, pw, n, c, h, w, ho, wo = avg_pool2d_geometry(self, kernel_size, stride, padding, ceil_mode,
                                                                     divisor_override)
    if self.dtype.name not in _TYPES:
        raise NotImplementedError(f'"avg_pool2d_out_cuda_frame" not implemented for \'{self.dtype.type_name}\'')
    out = tensor_impl.empty(tuple(self.shape[:-2]) + (ho, wo), self.dtype, self.device)
    if out.numel() == 0:
        return out
    x = contiguous_cuda(self)
    grid, block = grid_for(out.numel())
    launch_kernel("kernels/conv.cu", f"avg_pool2d_{self.dtype.name}", grid, block,
        *(np.int64(v) for v in (n * c, h, w, ho, wo, kh, kw, sh, sw, ph, pw)), np.int32(bool(count_include_pad)),
        np.int64(divisor_override or 0), np.uintp(x.data_ptr()), np.uintp(out.data_ptr()))
    return out


def adaptive_avg_pool2d_cuda(self: Any, output_size: Any) -> Any:
    planes, h, w, ho, wo = adaptive_avg_pool2d_geometry(self, output_size)
    if self.dtype.name not in _TYPES:
        raise NotImplementedError(f'"adaptive_avg_pool2d_cuda" not implemented for \'{self.dtype.type_name}\'')
    out = tensor_impl.empty(tuple(self.shape[:-2]) + (ho, wo), self.dtype, self.device)
    if out.numel() == 0:
        return out
    x = contiguous_cuda(self)
    grid, block = grid_for(out.numel())
    launch_kernel("kernels/conv.cu", f"adaptive_avg_pool2d_{self.dtype.name}", grid, block,
        *(np.int64(v) for v in (planes, h, w, ho, wo)), np.uintp(x.data_ptr()), np.uintp(out.data_ptr()))
    return out
