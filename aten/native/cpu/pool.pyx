"""2-D pooling on CPU: max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d.

One plane (n, c) per OpenMP iteration over a contiguous copy of the input; every output
element scans its window. Output sizes, checks and messages follow PyTorch's Pool.h
(pooling_output_shape, pool2d_shape_check); max pooling propagates NaN and returns flat
h * W + w indices, as PyTorch's CPU kernel does.
"""
from cython.parallel cimport prange
from libc.math cimport isnan, INFINITY
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t

from c10.scalar_type cimport ST_INT8, ST_INT16, ST_INT32, ST_INT64, ST_FLOAT32, ST_FLOAT64, ST_BOOL
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu.nn_common cimport new_tensor, shape_of, reject_half, require_floating, contiguous, num_threads
from aten.native.cpu.half import float16_via_float32

ctypedef fused ntype:
    float
    double
    int64_t
    int32_t
    int16_t
    int8_t
    uint8_t

ctypedef fused ftype:
    float
    double

cdef enum:
    GRAIN = 32768


cdef tuple _pair(object value, str op, str what, bint allow_empty):
    value = (value,) if isinstance(value, int) else tuple(value)
    if allow_empty and len(value) == 0:
        return ()
    if len(value) not in (1, 2):
        if what == "kernel_size":
            raise RuntimeError(f"{op}: kernel_size must either be a single int, or a tuple of two ints")
        if what == "stride":
            raise RuntimeError(f"{op}: stride must either be omitted, a single int, or a tuple of two ints")
        if what == "dilation":
            raise RuntimeError(f"{op}: dilation must be either a single int, or a tuple of two ints")
        raise RuntimeError(f"{op}: {what} must either be a single int, or a tuple of two ints")
    return value * 2 if len(value) == 1 else value


cdef Py_ssize_t pooling_output_shape(Py_ssize_t size, Py_ssize_t k, Py_ssize_t pad, Py_ssize_t stride,
                                     Py_ssize_t dilation, bint ceil_mode) except? -1:
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} "
                           f"and dilation={dilation}")
    cdef Py_ssize_t num = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    cdef Py_ssize_t out = (num // stride if num >= 0 else -((-num + stride - 1) // stride)) + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


cdef int pool2d_shape_check(TensorImpl input, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw,
                            Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t planes,
                            Py_ssize_t ih, Py_ssize_t iw, Py_ssize_t oh, Py_ssize_t ow) except -1:
    if kw <= 0 or kh <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sw <= 0 or sh <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}")
    valid = input.sizes[1] != 0 and input.sizes[2] != 0
    if not ((input.nd == 3 and input.sizes[0] != 0 and valid) or (input.nd == 4 and valid and input.sizes[3] != 0)):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{list(shape_of(input))}")
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {pw}, "
                           f"padH = {ph}, kW = {kw}, kH = {kh}")
    if ow < 1 or oh < 1:
        raise RuntimeError(f"Given input size: ({planes}x{ih}x{iw}). Calculated output size: ({planes}x{oh}x{ow}). "
                           "Output size is too small")
    return 0


# ---- max pooling ------------------------------------------------------------------------------

cdef void _max_pool(const ntype* x, ntype* y, int64_t* ind, Py_ssize_t planes, Py_ssize_t H, Py_ssize_t W,
                    Py_ssize_t Ho, Py_ssize_t Wo, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw,
                    Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh, Py_ssize_t dw, int nt) noexcept nogil:
    cdef Py_ssize_t p, oh, ow, h0, w0, h, w, hs, ws, best_i
    cdef const ntype* plane
    cdef ntype v, best
    cdef bint first
    for p in prange(planes, num_threads=nt, schedule="static"):
        plane = x + p * H * W
        for oh in range(Ho):
            hs = oh * sh - ph
            h0 = hs
            while h0 < 0:
                h0 = h0 + dh
            for ow in range(Wo):
                ws = ow * sw - pw
                w0 = ws
                while w0 < 0:
                    w0 = w0 + dw
                best_i = h0 * W + w0
                first = True
                best = plane[0]
                h = h0
                while h < hs + (kh - 1) * dh + 1 and h < H:
                    w = w0
                    while w < ws + (kw - 1) * dw + 1 and w < W:
                        v = plane[h * W + w]
                        if ntype is float or ntype is double:
                            if first or v > best or isnan(v):
                                best = v
                                best_i = h * W + w
                                first = False
                        else:
                            if first or v > best:
                                best = v
                                best_i = h * W + w
                                first = False
                        w = w + dw
                    h = h + dh
                if ntype is float or ntype is double:
                    if first:
                        best = -INFINITY
                y[(p * Ho + oh) * Wo + ow] = best
                ind[(p * Ho + oh) * Wo + ow] = best_i


def max_pool2d_geometry(TensorImpl self not None, kernel_size, stride=(), padding=0, dilation=1,
                        bint ceil_mode=False):
    """PyTorch's max_pool2d argument and shape checks; (kh, kw, sh, sw, ph, pw, dh, dw, N, C, H, W,
    Ho, Wo). The CUDA kernel (aten/native/cuda/conv.py) checks through it too."""
    cdef tuple k = _pair(kernel_size, "max_pool2d", "kernel_size", False)
    cdef tuple s = _pair(stride, "max_pool2d", "stride", True)
    cdef tuple pd = _pair(padding, "max_pool2d", "padding", False)
    cdef tuple dl = _pair(dilation, "max_pool2d", "dilation", False)
    if not s:
        s = k
    if self.nd != 3 and self.nd != 4:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    cdef Py_ssize_t kh = k[0], kw = k[1], sh = s[0], sw = s[1], ph = pd[0], pw = pd[1], dh = dl[0], dw = dl[1]
    cdef Py_ssize_t H = self.sizes[self.nd - 2], W = self.sizes[self.nd - 1], C = self.sizes[self.nd - 3]
    cdef Py_ssize_t N = self.sizes[0] if self.nd == 4 else 1
    cdef Py_ssize_t Ho = pooling_output_shape(H, kh, ph, sh, dh, ceil_mode)
    cdef Py_ssize_t Wo = pooling_output_shape(W, kw, pw, sw, dw, ceil_mode)
    pool2d_shape_check(self, kh, kw, sh, sw, ph, pw, dh, dw, C, H, W, Ho, Wo)
    return kh, kw, sh, sw, ph, pw, dh, dw, N, C, H, W, Ho, Wo


@float16_via_float32
def max_pool2d_with_indices_cpu(TensorImpl self not None, kernel_size, stride=(), padding=0, dilation=1,
                                bint ceil_mode=False):
    cdef Py_ssize_t kh, kw, sh, sw, ph, pw, dh, dw, N, C, H, W, Ho, Wo
    kh, kw, sh, sw, ph, pw, dh, dw, N, C, H, W, Ho, Wo = max_pool2d_geometry(self, kernel_size, stride, padding,
                                                                             dilation, ceil_mode)
    reject_half("max_pool2d", self)
    if self.scalar_type == ST_BOOL:
        raise NotImplementedError('"max_pool2d" not implemented for \'Bool\'')
    shape = tuple(list(shape_of(self)[:self.nd - 2]) + [Ho, Wo])
    cdef TensorImpl out = new_tensor(shape, self.scalar_type), ind = new_tensor(shape, ST_INT64)
    if out.n_elem == 0:
        return out, ind
    cdef TensorImpl x = contiguous(self)
    cdef Py_ssize_t planes = N * C
    cdef int st = self.scalar_type
    cdef int nt = num_threads() if out.n_elem * kh * kw >= GRAIN else 1
    cdef char* xp = x.data()
    cdef char* yp = out.data()
    cdef int64_t* ip = <int64_t*>ind.data()
    with nogil:
        if st == ST_FLOAT32:
            _max_pool(<float*>xp, <float*>yp, ip, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw, nt)
        elif st == ST_FLOAT64:
            _max_pool(<double*>xp, <double*>yp, ip, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw, nt)
        elif st == ST_INT64:
            _max_pool(<int64_t*>xp, <int64_t*>yp, ip, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw, nt)
        elif st == ST_INT32:
            _max_pool(<int32_t*>xp, <int32_t*>yp, ip, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw, nt)
        elif st == ST_INT16:
            _max_pool(<int16_t*>xp, <int16_t*>yp, ip, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw, nt)
        elif st == ST_INT8:
            _max_pool(<int8_t*>xp, <int8_t*>yp, ip, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw, nt)
        else:
            _max_pool(<uint8_t*>xp, <uint8_t*>yp, ip, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, dh, dw, nt)
    return out, ind


# ---- average pooling --------------------------------------------------------------------------

cdef void _avg_pool(const ntype* x, ntype* y, Py_ssize_t planes, Py_ssize_t H, Py_ssize_t W, Py_ssize_t Ho,
                    Py_ssize_t Wo, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph,
                    Py_ssize_t pw, bint count_include_pad, Py_ssize_t divisor, int nt) noexcept nogil:
    cdef Py_ssize_t p, oh, ow, h0, h1, w0, w1, h, w, pool, div
    cdef const ntype* plane
    cdef double facc
    cdef int64_t iacc
    for p in prange(planes, num_threads=nt, schedule="static"):
        plane = x + p * H * W
        for oh in range(Ho):
            for ow in range(Wo):
                h0 = oh * sh - ph
                w0 = ow * sw - pw
                h1 = h0 + kh
                if h1 > H + ph:
                    h1 = H + ph
                w1 = w0 + kw
                if w1 > W + pw:
                    w1 = W + pw
                pool = (h1 - h0) * (w1 - w0)
                if h0 < 0:
                    h0 = 0
                if w0 < 0:
                    w0 = 0
                if h1 > H:
                    h1 = H
                if w1 > W:
                    w1 = W
                if h0 >= h1 or w0 >= w1:
                    y[(p * Ho + oh) * Wo + ow] = 0
                    continue
                facc = 0
                iacc = 0
                for h in range(h0, h1):
                    for w in range(w0, w1):
                        if ntype is float or ntype is double:
                            facc = facc + plane[h * W + w]
                        else:
                            iacc = iacc + plane[h * W + w]
                if divisor != 0:
                    div = divisor
                elif count_include_pad:
                    div = pool
                else:
                    div = (h1 - h0) * (w1 - w0)
                if ntype is float or ntype is double:
                    y[(p * Ho + oh) * Wo + ow] = <ntype>(facc / div)
                else:
                    y[(p * Ho + oh) * Wo + ow] = <ntype>(iacc // div)


def avg_pool2d_geometry(TensorImpl self not None, kernel_size, stride=(), padding=0, bint ceil_mode=False,
                        divisor_override=None):
    """PyTorch's avg_pool2d argument and shape checks; (kh, kw, sh, sw, ph, pw, N, C, H, W, Ho, Wo).
    The CUDA kernel (aten/native/cuda/conv.py) checks through it too."""
    cdef tuple k = _pair(kernel_size, "avg_pool2d", "kernel_size", False)
    cdef tuple s = _pair(stride, "avg_pool2d", "stride", True)
    cdef tuple pd = _pair(padding, "avg_pool2d", "padding", False)
    if not s:
        s = k
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if self.nd < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(self.nd, 1)}, "
                         f"{max(self.nd, 1) - 1}], but got -3)")
    cdef Py_ssize_t kh = k[0], kw = k[1], sh = s[0], sw = s[1], ph = pd[0], pw = pd[1]
    cdef Py_ssize_t H = self.sizes[self.nd - 2], W = self.sizes[self.nd - 1], C = self.sizes[self.nd - 3]
    cdef Py_ssize_t N = self.sizes[0] if self.nd == 4 else 1
    cdef Py_ssize_t Ho = pooling_output_shape(H, kh, ph, sh, 1, ceil_mode)
    cdef Py_ssize_t Wo = pooling_output_shape(W, kw, pw, sw, 1, ceil_mode)
    pool2d_shape_check(self, kh, kw, sh, sw, ph, pw, 1, 1, C, H, W, Ho, Wo)
    return kh, kw, sh, sw, ph, pw, N, C, H, W, Ho, Wo


@float16_via_float32
def avg_pool2d_cpu(TensorImpl self not None, kernel_size, stride=(), padding=0, bint ceil_mode=False,
                   bint count_include_pad=True, divisor_override=None):
    cdef Py_ssize_t kh, kw, sh, sw, ph, pw, N, C, H, W, Ho, Wo
    kh, kw, sh, sw, ph, pw, N, C, H, W, Ho, Wo = avg_pool2d_geometry(self, kernel_size, stride, padding, ceil_mode,
                                                                     divisor_override)
    reject_half("avg_pool2d", self)
    if self.scalar_type == ST_BOOL:
        raise NotImplementedError('"avg_pool2d" not implemented for \'Bool\'')
    shape = tuple(list(shape_of(self)[:self.nd - 2]) + [Ho, Wo])
    cdef TensorImpl out = new_tensor(shape, self.scalar_type)
    if out.n_elem == 0:
        return out
    cdef TensorImpl x = contiguous(self)
    cdef Py_ssize_t planes = N * C, divisor = 0 if divisor_override is None else divisor_override
    cdef int st = self.scalar_type
    cdef int nt = num_threads() if out.n_elem * kh * kw >= GRAIN else 1
    cdef char* xp = x.data()
    cdef char* yp = out.data()
    with nogil:
        if st == ST_FLOAT32:
            _avg_pool(<float*>xp, <float*>yp, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, count_include_pad, divisor, nt)
        elif st == ST_FLOAT64:
            _avg_pool(<double*>xp, <double*>yp, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, count_include_pad, divisor, nt)
        elif st == ST_INT64:
            _avg_pool(<int64_t*>xp, <int64_t*>yp, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, count_include_pad, divisor, nt)
        elif st == ST_INT32:
            _avg_pool(<int32_t*>xp, <int32_t*>yp, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, count_include_pad, divisor, nt)
        elif st == ST_INT16:
            _avg_pool(<int16_t*>xp, <int16_t*>yp, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, count_include_pad, divisor, nt)
        elif st == ST_INT8:
            _avg_pool(<int8_t*>xp, <int8_t*>yp, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, count_include_pad, divisor, nt)
        else:
            _avg_pool(<uint8_t*>xp, <uint8_t*>yp, planes, H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, count_include_pad, divisor, nt)
    return out


# ---- adaptive average pooling -----------------------------------------------------------------

cdef void _adaptive_avg(const ftype* x, ftype* y, Py_ssize_t planes, Py_ssize_t H, Py_ssize_t W, Py_ssize_t Ho,
                        Py_ssize_t Wo, int nt) noexcept nogil:
    cdef Py_ssize_t p, oh, ow, h0, h1, w0, w1, h, w
    cdef const ftype* plane
    cdef double acc
    for p in prange(planes, num_threads=nt, schedule="static"):
        plane = x + p * H * W
        for oh in range(Ho):
            h0 = (oh * H) // Ho
            h1 = ((oh + 1) * H + Ho - 1) // Ho
            for ow in range(Wo):
                w0 = (ow * W) // Wo
                w1 = ((ow + 1) * W + Wo - 1) // Wo
                acc = 0
                for h in range(h0, h1):
                    for w in range(w0, w1):
                        acc = acc + plane[h * W + w]
                y[(p * Ho + oh) * Wo + ow] = <ftype>(acc / ((h1 - h0) * (w1 - w0)))


def adaptive_avg_pool2d_geometry(TensorImpl self not None, output_size):
    """PyTorch's adaptive_avg_pool2d argument and shape checks; (planes, H, W, Ho, Wo). The CUDA
    kernel (aten/native/cuda/conv.py) checks through it too."""
    output_size = tuple(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    cdef int i
    for i in range(self.nd - 2, self.nd):
        if i >= 0 and self.sizes[i] == 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(shape_of(self))} with dimension {i} being empty")
    if self.nd != 3 and self.nd != 4:
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(shape_of(self))}")
    if output_size[0] < 0 or output_size[1] < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]}}}")
    return (self.sizes[self.nd - 3] * (self.sizes[0] if self.nd == 4 else 1), self.sizes[self.nd - 2],
            self.sizes[self.nd - 1], output_size[0], output_size[1])


@float16_via_float32
def adaptive_avg_pool2d_cpu(TensorImpl self not None, output_size):
    cdef Py_ssize_t planes, H, W, Ho, Wo
    planes, H, W, Ho, Wo = adaptive_avg_pool2d_geometry(self, output_size)
    require_floating("adaptive_avg_pool2d", self)
    shape = tuple(list(shape_of(self)[:self.nd - 2]) + [Ho, Wo])
    cdef TensorImpl out = new_tensor(shape, self.scalar_type)
    if out.n_elem == 0:
        return out
    cdef TensorImpl x = contiguous(self)
    cdef int nt = num_threads() if self.n_elem >= GRAIN else 1
    with nogil:
        if x.scalar_type == ST_FLOAT32:
            _adaptive_avg(<float*>x.data(), <float*>out.data(), planes, H, W, Ho, Wo, nt)
        else:
            _adaptive_avg(<double*>x.data(), <double*>out.data(), planes, H, W, Ho, Wo, nt)
    return out
