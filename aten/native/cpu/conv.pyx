"""aten::convolution on CPU (1-D and 2-D, plain and transposed, any groups; 3-D in conv3d.pyx).

Forward, float32/float64 (the benchmarked case): a depthwise convolution (groups == channels) is
a direct loop over rows (conv_depthwise.pyx); everything else is im2col + GEMM in tasks on OpenMP threads
(_conv_tasks, see _DIRECT_BLAS): a task unfolds a band of output rows of one image into a
per-thread buffer that stays in the L2 cache (at most 512 KiB, at least 256 columns) and BLAS
multiplies it straight into the NCHW output (W[g] @ cols[g] is the band of out[n, g], no
transpose or copy; a 1x1 stride-1 unpadded convolution skips the unfolding, the input band
being its own columns); images under 256 output positions go several to a task, one GEMM over
all of them, copied into place. The GEMM is OpenBLAS's, single-threaded inside the region, or for
float32 on AVX-512 Ember's (gemm_f32.h: the weights packed once per call, the columns read in place,
100-114 GFLOP/s per core where OpenBLAS, packing both operands per call, gave 90-98).
Other dtypes (no BLAS) use np.matmul: one batched GEMM for 1x1, else the same bands, or several
small images at a time.
Transposed (and so the input's gradient): the GEMM W[g]^T @ x[n, g] gives the columns and col2im
adds them into the zeroed output, in tasks with BLAS single-threaded (_transpose_tasks): an image per
task, or small images several side by side per GEMM. The weight's gradient (without create_graph:
_ember_convolution_weight_grad) unfolds the input band by band as the forward does (small images,
several at a time beside their gathered grads), grad[n, g] @ cols[g]^T accumulated per fixed slice of
images, the slices' sums added in order. 1-D convolutions are 2-D ones with a height of 1.
The checks and messages are PyTorch's (ConvUtils.h).
"""
import numpy as np

from cython.parallel cimport prange, threadid
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t
from libc.string cimport memcpy, memset

from c10.scalar_type cimport ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64, ST_BOOL, ST_UINT8
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.array_bridge cimport np_view, new_tensor, reject_half, contiguous, num_threads
from aten.native.meta.conv_geometry cimport transposed_output_sizes
from aten.native.meta.conv_geometry import convolution_params
from aten.native.cpu.conv3d import conv3d_forward, conv3d_transpose
from aten.native.meta.messages cimport shape_of, cpp_type, type_name

# _BLAS_NEIGHBOURS: where im2col and col2im run between multi-threaded BLAS calls (the np.matmul
# paths: transposed convolutions, integers), BLAS's worker threads keep spinning for a while
# after each GEMM (OpenBLAS, like libgomp, busy-waits before sleeping), and an OpenMP region
# there fights them for the cores: on two cores conv2d took 64-74 ms with a 2-thread im2col
# against 38 ms with a serial one. So there the unfolding is serial and the GEMMs get the
# threads; in _conv_tasks BLAS is single-threaded and the tasks get them.

cdef enum:
    COLS_BYTES = 1 << 25      # unfold at most this many bytes of columns at a time (32 MiB)
    TILE_BYTES = 1 << 19      # a band of columns the GEMM reads back from the L2 cache (512 KiB)
    MIN_COLS = 256            # columns per GEMM below which BLAS loses efficiency
    SMALL_GEMM = 64           # GEMMs with fewer (rows x inner) than this are loops (depthwise)
    SMALL_IMAGE_TASKS = 8     # small images are batched into at least this many tasks (when there are as many)
    SHORT_ROW = 32            # output rows shorter than this are unfolded by loops, not memset/memcpy


# _DIRECT_BLAS: the big-image forward calls BLAS's GEMM itself, from an OpenMP loop over bands of
# output rows (unfold a band into a per-thread buffer that stays in the L2 cache, multiply it
# straight into the output), with BLAS's own threads set to 1 for the loop: one parallel region
# per convolution instead of a BLAS call (and a hand-over to BLAS's workers) per band, which on a
# shared machine cost seconds. The GEMM is NumPy's OpenBLAS (the ILP64 CBLAS interface NumPy's
# wheels bundle), found through NumPy's own extension module; where it isn't there (another
# BLAS), the same bands go through np.matmul instead.
from aten.native.cpu.blas cimport (CBLAS_NO_TRANS, CBLAS_ROW_MAJOR, CBLAS_TRANS, blas_dgemm, blas_sgemm, blas_single_threaded,
                                   dgemm_t, sgemm_t)
from aten.native.cpu.element_types cimport num_t, floating_t
from aten.native.cpu.conv_depthwise cimport (ceil_div as _ceil_div, first_inside as _first_inside,
                                            end_inside as _end_inside, depthwise_forward)

cdef sgemm_t _sgemm = blas_sgemm()
cdef dgemm_t _dgemm = blas_dgemm()


cdef extern from "aten/native/cpu/gemm_f32.h" nogil:
    Py_ssize_t ember_f32_packed_size(Py_ssize_t m, Py_ssize_t k)
    void ember_f32_pack_a(const float* a, Py_ssize_t lda, Py_ssize_t m, Py_ssize_t k, float* packed)
    int ember_f32_gemm_available()
    void ember_f32_gemm_packed(const float* packed, Py_ssize_t m, Py_ssize_t k, const float* b, Py_ssize_t ldb,
                               float* c, Py_ssize_t ldc, Py_ssize_t n)
    void ember_f32_window_row(float* dst, const float* src, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t n)


cdef void _im2col(const num_t* x, num_t* cols, Py_ssize_t images, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W,
                  Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw,
                  Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t Wo, Py_ssize_t oh0, Py_ssize_t oh1) noexcept nogil:
    """The columns of output rows [oh0, oh1) of `images` images, rows outermost so that one GEMM
    covers them all: with T = (oh1 - oh0) * Wo,
    cols[(c*kh + i)*kw + j, n, (oh - oh0)*Wo + ow] = x[n, c, oh*sh - ph + i*dh, ow*sw - pw + j*dw]
    (0 outside the input). Each (row, oh) is one contiguous run (a memcpy when sw == 1) between
    zero fills for the padding. Serial (one call per task in _conv_tasks)."""
    cdef Py_ssize_t row, n, c, i, j, oh, ow, ih, iw0, lo, hi, T = (oh1 - oh0) * Wo, R = C * kh * kw
    cdef num_t* dst
    cdef const num_t* src
    cdef bint window_rows = ember_f32_gemm_available()
    for row in range(R):
        c = row // (kh * kw)
        i = (row // kw) % kh
        j = row % kw
        # the output columns whose input column is inside [0, W)
        iw0 = j * dw - pw
        lo = _first_inside(iw0, sw)
        hi = _end_inside(W, Wo, iw0, sw)
        if hi < lo:
            hi = lo
        for n in range(images):
            dst = cols + (row * images + n) * T
            for oh in range(oh0, oh1):
                ih = oh * sh - ph + i * dh
                if ih < 0 or ih >= H:
                    if Wo < SHORT_ROW:
                        for ow in range(Wo):
                            dst[ow] = 0
                    else:
                        memset(dst, 0, Wo * sizeof(num_t))
                else:
                    src = x + (n * C + c) * H * W + ih * W + iw0
                    if Wo < SHORT_ROW:
                        # a few elements: a loop costs less than three library calls
                        for ow in range(lo):
                            dst[ow] = 0
                        for ow in range(lo, hi):
                            dst[ow] = src[ow * sw]
                        for ow in range(hi, Wo):
                            dst[ow] = 0
                    elif num_t is float and sw == 1 and window_rows:
                        ember_f32_window_row(dst, src, lo, hi, Wo)
                    else:
                        if lo > 0:
                            memset(dst, 0, lo * sizeof(num_t))
                        if sw == 1:
                            if hi > lo:
                                memcpy(dst + lo, src + lo, (hi - lo) * sizeof(num_t))
                        else:
                            for ow in range(lo, hi):
                                dst[ow] = src[ow * sw]
                        if hi < Wo:
                            memset(dst + hi, 0, (Wo - hi) * sizeof(num_t))
                dst += Wo


cdef void _gather_images(const floating_t* src, floating_t* dst, Py_ssize_t cnt, Py_ssize_t C,
                         Py_ssize_t L) noexcept nogil:
    """dst (C, cnt*L) = cnt consecutive (C, L) images side by side: dst[c, i*L + t] = src[i, c, t]."""
    cdef Py_ssize_t i, c
    for c in range(C):
        for i in range(cnt):
            memcpy(dst + (c * cnt + i) * L, src + (i * C + c) * L, L * sizeof(floating_t))


cdef void _gemm_into(const floating_t* a, const float* packed, const floating_t* b, floating_t* c, Py_ssize_t M,
                     Py_ssize_t T, Py_ssize_t K, Py_ssize_t ldb, Py_ssize_t ldc) noexcept nogil:
    """c (M x T, rows ldc apart) = a (M x K, contiguous) @ b (K x T, rows ldb apart). Products too
    small for a BLAS call to pay (1 x 6 per group, say) are multiply-adds over the rows; float32 with
    `packed` (a's panels, gemm_f32.h) runs Ember's AVX-512 kernel, which reads b in place."""
    cdef Py_ssize_t co, kk, t
    cdef floating_t* dst
    cdef const floating_t* src
    cdef floating_t av
    if M * K < SMALL_GEMM:
        for co in range(M):
            dst = c + co * ldc
            av = a[co * K]
            for t in range(T):
                dst[t] = av * b[t]
            for kk in range(1, K):
                av = a[co * K + kk]
                src = b + kk * ldb
                for t in range(T):
                    dst[t] = dst[t] + av * src[t]
    elif floating_t is float:
        if packed != NULL:
            ember_f32_gemm_packed(packed, M, K, <const float*>b, ldb, <float*>c, ldc, T)
            return
        _sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, M, T, K, 1.0, a, K, b, ldb, 0.0, c, ldc)
    else:
        _dgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, M, T, K, 1.0, a, K, b, ldb, 0.0, c, ldc)


cdef inline const float* _panels(const float* packed, Py_ssize_t g, Py_ssize_t size) noexcept nogil:
    return NULL if packed == NULL else packed + g * size


cdef void _conv_tasks(const floating_t* x, const floating_t* w, const float* packed, const floating_t* bias,
                      floating_t* out, floating_t* cols, floating_t* prod,
                      Py_ssize_t N, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W, Py_ssize_t Cout, Py_ssize_t G,
                      Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw,
                      Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t Ho, Py_ssize_t Wo, Py_ssize_t rows, Py_ssize_t imgs,
                      int nt) noexcept nogil:
    """The forward convolution as tasks, shared out dynamically over nt threads (a core that other
    work slows down takes fewer); BLAS is single-threaded in here (see _DIRECT_BLAS).
    A task is a band of `rows` output rows of one image (imgs == 1): unfold it into this thread's
    `cols` buffer (R x rows*Wo; a 1x1 stride-1 unpadded kernel reads the input band in place),
    one GEMM per group writes the band of out[n, g] (rows L apart),
    and the bias is added while the band is in the cache. Or (small images, rows == Ho) `imgs`
    whole images: unfolded as (R, imgs, L), one GEMM per group into this thread's `prod`
    (Cout/G x imgs*L), copied (with the bias) into each image's channels. `packed`: the weights' panels,
    group after group, for the float32 kernel (NULL: BLAS)."""
    cdef Py_ssize_t R = C * kh * kw, K = R // G, M = Cout // G, L = Ho * Wo, bands = (Ho + rows - 1) // rows
    cdef Py_ssize_t panels = ember_f32_packed_size(M, K)
    cdef Py_ssize_t task, n0, cnt, oh0, oh1, T, g, co, i, t
    cdef bint identity = kh == 1 and kw == 1 and sh == 1 and sw == 1 and ph == 0 and pw == 0
    cdef floating_t* buf
    cdef floating_t* pb
    cdef floating_t* dst
    cdef const floating_t* src
    cdef floating_t bv
    for task in prange(((N + imgs - 1) // imgs) * bands, num_threads=nt, schedule="dynamic", chunksize=1):
        buf = cols + threadid() * R * imgs * rows * Wo
        n0 = (task // bands) * imgs
        cnt = N - n0
        if cnt > imgs:
            cnt = imgs
        oh0 = (task % bands) * rows
        oh1 = oh0 + rows
        if oh1 > Ho:
            oh1 = Ho
        T = (oh1 - oh0) * Wo
        if imgs == 1 and identity:
            # a 1x1 stride-1 unpadded convolution: the band of the input is its own columns
            for g in range(G):
                _gemm_into(w + g * M * K, _panels(packed, g, panels), x + (n0 * C + g * K) * L + oh0 * Wo,
                           out + (n0 * Cout + g * M) * L + oh0 * Wo, M, T, K, L, L)
        else:
            _im2col(x + n0 * C * H * W, buf, cnt, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)
        if imgs == 1:
            if not identity:
                for g in range(G):
                    _gemm_into(w + g * M * K, _panels(packed, g, panels), buf + g * K * T,
                               out + (n0 * Cout + g * M) * L + oh0 * Wo, M, T, K, T, L)
            if bias != NULL:
                for co in range(Cout):
                    dst = out + (n0 * Cout + co) * L + oh0 * Wo
                    bv = bias[co]
                    for t in range(T):
                        dst[t] = dst[t] + bv
        else:
            pb = prod + threadid() * M * imgs * L
            for g in range(G):
                _gemm_into(w + g * M * K, _panels(packed, g, panels), buf + g * K * cnt * L, pb, M, cnt * L, K,
                           cnt * L, cnt * L)
                for i in range(cnt):
                    for co in range(M):
                        dst = out + ((n0 + i) * Cout + g * M + co) * L
                        src = pb + (co * cnt + i) * L
                        bv = 0
                        if bias != NULL:
                            bv = bias[g * M + co]
                        for t in range(L):
                            dst[t] = src[t] + bv


cdef void _col2im(const num_t* cols, num_t* out, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W, Py_ssize_t kh,
                  Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh,
                  Py_ssize_t dw, Py_ssize_t Hi, Py_ssize_t Wi, Py_ssize_t ld, int nt) noexcept nogil:
    """out[c, ih*sh - ph + i*dh, iw*sw - pw + j*dw] += cols[(c*kh + i)*kw + j, ih*Wi + iw] (out is H x W,
    cols' rows ld apart)."""
    cdef Py_ssize_t c, i, j, ih, iw, oh, ow0, lo, hi
    cdef const num_t* src
    cdef num_t* dst
    for c in prange(C, num_threads=nt, schedule="static"):
        for i in range(kh):
            for j in range(kw):
                ow0 = j * dw - pw
                lo = _first_inside(ow0, sw)
                hi = _end_inside(W, Wi, ow0, sw)
                for ih in range(Hi):
                    oh = ih * sh - ph + i * dh
                    if oh < 0 or oh >= H:
                        continue
                    src = cols + ((c * kh + i) * kw + j) * ld + ih * Wi
                    dst = out + (c * H + oh) * W + ow0
                    for iw in range(lo, hi):
                        dst[iw * sw] += src[iw]


cdef void _unfold(int st, const char* x, char* cols, Py_ssize_t images, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W,
                  Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw,
                  Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t Wo, Py_ssize_t oh0, Py_ssize_t oh1) noexcept nogil:
    if st == ST_FLOAT32:
        _im2col(<const float*>x, <float*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)
    elif st == ST_FLOAT64:
        _im2col(<const double*>x, <double*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)
    elif st == ST_INT64:
        _im2col(<const int64_t*>x, <int64_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)
    elif st == ST_INT32:
        _im2col(<const int32_t*>x, <int32_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)
    elif st == ST_INT16:
        _im2col(<const int16_t*>x, <int16_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)
    elif st == ST_INT8:
        _im2col(<const int8_t*>x, <int8_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)
    else:
        _im2col(<const uint8_t*>x, <uint8_t*>cols, images, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)


cdef void _fold(int st, const char* cols, char* out, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W, Py_ssize_t kh,
                Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh,
                Py_ssize_t dw, Py_ssize_t Hi, Py_ssize_t Wi, int nt) noexcept nogil:
    if st == ST_FLOAT32:
        _col2im(<const float*>cols, <float*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, Hi * Wi, nt)
    elif st == ST_FLOAT64:
        _col2im(<const double*>cols, <double*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, Hi * Wi, nt)
    elif st == ST_INT64:
        _col2im(<const int64_t*>cols, <int64_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, Hi * Wi, nt)
    elif st == ST_INT32:
        _col2im(<const int32_t*>cols, <int32_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, Hi * Wi, nt)
    elif st == ST_INT16:
        _col2im(<const int16_t*>cols, <int16_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, Hi * Wi, nt)
    elif st == ST_INT8:
        _col2im(<const int8_t*>cols, <int8_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, Hi * Wi, nt)
    else:
        _col2im(<const uint8_t*>cols, <uint8_t*>out, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Hi, Wi, Hi * Wi, nt)


def convolution_cpu(TensorImpl input not None, TensorImpl weight not None, bias, stride, padding, dilation,
                    bint transposed, output_padding, Py_ssize_t groups):
    cdef int k = weight.nd - 2
    stride, padding, dilation, output_padding = convolution_params(input, weight, bias, stride, padding, dilation,
                                                                   transposed, output_padding, groups)
    reject_half("slow_conv2d_cpu", input)
    if transposed and input.scalar_type in (ST_INT8, ST_INT16, ST_INT32, ST_UINT8):
        # PyTorch's transposed CPU kernels take the floating dtypes and int64 only
        raise NotImplementedError(f'"slow_conv_transpose{3 if k == 3 else 2}d_out_cpu" not implemented for '
                                  f"'{type_name(input.scalar_type)}'")
    if k == 3:
        if transposed:
            return conv3d_transpose(input, weight, bias, stride, padding, dilation, output_padding, groups)
        return conv3d_forward(input, weight, bias, stride, padding, dilation, groups)
    if k > 3:
        raise RuntimeError("unsupported ConvNd parameters")
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


cdef TensorImpl _packed_weights(TensorImpl weight, Py_ssize_t G, Py_ssize_t M, Py_ssize_t K):
    """A float32 weight (G*M, K) as gemm_f32.h's panels, group after group."""
    cdef TensorImpl wc = contiguous(weight)
    cdef Py_ssize_t size = ember_f32_packed_size(M, K), g
    cdef TensorImpl packs = new_tensor((G * size,), ST_FLOAT32)
    cdef const float* wp = <const float*>wc.data()
    cdef float* pk = <float*>packs.data()
    with nogil:
        for g in range(G):
            ember_f32_pack_a(wp + g * M * K, K, M, K, pk + g * size)
    return packs


cdef object _conv_forward(TensorImpl input, TensorImpl weight, object bias, tuple stride, tuple padding,
                          tuple dilation, Py_ssize_t groups, int k):
    cdef Py_ssize_t N = input.sizes[0], C = input.sizes[1], Cout = weight.sizes[0]
    cdef Py_ssize_t H, W, kh, kw, Ho, Wo, L, K, R, G = groups, n, n0, n1, chunk, rows, oh0, oh1, T, image, imgs
    cdef int st = input.scalar_type, nt
    cdef bint blas, identity
    cdef Py_ssize_t sh = stride[0], sw = stride[1], ph = padding[0], pw = padding[1], dh = dilation[0], dw = dilation[1]
    cdef TensorImpl x, out, cols, wc, prods
    cdef object packs
    cdef char* pk
    cdef char* xp
    cdef char* pp
    cdef char* cp
    cdef char* wp
    cdef char* bp
    cdef char* op
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
    R = C * kh * kw
    o = np_view(out).reshape(N, G, Cout // G, L)
    w = np.ascontiguousarray(np_view(weight)).reshape(G, Cout // G, K)
    if K == 0:
        o[...] = 0
        _add_bias(out, bias)
        return out
    x = contiguous(input)
    blas = (st == ST_FLOAT32 and _sgemm != NULL) or (st == ST_FLOAT64 and _dgemm != NULL)
    if kh == 1 and kw == 1 and sh == 1 and sw == 1 and ph == 0 and pw == 0 and not blas:
        # 1x1: the input is its own column matrix
        np.matmul(w, np_view(x).reshape(N, G, K, L), out=o)
        _add_bias(out, bias)
        return out
    xp = x.data()
    image = C * H * W * x.itemsize
    if G == C and G > 1 and (st == ST_FLOAT32 or st == ST_FLOAT64):
        # depthwise: a direct loop (per-group GEMMs would be 1 x kh*kw)
        nt = num_threads()
        wc = contiguous(weight)
        bc = None if bias is None else contiguous(<TensorImpl>bias)
        wp = wc.data()
        bp = NULL if bc is None else (<TensorImpl>bc).data()
        op = out.data()
        with nogil:
            depthwise_forward(st == ST_FLOAT64, xp, wp, bp, op, N, C, H, W, Cout, kh, kw, sh, sw, ph, pw, dh, dw, Ho,
                              Wo, nt)
        return out
    if blas:
        nt = num_threads()
        if L >= MIN_COLS:
            # bands of whole output rows, unfolded small enough to stay in the L2 cache
            imgs = 1
            rows = max(1, TILE_BYTES // (R * Wo * x.itemsize))
            rows = min(Ho, max(rows, _ceil_div(MIN_COLS, Wo)))
        else:
            # whole images, enough for a GEMM wide enough, but at least SMALL_IMAGE_TASKS tasks: a count
            # set by the shape alone, since BLAS's result for a column depends on the GEMM's width
            rows = Ho
            imgs = max(_ceil_div(MIN_COLS, L), TILE_BYTES // (R * L * x.itemsize))
            imgs = max(1, min(imgs, N // SMALL_IMAGE_TASKS))
        if nt > _ceil_div(N, imgs) * _ceil_div(Ho, rows):
            nt = _ceil_div(N, imgs) * _ceil_div(Ho, rows)
        identity = kh == 1 and kw == 1 and sh == 1 and sw == 1 and ph == 0 and pw == 0 and imgs == 1
        cols = new_tensor((0 if identity else nt * R * imgs * rows * Wo,), st)
        packs = _packed_weights(weight, G, Cout // G, K) if st == ST_FLOAT32 and ember_f32_gemm_available() else None
        prods = new_tensor((nt * (Cout // G) * imgs * L if imgs > 1 else 0,), st)
        wc = contiguous(weight)
        bc = None if bias is None else contiguous(<TensorImpl>bias)
        wp = wc.data()
        bp = NULL if bc is None else (<TensorImpl>bc).data()
        op = out.data()
        cp = cols.data()
        pp = prods.data()
        pk = NULL if packs is None else (<TensorImpl>packs).data()
        blas_single_threaded(True)
        with nogil:
            if st == ST_FLOAT32:
                _conv_tasks(<const float*>xp, <const float*>wp, <const float*>pk, <const float*>bp, <float*>op,
                            <float*>cp, <float*>pp, N, C, H, W, Cout, G, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, rows,
                            imgs, nt)
            else:
                _conv_tasks(<const double*>xp, <const double*>wp, NULL, <const double*>bp, <double*>op, <double*>cp,
                            <double*>pp, N, C, H, W, Cout, G, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, rows, imgs, nt)
        blas_single_threaded(False)
        return out
    if L >= MIN_COLS:
        # Big images: unfold a band of output rows of one image at a time, small enough to stay
        # in the L2 cache for the GEMM that reads it back, and multiply it straight into the
        # output: W[g] (Cout/G, K) @ cols[g] (K, T) is the slice out[n, g, :, band] (rows L apart).
        rows = max(1, TILE_BYTES // (R * Wo * x.itemsize))
        rows = max(rows, _ceil_div(MIN_COLS, Wo))
        if rows > Ho:
            rows = Ho
        cols = new_tensor((R * rows * Wo,), st)
        cp = cols.data()
        cflat = np_view(cols)
        b = None if bias is None else np_view(<TensorImpl>bias).reshape(G, Cout // G, 1)
        for n in range(N):
            for oh0 in range(0, Ho, rows):
                oh1 = min(Ho, oh0 + rows)
                T = (oh1 - oh0) * Wo
                with nogil:
                    _unfold(st, xp + n * image, cp, 1, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)
                band = o[n, :, :, oh0 * Wo:oh1 * Wo]
                np.matmul(w, cflat[:R * T].reshape(G, K, T), out=band)
                if b is not None:
                    band += b
        return out
    # Small images: unfold several at a time, laid out (C*kh*kw, images, L) so that one GEMM per
    # group covers them, (Cout/G, K) @ (K, images * L), transposed into (images, Cout/G, L): one
    # copy of the output buys far fewer BLAS calls (and thread hand-overs)
    chunk = max(_ceil_div(MIN_COLS, L), TILE_BYTES // (R * L * x.itemsize))
    chunk = max(1, min(chunk, COLS_BYTES // (R * L * x.itemsize), N))
    cols = new_tensor((R * chunk * L,), st)
    cp = cols.data()
    for n0 in range(0, N, chunk):
        n1 = min(N, n0 + chunk)
        with nogil:
            _unfold(st, xp + n0 * image, cp, n1 - n0, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, 0, Ho)
        cv = np_view(cols)[:R * (n1 - n0) * L].reshape(G, K, n1 - n0, L)
        if n1 - n0 == 1:
            np.matmul(w, cv[:, :, 0, :], out=o[n0])
        else:
            prod = np.matmul(w, cv.reshape(G, K, (n1 - n0) * L)).reshape(G, Cout // G, n1 - n0, L)
            o[n0:n1] = prod.transpose(2, 0, 1, 3)
    _add_bias(out, bias)
    return out


cdef void _transpose_tasks(const floating_t* x, const floating_t* w, floating_t* out, floating_t* cols,
                           floating_t* ins, Py_ssize_t N, Py_ssize_t Cin, Py_ssize_t Hi, Py_ssize_t Wi, Py_ssize_t Cout,
                           Py_ssize_t G, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph,
                           Py_ssize_t pw, Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t Ho, Py_ssize_t Wo, Py_ssize_t imgs,
                           int nt) noexcept nogil:
    """The transposed convolution `imgs` images per task over nt threads, BLAS single-threaded (see
    _DIRECT_BLAS): the columns W[g]^T @ x[n, g] into this thread's buffer, folded into out[n] (zeroed).
    Several small images are gathered side by side (Cin, imgs*Lin) into this thread's `ins`, so
    that one GEMM per group gives all their columns."""
    cdef Py_ssize_t Kin = Cin // G, K2 = (Cout // G) * kh * kw, Lin = Hi * Wi, task, n0, cnt, i, g, T, ldb
    cdef floating_t* buf
    cdef const floating_t* b
    for task in prange(_ceil_div(N, imgs), num_threads=nt, schedule="dynamic", chunksize=1):
        buf = cols + threadid() * G * K2 * imgs * Lin
        n0 = task * imgs
        cnt = min(imgs, N - n0)
        T = cnt * Lin
        if cnt > 1:
            _gather_images(x + n0 * Cin * Lin, ins + threadid() * Cin * imgs * Lin, cnt, Cin, Lin)
        for g in range(G):
            if cnt > 1:
                b, ldb = ins + threadid() * Cin * imgs * Lin + g * Kin * T, T
            else:
                b, ldb = x + (n0 * Cin + g * Kin) * Lin, Lin
            if floating_t is float:
                _sgemm(CBLAS_ROW_MAJOR, CBLAS_TRANS, CBLAS_NO_TRANS, K2, T, Kin, 1.0, w + g * Kin * K2, K2,
                       b, ldb, 0.0, buf + g * K2 * T, T)
            else:
                _dgemm(CBLAS_ROW_MAJOR, CBLAS_TRANS, CBLAS_NO_TRANS, K2, T, Kin, 1.0, w + g * Kin * K2, K2,
                       b, ldb, 0.0, buf + g * K2 * T, T)
        for i in range(cnt):
            _col2im(buf + i * Lin, out + (n0 + i) * Cout * Ho * Wo, Cout, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw,
                    Hi, Wi, T, 1)


cdef object _conv_transpose(TensorImpl input, TensorImpl weight, object bias, tuple stride, tuple padding,
                            tuple dilation, tuple output_padding, Py_ssize_t groups, int k):
    cdef Py_ssize_t N = input.sizes[0], Cin = input.sizes[1], G = groups
    cdef Py_ssize_t Cout = weight.sizes[1] * groups
    cdef Py_ssize_t Hi, Wi, kh, kw, Ho, Wo, Lin, n, imgs
    cdef int st = input.scalar_type, nt
    cdef bint blas, identity
    cdef Py_ssize_t sh = stride[0], sw = stride[1], ph = padding[0], pw = padding[1], dh = dilation[0], dw = dilation[1]
    cdef TensorImpl x, out, cols, wc, ins
    cdef char* ip
    cdef char* op
    cdef char* cp
    cdef char* xp
    cdef char* wp
    Hi, Wi = _spatial(input, k)
    kh, kw = _spatial(weight, k)
    if k == 2:
        Ho, Wo = transposed_output_sizes((Hi, Wi), (kh, kw), stride, padding, dilation, output_padding)
    else:
        Ho = 1
        Wo, = transposed_output_sizes((Wi,), (kw,), stride[1:], padding[1:], dilation[1:], output_padding[1:])
    out_shape = tuple([N, Cout, Wo] if k == 1 else [N, Cout, Ho, Wo])
    out = new_tensor(out_shape, st)
    if out.n_elem == 0:
        return out
    o = np_view(out)
    o[...] = 0
    Lin = Hi * Wi
    blas = (st == ST_FLOAT32 and _sgemm != NULL) or (st == ST_FLOAT64 and _dgemm != NULL)
    if Lin and Cin and blas:
        x = contiguous(input)
        wc = contiguous(weight)
        # small images several to a GEMM, as many as make it wide (a count set by the shape alone)
        imgs = max(1, min(_ceil_div(MIN_COLS, Lin), N // SMALL_IMAGE_TASKS))
        nt = min(num_threads(), _ceil_div(N, imgs))
        cols = new_tensor((nt * Cout * kh * kw * imgs * Lin,), st)
        ins = new_tensor((nt * Cin * imgs * Lin if imgs > 1 else 0,), st)
        xp, wp, op, cp, ip = x.data(), wc.data(), out.data(), cols.data(), ins.data()
        blas_single_threaded(True)
        with nogil:
            if st == ST_FLOAT32:
                _transpose_tasks(<const float*>xp, <const float*>wp, <float*>op, <float*>cp, <float*>ip, N, Cin, Hi,
                                 Wi, Cout, G, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, imgs, nt)
            else:
                _transpose_tasks(<const double*>xp, <const double*>wp, <double*>op, <double*>cp, <double*>ip, N, Cin,
                                 Hi, Wi, Cout, G, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, imgs, nt)
        blas_single_threaded(False)
    elif Lin and Cin:
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


# ---------------------------------------------------------------------------------------------
# The weight's gradient: dW[g] = sum over images n of grad[n, g] (M x L) @ cols(x[n])[g]^T (L x K)

cdef enum:
    WEIGHT_GRAD_SLICES = 64   # image slices, each summed by one task: fixed by N alone, not by the threads


cdef void _weight_grad_tasks(const floating_t* x, const floating_t* gr, floating_t* parts, floating_t* cols,
                             floating_t* grads, Py_ssize_t N, Py_ssize_t C, Py_ssize_t H, Py_ssize_t W,
                             Py_ssize_t Cout, Py_ssize_t G, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw,
                             Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t Ho, Py_ssize_t Wo,
                             Py_ssize_t rows, Py_ssize_t imgs, Py_ssize_t per_slice, Py_ssize_t slices,
                             int nt) noexcept nogil:
    """parts[s] (G, M, K) = the sum over slice s's images, in order, of grad[g] times the columns
    transposed: a band of one image's rows at a time (imgs == 1), or whole images `imgs` at a time,
    their grads gathered side by side (Cout, imgs*L) into this thread's `grads` so that one GEMM per
    group covers them. Single-threaded BLAS in each task, so a part's bits do not depend on which
    thread ran it."""
    cdef Py_ssize_t R = C * kh * kw, K = R // G, M = Cout // G, L = Ho * Wo
    cdef Py_ssize_t s, n, cnt, end, oh0, oh1, T, g, lda
    cdef floating_t* buf
    cdef floating_t* gb
    cdef floating_t* part
    cdef const floating_t* a
    cdef floating_t beta
    for s in prange(slices, num_threads=nt, schedule="dynamic", chunksize=1):
        buf = cols + threadid() * R * imgs * rows * Wo
        gb = grads + threadid() * Cout * imgs * L
        part = parts + s * Cout * K
        beta = 0
        n = s * per_slice
        end = min(N, (s + 1) * per_slice)
        while n < end:
            cnt = min(imgs, end - n)
            if cnt > 1:
                _gather_images(gr + n * Cout * L, gb, cnt, Cout, L)
            oh0 = 0
            while oh0 < Ho:
                oh1 = min(Ho, oh0 + rows)
                T = (oh1 - oh0) * Wo * cnt
                _im2col(x + n * C * H * W, buf, cnt, C, H, W, kh, kw, sh, sw, ph, pw, dh, dw, Wo, oh0, oh1)
                for g in range(G):
                    if cnt > 1:
                        a, lda = gb + g * M * T, T
                    else:
                        a, lda = gr + (n * Cout + g * M) * L + oh0 * Wo, L
                    if floating_t is float:
                        _sgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS, M, K, T, 1.0, a, lda, buf + g * K * T, T,
                               beta, part + g * M * K, K)
                    else:
                        _dgemm(CBLAS_ROW_MAJOR, CBLAS_NO_TRANS, CBLAS_TRANS, M, K, T, 1.0, a, lda, buf + g * K * T, T,
                               beta, part + g * M * K, K)
                beta = 1
                oh0 = oh1
            n = n + cnt


cdef void _sum_parts(const floating_t* parts, floating_t* out, Py_ssize_t slices, Py_ssize_t size,
                     int nt) noexcept nogil:
    """out = parts[0] + parts[1] + ... in that order, element by element."""
    cdef Py_ssize_t i, s
    cdef floating_t acc
    for i in prange(size, num_threads=nt, schedule="static"):
        acc = parts[i]
        for s in range(1, slices):
            acc = acc + parts[s * size + i]
        out[i] = acc


def convolution_weight_grad_cpu(TensorImpl grad_output not None, TensorImpl input not None, weight_sizes, stride,
                                padding, dilation, Py_ssize_t groups):
    """The gradient of a (1-D or 2-D, not transposed) float32/float64 convolution in its weight."""
    cdef int k = len(weight_sizes) - 2, st = input.scalar_type, nt
    cdef Py_ssize_t N = input.sizes[0], C = input.sizes[1], Cout = weight_sizes[0], G = groups
    cdef Py_ssize_t H, W, kh, kw, Ho, Wo, R, K, rows, imgs, per_slice, slices, sh, sw, ph, pw, dh, dw
    cdef TensorImpl x, gr, out, parts, cols, grads
    cdef char* gbp
    cdef char* xp
    cdef char* gp
    cdef char* pp
    cdef char* cp
    cdef char* op
    if k not in (1, 2) or input.nd != k + 2 or grad_output.nd != k + 2:
        raise RuntimeError(f"_ember_convolution_weight_grad: a 1-D or 2-D convolution, got weight sizes "
                           f"{list(weight_sizes)} and an input of {input.nd} dims")
    if st not in (ST_FLOAT32, ST_FLOAT64) or grad_output.scalar_type != st:
        raise RuntimeError("_ember_convolution_weight_grad: float32 or float64 input and grad_output of one dtype")
    if (st == ST_FLOAT32 and _sgemm == NULL) or (st == ST_FLOAT64 and _dgemm == NULL):
        raise RuntimeError("_ember_convolution_weight_grad: no BLAS GEMM found (NumPy's OpenBLAS)")
    stride, padding, dilation = tuple(stride), tuple(padding), tuple(dilation)
    if k == 1:
        stride, padding, dilation = (1,) + stride, (0,) + padding, (1,) + dilation
    sh, sw, ph, pw, dh, dw = stride[0], stride[1], padding[0], padding[1], dilation[0], dilation[1]
    H, W = _spatial(input, k)
    Ho, Wo = _spatial(grad_output, k)
    kh, kw = (1, weight_sizes[2]) if k == 1 else (weight_sizes[2], weight_sizes[3])
    R = C * kh * kw
    K = R // G
    out = new_tensor(tuple(weight_sizes), st)
    if out.n_elem == 0:
        return out
    if N == 0 or Ho * Wo == 0:
        np_view(out)[...] = 0
        return out
    x = contiguous(input)
    gr = contiguous(grad_output)
    nt = num_threads()
    rows = max(1, TILE_BYTES // (R * Wo * x.itemsize))
    rows = min(Ho, max(rows, _ceil_div(MIN_COLS, Wo)))
    per_slice = _ceil_div(N, WEIGHT_GRAD_SLICES)
    imgs = 1
    if Ho * Wo < MIN_COLS:
        # small images: enough of them per GEMM for it to be wide, but at least SMALL_IMAGE_TASKS slices
        # where there are as many images, the slices cut to match (all set by the shape alone: BLAS's
        # bits depend on the GEMM's width)
        imgs = max(1, min(_ceil_div(MIN_COLS, Ho * Wo), N // SMALL_IMAGE_TASKS))
        per_slice = max(per_slice, imgs)
    slices = _ceil_div(N, per_slice)
    nt = min(nt, slices)
    parts = new_tensor((slices * Cout * K,), st)
    cols = new_tensor((nt * R * imgs * rows * Wo,), st)
    grads = new_tensor((nt * Cout * imgs * Ho * Wo if imgs > 1 else 0,), st)
    xp, gp, pp, cp, op, gbp = x.data(), gr.data(), parts.data(), cols.data(), out.data(), grads.data()
    blas_single_threaded(True)
    with nogil:
        if st == ST_FLOAT32:
            _weight_grad_tasks(<const float*>xp, <const float*>gp, <float*>pp, <float*>cp, <float*>gbp, N, C, H, W,
                               Cout, G, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, rows, imgs, per_slice, slices, nt)
            _sum_parts(<const float*>pp, <float*>op, slices, Cout * K, nt)
        else:
            _weight_grad_tasks(<const double*>xp, <const double*>gp, <double*>pp, <double*>cp, <double*>gbp, N, C, H,
                               W, Cout, G, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo, rows, imgs, per_slice, slices, nt)
            _sum_parts(<const double*>pp, <double*>op, slices, Cout * K, nt)
    blas_single_threaded(False)
    return out
