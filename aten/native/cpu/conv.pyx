"""aten::convolution on CPU (1-D and 2-D, plain and transposed, any groups): im2col + GEMM.

Forward: the receptive fields of a chunk of images (up to 32 MiB of columns) are unfolded into
columns laid out (C * kH * kW, images, Ho * Wo), and one BLAS GEMM per group covers the chunk:
W[g] @ cols[g], transposed into the output. A 1x1 convolution with stride 1 and no padding
uses the input itself as its columns. Transposed: the GEMM
W[g]^T @ x[n, g] gives the columns and col2im adds them into the zeroed output. im2col and
col2im run over channels on OpenMP threads; the GEMMs use BLAS's threads. 1-D convolutions are
2-D ones with a height of 1. The checks and messages are PyTorch's (ConvUtils.h).
"""
import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t
from libc.string cimport memcpy, memset

from c10.scalar_type cimport ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64, ST_BOOL
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.nn_common cimport (np_view, new_tensor, shape_of, cpp_type, type_name, reject_half,
                                        expand_param, contiguous, num_threads)
from aten.native.cpu.half import float16_via_float32

ctypedef fused ntype:
    float
    double
    int64_t
    int32_t
    int16_t
    int8_t
    uint8_t

# _BLAS_NEIGHBOURS: im2col and col2im run between BLAS calls, whose worker threads keep
# spinning for a while after each GEMM (OpenBLAS, like libgomp, busy-waits before sleeping). An
# OpenMP region there fights those spinning threads for the cores: on two cores conv2d took
# 64-74 ms with a 2-thread im2col against 38 ms with a serial one (BLAS on 2 threads in both).
# So the unfolding is serial and the GEMMs get the threads.

cdef enum:
    COLS_BYTES = 1 << 25      # unfold at most this many bytes of columns at a time (32 MiB)
    GRAIN = 32768


cdef inline Py_ssize_t _ceil_div(Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    # b > 0
    return -((-a) // b) if a < 0 else (a + b - 1) // b


cdef void _im2col(const ntype* x, ntype* cols, Py_ssize_t images, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W,
                  Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw,
                  Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t Ho, Py_ssize_t Wo, int nt) noexcept nogil:
    """Columns of `images` images, rows outermost so that one GEMM covers the whole chunk:
    cols[(c*kh + i)*kw + j, n, oh*Wo + ow] = x[n, c, oh*sh - ph + i*dh, ow*sw - pw + j*dw] (0 outside).
    One parallel region for all the rows of all the images."""
    cdef Py_ssize_t task, row, c, i, j, oh, ow, ih, iw0, lo, hi, L = Ho * Wo, R = C * kh * kw
    cdef ntype* dst
    cdef const ntype* src
    for task in prange(images * R, num_threads=nt, schedule="dynamic", chunksize=8):
        row = task % R
        c = row // (kh * kw)
        i = (row // kw) % kh
        j = row % kw
        # the output columns whose input column is inside [0, W)
        iw0 = j * dw - pw
        lo = _ceil_div(-iw0, sw)
        if lo < 0:
            lo = 0
        hi = _ceil_div(W - iw0, sw)
        if hi > Wo:
            hi = Wo
        if hi < lo:
            hi = lo
        for oh in range(Ho):
            dst = cols + (row * images + task // R) * L + oh * Wo
            ih = oh * sh - ph + i * dh
            if ih < 0 or ih >= H:
                memset(dst, 0, Wo * sizeof(ntype))
                continue
            src = x + ((task // R) * C + c) * H * W + ih * W + iw0
            if lo > 0:
                memset(dst, 0, lo * sizeof(ntype))
            if sw == 1:
                if hi > lo:
                    memcpy(dst + lo, src + lo, (hi - lo) * sizeof(ntype))
            else:
                for ow in range(lo, hi):
                    dst[ow] = src[ow * sw]
            if hi < Wo:
                memset(dst + hi, 0, (Wo - hi) * sizeof(ntype))


cdef void _col2im(const ntype* cols, ntype* out, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W, Py_ssize_t kh,
                  Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh,
                  Py_ssize_t dw, Py_ssize_t Hi, Py_ssize_t Wi, int nt) noexcept nogil:
    """out[c, ih*sh - ph + i*dh, iw*sw - pw + j*dw] += cols[(c*kh + i)*kw + j, ih*Wi + iw] (out is H x W)."""
    cdef Py_ssize_t c, i, j, ih, iw, oh, ow0, lo, hi, L = Hi * Wi
    cdef const ntype* src
    cdef ntype* dst
    for c in prange(C, num_threads=nt, schedule="static"):
        for i in range(kh):
            for j in range(kw):
                ow0 = j * dw - pw
                lo = _ceil_div(-ow0, sw)
                if lo < 0:
                    lo = 0
                hi = _ceil_div(W - ow0, sw)
                if hi > Wi:
                    hi = Wi
                for ih in range(Hi):
                    oh = ih * sh - ph + i * dh
                    if oh < 0 or oh >= H:
                        continue
                    src = cols + ((c * kh + i) * kw + j) * L + ih * Wi
                    dst = out + (c * H + oh) * W + ow0
                    for iw in range(lo, hi):
                        dst[iw * sw] += src[iw]


cdef void _unfold(int st, const char* x, char* cols, Py_ssize_t images, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W,
                  Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw,
                  Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t Ho, Py_ssize_t Wo, int nt) noexcept nogil:
    if st == ST_FLOAT32:
        _im2col(<const float*>x, <float*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, nt)
    elif st == ST_FLOAT64:
        _im2col(<const double*>x, <double*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, nt)
    elif st == ST_INT64:
        _im2col(<const int64_t*>x, <int64_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, nt)
    elif st == ST_INT32:
        _im2col(<const int32_t*>x, <int32_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, nt)
    elif st == ST_INT16:
        _im2col(<const int16_t*>x, <int16_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, nt)
    elif st == ST_INT8:
        _im2col(<const int8_t*>x, <int8_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, nt)
    else:
        _im2col(<const uint8_t*>x, <uint8_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, nt)


cdef void _fold(int st, const char* cols, char* out, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W, Py_ssize_t kh,
                Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh,
                Py_ssize_t dw, Py_ssize_t Hi, Py_ssize_t Wi, int nt) noexcept nogil:
    if st == ST_FLOAT32:
        _col2im(<const float*>cols, <float*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, nt)
    elif st == ST_FLOAT64:
        _col2im(<const double*>cols, <double*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, nt)
    elif st == ST_INT64:
        _col2im(<const int64_t*>cols, <int64_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, nt)
    elif st == ST_INT32:
        _col2im(<const int32_t*>cols, <int32_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, nt)
    elif st == ST_INT16:
        _col2im(<const int16_t*>cols, <int16_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, nt)
    elif st == ST_INT8:
        _col2im(<const int8_t*>cols, <int8_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, nt)
    else:
        _col2im(<const uint8_t*>cols, <uint8_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, nt)


cdef str _sizes_text(tuple s, str sep=" x "):
    return "(" + sep.join([str(v) for v in s]) + ")"


cdef int _check(TensorImpl input, TensorImpl weight, object bias, tuple stride, tuple padding, tuple dilation,
                bint transposed, tuple output_padding, Py_ssize_t groups) except -1:
    """PyTorch's convolution checks (check_shape_forward and the dtype checks), in its order."""
    cdef int k = weight.nd - 2
    cdef int i
    cdef TensorImpl b
    ws = list(shape_of(weight))
    if any([d <= 0 for d in dilation]):
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dilation)}")
    if any([p < 0 for p in padding]):
        raise RuntimeError("negative padding is not supported")
    if any([p < 0 for p in output_padding]):
        raise RuntimeError("negative output_padding is not supported")
    if any([s <= 0 for s in stride]):
        raise RuntimeError("non-positive stride is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if input.nd != weight.nd:
        raise RuntimeError(f"Expected {weight.nd}-dimensional input for {weight.nd}-dimensional weight {ws}, but got "
                           f"{input.nd}-dimensional input of size {list(shape_of(input))} instead")
    if weight.sizes[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size {ws} instead")
    if weight.sizes[0] % groups != 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but "
                           f"got weight of size [{ws}] instead")
    if not transposed:
        if input.sizes[1] != weight.sizes[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{list(shape_of(input))} to "
                               f"have {weight.sizes[1] * groups} channels, but got {input.sizes[1]} channels instead")
        if bias is not None:
            b = <TensorImpl?>bias
            if b.nd != 1 or b.sizes[0] != weight.sizes[0]:
                raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional with "
                                   f"{weight.sizes[0]} elements, but got bias of size {list(shape_of(b))} instead")
        padded = tuple([input.sizes[2 + i] + 2 * padding[i] for i in range(k)])
        kernel = tuple([dilation[i] * (weight.sizes[2 + i] - 1) + 1 for i in range(k)])
        if any([padded[i] < kernel[i] for i in range(k)]):
            raise RuntimeError(f"Calculated padded input size per channel: {_sizes_text(padded)}. Kernel size: "
                               f"{_sizes_text(kernel)}. Kernel size can't be greater than actual input size")
    else:
        if input.sizes[1] != weight.sizes[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{list(shape_of(input))} to "
                               f"have {weight.sizes[0]} channels, but got {input.sizes[1]} channels instead")
        if bias is not None:
            b = <TensorImpl?>bias
            if b.nd != 1 or b.sizes[0] != weight.sizes[1] * groups:
                raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be 1-dimensional with "
                                   f"{weight.sizes[1] * groups} elements, but got bias of size {list(shape_of(b))} "
                                   "instead")
    if input.scalar_type != weight.scalar_type:
        raise RuntimeError(f"expected scalar type {type_name(input.scalar_type)} but found "
                           f"{type_name(weight.scalar_type)}")
    if bias is not None and (<TensorImpl>bias).scalar_type != input.scalar_type:
        raise RuntimeError(f"Input type ({cpp_type(input.scalar_type)}) and bias type "
                           f"({cpp_type((<TensorImpl>bias).scalar_type)}) should be the same")
    reject_half("slow_conv2d_cpu", input)
    if input.scalar_type == ST_BOOL:
        raise NotImplementedError('"slow_conv2d_cpu" not implemented for \'Bool\'')
    return 0


@float16_via_float32
def convolution_cpu(TensorImpl input not None, TensorImpl weight not None, bias, stride, padding, dilation,
                    bint transposed, output_padding, Py_ssize_t groups):
    cdef int k = weight.nd - 2
    if k < 1:
        raise RuntimeError(f"weight should have at least three dimensions")
    stride = expand_param(stride, k, "stride")
    padding = expand_param(padding, k, "padding")
    dilation = expand_param(dilation, k, "dilation")
    output_padding = expand_param(output_padding, k, "output_padding")
    _check(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    if k > 2:
        raise NotImplementedError("Ember: convolution is implemented for 1-D and 2-D inputs only")
    if k == 1:
        # a 2-D convolution over a height of 1
        stride, padding, dilation, output_padding = ((1,) + stride, (0,) + padding, (1,) + dilation,
                                                     (0,) + output_padding)
    if transposed:
        return _conv_transpose(input, weight, bias, stride, padding, dilation, output_padding, groups, k)
    return _conv_forward(input, weight, bias, stride, padding, dilation, groups, k)


cdef tuple _spatial(TensorImpl t, int k):
    if k == 1:
        return tuple([1, t.sizes[2]])
    return tuple([t.sizes[2], t.sizes[3]])


cdef object _add_bias(TensorImpl out, object bias):
    if bias is not None and out.n_elem:
        o = np_view(out)
        b = np_view(<TensorImpl>bias)
        o += b.reshape((1, -1) + (1,) * (out.nd - 2))


cdef object _conv_forward(TensorImpl input, TensorImpl weight, object bias, tuple stride, tuple padding,
                          tuple dilation, Py_ssize_t groups, int k):
    cdef Py_ssize_t N = input.sizes[0], C = input.sizes[1], Cout = weight.sizes[0]
    cdef Py_ssize_t H, W, kh, kw, Ho, Wo, L, K, G = groups, n0, n1, chunk
    cdef int st = input.scalar_type, nt
    cdef Py_ssize_t sh = stride[0], sw = stride[1], ph = padding[0], pw = padding[1], dh = dilation[0], dw = dilation[1]
    cdef TensorImpl x, out, cols
    cdef char* xp
    cdef char* cp
    H, W = _spatial(input, k)
    kh, kw = _spatial(weight, k)
    Ho = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out_shape = tuple([N, Cout, Wo] if k == 1 else [N, Cout, Ho, Wo])
    out = new_tensor(out_shape, st)
    if out.n_elem == 0:
        return out
    L = Ho * Wo
    K = (C // G) * kh * kw
    o = np_view(out).reshape(N, G, Cout // G, L)
    w = np.ascontiguousarray(np_view(weight)).reshape(G, Cout // G, K)
    if K == 0:
        o[...] = 0
        _add_bias(out, bias)
        return out
    x = contiguous(input)
    if kh == 1 and kw == 1 and sh == 1 and sw == 1 and ph == 0 and pw == 0:
        # 1x1: the input is its own column matrix
        np.matmul(w, np_view(x).reshape(N, G, K, L), out=o)
        _add_bias(out, bias)
        return out
    chunk = max(1, COLS_BYTES // max(1, C * kh * kw * L * x.itemsize))
    if chunk > N:
        chunk = N
    cols = new_tensor((C * kh * kw * chunk * L,), st)
    nt = 1     # see _BLAS_NEIGHBOURS
    xp = x.data()
    cp = cols.data()
    for n0 in range(0, N, chunk):
        n1 = min(N, n0 + chunk)
        with nogil:
            _unfold(st, xp + n0 * C * H * W * x.itemsize, cp, n1 - n0, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw,
                    Ho, Wo, nt)
        cv = np_view(cols)[:C * kh * kw * (n1 - n0) * L].reshape(G, K, n1 - n0, L)
        if n1 - n0 == 1:
            np.matmul(w, cv[:, :, 0, :], out=o[n0])
        else:
            # one GEMM per group for the whole chunk, (Cout/G, K) @ (K, images * L), transposed into
            # (images, Cout/G, L): one copy of the output buys far fewer BLAS calls (and thread
            # hand-overs), which measured 1.5x faster on two busy cores and equal on one
            prod = np.matmul(w, cv.reshape(G, K, (n1 - n0) * L)).reshape(G, Cout // G, n1 - n0, L)
            o[n0:n1] = prod.transpose(2, 0, 1, 3)
    _add_bias(out, bias)
    return out


cdef object _conv_transpose(TensorImpl input, TensorImpl weight, object bias, tuple stride, tuple padding,
                            tuple dilation, tuple output_padding, Py_ssize_t groups, int k):
    cdef Py_ssize_t N = input.sizes[0], Cin = input.sizes[1], G = groups
    cdef Py_ssize_t Cout = weight.sizes[1] * groups
    cdef Py_ssize_t Hi, Wi, kh, kw, Ho, Wo, Lin, n
    cdef int st = input.scalar_type, nt
    cdef Py_ssize_t sh = stride[0], sw = stride[1], ph = padding[0], pw = padding[1], dh = dilation[0], dw = dilation[1]
    cdef TensorImpl x, out, cols
    cdef char* op
    cdef char* cp
    Hi, Wi = _spatial(input, k)
    kh, kw = _spatial(weight, k)
    if any([output_padding[i] >= stride[i] and output_padding[i] >= dilation[i] for i in range(2)]):
        if k == 2:
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                               f"output_padding_height: {output_padding[0]} output_padding_width: {output_padding[1]} "
                               f"stride_height: {sh} stride_width: {sw} dilation_height: {dh} dilation_width: {dw}")
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                           f"output_padding: {output_padding[1]} stride: {sw} dilation: {dw}")
    Ho = (Hi - 1) * sh - 2 * ph + dh * (kh - 1) + output_padding[0] + 1
    Wo = (Wi - 1) * sw - 2 * pw + dw * (kw - 1) + output_padding[1] + 1
    if Ho < 1 or Wo < 1:
        given = _sizes_text(tuple([Hi, Wi] if k == 2 else [Wi]))
        calc = _sizes_text(tuple([Ho, Wo] if k == 2 else [Wo]))
        raise RuntimeError(f"Given input size per channel: {given}. Calculated output size per channel: {calc}. "
                           "Output size is too small")
    out_shape = tuple([N, Cout, Wo] if k == 1 else [N, Cout, Ho, Wo])
    out = new_tensor(out_shape, st)
    if out.n_elem == 0:
        return out
    o = np_view(out)
    o[...] = 0
    Lin = Hi * Wi
    if Lin and Cin:
        x = contiguous(input)
        # W as (G, Cin/G, Cout/G*kh*kw): the columns of image n are W[g]^T @ x[n, g]
        w = np.ascontiguousarray(np_view(weight)).reshape(G, Cin // G, (Cout // G) * kh * kw)
        wt = np.swapaxes(w, 1, 2)
        xv = np_view(x).reshape(N, G, Cin // G, Lin)
        cols = new_tensor((G, (Cout // G) * kh * kw, Lin), st)
        cv = np_view(cols)
        nt = 1     # see _BLAS_NEIGHBOURS
        op = out.data()
        cp = cols.data()
        for n in range(N):
            np.matmul(wt, xv[n], out=cv)
            with nogil:
                _fold(st, cp, op + n * Cout * Ho * Wo * out.itemsize, Cout, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw,
                      Hi, Wi, nt)
    _add_bias(out, bias)
    return out
