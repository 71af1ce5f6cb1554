"""Neural-network kernels against NumPy float64 references written from their definitions:
softmax, convolution (explicit sums over kernel offsets), pooling (explicit windows),
normalisation, losses, padding, embedding, one_hot, upsampling, attention.

Ops with `python_module: nn` are called as torch._C._nn.<name>, as torch.nn.functional does."""
from __future__ import annotations

import numpy as np

import torch
from dtype_cases import NUMPY_OF, random_values
from opinfo.core import FLOATING, INTEGRAL, OpInfo, SampleInput

NUMERIC = INTEGRAL + FLOATING
TOL = {torch.float32: (1e-5, 1e-5), torch.float64: (1e-10, 1e-10)}
SUM_TOL = {torch.float32: (1e-4, 1e-4), torch.float64: (1e-10, 1e-10)}


def _v(dtype, shape, rng, scale=1.0):
    return random_values(dtype, tuple(shape), rng, int_range=(-5, 5), float_scale=scale)


def _f64(a):
    return np.asarray(a, dtype=np.float64)


def _pair(v, n=2):
    return (v,) * n if isinstance(v, int) else (tuple(v) * n if len(v) == 1 else tuple(v))


# ---- softmax ---------------------------------------------------------------------------------

def softmax_samples(dtype, rng):
    out = [SampleInput((_v(dtype, s, rng, 4.0), d), name=f"{s} dim {d}")
           for s, d in [((3, 7), 1), ((3, 7), 0), ((2, 3, 4), -2), ((5,), 0), ((), 0), ((0, 3), 1), ((2, 0), 1),
                        ((4, 300), 1), ((2, 300, 3), 1)]]
    out.append(SampleInput((_v(dtype, (3, 4), rng) * 1e4, 1), name="huge values"))
    out.append(SampleInput((_v(dtype, (3, 4), rng), 1), dict(dtype=torch.float64), name="dtype=float64"))
    return out


def _softmax(x, dim, dtype=None, log=False):
    out_dt = np.float64 if dtype is torch.float64 else x.dtype
    a = _f64(x)
    if a.ndim == 0:
        return np.asarray(0.0 if log else 1.0, dtype=out_dt)
    m = a.max(axis=dim, keepdims=True) if a.size else a
    e = np.exp(a - m)
    s = e.sum(axis=dim, keepdims=True)
    return (a - m - np.log(s) if log else e / s).astype(out_dt)


def _softmax_raw_samples(dtype, rng):
    return [SampleInput((_v(dtype, s, rng, 4.0), d, False), name=f"{s} dim {d}")
            for s, d in [((3, 7), 1), ((3, 7), 0), ((2, 3, 4), 1), ((0, 3), 1)]]


# ---- convolution -----------------------------------------------------------------------------

def conv2d_reference(x, w, b, stride, padding, dilation, groups):
    """float64 direct convolution: a sum over kernel taps of strided windows of the padded input
    (also the reference of test/torch/test_conv_paths.py)."""
    x, w = _f64(x), _f64(w)
    N, C, H, W = x.shape
    Co, Cg, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    xp = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    Ho = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((N, Co, Ho, Wo))
    og = Co // groups
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * Cg:(g + 1) * Cg, i * dh:i * dh + sh * (Ho - 1) + 1:sh,
                           j * dw:j * dw + sw * (Wo - 1) + 1:sw]
                out[:, g * og:(g + 1) * og] += np.einsum("nchw,oc->nohw", patch, w[g * og:(g + 1) * og, :, i, j])
    if b is not None:
        out += _f64(b)[None, :, None, None]
    return out


def _conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    if isinstance(padding, str):
        padding = (0, 0) if padding == "valid" else None
    unbatched = x.ndim == 3
    xb = x[None] if unbatched else x
    if padding is None:   # 'same': total padding d*(k-1), the extra on the right/bottom
        dl = _pair(dilation)
        tot = [dl[i] * (w.shape[2 + i] - 1) for i in range(2)]
        xb = np.pad(xb, ((0, 0), (0, 0), (tot[0] // 2, tot[0] - tot[0] // 2), (tot[1] // 2, tot[1] - tot[1] // 2)))
        padding = (0, 0)
    out = conv2d_reference(xb, w, b, _pair(stride), _pair(padding), _pair(dilation), groups).astype(x.dtype)
    return out[0] if unbatched else out


def _conv1d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    unbatched = x.ndim == 2
    xb = x[None] if unbatched else x
    if isinstance(padding, str):
        if padding == "same":
            tot = _pair(dilation, 1)[0] * (w.shape[2] - 1)
            xb = np.pad(xb, ((0, 0), (0, 0), (tot // 2, tot - tot // 2)))
        padding = 0
    out = conv2d_reference(xb[:, :, None], w[:, :, None], b, (1, _pair(stride, 1)[0]), (0, _pair(padding, 1)[0]),
                      (1, _pair(dilation, 1)[0]), groups)[:, :, 0].astype(x.dtype)
    return out[0] if unbatched else out


CONV2D = [((2, 3, 7, 6), (4, 3, 3, 3), {}), ((2, 4, 9, 8), (6, 2, 3, 3), dict(stride=2, padding=1, groups=2)),
          ((1, 6, 10, 10), (6, 2, 3, 3), dict(padding=2, dilation=2, groups=3)), ((3, 2, 5, 5), (4, 2, 1, 1), {}),
          ((2, 3, 8, 8), (5, 3, 2, 2), dict(stride=3, padding=1)), ((0, 3, 5, 5), (4, 3, 3, 3), {}),
          ((3, 5, 5), (4, 3, 3, 3), {}), ((2, 3, 6, 7), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0))),
          ((1, 4, 5, 5), (4, 1, 3, 3), dict(groups=4, padding=1)), ((2, 0, 5, 5), (4, 0, 3, 3), {})]


def conv2d_samples(dtype, rng):
    out = []
    for xs, ws, kw in CONV2D:
        w = _v(dtype, ws, rng)
        out.append(SampleInput((_v(dtype, xs, rng), w), dict(kw), name=f"{xs} {ws} {kw}"))
        out.append(SampleInput((_v(dtype, xs, rng), w, _v(dtype, ws[:1], rng)), dict(kw), name=f"{xs} {ws} {kw} bias"))
    for pad in ("same", "valid"):
        out.append(SampleInput((_v(dtype, (1, 3, 6, 5), rng), _v(dtype, (2, 3, 4, 3), rng)), dict(padding=pad),
                               name=pad))
        out.append(SampleInput((_v(dtype, (1, 3, 6, 5), rng), _v(dtype, (2, 3, 3, 3), rng)),
                               dict(padding=pad, dilation=2), name=f"{pad} dilated"))
    return out


def conv1d_samples(dtype, rng):
    cases = [((2, 3, 9), (4, 3, 3), {}), ((2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, groups=2)),
             ((1, 2, 10), (3, 2, 3), dict(dilation=3, padding=2)), ((3, 7), (4, 3, 2), {}),
             ((1, 3, 6), (2, 3, 4), dict(padding="same")), ((1, 3, 6), (2, 3, 3), dict(padding="valid"))]
    return [SampleInput((_v(dtype, xs, rng), _v(dtype, ws, rng), _v(dtype, ws[:1], rng)), dict(kw), name=f"{xs} {kw}")
            for xs, ws, kw in cases]


def _conv_transpose2d(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    unbatched = x.ndim == 3
    xb = _f64(x[None] if unbatched else x)
    wf = _f64(w)
    (sh, sw), (ph, pw), (oph, opw), (dh, dw) = _pair(stride), _pair(padding), _pair(output_padding), _pair(dilation)
    N, Cin, H, W = xb.shape
    _, Cog, kh, kw = wf.shape
    ig = Cin // groups
    full_h = (H - 1) * sh + dh * (kh - 1) + 1 + oph
    full_w = (W - 1) * sw + dw * (kw - 1) + 1 + opw
    buf = np.zeros((N, Cog * groups, full_h, full_w))
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                contrib = np.einsum("nchw,co->nohw", xb[:, g * ig:(g + 1) * ig], wf[g * ig:(g + 1) * ig, :, i, j])
                buf[:, g * Cog:(g + 1) * Cog, i * dh:i * dh + sh * (H - 1) + 1:sh,
                    j * dw:j * dw + sw * (W - 1) + 1:sw] += contrib
    Ho, Wo = full_h - 2 * ph, full_w - 2 * pw
    out = buf[:, :, ph:ph + Ho, pw:pw + Wo]
    if b is not None:
        out = out + _f64(b)[None, :, None, None]
    out = out.astype(x.dtype)
    return out[0] if unbatched else out


def conv_transpose2d_samples(dtype, rng):
    cases = [((2, 3, 4, 5), (3, 2, 3, 3), {}), ((1, 4, 5, 5), (4, 2, 3, 3), dict(groups=2, stride=2, padding=1,
                                                                               output_padding=1, dilation=2)),
             ((2, 3, 3, 3), (3, 4, 2, 2), dict(stride=2)), ((3, 4, 4), (3, 2, 3, 3), dict(padding=1)),
             ((2, 2, 3, 4), (2, 3, 3, 2), dict(stride=(2, 3), output_padding=(1, 2))), ((0, 3, 4, 4), (3, 2, 3, 3), {})]
    return [SampleInput((_v(dtype, xs, rng), _v(dtype, ws, rng), _v(dtype, (ws[1] * kw.get("groups", 1),), rng)),
                        dict(kw), name=f"{xs} {kw}") for xs, ws, kw in cases]


def _conv_transpose1d(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    out = _conv_transpose2d(x[..., None, :], w[:, :, None], b, (1, _pair(stride, 1)[0]), (0, _pair(padding, 1)[0]),
                            (0, _pair(output_padding, 1)[0]), groups, (1, _pair(dilation, 1)[0]))
    return out[..., 0, :]


def conv_transpose1d_samples(dtype, rng):
    cases = [((2, 3, 5), (3, 2, 3), {}), ((1, 4, 6), (4, 3, 3), dict(stride=3, padding=1, output_padding=2, groups=2))]
    return [SampleInput((_v(dtype, xs, rng), _v(dtype, ws, rng)), dict(kw), name=f"{xs} {kw}") for xs, ws, kw in cases]


def convolution_samples(dtype, rng):
    return [SampleInput((_v(dtype, (2, 3, 6, 5), rng), _v(dtype, (4, 3, 3, 3), rng), _v(dtype, (4,), rng),
                         (2, 1), (1, 1), (1, 2), False, (0, 0), 1), name="2d"),
            SampleInput((_v(dtype, (2, 4, 7), rng), _v(dtype, (4, 2, 3), rng), None, (1,), (0,), (1,), True, (0,), 2),
                        name="1d transposed")]


def _convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups):
    if x.ndim == 3:
        fn = _conv_transpose1d if transposed else _conv1d
    else:
        fn = _conv_transpose2d if transposed else _conv2d
    if transposed:
        return fn(x, w, b, stride, padding, output_padding, groups, dilation)
    return fn(x, w, b, stride, padding, dilation, groups)


# ---- pooling ---------------------------------------------------------------------------------

def _out_size(size, k, p, s, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = num // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _max_pool2d_with_indices(x, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    (kh, kw), (ph, pw), (dh, dw) = _pair(kernel_size), _pair(padding), _pair(dilation)
    sh, sw = _pair(stride) if stride not in ((), []) else (kh, kw)
    H, W = x.shape[-2:]
    Ho, Wo = _out_size(H, kh, ph, sh, dh, ceil_mode), _out_size(W, kw, pw, sw, dw, ceil_mode)
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    big = np.full(x.shape[:-2] + (H + 2 * ph + sh * Wo + dh * kh, W + 2 * pw + sw * Wo + dw * kw), low, dtype=x.dtype)
    big[..., ph:ph + H, pw:pw + W] = x
    best = np.full(x.shape[:-2] + (Ho, Wo), low, dtype=x.dtype)
    index = np.zeros(x.shape[:-2] + (Ho, Wo), dtype=np.int64)
    first = np.ones(best.shape, dtype=bool)
    rows, cols = np.meshgrid(np.arange(Ho), np.arange(Wo), indexing="ij")
    for i in range(kh):
        for j in range(kw):
            h = rows * sh - ph + i * dh
            w = cols * sw - pw + j * dw
            valid = (h >= 0) & (h < H) & (w >= 0) & (w < W)
            cand = big[..., i * dh:i * dh + sh * (Ho - 1) + 1:sh, j * dw:j * dw + sw * (Wo - 1) + 1:sw]
            take = valid & (first | (cand > best))
            best = np.where(take, cand, best)
            index = np.where(take, h * W + w, index)
            first &= ~valid
    return best, index


def max_pool_samples(dtype, rng):
    cases = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
             dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), dilation=(2, 1)), dict(kernel_size=2, ceil_mode=True),
             dict(kernel_size=[3], stride=[1], padding=[1], dilation=[1])]
    out = [SampleInput((_v(dtype, (2, 3, 7, 8), rng),), dict(kw), name=str(kw)) for kw in cases]
    out.append(SampleInput((_v(dtype, (3, 5, 5), rng), 2), name="unbatched"))
    out.append(SampleInput((_v(dtype, (0, 2, 5, 5), rng), 2), name="empty batch"))
    return out


def _avg_pool2d(x, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    (kh, kw), (ph, pw) = _pair(kernel_size), _pair(padding)
    sh, sw = _pair(stride) if stride not in ((), []) else (kh, kw)
    H, W = x.shape[-2:]
    Ho, Wo = _out_size(H, kh, ph, sh, 1, ceil_mode), _out_size(W, kw, pw, sw, 1, ceil_mode)
    out = np.zeros(x.shape[:-2] + (Ho, Wo))
    a = _f64(x) if x.dtype.kind == "f" else x.astype(np.int64)
    for oh in range(Ho):
        for ow in range(Wo):
            h0, w0 = oh * sh - ph, ow * sw - pw
            h1, w1 = min(h0 + kh, H + ph), min(w0 + kw, W + pw)
            pool = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            if h0 >= h1 or w0 >= w1:
                continue
            div = divisor_override or (pool if count_include_pad else (h1 - h0) * (w1 - w0))
            s = a[..., h0:h1, w0:w1].sum(axis=(-2, -1))
            out[..., oh, ow] = s / div if x.dtype.kind == "f" else np.trunc(s / div)
    return out.astype(x.dtype)


def avg_pool_samples(dtype, rng):
    cases = [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
             dict(kernel_size=2, padding=1, ceil_mode=True, count_include_pad=False),
             dict(kernel_size=(3, 2), stride=(1, 2), padding=(1, 1), divisor_override=5), dict(kernel_size=3, stride=1)]
    out = [SampleInput((_v(dtype, (2, 3, 7, 8), rng),), dict(kw), name=str(kw)) for kw in cases]
    out.append(SampleInput((_v(dtype, (3, 5, 5), rng), 2), name="unbatched"))
    return out


def _adaptive_avg_pool2d(x, output_size):
    Ho, Wo = output_size
    H, W = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + (Ho, Wo))
    for oh in range(Ho):
        h0, h1 = (oh * H) // Ho, -((-(oh + 1) * H) // Ho)
        for ow in range(Wo):
            w0, w1 = (ow * W) // Wo, -((-(ow + 1) * W) // Wo)
            out[..., oh, ow] = _f64(x)[..., h0:h1, w0:w1].mean(axis=(-2, -1))
    return out.astype(x.dtype)


def adaptive_samples(dtype, rng):
    return [SampleInput((_v(dtype, s, rng), o), name=f"{s}->{o}")
            for s, o in [((2, 3, 7, 8), (3, 5)), ((2, 3, 7, 8), (1, 1)), ((3, 5, 5), (7, 9)), ((1, 2, 6, 6), (6, 6)),
                         ((0, 2, 4, 4), (2, 2)), ((1, 2, 5, 5), (0, 2))]]


# ---- normalisation ---------------------------------------------------------------------------

def _layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    return _native_layer_norm(x, normalized_shape, weight, bias, eps)[0]


def _native_layer_norm(x, normalized_shape, weight, bias, eps):
    axes = tuple(range(x.ndim - len(normalized_shape), x.ndim))
    a = _f64(x)
    mean = a.mean(axis=axes, keepdims=True) if a.size else np.zeros(a.shape[:x.ndim - len(axes)] + (1,) * len(axes))
    var = a.var(axis=axes, keepdims=True) if a.size else mean
    rstd = 1 / np.sqrt(var + eps)
    y = (a - mean) * rstd
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)


def layer_norm_samples(dtype, rng):
    out = [SampleInput((_v(dtype, (4, 5, 6), rng, 3.0), [6]), name="last dim"),
           SampleInput((_v(dtype, (4, 5, 6), rng, 3.0), (5, 6), _v(dtype, (5, 6), rng), _v(dtype, (5, 6), rng)),
                       name="two dims affine"),
           SampleInput((_v(dtype, (3, 7), rng) + 100, [7], None, _v(dtype, (7,), rng)), dict(eps=1e-3), name="offset"),
           SampleInput((_v(dtype, (0, 4), rng), [4]), name="empty")]
    return out


def native_layer_norm_samples(dtype, rng):
    return [SampleInput((s.args + (None, None))[:4] + (1e-5,), name=s.name) if len(s.args) == 2 else
            SampleInput(s.args[:4] + (s.kwargs.get("eps", 1e-5),), name=s.name) for s in layer_norm_samples(dtype, rng)]


def _batch_norm_stats(x):
    axes = (0,) + tuple(range(2, x.ndim))
    return _f64(x).mean(axis=axes), _f64(x).var(axis=axes)


def _native_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        mean, var = _batch_norm_stats(x)
    else:
        mean, var = _f64(running_mean), _f64(running_var)
    y = (_f64(x) - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    if weight is not None:
        y = y * _f64(weight).reshape(shape)
    if bias is not None:
        y = y + _f64(bias).reshape(shape)
    if not training:
        return y.astype(x.dtype), np.zeros(0, x.dtype), np.zeros(0, x.dtype)
    return y.astype(x.dtype), mean.astype(x.dtype), (1 / np.sqrt(var + eps)).astype(x.dtype)


def native_batch_norm_samples(dtype, rng):
    C = 3
    stats = lambda: (_v(dtype, (C,), rng), np.abs(_v(dtype, (C,), rng)) + 0.5)  # noqa: E731
    out = []
    for shape in [(4, C, 5, 6), (6, C), (2, C, 7)]:
        out.append(SampleInput((_v(dtype, shape, rng, 3.0), _v(dtype, (C,), rng), _v(dtype, (C,), rng), None, None,
                                True, 0.1, 1e-5), name=f"{shape} training"))
        rm, rv = stats()
        out.append(SampleInput((_v(dtype, shape, rng, 3.0), _v(dtype, (C,), rng), None, rm, rv, False, 0.1, 1e-5),
                               name=f"{shape} eval"))
    return out


def _batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return _native_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps)[0]


def batch_norm_samples(dtype, rng):
    out = [SampleInput(s.args + (False,), name=s.name) for s in native_batch_norm_samples(dtype, rng)]
    return out


def _native_group_norm(x, weight, bias, N, C, HxW, group, eps):
    a = _f64(x).reshape(N, group, -1)
    mean, var = a.mean(axis=-1), a.var(axis=-1)
    rstd = 1 / np.sqrt(var + eps)
    y = ((a - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if weight is not None:
        y = y * _f64(weight).reshape(shape)
    if bias is not None:
        y = y + _f64(bias).reshape(shape)
    return y.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)


def _group_norm(x, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    hxw = int(np.prod(x.shape[2:]))
    return _native_group_norm(x, weight, bias, x.shape[0], x.shape[1], hxw, num_groups, eps)[0]


def group_norm_samples(dtype, rng):
    return [SampleInput((_v(dtype, (2, 6, 4, 3), rng, 3.0), 3), name="3 groups"),
            SampleInput((_v(dtype, (2, 6, 5), rng, 3.0), 2, _v(dtype, (6,), rng), _v(dtype, (6,), rng)),
                        dict(eps=1e-3), name="affine"),
            SampleInput((_v(dtype, (3, 4), rng, 3.0), 4), name="no spatial"),
            SampleInput((_v(dtype, (2, 4, 3), rng, 3.0), 1), name="1 group")]


def native_group_norm_samples(dtype, rng):
    out = []
    for s in group_norm_samples(dtype, rng):
        x = s.args[0]
        w, b = (s.args[2], s.args[3]) if len(s.args) > 2 else (None, None)
        out.append(SampleInput((x, w, b, x.shape[0], x.shape[1], int(np.prod(x.shape[2:])), s.args[1],
                                s.kwargs.get("eps", 1e-5)), name=s.name))
    return out


# ---- losses (reduction: 0 none, 1 mean, 2 sum) -------------------------------------------------

def _reduce(loss, reduction, dtype):
    loss = _f64(loss)
    if reduction == 0:
        return loss.astype(dtype)
    if reduction == 2:
        return np.asarray(loss.sum()).astype(dtype)
    return np.asarray(loss.mean() if loss.size else np.nan).astype(dtype)


def _nll(x, t, weight=None, reduction=1, ignore_index=-100):
    a = _f64(x)
    cls_axis = 0 if a.ndim == 1 else 1
    w = np.ones(a.shape[cls_axis]) if weight is None else _f64(weight)
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    picked = np.take_along_axis(a, np.expand_dims(safe, cls_axis), cls_axis).squeeze(cls_axis) if a.ndim > 1 else \
        a[safe]
    wt = np.where(keep, w[safe], 0.0)
    loss = -picked * wt
    if reduction == 0:
        return loss.astype(x.dtype)
    if reduction == 2:
        return np.asarray(loss.sum()).astype(x.dtype)
    return np.asarray(loss.sum() / wt.sum() if wt.sum() != 0 else np.nan).astype(x.dtype)


def nll_samples(dtype, rng, spatial=((),), with_1d=True):
    out = []
    for sp in spatial:
        x = _v(dtype, (4, 5) + sp, rng, 2.0)
        t = rng.integers(0, 5, (4,) + sp)
        t.flat[1] = -100
        for red in (0, 1, 2):
            out.append(SampleInput((x, t, None, red, -100), name=f"{sp} reduction {red}"))
            out.append(SampleInput((x, t, _v(dtype, (5,), rng) ** 2 + 0.1, red, -100), name=f"{sp} weight {red}"))
        out.append(SampleInput((x, np.where(t == -100, 2, t), None, 1, 2), name=f"{sp} ignore_index 2"))
    if with_1d:
        out.append(SampleInput((_v(dtype, (5,), rng), np.array(3), None, 1, -100), name="unbatched"))
        out.append(SampleInput((_v(dtype, (0, 5), rng), np.zeros(0, np.int64), None, 2, -100), name="empty sum"))
    out.append(SampleInput((_v(dtype, (4, 5) + spatial[0], rng), np.full((4,) + spatial[0], -100), None, 1, -100),
                           name="all ignored: nan"))
    return out


def _cross_entropy(x, t, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0):
    a = _f64(x)
    cls_axis = 0 if a.ndim == 1 else 1
    C = a.shape[cls_axis]
    logp = a - a.max(axis=cls_axis, keepdims=True)
    logp = logp - np.log(np.exp(logp).sum(axis=cls_axis, keepdims=True))
    wshape = [1] * a.ndim
    wshape[cls_axis] = C
    w = np.ones(C) if weight is None else _f64(weight)
    if t.shape == x.shape:   # probabilities
        tt = _f64(t) * (1 - label_smoothing) + label_smoothing / C
        loss = -(logp * tt * w.reshape(wshape)).sum(axis=cls_axis)
        if reduction == 1:
            return np.asarray(loss.sum() / (a.size // C) if a.size else np.nan).astype(x.dtype)
        return _reduce(loss, reduction, x.dtype)
    nll = _f64(_nll(logp, t, weight, reduction, ignore_index))
    if label_smoothing == 0:
        return nll.astype(x.dtype)
    keep = t != ignore_index
    smooth = np.where(keep, -(logp * w.reshape(wshape)).sum(axis=cls_axis), 0.0)
    if reduction == 1:
        ret = smooth.sum() / np.where(keep, w[np.where(keep, t, 0)], 0).sum()
    elif reduction == 2:
        ret = smooth.sum()
    else:
        ret = smooth
    return np.asarray((1 - label_smoothing) * nll + ret * (label_smoothing / C)).astype(x.dtype)


def cross_entropy_samples(dtype, rng):
    out = nll_samples(dtype, rng, spatial=((), (3, 2)), with_1d=False)
    out = [SampleInput(s.args + (0.0,), name=s.name) for s in out]
    for red in (0, 1, 2):
        x = _v(dtype, (4, 5, 3), rng, 2.0)
        t = rng.integers(0, 5, (4, 3))
        t[0, 0] = -100
        out.append(SampleInput((x, t, None, red, -100, 0.2), name=f"smoothing {red}"))
        out.append(SampleInput((x, t, _v(dtype, (5,), rng) ** 2 + 0.1, red, -100, 0.1), name=f"smoothing weight {red}"))
        p = rng.random((4, 5, 3)).astype(x.dtype)
        out.append(SampleInput((x, p / p.sum(axis=1, keepdims=True), None, red, -100, 0.0), name=f"probabilities {red}"))
        out.append(SampleInput((x, p, _v(dtype, (5,), rng) ** 2, red, -100, 0.3), name=f"probabilities weight {red}"))
    out.append(SampleInput((_v(dtype, (5,), rng), np.array(2), None, 1, -100, 0.0), name="unbatched"))
    return out


def _mse(x, t, reduction=1):
    return _reduce((_f64(x) - _f64(t)) ** 2, reduction, np.result_type(x, t))


def mse_samples(dtype, rng):
    return [SampleInput((_v(dtype, (3, 4), rng), _v(dtype, s, rng), red), name=f"{s} {red}")
            for s in [(3, 4), (4,), (1, 1)] for red in (0, 1, 2)] + \
        [SampleInput((_v(dtype, (0, 4), rng), _v(dtype, (4,), rng), red), name=f"empty {red}") for red in (1, 2)]


def _bce(x, t, weight=None, reduction=1):
    a, b = _f64(x), _f64(t)
    with np.errstate(divide="ignore"):
        loss = -(b * np.maximum(np.log(a), -100) + (1 - b) * np.maximum(np.log1p(-a), -100))
    if weight is not None:
        loss = loss * _f64(weight)
    return _reduce(loss, reduction, x.dtype)


def bce_samples(dtype, rng):
    out = []
    for red in (0, 1, 2):
        x = rng.random((3, 4)).astype(NUMPY_OF[dtype])
        x[0, :2] = (0, 1)
        t = rng.random((3, 4)).astype(x.dtype)
        out.append(SampleInput((x, t, None, red), name=f"{red}"))
        out.append(SampleInput((x, t, rng.random(4).astype(x.dtype), red), name=f"weight {red}"))
    return out


def _bce_logits(x, t, weight=None, pos_weight=None, reduction=1):
    a, b = _f64(x), _f64(t)
    log_sig = np.minimum(a, 0) - np.log1p(np.exp(-np.abs(a)))
    if pos_weight is not None:
        log_sig = log_sig * ((_f64(pos_weight) - 1) * b + 1)
    loss = (1 - b) * a - log_sig
    if weight is not None:
        loss = loss * _f64(weight)
    return _reduce(np.broadcast_to(loss, t.shape), reduction, t.dtype)


def bce_logits_samples(dtype, rng):
    out = []
    for red in (0, 1, 2):
        x = _v(dtype, (3, 4), rng, 5.0)
        x[0, :2] = (80, -80)
        t = rng.random((3, 4)).astype(x.dtype)
        out.append(SampleInput((x, t, None, None, red), name=f"{red}"))
        out.append(SampleInput((x, t, rng.random(4).astype(x.dtype), rng.random(4).astype(x.dtype) * 3, red),
                               name=f"weights {red}"))
    return out


# ---- padding, embedding, one_hot ----------------------------------------------------------------

def _np_pad(x, pad, mode, value=0):
    widths = [(0, 0)] * x.ndim
    crops = [slice(None)] * x.ndim
    for i in range(len(pad) // 2):
        d = x.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        widths[d] = (max(lo, 0), max(hi, 0))
        crops[d] = slice(max(-lo, 0), x.shape[d] - max(-hi, 0))
    if mode in ("constant", "circular"):
        # negative pads crop, then the positive ones pad what is left
        x = x[tuple(crops)]
        if mode == "constant":
            return np.pad(x, widths, mode="constant", constant_values=np.array(value).astype(x.dtype))
        return np.pad(x, widths, mode="wrap")
    # reflect / replicate: output position o reads input position o - left, reflected or clamped
    # at the input's own edges (negative pads just move the window)
    for i in range(len(pad) // 2):
        d = x.ndim - 1 - i
        n = x.shape[d]
        src = np.arange(n + pad[2 * i] + pad[2 * i + 1]) - pad[2 * i]
        if mode == "reflect":
            src = np.abs(src)
            src = np.where(src >= n, 2 * (n - 1) - src, src)
        else:
            src = np.clip(src, 0, n - 1)
        x = np.take(x, src, axis=d)
    return x


def constant_pad_samples(dtype, rng):
    return [SampleInput((_v(dtype, (2, 3, 4), rng), p), dict(value=v) if v is not None else {}, name=f"{p} {v}")
            for p, v in [((1, 2), None), ((1, 1, 0, 2), 3), ((-1, 1), None), ((1, 1, 1, 1, 1, 1), 1),
                         ((2, -2, -1, 0), None), ((), None)]] + \
        [SampleInput((_v(dtype, (0, 3), rng), (1, 1, 1, 1)), name="empty")]


def gather_pad_samples(mode, k):
    def samples(dtype, rng):
        cases = {1: [((2, 3, 5), (1, 2)), ((3, 5), (2, 2)), ((2, 3, 5), (-1, 3))],
                 2: [((2, 3, 4, 5), (1, 2, 3, 0)), ((3, 4, 5), (2, 2, 1, 1)), ((1, 2, 4, 5), (0, -1, 2, -2))],
                 3: [((2, 2, 3, 4, 5), (1, 2, 3, 0, 2, 1)), ((2, 3, 4, 5), (2, 2, 1, 1, 0, 2)),
                     ((1, 2, 3, 4, 5), (0, -1, 2, -2, 1, 0))]}[k]
        return [SampleInput((_v(dtype, s, rng), p), name=f"{s} {p}") for s, p in cases]
    return samples


def pad_samples(dtype, rng):
    out = [SampleInput((_v(dtype, (2, 3, 4, 5), rng), (1, 2, 2, 1)), dict(mode=m), name=m)
           for m in ("constant", "reflect", "replicate", "circular")]
    out += [SampleInput((_v(dtype, (2, 3, 5), rng), (2, 1)), dict(mode=m), name=f"{m} 1d")
            for m in ("reflect", "replicate", "circular")]
    out += [SampleInput((_v(dtype, (1, 2, 3, 4, 5), rng), (2, 1, 0, 3, 1, 1)), dict(mode=m), name=f"{m} 3d")
            for m in ("reflect", "replicate", "circular")]
    out.append(SampleInput((_v(dtype, (2, 3), rng), (1, 1, 2, 2)), dict(mode="constant", value=2.0), name="value"))
    return out


def _pad(x, pad, mode="constant", value=None):
    return _np_pad(x, pad, mode, 0 if value is None else value)


def embedding_samples(dtype, rng):
    w = _v(dtype, (6, 3), rng)
    return [SampleInput((w, np.array([[1, 5], [0, 2]])), name="2-d indices"),
            SampleInput((w, np.array([4, 4, 0], dtype=np.int32)), name="int32"),
            SampleInput((w, np.array(2)), name="0-d"), SampleInput((w, np.zeros((2, 0), np.int64)), name="empty"),
            SampleInput((w, np.array([1, 2]), 0), name="padding_idx")]


def _one_hot(x, num_classes=-1):
    n = int(x.max()) + 1 if num_classes == -1 else num_classes
    return (x[..., None] == np.arange(n)).astype(np.int64)


def one_hot_samples(dtype, rng):
    return [SampleInput((np.array([[1, 0], [3, 2]]), -1), name="inferred"), SampleInput((np.array([0, 2]), 5), name="5"),
            SampleInput((np.array(1), 3), name="0-d"), SampleInput((np.zeros(0, np.int64), 4), name="empty")]


# ---- upsampling --------------------------------------------------------------------------------
# PyTorch's index and weight formulas (UpSample.h), written again in NumPy in the kernels' precision
# (float for float32, and for every nearest index); the result is the separable sum in float64.

def _nearest_idx(size, osize, scale, exact=False):
    if not exact and osize == size:
        return np.arange(osize)
    if not exact and osize == 2 * size:
        return np.arange(osize) >> 1
    s = np.float32(1.0 / scale) if scale else np.float32(size) / np.float32(osize)
    dst = np.arange(osize, dtype=np.float64)
    src = np.float32(dst + 0.5) * s if exact else dst.astype(np.float32) * s
    return np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), size - 1)


def _area_scale(size, osize, scale, align_corners, ft):
    if align_corners:
        return ft(size - 1) / ft(osize - 1) if osize > 1 else ft(0)
    return ft(1.0 / scale) if scale else ft(size) / ft(osize)


def _linear_taps(size, osize, scale, align_corners, ft):
    if osize == size:
        return [np.arange(osize), np.arange(osize)], [np.ones(osize), np.zeros(osize)]
    s = _area_scale(size, osize, scale, align_corners, ft)
    dst = np.arange(osize, dtype=ft)
    src = s * dst if align_corners else np.maximum(s * (dst + ft(0.5)) - ft(0.5), ft(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), size - 1)
    lam = np.clip(src - i0.astype(ft), 0, 1).astype(ft)
    return [i0, np.where(i0 < size - 1, i0 + 1, i0)], [_f64(ft(1) - lam), _f64(lam)]


def _cubic_taps(size, osize, scale, align_corners, ft):
    s, A = _area_scale(size, osize, scale, align_corners, ft), ft(-0.75)
    dst = np.arange(osize, dtype=ft)
    src = s * dst if align_corners else s * (dst + ft(0.5)) - ft(0.5)
    i0 = np.minimum(np.floor(src).astype(np.int64), size - 1)
    t = np.clip(src - i0.astype(ft), 0, 1).astype(ft)
    near = lambda x: ((A + ft(2)) * x - (A + ft(3))) * x * x + ft(1)  # noqa: E731
    far = lambda x: ((A * x - ft(5) * A) * x + ft(8) * A) * x - ft(4) * A  # noqa: E731
    weights = [far(t + ft(1)), near(t), near(ft(1) - t), far(ft(2) - t)]
    return [np.clip(i0 - 1 + j, 0, size - 1) for j in range(4)], [_f64(w) for w in weights]


def _osize(x, output_size, scale_factors):
    if output_size is not None:
        return tuple(output_size)
    return tuple(int(float(x.shape[2 + i]) * scale_factors[i]) for i in range(x.ndim - 2))


def _upsample_ref(mode):
    """The NumPy reference of one .vec overload: taps per spatial axis, applied last axis first."""
    def ref(x, output_size, *rest):
        align_corners, scale_factors = (rest if mode in ("linear", "cubic") else (False,) + rest)
        osize = _osize(x, output_size, scale_factors)
        scales = scale_factors if scale_factors is not None else (None,) * len(osize)
        ft = np.float64 if x.dtype == np.float64 else np.float32
        out = _f64(x)
        for k in reversed(range(len(osize))):
            size, axis = x.shape[2 + k], 2 + k
            if mode in ("nearest", "nearest-exact"):
                out = np.take(out, _nearest_idx(size, osize[k], scales[k], mode == "nearest-exact"), axis=axis)
                continue
            taps = _cubic_taps if mode == "cubic" else _linear_taps
            indices, weights = taps(size, osize[k], scales[k], align_corners, ft)
            shape = [1] * out.ndim
            shape[axis] = osize[k]
            out = sum(np.take(out, i, axis=axis) * w.reshape(shape) for i, w in zip(indices, weights))
        return out.astype(x.dtype)
    return ref


def upsample_samples(spatial, interpolating):
    shape = {1: (2, 3, 7), 2: (2, 3, 5, 7), 3: (1, 2, 3, 4, 5)}[spatial]
    sizes = {1: [((12,), None), ((3,), None), ((7,), None), (None, (1.7,)), (None, (0.6,))],
             2: [((9, 4), None), ((10, 14), None), ((5, 7), None), (None, (1.7, 2.3)), (None, (0.6, 2.0)),
                 ((1, 1), None)],
             3: [((5, 2, 9), None), ((3, 4, 5), None), (None, (1.5, 0.75, 2.0))]}[spatial]

    def samples(dtype, rng):
        x = _v(dtype, shape, rng)
        if interpolating:
            return [SampleInput((x, o, ac, s), name=f"{o} {s} align_corners={ac}") for o, s in sizes for ac in (False, True)]
        empty = _v(dtype, (0,) + shape[1:2] + (3,) * spatial, rng)
        return [SampleInput((x, o, s), name=f"{o} {s}") for o, s in sizes] + \
            [SampleInput((empty, (4,) * spatial, None), name="empty batch")]
    return samples


def _upsample_infos():
    specs = [("upsample_nearest1d", "nearest", 1), ("upsample_nearest2d", "nearest", 2),
             ("upsample_nearest3d", "nearest", 3), ("_upsample_nearest_exact1d", "nearest-exact", 1),
             ("_upsample_nearest_exact2d", "nearest-exact", 2), ("_upsample_nearest_exact3d", "nearest-exact", 3),
             ("upsample_linear1d", "linear", 1), ("upsample_bilinear2d", "linear", 2),
             ("upsample_trilinear3d", "linear", 3), ("upsample_bicubic2d", "cubic", 2)]
    return [OpInfo(f"ops.aten.{name}.vec", _upsample_ref(mode), upsample_samples(spatial, mode in ("linear", "cubic")),
                   FLOATING, method=False, supports_out=False, tol=TOL, variant=name.lstrip("_"))
            for name, mode, spatial in specs]


# ---- attention ---------------------------------------------------------------------------------

def _sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    qf, kf, vf = _f64(q), _f64(k), _f64(v)
    if enable_gqa:
        kf = np.repeat(kf, q.shape[-3] // k.shape[-3], axis=-3)
        vf = np.repeat(vf, q.shape[-3] // v.shape[-3], axis=-3)
    s = scale if scale is not None else 1 / np.sqrt(q.shape[-1])
    attn = qf @ np.swapaxes(kf, -1, -2) * s
    if is_causal:
        attn = np.where(np.tril(np.ones(attn.shape[-2:], bool)), attn, -np.inf)
    if attn_mask is not None:
        attn = np.where(attn_mask, attn, -np.inf) if attn_mask.dtype == bool else attn + attn_mask
    m = attn.max(axis=-1, keepdims=True)
    e = np.exp(attn - np.where(np.isfinite(m), m, 0))
    tot = e.sum(axis=-1, keepdims=True)
    p = np.divide(e, tot, out=np.zeros_like(e), where=tot > 0)
    return (p @ vf).astype(q.dtype)


def sdpa_samples(dtype, rng):
    q, k, v = _v(dtype, (2, 4, 3, 8), rng), _v(dtype, (2, 4, 5, 8), rng), _v(dtype, (2, 4, 5, 6), rng)
    mask = rng.random((3, 5)) > 0.3
    mask[1] = False
    return [SampleInput((q, k, v), name="plain"), SampleInput((q, k, v, mask), name="bool mask, a row fully masked"),
            SampleInput((q, k, v, _v(dtype, (3, 5), rng)), name="float mask"),
            SampleInput((q, k, v), dict(is_causal=True), name="causal"),
            SampleInput((q, k, v), dict(scale=-0.3), name="negative scale"),
            SampleInput((q, k[:, :2], v[:, :2]), dict(enable_gqa=True), name="gqa"),
            SampleInput((q[0, 0], k[0, 0], v[0, 0]), name="2-d")]


OPS = [
    OpInfo("softmax", lambda x, d, dtype=None: _softmax(x, d, dtype), softmax_samples, FLOATING, supports_out=True,
           tol=TOL),
    OpInfo("log_softmax", lambda x, d, dtype=None: _softmax(x, d, dtype, log=True), softmax_samples, FLOATING,
           supports_out=True, tol=TOL),
    OpInfo("_softmax", lambda x, d, h: _softmax(x, d), _softmax_raw_samples, FLOATING, method=False,
           supports_out=True, tol=TOL),
    OpInfo("_log_softmax", lambda x, d, h: _softmax(x, d, log=True), _softmax_raw_samples, FLOATING, method=False,
           supports_out=True, tol=TOL),
    OpInfo("conv2d", _conv2d, conv2d_samples, FLOATING, method=False, supports_out=False, tol=SUM_TOL),
    OpInfo("conv1d", _conv1d, conv1d_samples, FLOATING, method=False, supports_out=False, tol=SUM_TOL),
    OpInfo("conv_transpose2d", _conv_transpose2d, conv_transpose2d_samples, FLOATING, method=False, supports_out=False,
           tol=SUM_TOL),
    OpInfo("conv_transpose1d", _conv_transpose1d, conv_transpose1d_samples, FLOATING, method=False,
           supports_out=False, tol=SUM_TOL),
    OpInfo("convolution", _convolution, convolution_samples, FLOATING + (torch.int64,), method=False,
           supports_out=False, tol=SUM_TOL),
    OpInfo("max_pool2d", lambda x, *a, **k: _max_pool2d_with_indices(x, *a, **k)[0], max_pool_samples, NUMERIC,
           method=False, supports_out=False),
    OpInfo("_C._nn.max_pool2d_with_indices", _max_pool2d_with_indices, max_pool_samples, NUMERIC, method=False,
           supports_out=True, variant="max_pool2d_with_indices"),
    OpInfo("_C._nn.avg_pool2d", _avg_pool2d, avg_pool_samples, NUMERIC, method=False, supports_out=True, tol=TOL,
           variant="avg_pool2d"),
    OpInfo("_C._nn.adaptive_avg_pool2d", _adaptive_avg_pool2d, adaptive_samples, FLOATING, method=False,
           supports_out=True, tol=TOL, variant="adaptive_avg_pool2d"),
    OpInfo("_adaptive_avg_pool2d", _adaptive_avg_pool2d, adaptive_samples, FLOATING, method=False,
           supports_out=False, tol=TOL),
    OpInfo("layer_norm", _layer_norm, layer_norm_samples, FLOATING, method=False, supports_out=False, tol=SUM_TOL),
    OpInfo("native_layer_norm", _native_layer_norm, native_layer_norm_samples, FLOATING, method=False,
           supports_out=False, tol=SUM_TOL),
    OpInfo("native_batch_norm", _native_batch_norm, native_batch_norm_samples, FLOATING, method=False,
           supports_out=True, tol=SUM_TOL),
    OpInfo("batch_norm", _batch_norm, batch_norm_samples, FLOATING, method=False, supports_out=False, tol=SUM_TOL),
    OpInfo("group_norm", _group_norm, group_norm_samples, FLOATING, method=False, supports_out=False, tol=SUM_TOL),
    OpInfo("native_group_norm", _native_group_norm, native_group_norm_samples, FLOATING, method=False,
           supports_out=False, tol=SUM_TOL),
    OpInfo("_C._nn.nll_loss", _nll, nll_samples, FLOATING, method=False, supports_out=True, tol=SUM_TOL,
           variant="nll_loss"),
    OpInfo("_C._nn.nll_loss_nd", _nll, lambda dt, rng: nll_samples(dt, rng, spatial=((), (3,), (2, 3), (2, 1, 3))),
           FLOATING, method=False, supports_out=False, tol=SUM_TOL, variant="nll_loss_nd"),
    OpInfo("_C._nn.nll_loss2d", _nll, lambda dt, rng: nll_samples(dt, rng, spatial=((2, 3),), with_1d=False),
           FLOATING, method=False, supports_out=True, tol=SUM_TOL, variant="nll_loss2d"),
    OpInfo("_C._nn.cross_entropy_loss", _cross_entropy, cross_entropy_samples, FLOATING, method=False,
           supports_out=False, tol=SUM_TOL, variant="cross_entropy_loss"),
    OpInfo("_C._nn.mse_loss", _mse, mse_samples, FLOATING, method=False, supports_out=True, tol=SUM_TOL,
           variant="mse_loss"),
    OpInfo("_C._nn.binary_cross_entropy", _bce, bce_samples, FLOATING, method=False, supports_out=True,
           tol=SUM_TOL, variant="binary_cross_entropy"),
    OpInfo("binary_cross_entropy_with_logits", _bce_logits, bce_logits_samples, FLOATING, method=False,
           supports_out=False, tol=SUM_TOL),
    OpInfo("constant_pad_nd", lambda x, p, value=0: _np_pad(x, p, "constant", value), constant_pad_samples,
           NUMERIC, method=False, supports_out=False),
    OpInfo("_C._nn.reflection_pad1d", lambda x, p: _np_pad(x, p, "reflect"), gather_pad_samples("reflect", 1),
           NUMERIC, method=False, supports_out=True, variant="reflection_pad1d"),
    OpInfo("_C._nn.reflection_pad2d", lambda x, p: _np_pad(x, p, "reflect"), gather_pad_samples("reflect", 2),
           NUMERIC, method=False, supports_out=True, variant="reflection_pad2d"),
    OpInfo("_C._nn.replication_pad1d", lambda x, p: _np_pad(x, p, "replicate"), gather_pad_samples("replicate", 1),
           NUMERIC, method=False, supports_out=True, variant="replication_pad1d"),
    OpInfo("_C._nn.replication_pad2d", lambda x, p: _np_pad(x, p, "replicate"), gather_pad_samples("replicate", 2),
           NUMERIC, method=False, supports_out=True, variant="replication_pad2d"),
    OpInfo("_C._nn.reflection_pad3d", lambda x, p: _np_pad(x, p, "reflect"), gather_pad_samples("reflect", 3),
           NUMERIC, method=False, supports_out=True, variant="reflection_pad3d"),
    OpInfo("_C._nn.replication_pad3d", lambda x, p: _np_pad(x, p, "replicate"), gather_pad_samples("replicate", 3),
           NUMERIC, method=False, supports_out=True, variant="replication_pad3d"),
    OpInfo("_pad_circular", lambda x, p: _np_pad(x, p, "circular"), gather_pad_samples("circular", 2), NUMERIC,
           method=False, supports_out=False),
    OpInfo("_C._nn.pad", _pad, pad_samples, NUMERIC, method=False, supports_out=False, variant="pad"),
    OpInfo("embedding", lambda w, i, *a: w[i], embedding_samples, NUMERIC, method=False, supports_out=False),
    OpInfo("_C._nn.one_hot", _one_hot, one_hot_samples, (torch.int64,), method=False, supports_out=False,
           variant="one_hot"),
    *_upsample_infos(),
    OpInfo("_C._nn.scaled_dot_product_attention", _sdpa, sdpa_samples, FLOATING, method=False, supports_out=False,
           tol=SUM_TOL, variant="scaled_dot_product_attention"),
]
