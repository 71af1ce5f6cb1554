"""2-D pooling on CPU: max_pool2d_with_indices (and its gradient), avg_pool2d, _adaptive_avg_pool2d.

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
from aten.native.meta.messages cimport shape_of, type_name
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


cdef Py_ssize_t _scatter_planes(const floating_t* g, const int64_t* ind, floating_t* out, Py_ssize_t planes,
                                Py_ssize_t per_plane, Py_ssize_t plane_size, int nt) noexcept nogil:
    """out[p, ind[p, j]] += g[p, j], the planes over threads and each plane's adds in order (so the
    bits do not depend on the thread count); returns how many indices fell outside their plane."""
    cdef Py_ssize_t p, j, bad = 0
    cdef int64_t i
    cdef floating_t* dst
    for p in prange(planes, num_threads=nt, schedule="static"):
        dst = out + p * plane_size
        for j in range(plane_size):
            dst[j] = 0
        for j in range(per_plane):
            i = ind[p * per_plane + j]
            if i < 0 or i >= plane_size:
                bad += 1
            else:
                dst[i] = dst[i] + g[p * per_plane + j]
    return bad


def max_pool2d_backward_cpu(TensorImpl grad not None, TensorImpl indices not None, self_sizes):
    """The gradient of max pooling in its input: grad added at each window's argmax (indices flat
    over the last two dims of self_sizes), float32/float64 grads, int64 indices of grad's shape."""
    sizes = tuple(self_sizes)
    if len(sizes) < 2:
        raise RuntimeError(f"_ember_max_pool2d_backward: self_sizes needs two dims at least, got {list(sizes)}")
    cdef Py_ssize_t plane_size = sizes[len(sizes) - 2] * sizes[len(sizes) - 1], planes = 1, per_plane
    for s in sizes[:len(sizes) - 2]:
        planes *= s
    if grad.scalar_type not in (ST_FLOAT32, ST_FLOAT64):
        raise RuntimeError(f"_ember_max_pool2d_backward: a float32 or float64 grad, got {type_name(grad.scalar_type)}")
    if indices.scalar_type != ST_INT64 or shape_of(indices) != shape_of(grad):
        raise RuntimeError(f"_ember_max_pool2d_backward: int64 indices of grad's shape {list(shape_of(grad))}, got "
                           f"{type_name(indices.scalar_type)} indices of shape {list(shape_of(indices))}")
    if grad.nd < 2 or tuple(shape_of(grad)[:grad.nd - 2]) != sizes[:len(sizes) - 2]:
        raise RuntimeError(f"_ember_max_pool2d_backward: grad of shape {list(shape_of(grad))} does not pool an input "
                           f"of shape {list(sizes)}")
    cdef TensorImpl out = new_tensor(sizes, grad.scalar_type)
    if out.n_elem == 0:
        return out
    per_plane = grad.n_elem // planes
    cdef TensorImpl g = contiguous(grad), ind = contiguous(indices)
    cdef int nt = num_threads() if out.n_elem + grad.n_elem >= GRAIN else 1
    cdef Py_ssize_t bad
    with nogil:
        if g.scalar_type == ST_FLOAT32:
            bad = _scatter_planes(<const float*>g.data(), <const int64_t*>ind.data(), <float*>out.data(), planes,
                                  per_plane, plane_size, nt)
        else:
            bad = _scatter_planes(<const double*>g.data(), <const int64_t*>ind.data(), <double*>out.data(), planes,
                                  per_plane, plane_size, nt)
    if bad:
        raise RuntimeError(f"_ember_max_pool2d_backward: {bad} indices outside [0, {plane_size}) of their plane")
    return out


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
