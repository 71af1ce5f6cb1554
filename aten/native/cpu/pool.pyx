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
from aten.native.cpu.array_bridge cimport new_tensor, reject_half, require_floating, contiguous, num_threads
from aten.native.meta.messages cimport shape_of
from aten.native.cpu.element_types cimport num_t, floating_t
from aten.native.meta.pool_geometry import max_pool2d_geometry, avg_pool2d_geometry, adaptive_avg_pool2d_geometry

cdef enum:
    GRAIN = 32768


# ---- max pooling ------------------------------------------------------------------------------

cdef void _max_pool(const num_t* x, num_t* y, int64_t* ind, Py_ssize_t planes, Py_ssize_t H, Py_ssize_t W,
                    Py_ssize_t Ho, Py_ssize_t Wo, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw,
                    Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh, Py_ssize_t dw, int nt) noexcept nogil:
    cdef Py_ssize_t p, oh, ow, h0, w0, h, w, hs, ws, best_i
    cdef const num_t* plane
    cdef num_t v, best
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
                        if num_t is float or num_t is double:
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
                if num_t is float or num_t is double:
                    if first:
                        best = -INFINITY
                y[(p * Ho + oh) * Wo + ow] = best
                ind[(p * Ho + oh) * Wo + ow] = best_i


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

cdef void _avg_pool(const num_t* x, num_t* y, Py_ssize_t planes, Py_ssize_t H, Py_ssize_t W, Py_ssize_t Ho,
                    Py_ssize_t Wo, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph,
                    Py_ssize_t pw, bint count_include_pad, Py_ssize_t divisor, int nt) noexcept nogil:
    cdef Py_ssize_t p, oh, ow, h0, h1, w0, w1, h, w, pool, div
    cdef const num_t* plane
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
                        if num_t is float or num_t is double:
                            facc = facc + plane[h * W + w]
                        else:
                            iacc = iacc + plane[h * W + w]
                if divisor != 0:
                    div = divisor
                elif count_include_pad:
                    div = pool
                else:
                    div = (h1 - h0) * (w1 - w0)
                if num_t is float or num_t is double:
                    y[(p * Ho + oh) * Wo + ow] = <num_t>(facc / div)
                else:
                    y[(p * Ho + oh) * Wo + ow] = <num_t>(iacc // div)


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

cdef void _adaptive_avg(const floating_t* x, floating_t* y, Py_ssize_t planes, Py_ssize_t H, Py_ssize_t W, Py_ssize_t Ho,
                        Py_ssize_t Wo, int nt) noexcept nogil:
    cdef Py_ssize_t p, oh, ow, h0, h1, w0, w1, h, w
    cdef const floating_t* plane
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
                y[(p * Ho + oh) * Wo + ow] = <floating_t>(acc / ((h1 - h0) * (w1 - w0)))


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
