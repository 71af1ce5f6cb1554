"""upsample_nearest2d and upsample_bilinear2d on CPU (NCHW).

Source indices and weights follow PyTorch's UpSample.h (nearest_idx; area_pixel_compute_scale
and area_pixel_compute_source_index, in the input's precision), computed once per output row
and column; the output is then a gather (nearest) or two weighted gathers per axis (bilinear)
on views of the input.
"""
import numpy as np

from c10.scalar_type cimport ST_FLOAT32, ST_FLOAT64
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport np_view, new_tensor
from aten.native.meta.messages cimport shape_of, type_name


cdef tuple _check(str op, TensorImpl self, object output_size):
    output_size = tuple(output_size)
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(output_size)}")
    if self.nd != 4:
        raise RuntimeError(f"It is expected input_size equals to 4, but got size {self.nd}")
    H, W = self.sizes[2], self.sizes[3]
    Ho, Wo = output_size
    if H <= 0 or W <= 0 or Ho <= 0 or Wo <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input (H: {H}, W: {W}) output "
                           f"(H: {Ho}, W: {Wo})")
    if self.scalar_type != ST_FLOAT32 and self.scalar_type != ST_FLOAT64:
        raise NotImplementedError(f'"{op}_channels_last" not implemented for \'{type_name(self.scalar_type)}\'')
    return (H, W, Ho, Wo)


cdef object _scale(object ftype, Py_ssize_t size, Py_ssize_t out, object scale, bint align_corners):
    if align_corners:
        return ftype(size - 1) / ftype(out - 1) if out > 1 else ftype(0)
    if scale is not None and scale > 0:
        return ftype(1.0) / ftype(scale)
    return ftype(size) / ftype(out)


def upsample_nearest2d_cpu(TensorImpl self not None, output_size, scales_h=None, scales_w=None):
    H, W, Ho, Wo = _check("upsample_nearest2d", self, output_size)
    cdef TensorImpl out = new_tensor(shape_of(self)[:2] + (Ho, Wo), self.scalar_type)
    if out.n_elem == 0:
        return out
    idx = []
    # PyTorch computes nearest indices in float (also for double tensors)
    for size, osize, scale in ((H, Ho, scales_h), (W, Wo, scales_w)):
        if osize == size:
            idx.append(np.arange(osize))
        elif osize == 2 * size:
            idx.append(np.arange(osize) >> 1)
        else:
            s = _scale(np.float32, size, osize, scale, False)
            idx.append(np.minimum(np.floor(np.arange(osize, dtype=np.float32) * s).astype(np.intp), size - 1))
    x = np_view(self)
    np.take(np.take(x, idx[0], axis=2, mode="clip"), idx[1], axis=3, out=np_view(out), mode="clip")
    return out


cdef tuple _linear_weights(Py_ssize_t size, Py_ssize_t osize, object scale, bint align_corners, object ftype):
    s = _scale(ftype, size, osize, scale, align_corners)
    dst = np.arange(osize, dtype=ftype)
    if align_corners:
        src = s * dst
    else:
        src = np.maximum(s * (dst + ftype(0.5)) - ftype(0.5), ftype(0))
    i0 = src.astype(np.intp)
    i0 = np.minimum(i0, size - 1)
    i1 = np.where(i0 < size - 1, i0 + 1, i0)
    l1 = (src - i0).astype(ftype)
    l0 = (ftype(1) - l1).astype(ftype)
    return i0, i1, l0, l1


def upsample_bilinear2d_cpu(TensorImpl self not None, output_size, bint align_corners, scales_h=None,
                            scales_w=None):
    H, W, Ho, Wo = _check("upsample_bilinear2d", self, output_size)
    cdef TensorImpl out = new_tensor(shape_of(self)[:2] + (Ho, Wo), self.scalar_type)
    if out.n_elem == 0:
        return out
    ftype = np.float32 if self.scalar_type == ST_FLOAT32 else np.float64
    h0, h1, lh0, lh1 = _linear_weights(H, Ho, scales_h, align_corners, ftype)
    w0, w1, lw0, lw1 = _linear_weights(W, Wo, scales_w, align_corners, ftype)
    x = np_view(self)
    rows = np.take(x, h0, axis=2) * lh0[:, None] + np.take(x, h1, axis=2) * lh1[:, None]
    o = np_view(out)
    np.multiply(np.take(rows, w0, axis=3), lw0, out=o)
    o += np.take(rows, w1, axis=3) * lw1
    return out
