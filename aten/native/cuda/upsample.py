"""The upsampling ops on CUDA (nearest, nearest-exact, linear, bilinear, bicubic, trilinear):
kernels/upsample.cu applies the taps of aten/native/meta/upsample_taps one axis at a time, the last
first, as the CPU kernel does, with the CPU kernel's checks and messages."""
from __future__ import annotations

from typing import Any

import numpy as np

from aten.native.cuda.runtime.compiler import kernel_function
from aten.native.cuda.runtime.launch import grid_for
from aten.native.cuda.runtime.transfer import contiguous_cuda
from aten.native.meta import upsample_taps
from c10 import cuda as c10_cuda
from c10 import tensor_impl

_NEAREST_1D_3D = "compute_indices_weights_nearest"
_LINEAR = "compute_indices_weights_linear"


def _taps(mode: str, in_size: int, out_size: int, scale: Any, align_corners: bool,
          double_precision: bool) -> tuple[list[list[int]], list[list[float]] | None]:
    if mode in ("nearest", "nearest-exact"):
        return [upsample_taps.nearest(in_size, out_size, scale, mode == "nearest-exact")], None
    taps = upsample_taps.cubic if mode == "cubic" else upsample_taps.linear
    return taps(in_size, out_size, scale, align_corners, double_precision)


def _upsample(self: Any, mode: str, spatial: int, output_size: Any, align_corners: bool, scales: tuple[Any, ...],
              dispatch_name: str) -> Any:
    sizes = tuple(self.shape)
    output_size = upsample_taps.check_upsample(sizes, output_size, spatial)
    name = self.dtype.name
    if name not in ("float32", "float64") and not (name == "uint8" and mode.startswith("nearest")):
        if name == "uint8":
            raise NotImplementedError(f"{mode} upsampling of uint8 (Byte) tensors is not supported by Ember yet")
        raise NotImplementedError(f'"{dispatch_name}" not implemented for \'{self.dtype.type_name}\'')
    x = contiguous_cuda(self)
    if x.numel() == 0:
        return tensor_impl.empty(sizes[:2] + output_size, self.dtype, self.device)
    drv = c10_cuda.lazy_init().drv
    fn = kernel_function("kernels/upsample.cu", f"resample_axis_{name}")
    shape = list(sizes)
    for k in reversed(range(spatial)):
        axis = 2 + k
        in_size, out_size = shape[axis], output_size[k]
        indices, weights = _taps(mode, in_size, out_size, scales[k], align_corners, name == "float64")
        # (out_size, taps) row-major, as the kernel reads them
        index_dev = drv.to_device(np.ascontiguousarray(np.array(indices, dtype=np.int64).T))
        weight_dev = None if weights is None else drv.to_device(
            np.ascontiguousarray(np.array(weights, dtype=self.dtype.numpy_dtype).T))
        shape[axis] = out_size
        out = tensor_impl.empty(tuple(shape), self.dtype, self.device)
        outer = int(np.prod(shape[:axis]))
        inner = int(np.prod(shape[axis + 1:]))
        grid, block = grid_for(outer * out_size * inner)
        fn(np.int64(outer), np.int64(in_size), np.int64(out_size), np.int64(inner), np.int32(len(indices)),
           np.uintp(x.data_ptr()), index_dev, np.uintp(0) if weight_dev is None else weight_dev,
           np.uintp(out.data_ptr()), grid=grid, block=block)
        x = out
    return x


def upsample_nearest1d_cuda(self: Any, output_size: Any, scales: Any = None) -> Any:
    return _upsample(self, "nearest", 1, output_size, False, (scales,), _NEAREST_1D_3D)


def upsample_nearest2d_cuda(self: Any, output_size: Any, scales_h: Any = None, scales_w: Any = None) -> Any:
    return _upsample(self, "nearest", 2, output_size, False, (scales_h, scales_w), "upsample_nearest2d_channels_last")


def upsample_nearest3d_cuda(self: Any, output_size: Any, scales_d: Any = None, scales_h: Any = None,
                            scales_w: Any = None) -> Any:
    return _upsample(self, "nearest", 3, output_size, False, (scales_d, scales_h, scales_w), _NEAREST_1D_3D)


def upsample_nearest_exact1d_cuda(self: Any, output_size: Any, scales: Any = None) -> Any:
    return _upsample(self, "nearest-exact", 1, output_size, False, (scales,), _NEAREST_1D_3D)


def upsample_nearest_exact2d_cuda(self: Any, output_size: Any, scales_h: Any = None, scales_w: Any = None) -> Any:
    return _upsample(self, "nearest-exact", 2, output_size, False, (scales_h, scales_w),
                     "upsample_nearest2d_channels_last")


def upsample_nearest_exact3d_cuda(self: Any, output_size: Any, scales_d: Any = None, scales_h: Any = None,
                                  scales_w: Any = None) -> Any:
    return _upsample(self, "nearest-exact", 3, output_size, False, (scales_d, scales_h, scales_w), _NEAREST_1D_3D)


def upsample_linear1d_cuda(self: Any, output_size: Any, align_corners: bool, scales: Any = None) -> Any:
    return _upsample(self, "linear", 1, output_size, align_corners, (scales,), _LINEAR)


def upsample_bilinear2d_cuda(self: Any, output_size: Any, align_corners: bool, scales_h: Any = None,
                             scales_w: Any = None) -> Any:
    return _upsample(self, "linear", 2, output_size, align_corners, (scales_h, scales_w),
                     "upsample_bilinear2d_channels_last")


def upsample_trilinear3d_cuda(self: Any, output_size: Any, align_corners: bool, scales_d: Any = None,
                              scales_h: Any = None, scales_w: Any = None) -> Any:
    return _upsample(self, "linear", 3, output_size, align_corners, (scales_d, scales_h, scales_w), _LINEAR)


def upsample_bicubic2d_cuda(self: Any, output_size: Any, align_corners: bool, scales_h: Any = None,
                            scales_w: Any = None) -> Any:
    return _upsample(self, "cubic", 2, output_size, align_corners, (scales_h, scales_w),
                     "compute_indices_weights_cubic")
