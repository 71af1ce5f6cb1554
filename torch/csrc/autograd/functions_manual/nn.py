"""Backward formulas' helpers for the neural-network kernels: convolution, pooling, upsampling, norms,
losses, embedding, dropout and padding.

Linear maps (convolutions, pools, pads, upsampling) are differentiated with the ops that compute
them (convolution, index_add, matmul, constant_pad_nd), never with opaque kernels, so their
backward is itself differentiable. Normalisations recompute their statistics from the input with
differentiable ops. Index maps are read from the forward kernels themselves (run on an iota input,
or on one-hot rows), so they agree with the forward by construction."""
from __future__ import annotations

import threading
from typing import Any

from aten.dispatcher import find_operator
from aten.native.composite.losses import nll_loss_backward as _nll_loss_composite
from c10 import grad_mode as _grad_mode
from torch.csrc.autograd.functions_manual.pointwise import where
from torch.csrc.autograd.functions_manual.shapes import index

_arange = find_operator("arange")
_nll_loss_backward = find_operator("nll_loss_backward")
_constant_pad_nd = find_operator("constant_pad_nd")
_convolution = find_operator("convolution")
_convolution_weight_grad = find_operator("_ember_convolution_weight_grad")
_ctc_loss_backward = find_operator("_ctc_loss_backward")
_layer_norm_backward_input = find_operator("_ember_layer_norm_backward_input")
_layer_norm_backward_weight = find_operator("_ember_layer_norm_backward_weight")
_matmul = find_operator("matmul")
_max_pool2d_backward = find_operator("_ember_max_pool2d_backward")
_flash_backward = find_operator("_scaled_dot_product_flash_attention_for_cpu_backward")
_flash_grads = threading.local()    # the last backward call's operands and its three gradients, per thread
_ones = find_operator("ones")
_zeros = find_operator("zeros")


def mse_loss_backward(grad: Any, self: Any, target: Any, reduction: int) -> Any:
    scale = 2.0 / max(self.numel(), 1) if reduction == 1 else 2.0      # an empty input has no gradient to scale
    return scale * (self - target) * grad


def not_implemented(op: str, input: str) -> Any:
    """An input that PyTorch does not differentiate (a loss's class weights): raise, as upstream."""
    raise RuntimeError(f"The function '{op}' is not differentiable with respect to argument '{input}'. This input "
                       "cannot have requires_grad True.")


def _prod(values: Any) -> int:
    out = 1
    for v in values:
        out *= int(v)
    return out


def _ntuple(value: Any, n: int) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    return value * n if len(value) == 1 else value


def _constant(values: Any, like: Any) -> Any:
    """A tensor of the numbers in a list (or a list of equal-length lists), in like's dtype and
    on its device (made through c10, since this layer may not import torch)."""
    from c10 import tensor_impl
    from c10.scalar_type import dtype_from_name
    nested = len(values) > 0 and isinstance(values[0], list)
    shape = (len(values), len(values[0])) if nested else (len(values),)
    flat = [v for row in values for v in row] if nested else list(values)
    t: Any = tensor_impl.empty(shape, dtype_from_name("float64"))
    if flat:
        # TensorImpl's own method: torch.compile's capture watches Tensor._numpy_view for reads of a tensor's
        # value (graph breaks), and this writes a fresh one
        tensor_impl.TensorImpl._numpy_view(t).reshape(-1)[:] = flat
    return t.to(dtype=like.dtype, device=like.device)


def convolution_backward_input(grad: Any, input_sizes: Any, weight: Any, stride: Any, padding: Any, dilation: Any,
                               transposed: bool, groups: int) -> Any:
    """The adjoint of convolution in its input: the transposed convolution (or, for a transposed
    one, the convolution) with the same weight; output_padding restores the input's size."""
    k = weight.dim() - 2
    stride, padding, dilation = _ntuple(stride, k), _ntuple(padding, k), _ntuple(dilation, k)
    if transposed:
        return _convolution(grad, weight, None, stride, padding, dilation, False, (0,) * k, groups)
    output_padding = tuple(int(input_sizes[2 + i]) - ((grad.shape[2 + i] - 1) * stride[i] - 2 * padding[i]
                                                      + dilation[i] * (weight.shape[2 + i] - 1) + 1) for i in range(k))
    return _convolution(grad, weight, None, stride, padding, dilation, True, output_padding, groups)


def _conv_weight_grad(x: Any, g: Any, weight_sizes: Any, stride: Any, padding: Any, dilation: Any, groups: int) -> Any:
    """dW[o, c, j] = sum_{n,i} g[n, o, i] x[n, c, i*stride - padding + j*dilation]: one grouped
    convolution with the batch as channels (stride and dilation swap roles), cut to the kernel."""
    k = len(weight_sizes) - 2
    n, c_in, c_out = x.shape[0], x.shape[1], g.shape[1]
    spatial = list(range(3, 3 + k))
    xs = x.reshape((n, groups, c_in // groups) + tuple(x.shape[2:])).permute([2, 1, 0] + spatial)
    xs = xs.reshape((c_in // groups, groups * n) + tuple(x.shape[2:]))
    gs = g.reshape((n, groups, c_out // groups) + tuple(g.shape[2:])).permute([1, 2, 0] + spatial)
    gs = gs.reshape((c_out, n) + tuple(g.shape[2:]))
    out = _convolution(xs, gs, None, dilation, padding, stride, False, (0,) * k, groups)
    for i in range(k):
        if out.shape[2 + i] != weight_sizes[2 + i]:
            out = out.narrow(2 + i, 0, int(weight_sizes[2 + i]))
    return out.transpose(0, 1)


def convolution_backward_weight(grad: Any, input: Any, weight_sizes: Any, stride: Any, padding: Any, dilation: Any,
                                transposed: bool, groups: int) -> Any:
    k = len(weight_sizes) - 2
    stride, padding, dilation = _ntuple(stride, k), _ntuple(padding, k), _ntuple(dilation, k)
    if transposed:     # the transposed convolution is the adjoint map: input and grad swap roles
        return _conv_weight_grad(grad, input, weight_sizes, stride, padding, dilation, groups)
    if (not _grad_mode.is_grad_enabled() and k in (1, 2) and input.device.type == "cpu"
            and input.dtype.name in ("float32", "float64") and grad.dtype is input.dtype):
        # no double backward to build: the CPU kernel (im2col + GEMM per band, as the forward)
        return _convolution_weight_grad(grad, input, weight_sizes, stride, padding, dilation, groups)
    return _conv_weight_grad(input, grad, weight_sizes, stride, padding, dilation, groups)


def convolution_backward_bias(grad: Any) -> Any:
    return grad.sum([0] + list(range(2, grad.dim())))


def ctc_loss_backward(grad: Any, log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
                      neg_log_likelihood: Any, log_alpha: Any, blank: int, zero_infinity: bool) -> Any:
    """The CTC kernels' own backward, as upstream: it has no derivative of its own, so a second
    derivative raises when it runs (PyTorch's behaviour too)."""
    return _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood, log_alpha,
                              blank, zero_infinity)


def max_pool2d_with_indices_backward(grad: Any, self_sizes: Any, indices: Any) -> Any:
    """grad added at the argmax of each window (indices are flat over the last two dims)."""
    sizes = tuple(self_sizes)
    if (not _grad_mode.is_grad_enabled() and grad.device.type == "cpu" and grad.dtype.name in ("float32", "float64")
            and len(sizes) >= 2):
        # no double backward to build: the CPU kernel adds each plane's gradients in place
        return _max_pool2d_backward(grad, indices, sizes)
    plane = int(sizes[-1]) * int(sizes[-2])
    lead = _prod(sizes[:-2])
    offsets = _arange(lead, dtype=indices.dtype, device=indices.device) * plane
    per_plane = indices.numel() // lead if lead else 0      # explicit: -1 is ambiguous for an empty input
    flat = (indices.reshape(lead, per_plane) + offsets.unsqueeze(1)).reshape(-1)
    return _zeros((lead * plane,), dtype=grad.dtype, device=grad.device).index_add(0, flat, grad.reshape(-1)).reshape(sizes)


def avg_pool2d_backward(grad: Any, self_sizes: Any, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
                        count_include_pad: bool, divisor_override: Any) -> Any:
    """Each window's gradient divided by its divisor and spread over the window: a transposed
    convolution with a kernel of ones over the padded frame, then the padding cut off."""
    sizes = tuple(int(s) for s in self_sizes)
    kernel = _ntuple(kernel_size, 2)
    stride = _ntuple(stride, 2) if stride is not None and len(_ntuple(stride, 2)) else kernel
    pads = _ntuple(padding, 2)
    H, W = sizes[-2], sizes[-1]
    out_h, out_w = grad.shape[-2], grad.shape[-1]

    def spans(n_out: int, size: int, k: int, s: int, p: int) -> list[tuple[int, int]]:
        out = []
        for i in range(n_out):
            start = i * s - p
            end = min(start + k, size + p)
            out.append((end - start, min(end, size) - max(start, 0)))
        return out

    rows = spans(out_h, H, kernel[0], stride[0], pads[0])
    cols = spans(out_w, W, kernel[1], stride[1], pads[1])
    divisor = [[float(divisor_override) if divisor_override else
                float((r[0] * c[0]) if count_include_pad else (r[1] * c[1])) or 1.0 for c in cols] for r in rows]
    lead = _prod(sizes[:-2])
    g = (grad / _constant(divisor, grad)).reshape(lead, 1, out_h, out_w)
    ones = _ones((1, 1) + kernel, dtype=grad.dtype, device=grad.device)
    full = _convolution(g, ones, None, stride, (0, 0), (1, 1), True, (0, 0), 1)
    frame_h, frame_w = full.shape[-2], full.shape[-1]
    out = _constant_pad_nd(full, (-pads[1], W + pads[1] - frame_w, -pads[0], H + pads[0] - frame_h), 0)
    return out.reshape(sizes)


def _adaptive_matrix(size: int, out_size: int, like: Any) -> Any:
    """(out_size, size): row i averages the window [floor(i*size/out), ceil((i+1)*size/out))."""
    rows = []
    for i in range(out_size):
        start = (i * size) // out_size
        end = -((-(i + 1) * size) // out_size)
        rows.append([1.0 / (end - start) if start <= j < end else 0.0 for j in range(size)])
    return _constant(rows, like).reshape(out_size, size)


def adaptive_avg_pool2d_backward(grad: Any, self_sizes: Any) -> Any:
    sizes = tuple(int(s) for s in self_sizes)
    rows = _adaptive_matrix(sizes[-2], grad.shape[-2], grad)
    cols = _adaptive_matrix(sizes[-1], grad.shape[-1], grad)
    return _matmul(_matmul(rows.t(), grad), cols)


def index_map_backward(grad: Any, self_sizes: Any, spatial: int, forward: Any) -> Any:
    """The gradient of an op whose every output element copies one input element (pads, nearest
    upsampling): the forward run on an iota of the spatial dims gives each output's source."""
    sizes = tuple(int(s) for s in self_sizes)
    if grad.numel() == 0:
        return _zeros(sizes, dtype=grad.dtype, device=grad.device)
    plane = _prod(sizes[-spatial:])
    with _NoGrad():
        iota = _arange(plane, dtype=_float64(), device=grad.device).reshape((1, 1) + sizes[-spatial:])
        source = forward(iota).reshape(-1).long()
    lead = sizes[:-spatial]
    g = grad.reshape(lead + (grad.numel() // _prod(lead) if _prod(lead) else 0,))
    return _zeros(lead + (plane,), dtype=grad.dtype, device=grad.device).index_add(len(lead), source, g).reshape(sizes)


def _float64() -> Any:
    from c10.scalar_type import dtype_from_name
    return dtype_from_name("float64")


def upsample_interpolating_backward(grad: Any, self_sizes: Any, output_size: Any, op_name: str,
                                    align_corners: bool, *scales: Any) -> Any:
    """Linear, bilinear, trilinear and bicubic upsampling are separable, one matrix A_k per spatial
    axis: each is read off the kernel run on one-hot rows along that axis (the others of size 1,
    which the kernel copies), and the gradient applies their transposes, axis by axis."""
    op = find_operator(op_name)
    sizes = tuple(int(s) for s in self_sizes)
    spatial = len(output_size)
    g = grad
    for k in range(spatial):
        n, out_k = sizes[2 + k], int(output_size[k])
        shape, osize, axis_scales = [1, n] + [1] * spatial, [1] * spatial, [None] * spatial
        shape[2 + k], osize[k], axis_scales[k] = n, out_k, scales[k]
        with _NoGrad():
            a_t = op(_eye(n, grad).reshape(shape), osize, align_corners, *axis_scales).reshape(n, out_k)
        g = _matmul(g.movedim(2 + k, -1), a_t.t()).movedim(-1, 2 + k)
    return g


def _eye(n: int, like: Any) -> Any:
    return find_operator("eye")(n, dtype=like.dtype, device=like.device)


def _norm_stats(x: Any, dims: list[int], eps: float) -> tuple[Any, Any, Any]:
    """mean, rstd and the normalised input over dims (biased variance), differentiably."""
    mean = x.mean(dims, keepdim=True)
    centred = x - mean
    rstd = ((centred * centred).mean(dims, keepdim=True) + eps).rsqrt()
    return mean, rstd, centred * rstd


def _norm_input_grad(g: Any, xhat: Any, rstd: Any, dims: list[int]) -> Any:
    """d/dx of xhat = (x - mean) * rstd, contracted with g (g already multiplied by the weight)."""
    return rstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True))


def _channel_view(t: Any, ndim: int) -> Any:
    return t.reshape([1, -1] + [1] * (ndim - 2)) if ndim > 1 else t


def layer_norm_backward(which: int, grad: Any, input: Any, normalized_shape: Any, weight: Any, eps: float,
                        mean: Any, rstd: Any) -> Any:
    """Without create_graph, fused kernels from the forward's mean and rstd (PyTorch's
    native_layer_norm_backward); with it, the same gradient in differentiable operations, the
    statistics recomputed from the input so that they are differentiated too."""
    axis = input.dim() - len(normalized_shape)
    dims = list(range(axis, input.dim()))
    batch = list(range(axis))
    if which == 2:
        return grad.sum(batch) if batch else grad
    if not _grad_mode.is_grad_enabled() and input.device.type == "cpu":
        if which == 1:
            return _layer_norm_backward_weight(grad, input, mean, rstd, normalized_shape)
        return _layer_norm_backward_input(grad, input, mean, rstd, weight)
    _, rstd, xhat = _norm_stats(input, dims, eps)
    if which == 1:
        return (grad * xhat).sum(batch) if batch else grad * xhat
    g = grad * weight if weight is not None else grad
    return _norm_input_grad(g, xhat, rstd, dims)


def batch_norm_backward(which: int, grad: Any, input: Any, weight: Any, running_mean: Any, running_var: Any,
                        training: bool, eps: float) -> Any:
    """Training: the batch statistics are functions of the input; evaluation: the running ones
    are constants. Running statistics never get a gradient."""
    dims = [0] + list(range(2, input.dim()))
    if which == 2:
        return grad.sum(dims)
    if training or running_mean is None:
        _, rstd, xhat = _norm_stats(input, dims, eps)
    else:
        rstd = _channel_view((running_var + eps).rsqrt(), input.dim())
        xhat = (input - _channel_view(running_mean, input.dim())) * rstd
    if which == 1:
        return (grad * xhat).sum(dims)
    g = grad * _channel_view(weight, input.dim()) if weight is not None else grad
    if training or running_mean is None:
        return _norm_input_grad(g, xhat, rstd, dims)
    return g * rstd


def group_norm_backward(which: int, grads: Any, input: Any, weight: Any, N: int, C: int, HxW: int, group: int,
                        eps: float) -> Any:
    """Outputs: y, mean (N, group), rstd (N, group); all three are differentiable."""
    grad, grad_mean, grad_rstd = grads
    dims = [0] + list(range(2, input.dim()))
    x = input.reshape(N, group, -1)
    mean, rstd, xhat = _norm_stats(x, [2], eps)
    if which == 2:
        return grad.sum(dims) if grad is not None else None
    if which == 1:
        return (grad * xhat.reshape(input.shape)).sum(dims) if grad is not None else None
    out = None
    if grad is not None:
        g = grad * _channel_view(weight, input.dim()) if weight is not None else grad
        out = _norm_input_grad(g.reshape(N, group, -1), xhat, rstd, [2])
    count = x.shape[2]
    if grad_mean is not None:
        term = (grad_mean.unsqueeze(2) / count).expand(x.shape)
        out = term if out is None else out + term
    if grad_rstd is not None:
        term = -grad_rstd.unsqueeze(2) * rstd * rstd * rstd * (x - mean) / count
        out = term if out is None else out + term
    return out.reshape(input.shape) if out is not None else None


def nll_loss_backward(grad: Any, self: Any, target: Any, weight: Any, reduction: int, ignore_index: int,
                      total_weight: Any) -> Any:
    """The op (one kernel on CUDA; the composite elsewhere, aten/native/composite/losses.py)."""
    return _nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight)


nll_loss = find_operator("nll_loss")     # nll_loss_backward's own gradient on grad_output, as upstream's


def nll_loss2d_backward(grad: Any, self: Any, target: Any, weight: Any, reduction: int, ignore_index: int,
                        total_weight: Any) -> Any:
    """nll_loss2d's gradient: the composite of ops (differentiable as it stands), over any spatial dims."""
    return _nll_loss_composite(grad, self, target, weight, reduction, ignore_index, total_weight)


def _loss_grad(grad: Any, elementwise: Any, reduction: int) -> Any:
    if reduction == _MEAN_REDUCTION:
        return elementwise * (grad / elementwise.numel())
    return elementwise * grad


def binary_cross_entropy_backward(grad: Any, self: Any, target: Any, weight: Any, reduction: int) -> Any:
    """(x - y) / max(x (1 - x), 1e-12), as upstream's kernel."""
    d = (self - target) / ((1 - self) * self).clamp(min=1e-12)
    return _loss_grad(grad, d * weight if weight is not None else d, reduction)


def binary_cross_entropy_target_backward(grad: Any, self: Any, target: Any, weight: Any, reduction: int) -> Any:
    """log(1 - x) - log(x) (infinite at x = 0 or 1, as upstream: the forward's clamp at -100 is
    not differentiated)."""
    d = (1 - self).log() - self.log()
    return _loss_grad(grad, d * weight if weight is not None else d, reduction)


def _log_sigmoid(x: Any) -> Any:
    return -(-x).relu() - (1 + (-x.abs()).exp()).log()


def binary_cross_entropy_with_logits_backward(grad: Any, self: Any, target: Any, weight: Any, pos_weight: Any,
                                              reduction: int) -> Any:
    """loss = (1 - y) x + (1 + (p - 1) y) softplus(-x): d/dx = (1 + (p - 1) y) sigmoid(x) - p y."""
    if pos_weight is not None:
        d = (1 + (pos_weight - 1) * target) * self.sigmoid() - pos_weight * target
    else:
        d = self.sigmoid() - target
    return _loss_grad(grad, d * weight if weight is not None else d, reduction)


def binary_cross_entropy_with_logits_target_backward(grad: Any, self: Any, target: Any, weight: Any,
                                                     pos_weight: Any, reduction: int) -> Any:
    """d/dy = -x - (p - 1) log_sigmoid(x)."""
    d = -self if pos_weight is None else -self - (pos_weight - 1) * _log_sigmoid(self)
    return _loss_grad(grad, d * weight if weight is not None else d, reduction)


def embedding_backward(grad: Any, indices: Any, num_weights: int, padding_idx: int, scale_grad_by_freq: bool) -> Any:
    """Rows of grad added to the rows they were read from; padding_idx gets none; with
    scale_grad_by_freq each row is divided by how often its index occurs in the batch."""
    index = indices.reshape(-1)
    g = grad.reshape(index.shape[0], grad.shape[-1])
    if scale_grad_by_freq:
        counts = _zeros((num_weights,), dtype=grad.dtype, device=grad.device).index_add(
            0, index, _ones((index.shape[0],), dtype=grad.dtype, device=grad.device))
        g = g / counts.index_select(0, index).unsqueeze(1)
    g = where((index != padding_idx).unsqueeze(1), g, 0.0)
    return _zeros((num_weights, g.shape[1]), dtype=grad.dtype, device=grad.device).index_add(0, index, g)


def native_dropout_backward(grad: Any, mask: Any, p: float, train: Any) -> Any:
    """grad * mask / (1 - p) where the forward dropped (train True or None), grad otherwise."""
    if train is False:
        return grad
    return grad * mask * (0.0 if p == 1 else 1.0 / (1.0 - p))


def upsample_nearest_backward(grad: Any, self_sizes: Any, output_size: Any, op_name: str, *scales: Any) -> Any:
    op = find_operator(op_name)
    return index_map_backward(grad, self_sizes, len(output_size), lambda t: op(t, output_size, *scales))


def channel_shuffle_backward(grad: Any, groups: int) -> Any:
    """The inverse permutation of channel_shuffle's: a shuffle into size(1) / groups groups."""
    return find_operator("channel_shuffle")(grad, grad.shape[1] // groups)


def pad_backward(grad: Any, self_sizes: Any, op_name: str, padding: Any) -> Any:
    """reflection_pad1d/2d/3d, replication_pad1d/2d/3d, _pad_circular: each output copies one input."""
    op = find_operator(op_name)
    return index_map_backward(grad, self_sizes, len(padding) // 2, lambda t: op(t, padding))


class _NoGrad:
    def __enter__(self) -> None:
        from c10 import grad_mode
        self.prev = grad_mode.is_grad_enabled()
        grad_mode.set_grad_enabled(False)

    def __exit__(self, *exc: Any) -> None:
        from c10 import grad_mode
        grad_mode.set_grad_enabled(self.prev)


_MEAN_REDUCTION, _SUM_REDUCTION = 1, 2


def flash_attention_backward(which: int, grad: Any, query: Any, key: Any, value: Any, out: Any, logsumexp: Any,
                             dropout_p: float, is_causal: bool, attn_mask: Any, scale: Any,
                             grad_input_mask: Any) -> Any:
    """Gradient `which` (0 query, 1 key, 2 value) of the CPU flash kernel. One backward call gives all
    three; the node asks for them in turn, so the call's result is kept (per thread) until the last
    gradient it needs has been taken. Under create_graph the same gradients come from differentiable
    operations (the probabilities recomputed), so attention keeps a double backward."""
    if _grad_mode.is_grad_enabled():
        return _attention_grads(grad, query, key, value, is_causal, scale)[which]
    operands = (grad, query, key, value, out, logsumexp)
    kept = getattr(_flash_grads, "kept", None)
    if kept is not None and all(a is b for a, b in zip(kept[0], operands)):
        grads = kept[1]
    else:
        grads = _flash_backward(grad, query, key, value, out, logsumexp, dropout_p, is_causal, attn_mask=attn_mask,
                                scale=scale)
        _flash_grads.kept = (operands, grads)
    if not any(grad_input_mask[which + 1:]):
        _flash_grads.kept = None
    return grads[which]


def _attention_grads(grad: Any, query: Any, key: Any, value: Any, is_causal: bool, scale: Any) -> tuple[Any, Any, Any]:
    """(dQ, dK, dV) of softmax(Q K^T * scale, causal mask) V in differentiable operations."""
    scale = 1.0 / float(query.shape[-1]) ** 0.5 if scale is None else float(scale)
    scores = (query @ key.transpose(-2, -1)) * scale
    if is_causal:
        length, source = scores.shape[-2], scores.shape[-1]
        keep = _ones((length, source), dtype=scores.dtype, device=scores.device).tril().bool()
        scores = scores.masked_fill(~keep, float("-inf"))
    p = scores.softmax(-1)
    dp = grad @ value.transpose(-2, -1)
    ds = p * (dp - (dp * p).sum(-1, keepdim=True))
    return (ds @ key) * scale, (ds.transpose(-2, -1) @ query) * scale, p.transpose(-2, -1) @ grad
