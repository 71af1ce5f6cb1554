"""aten::convolution on CPU for 3-D (volumetric) inputs, plain and transposed, any groups: PyTorch's
slow_conv3d and slow_conv_transpose3d, as vol2col + GEMM and GEMM + col2vol.

Forward: an image's columns (C*KD*KH*KW rows, one per kernel tap of each input channel) are
unfolded a band of output depth planes at a time, small enough to stay bounded (COLS_BYTES), and
W[g] (Cout/G, K) @ cols[g] (K, T) is that band of out[n, g] (NumPy's GEMM: OpenBLAS for float32
and float64, NumPy's own loops for integers). Transposed: the GEMM W[g]^T @ x[n, g] gives the
columns and col2vol adds them into the zeroed output, one thread per output channel (each thread
writes only its own channel's volume, so the sums are the same on any thread count). The checks
and messages are the shared ones (aten/native/meta/conv_geometry) and PyTorch's."""
import numpy as np

from cython.parallel cimport prange

from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport np_view, new_tensor, contiguous, num_threads
from aten.native.cpu.element_types cimport num_t
from aten.native.meta.conv_geometry cimport transposed_output_sizes

cdef enum:
    COLS_BYTES = 1 << 25      # unfold at most this many bytes of columns at a time (32 MiB)


def _vol2col(const num_t[:, :, :, ::1] x, num_t[:, ::1] cols, tuple kernel, tuple stride, tuple padding,
             tuple dilation, Py_ssize_t Ho, Py_ssize_t Wo, Py_ssize_t z0, Py_ssize_t z1, int nt):
    """cols[((c*KD + a)*KH + i)*KW + j, ((z - z0)*Ho + y)*Wo + u] =
    x[c, z*sd - pd + a*dd, y*sh - ph + i*dh, u*sw - pw + j*dw] (0 outside the input), for the
    output depth planes z in [z0, z1)."""
    cdef Py_ssize_t KD = kernel[0], KH = kernel[1], KW = kernel[2]
    cdef Py_ssize_t sd = stride[0], sh = stride[1], sw = stride[2]
    cdef Py_ssize_t pd = padding[0], ph = padding[1], pw = padding[2]
    cdef Py_ssize_t dd = dilation[0], dh = dilation[1], dw = dilation[2]
    cdef Py_ssize_t D = x.shape[1], H = x.shape[2], W = x.shape[3]
    cdef Py_ssize_t R = cols.shape[0], row, c, a, i, j, z, y, u, iz, iy, ix, col
    with nogil:
        for row in prange(R, num_threads=nt, schedule="static"):
            j = row % KW
            i = (row // KW) % KH
            a = (row // (KW * KH)) % KD
            c = row // (KW * KH * KD)
            col = 0
            for z in range(z0, z1):
                iz = z * sd - pd + a * dd
                for y in range(Ho):
                    iy = y * sh - ph + i * dh
                    for u in range(Wo):
                        ix = u * sw - pw + j * dw
                        if 0 <= iz < D and 0 <= iy < H and 0 <= ix < W:
                            cols[row, col] = x[c, iz, iy, ix]
                        else:
                            cols[row, col] = 0
                        col = col + 1


def _col2vol(const num_t[:, ::1] cols, num_t[:, :, :, ::1] out, tuple kernel, tuple stride, tuple padding,
             tuple dilation, Py_ssize_t Di, Py_ssize_t Hi, Py_ssize_t Wi, int nt):
    """out[c, z*sd - pd + a*dd, y*sh - ph + i*dh, u*sw - pw + j*dw] +=
    cols[((c*KD + a)*KH + i)*KW + j, (z*Hi + y)*Wi + u] over the input positions (z, y, u)."""
    cdef Py_ssize_t KD = kernel[0], KH = kernel[1], KW = kernel[2]
    cdef Py_ssize_t sd = stride[0], sh = stride[1], sw = stride[2]
    cdef Py_ssize_t pd = padding[0], ph = padding[1], pw = padding[2]
    cdef Py_ssize_t dd = dilation[0], dh = dilation[1], dw = dilation[2]
    cdef Py_ssize_t C = out.shape[0], D = out.shape[1], H = out.shape[2], W = out.shape[3]
    cdef Py_ssize_t c, a, i, j, z, y, u, oz, oy, ox, row
    with nogil:
        for c in prange(C, num_threads=nt, schedule="static"):
            for a in range(KD):
                for i in range(KH):
                    for j in range(KW):
                        row = ((c * KD + a) * KH + i) * KW + j
                        for z in range(Di):
                            oz = z * sd - pd + a * dd
                            if oz < 0 or oz >= D:
                                continue
                            for y in range(Hi):
                                oy = y * sh - ph + i * dh
                                if oy < 0 or oy >= H:
                                    continue
                                for u in range(Wi):
                                    ox = u * sw - pw + j * dw
                                    if 0 <= ox < W:
                                        out[c, oz, oy, ox] += cols[row, (z * Hi + y) * Wi + u]


cdef object _add_bias(TensorImpl out, object bias):
    if bias is not None and out.n_elem:
        np_view(out)[...] += np_view(<TensorImpl>bias).reshape((1, -1, 1, 1, 1))


def conv3d_forward(TensorImpl input, TensorImpl weight, object bias, tuple stride, tuple padding, tuple dilation,
                   Py_ssize_t groups):
    """The checked, expanded arguments of convolution_cpu (aten/native/cpu/conv.pyx) for 5-D input."""
    cdef Py_ssize_t N = input.sizes[0], C = input.sizes[1], Cout = weight.sizes[0], G = groups
    cdef Py_ssize_t D = input.sizes[2], H = input.sizes[3], W = input.sizes[4]
    cdef tuple kernel = (weight.sizes[2], weight.sizes[3], weight.sizes[4])
    cdef Py_ssize_t Do, Ho, Wo, K, R, plane, planes, n, z0, z1
    Do, Ho, Wo = [(s + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1
                  for d, s in enumerate((D, H, W))]
    out = new_tensor((N, Cout, Do, Ho, Wo), input.scalar_type)
    if out.n_elem == 0:
        return out
    o = np_view(out).reshape(N, G, Cout // G, Do * Ho * Wo)
    K = (C // G) * kernel[0] * kernel[1] * kernel[2]
    if K == 0:
        o[...] = 0
        _add_bias(out, bias)
        return out
    R = C * kernel[0] * kernel[1] * kernel[2]
    w = np.ascontiguousarray(np_view(weight)).reshape(G, Cout // G, K)
    x = np_view(contiguous(input))
    plane = Ho * Wo
    planes = max(1, min(Do, COLS_BYTES // max(1, R * plane * input.itemsize)))
    cols = np.empty(R * planes * plane, dtype=x.dtype)
    nt = num_threads()
    for n in range(N):
        for z0 in range(0, Do, planes):
            z1 = min(Do, z0 + planes)
            band = cols[:R * (z1 - z0) * plane].reshape(R, (z1 - z0) * plane)
            _vol2col(x[n], band, kernel, stride, padding, dilation, Ho, Wo, z0, z1, nt)
            np.matmul(w, band.reshape(G, K, (z1 - z0) * plane), out=o[n, :, :, z0 * plane:z1 * plane])
    _add_bias(out, bias)
    return out


def conv3d_transpose(TensorImpl input, TensorImpl weight, object bias, tuple stride, tuple padding, tuple dilation,
                     tuple output_padding, Py_ssize_t groups):
    """The checked, expanded arguments of convolution_cpu for a transposed 5-D convolution."""
    cdef Py_ssize_t N = input.sizes[0], Cin = input.sizes[1], G = groups, Cout = weight.sizes[1] * groups
    cdef tuple sizes = (input.sizes[2], input.sizes[3], input.sizes[4])
    cdef tuple kernel = (weight.sizes[2], weight.sizes[3], weight.sizes[4])
    cdef Py_ssize_t Lin, KK, n
    outs = transposed_output_sizes(sizes, kernel, stride, padding, dilation, output_padding)
    out = new_tensor((N, Cout) + outs, input.scalar_type)
    if out.n_elem == 0:
        return out
    o = np_view(out)
    o[...] = 0
    Lin = sizes[0] * sizes[1] * sizes[2]
    KK = kernel[0] * kernel[1] * kernel[2]
    if Lin and Cin:
        # W as (G, Cin/G, Cout/G*KK): the columns of image n are W[g]^T @ x[n, g]
        w = np.ascontiguousarray(np_view(weight)).reshape(G, Cin // G, (Cout // G) * KK)
        wt = np.swapaxes(w, 1, 2)
        xv = np_view(contiguous(input)).reshape(N, G, Cin // G, Lin)
        cols = np.empty((G, (Cout // G) * KK, Lin), dtype=o.dtype)
        nt = num_threads()
        for n in range(N):
            np.matmul(wt, xv[n], out=cols)
            _col2vol(cols.reshape(Cout * KK, Lin), o[n], kernel, stride, padding, dilation, sizes[0], sizes[1],
                     sizes[2], nt)
    _add_bias(out, bias)
    return out
