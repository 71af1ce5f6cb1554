"""The upsampling kernels on the CPU (N, C, [D, H,] W): nearest, nearest-exact, linear, bilinear,
bicubic and trilinear.

The taps (source indices and weights per output index, aten/native/meta/upsample_taps) are computed
once per axis; the output is then built one axis at a time, the last first, each step a weighted sum
of gathers in the opmath type: out = (x[i0] * w0 + x[i1] * w1 ...) along W, then the same along H
and D, the order and roundings of PyTorch's generic kernel (UpSampleKernel.cpp, Interpolate).
"""
import numpy as np

from c10.scalar_type cimport ST_FLOAT32, ST_FLOAT64, ST_UINT8
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport np_view, new_tensor
from aten.native.meta.messages cimport shape_of, type_name
from aten.native.meta import upsample_taps


cdef object _resample(object x, int axis, list indices, object weights, object ftype):
    """sum over taps of x gathered along axis at indices[t], times weights[t] (broadcast along axis)."""
    if weights is None:
        return np.take(x, indices[0], axis=axis)
    shape = [1] * x.ndim
    shape[axis] = len(indices[0])
    out = None
    for idx, w in zip(indices, weights):
        term = np.take(x, idx, axis=axis) * np.asarray(w, dtype=ftype).reshape(shape)
        if out is None:
            out = term
        else:
            out += term
    return out


cdef TensorImpl _upsample(TensorImpl self, str mode, int spatial, object output_size, bint align_corners,
                          tuple scales, str dispatch_name):
    sizes = shape_of(self)
    output_size = upsample_taps.check_upsample(sizes, output_size, spatial)
    st = self.scalar_type
    if not (st == ST_FLOAT32 or st == ST_FLOAT64 or (st == ST_UINT8 and mode.startswith("nearest"))):
        if st == ST_UINT8:      # PyTorch's uint8 bilinear/bicubic is a fixed-point kernel Ember lacks
            raise NotImplementedError(f"{mode} upsampling of uint8 (Byte) tensors is not supported by Ember yet")
        raise NotImplementedError(f'"{dispatch_name}" not implemented for \'{type_name(st)}\'')
    cdef TensorImpl out = new_tensor(sizes[:2] + output_size, st)
    if out.n_elem == 0:
        return out
    double_precision = st == ST_FLOAT64
    ftype = np.float64 if double_precision else np.float32
    x = np_view(self)
    for k in reversed(range(spatial)):
        in_size, out_size, scale = sizes[2 + k], output_size[k], scales[k]
        if mode == "nearest" or mode == "nearest-exact":
            x = _resample(x, 2 + k, [upsample_taps.nearest(in_size, out_size, scale, mode == "nearest-exact")], None,
                          ftype)
            continue
        taps = upsample_taps.cubic if mode == "cubic" else upsample_taps.linear
        indices, weights = taps(in_size, out_size, scale, align_corners, double_precision)
        x = _resample(x.astype(ftype, copy=False), 2 + k, indices, weights, ftype)
    np.copyto(np_view(out), x, casting="unsafe")
    return out


_NEAREST_1D_3D = "compute_indices_weights_nearest"
_LINEAR = "compute_indices_weights_linear"


def upsample_nearest1d_cpu(TensorImpl self not None, output_size, scales=None):
    return _upsample(self, "nearest", 1, output_size, False, (scales,), _NEAREST_1D_3D)


def upsample_nearest2d_cpu(TensorImpl self not None, output_size, scales_h=None, scales_w=None):
    return _upsample(self, "nearest", 2, output_size, False, (scales_h, scales_w), "upsample_nearest2d_channels_last")


def upsample_nearest3d_cpu(TensorImpl self not None, output_size, scales_d=None, scales_h=None, scales_w=None):
    return _upsample(self, "nearest", 3, output_size, False, (scales_d, scales_h, scales_w), _NEAREST_1D_3D)


def upsample_nearest_exact1d_cpu(TensorImpl self not None, output_size, scales=None):
    return _upsample(self, "nearest-exact", 1, output_size, False, (scales,), _NEAREST_1D_3D)


def upsample_nearest_exact2d_cpu(TensorImpl self not None, output_size, scales_h=None, scales_w=None):
    return _upsample(self, "nearest-exact", 2, output_size, False, (scales_h, scales_w),
                     "upsample_nearest2d_channels_last")


def upsample_nearest_exact3d_cpu(TensorImpl self not None, output_size, scales_d=None, scales_h=None, scales_w=None):
    return _upsample(self, "nearest-exact", 3, output_size, False, (scales_d, scales_h, scales_w), _NEAREST_1D_3D)


def upsample_linear1d_cpu(TensorImpl self not None, output_size, bint align_corners, scales=None):
    return _upsample(self, "linear", 1, output_size, align_corners, (scales,), _LINEAR)


def upsample_bilinear2d_cpu(TensorImpl self not None, output_size, bint align_corners, scales_h=None, scales_w=None):
    return _upsample(self, "linear", 2, output_size, align_corners, (scales_h, scales_w),
                     "upsample_bilinear2d_channels_last")


def upsample_trilinear3d_cpu(TensorImpl self not None, output_size, bint align_corners, scales_d=None, scales_h=None,
                             scales_w=None):
    return _upsample(self, "linear", 3, output_size, align_corners, (scales_d, scales_h, scales_w), _LINEAR)


def upsample_bicubic2d_cpu(TensorImpl self not None, output_size, bint align_corners, scales_h=None, scales_w=None):
    return _upsample(self, "cubic", 2, output_size, align_corners, (scales_h, scales_w), "compute_indices_weights_cubic")
