"""Helpers the backward formulas of tools/autograd/derivatives.yaml call (PyTorch's
FunctionsManual.cpp, by the same names where Ember has the same formula).

Formulas are written with tensor methods and these functions, so that create_graph=True
differentiates through them. Ember has no complex dtypes: conj() and handle_r_to_c are the
identity, and kept only so formulas read like upstream's."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_sum_dims = find_operator("sum.dim_IntList")
_zeros = find_operator("zeros")
_reshape = find_operator("reshape")


def handle_r_to_c(scalar_type: Any, grad: Any) -> Any:
    return grad


def maybe_multiply(t: Any, s: Any) -> Any:
    """t * s, skipping the multiplication by 1 (as upstream)."""
    return t if (isinstance(s, (int, float)) and s == 1) else t * s


def sum_to(grad: Any, shape: Any) -> Any:
    """grad summed down to shape (undoes broadcasting): leading dims, then the dims of size 1."""
    if grad is None:
        return None
    shape = tuple(shape)
    if tuple(grad.shape) == shape:
        return grad
    lead = grad.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, size in enumerate(shape) if size == 1 and grad.shape[lead + i] != 1]
    if dims:
        grad = _sum_dims(grad, dims, True)
    return _reshape(grad, shape) if lead or tuple(grad.shape) != shape else grad


def sum_backward(grad: Any, sizes: Any, dims: Any, keepdim: bool) -> Any:
    """The gradient of sum(self, dims, keepdim): grad broadcast back over the summed dims."""
    sizes = tuple(sizes)
    if not keepdim and len(sizes) > 0:
        if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
            dims = range(len(sizes))
        elif isinstance(dims, int):
            dims = (dims,)
        for d in sorted(d % len(sizes) for d in dims):
            grad = grad.unsqueeze(d)
    return grad.expand(sizes)


def mean_backward(grad: Any, sizes: Any, dims: Any, numel: int, keepdim: bool) -> Any:
    sizes = tuple(sizes)
    if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
        count = numel
    else:
        count = 1
        for d in ((dims,) if isinstance(dims, int) else dims):
            count *= sizes[d % len(sizes)] if sizes else 1
    return sum_backward(grad, sizes, dims, keepdim) / count


def mul_tensor_backward(grad: Any, other: Any, self_scalar_type: Any) -> Any:
    return grad * other


def div_tensor_self_backward(grad: Any, other: Any, self_scalar_type: Any) -> Any:
    return grad / other


def div_tensor_other_backward(grad: Any, self: Any, other: Any) -> Any:
    return -grad * (self / other) / other


def mm_mat1_backward(grad: Any, mat2: Any, sizes: Any, strides: Any, layout: Any, alpha: Any) -> Any:
    return maybe_multiply(grad.mm(mat2.t()), alpha)


def mm_mat2_backward(grad: Any, mat1: Any, sizes: Any, strides: Any, layout: Any, alpha: Any) -> Any:
    return maybe_multiply(mat1.t().mm(grad), alpha)


def pow_backward(grad: Any, self: Any, exponent: Any) -> Any:
    if isinstance(exponent, (int, float)) and exponent == 0:
        return grad * 0
    return grad * exponent * self.pow(exponent - 1)


def threshold_backward(grad: Any, self: Any, threshold: Any) -> Any:
    return grad * (self > threshold)


def softmax_backward_data(grad: Any, output: Any, dim: int) -> Any:
    return output * (grad - (grad * output).sum(dim, keepdim=True))


def log_softmax_backward_data(grad: Any, output: Any, dim: int) -> Any:
    return grad - output.exp() * grad.sum(dim, keepdim=True)


def zeros(sizes: Any, like: Any) -> Any:
    return _zeros(tuple(sizes), dtype=like.dtype, device=like.device)


def permute_backwards(grad: Any, dims: Any) -> Any:
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return grad.permute(inverse)


def select_backward(grad: Any, sizes: Any, dim: int, index: int) -> Any:
    """The gradient of select: grad placed at `index` of `dim` in zeros of the input's shape."""
    return _index_into_zeros(grad.unsqueeze(dim), sizes, dim, index % sizes[dim], index % sizes[dim] + 1, 1)


def slice_backward(grad: Any, sizes: Any, dim: int, start: Any, end: Any, step: int) -> Any:
    n = sizes[dim]
    first, last, _ = slice(start, end, step).indices(n)
    return _index_into_zeros(grad, sizes, dim, first, max(first, last), step)


def _index_into_zeros(values: Any, sizes: Any, dim: int, start: int, end: int, step: int) -> Any:
    """zeros of `sizes` with `values` at start:end:step along dim, built out of place (pad and
    interleave with zeros) so that it stays differentiable."""
    sizes = list(sizes)
    count = values.shape[dim]
    if step != 1 and count > 0:
        gap = list(values.shape)
        gap[dim] = count * (step - 1)
        parts = [values.unsqueeze(dim + 1), _zeros(tuple(gap[:dim] + [count, step - 1] + gap[dim + 1:]),
                                                   dtype=values.dtype, device=values.device)]
        values = _cat(parts, dim + 1).flatten(dim, dim + 1)
        values = values.narrow(dim, 0, (count - 1) * step + 1)
    before = list(sizes)
    before[dim] = start
    after = list(sizes)
    after[dim] = sizes[dim] - start - values.shape[dim]
    pieces = [_zeros(tuple(before), dtype=values.dtype, device=values.device), values,
              _zeros(tuple(after), dtype=values.dtype, device=values.device)]
    return _cat(pieces, dim)


_cat = find_operator("cat")


def mse_loss_backward(grad: Any, self: Any, target: Any, reduction: int) -> Any:
    scale = 2.0 / self.numel() if reduction == 1 else 2.0
    return scale * (self - target) * grad


_where = find_operator("where.self")


def where(condition: Any, a: Any, b: Any) -> Any:
    return _where(condition, a, b)


def pow_backward_self(grad: Any, self: Any, exponent: Any) -> Any:
    """d/dself self**exponent, 0 where the exponent is 0 (as upstream's pow_backward_self)."""
    return where(exponent == 0, 0.0, grad * exponent * self.pow(exponent - 1))


def pow_backward_exponent(grad: Any, self: Any, exponent: Any, result: Any) -> Any:
    """d/dexponent self**exponent = result * log(self), 0 where self is 0 and exponent >= 0."""
    return grad * where((self == 0) & (exponent >= 0), 0.0, result * self.log())


def cat_tensors_backward(grad: Any, sizes: Any, dim: int) -> list[Any]:
    """Each input's slice of the gradient (a 1-D empty input of a legacy cat gets an empty one)."""
    out: list[Any] = []
    offset = 0
    d = dim % grad.dim() if grad.dim() else 0
    for shape in sizes:
        if len(shape) == 1 and shape[0] == 0 and grad.dim() != 1:
            out.append(_zeros((0,), dtype=grad.dtype, device=grad.device))
            continue
        out.append(grad.narrow(d, offset, shape[d]))
        offset += shape[d]
    return out


def clamp_backward(grad: Any, self: Any, min: Any, max: Any) -> Any:
    keep = None
    if min is not None:
        keep = self >= min
    if max is not None:
        keep = (self <= max) if keep is None else keep & (self <= max)
    return grad if keep is None else where(keep, grad, 0.0)


def index_select_backward(grad: Any, sizes: Any, dim: int, index: Any) -> Any:
    return _zeros(tuple(sizes), dtype=grad.dtype, device=grad.device).index_add(dim, index, grad)


# ==== Pointwise (unary, binary, activations) ====


# ==== Reductions, shapes, views, indexing, linear algebra ====


# ==== Neural-network kernels (conv, pooling, norms, losses, embedding, dropout) ====
# Linear maps (convolutions, pools, pads, upsampling) are differentiated with the ops that
# compute them (convolution, index_add, matmul, constant_pad_nd), never with opaque kernels, so
# their backward is itself differentiable. Normalisations recompute their statistics from the
# input with differentiable ops. Index maps are read from the forward kernels themselves (run on
# an iota input, or on one-hot rows), so they agree with the forward by construction.

_convolution = find_operator("convolution")
_constant_pad_nd = find_operator("constant_pad_nd")
_arange = find_operator("arange")
_ones = find_operator("ones")
_matmul = find_operator("matmul")
_index_add = find_operator("index_add")
_MEAN_REDUCTION, _SUM_REDUCTION = 1, 2


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
    import torch
    return torch.tensor(values, dtype=like.dtype, device=like.device)


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
    return _conv_weight_grad(input, grad, weight_sizes, stride, padding, dilation, groups)


def convolution_backward_bias(grad: Any) -> Any:
    return grad.sum([0] + list(range(2, grad.dim())))


def constant_pad_nd_backward(grad: Any, pad: Any) -> Any:
    return _constant_pad_nd(grad, tuple(-int(p) for p in pad), 0)


def max_pool2d_with_indices_backward(grad: Any, self_sizes: Any, indices: Any) -> Any:
    """grad added at the argmax of each window (indices are flat over the last two dims)."""
    sizes = tuple(self_sizes)
    plane = int(sizes[-1]) * int(sizes[-2])
    lead = _prod(sizes[:-2])
    offsets = _arange(lead, dtype=indices.dtype, device=indices.device) * plane
    flat = (indices.reshape(lead, -1) + offsets.unsqueeze(1)).reshape(-1)
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
    plane = _prod(sizes[-spatial:])
    with _NoGrad():
        iota = _arange(plane, dtype=_float64(), device=grad.device).reshape((1, 1) + sizes[-spatial:])
        source = forward(iota).reshape(-1).long()
    lead = sizes[:-spatial]
    g = grad.reshape(lead + (-1,))
    return _zeros(lead + (plane,), dtype=grad.dtype, device=grad.device).index_add(len(lead), source, g).reshape(sizes)


class _NoGrad:
    def __enter__(self) -> None:
        from c10 import grad_mode
        self.prev = grad_mode.is_grad_enabled()
        grad_mode.set_grad_enabled(False)

    def __exit__(self, *exc: Any) -> None:
        from c10 import grad_mode
        grad_mode.set_grad_enabled(self.prev)


def _float64() -> Any:
    from c10.scalar_type import dtype_from_name
    return dtype_from_name("float64")


def upsample_bilinear2d_backward(grad: Any, self_sizes: Any, output_size: Any, align_corners: bool, scales_h: Any,
                                 scales_w: Any) -> Any:
    """Bilinear upsampling is separable, out = A_h x A_w^T: each matrix is read off the kernel
    run on one-hot rows (a width or height of 1 makes the other direction the identity)."""
    op = find_operator("upsample_bilinear2d")
    sizes = tuple(int(s) for s in self_sizes)
    H, W = sizes[-2], sizes[-1]
    out_h, out_w = int(output_size[0]), int(output_size[1])
    with _NoGrad():
        eye_h = _eye(H, grad).reshape(1, H, H, 1)
        rows_t = op(eye_h, (out_h, 1), align_corners, scales_h, None).reshape(H, out_h)     # A_h^T
        eye_w = _eye(W, grad).reshape(1, W, 1, W)
        cols_t = op(eye_w, (1, out_w), align_corners, None, scales_w).reshape(W, out_w)     # A_w^T
    return _matmul(_matmul(rows_t, grad), cols_t.t())


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


def layer_norm_backward(which: int, grad: Any, input: Any, normalized_shape: Any, weight: Any, eps: float) -> Any:
    axis = input.dim() - len(normalized_shape)
    dims = list(range(axis, input.dim()))
    batch = list(range(axis))
    if which == 2:
        return grad.sum(batch) if batch else grad
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


def nll_loss_backward(grad: Any, self_sizes: Any, target: Any, weight: Any, reduction: int, ignore_index: int,
                      total_weight: Any) -> Any:
    """-weight[target] * grad at each target class (0 where the target is ignore_index), divided
    by total_weight for the mean: a comparison with the class index, so it stays differentiable."""
    sizes = tuple(int(s) for s in self_sizes)
    class_dim = 0 if len(sizes) == 1 else 1
    valid = target != ignore_index
    safe = where(valid, target, 0)
    if weight is not None:
        w = where(valid, weight.index_select(0, safe.reshape(-1)).reshape(safe.shape), 0.0)
    else:
        w = valid.to(grad.dtype)
    if reduction == _MEAN_REDUCTION:
        grad = grad / where(total_weight == 0, 1.0, total_weight)
    coef = -(w * grad).unsqueeze(class_dim)
    shape = [1] * len(sizes)
    shape[class_dim] = sizes[class_dim]
    classes = _arange(sizes[class_dim], dtype=target.dtype, device=target.device).reshape(shape)
    return where(classes == safe.unsqueeze(class_dim), coef, 0.0).expand(sizes)


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
    g = grad.reshape(index.shape[0], -1)
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


def upsample_nearest2d_backward(grad: Any, self_sizes: Any, output_size: Any, scales_h: Any, scales_w: Any) -> Any:
    op = find_operator("upsample_nearest2d")
    return index_map_backward(grad, self_sizes, 2, lambda t: op(t, output_size, scales_h, scales_w))


def pad_backward(grad: Any, self_sizes: Any, op_name: str, padding: Any) -> Any:
    """reflection_pad1d/2d, replication_pad1d/2d, _pad_circular: each output copies one input."""
    op = find_operator(op_name)
    return index_map_backward(grad, self_sizes, len(padding) // 2, lambda t: op(t, padding))
