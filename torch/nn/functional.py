"""torch.nn.functional: the stateless functions behind the layers (PyTorch's signatures).

Each is composed of Ember operators that have autograd formulas (torch._C._nn.*, torch.*,
Tensor methods), so gradients flow through them. The losses are in torch/nn/_losses.py."""
from __future__ import annotations

import warnings
from typing import Any

import torch
from torch import Tensor
from torch._C import _nn
from torch.nn._losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cosine_embedding_loss,
                              cross_entropy, ctc_loss, gaussian_nll_loss, hinge_embedding_loss, huber_loss, kl_div, l1_loss,
                              margin_ranking_loss, mse_loss, multilabel_soft_margin_loss, nll_loss, poisson_nll_loss,
                              smooth_l1_loss, soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss)
# Layers: convolution, padding, pooling, normalisation, embedding.
from torch.nn._layer_functional import instance_norm
from torch.nn._layer_functional import (adaptive_avg_pool1d, adaptive_avg_pool2d, avg_pool1d, avg_pool2d, batch_norm,
                                        conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d,
                                        embedding, group_norm,
                                        layer_norm, max_pool1d, max_pool1d_with_indices, max_pool2d,
                                        max_pool2d_with_indices, one_hot, pad)
from torch.nn._pooling_functional import (adaptive_avg_pool3d, adaptive_max_pool1d,
                                          adaptive_max_pool1d_with_indices, adaptive_max_pool2d,
                                          adaptive_max_pool2d_with_indices, adaptive_max_pool3d,
                                          adaptive_max_pool3d_with_indices, avg_pool3d, lp_pool1d, lp_pool2d,
                                          lp_pool3d, max_pool3d, max_pool3d_with_indices, max_unpool1d,
                                          max_unpool2d, max_unpool3d)
from torch.nn._folding import fold, unfold
from torch.nn._spatial_transform import affine_grid, grid_sample
from torch.nn._embedding_bag import embedding_bag
from torch.nn._interpolate import interpolate, upsample, upsample_bilinear, upsample_nearest
from torch.nn._dropout_functional import alpha_dropout, dropout1d, dropout2d, dropout3d, feature_alpha_dropout
# -- sequence models: attention --
from torch.nn._attention import _canonical_mask as _canonical_mask
from torch.nn._attention import _in_projection_packed as _in_projection_packed
from torch.nn._attention import _mha_shape_check as _mha_shape_check
from torch.nn._attention import _none_or_dtype as _none_or_dtype
from torch.nn._attention import multi_head_attention_forward, scaled_dot_product_attention

__all__ = ["linear", "bilinear", "threshold", "relu", "relu6", "elu", "selu", "celu", "gelu", "silu", "mish",
           "leaky_relu", "rrelu", "hardtanh", "hardsigmoid", "hardswish", "sigmoid", "tanh", "softplus", "softsign",
           "tanhshrink", "hardshrink", "softshrink", "glu", "logsigmoid", "prelu", "softmax", "softmin",
           "log_softmax", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "cosine_similarity",
           "pairwise_distance", "pdist", "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout",
           "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss", "soft_margin_loss",
           "multilabel_soft_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "poisson_nll_loss", "gaussian_nll_loss", "ctc_loss",
           "relu_", "elu_", "leaky_relu_", "rrelu_", "hardtanh_", "threshold_", "selu_", "celu_",
           # Layers: convolution, padding, pooling, normalisation, embedding.
           "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "pad", "max_pool1d", "max_pool2d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d", "batch_norm", "instance_norm", "layer_norm", "rms_norm", "group_norm", "embedding",
           "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "max_pool3d", "max_pool3d_with_indices",
           "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
           "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d",
           "lp_pool2d", "lp_pool3d", "fold", "unfold", "grid_sample", "affine_grid", "embedding_bag",
           "one_hot",
           "normalize",
           # sequence models
           "scaled_dot_product_attention", "multi_head_attention_forward"]


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = input @ weight.T + bias."""
    return _nn.linear(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    return torch.bilinear(input1, input2, weight, bias)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    return torch.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    return torch.pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of (N, C, *) input from `groups` groups."""
    return torch.channel_shuffle(input, groups)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """The cosine of the angle between x1 and x2 along dim."""
    return torch.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """The p-norm distance between x1 and x2 along their last dim."""
    return torch.pairwise_distance(x1, x2, p, eps, keepdim)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distances between every pair of rows of input (N, M): the upper triangle, row by row."""
    return torch.pdist(input, p)


def rms_norm(input: Tensor, normalized_shape: list[int] | tuple[int, ...], weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """input divided by its root mean square over the trailing normalized_shape dims, times weight."""
    return torch.rms_norm(input, normalized_shape, weight, eps)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """input divided by its p-norm along dim (at least eps)."""
    from torch.overrides import handle_torch_function, has_torch_function_variadic
    if has_torch_function_variadic(input, out):
        return handle_torch_function(normalize, (input, out), input, p=p, dim=dim, eps=eps, out=out)
    if out is None:
        return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return torch.div(input, denom, out=out)


# -- activations -----------------------------------------------------------------------------
def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """value where input <= threshold, input elsewhere."""
    if inplace:
        return input.masked_fill_(input <= threshold, value)
    return torch.threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return input.masked_fill_(input <= threshold, value)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(input, 0)."""
    return torch.relu_(input) if inplace else torch.relu(input)


def relu_(input: Tensor) -> Tensor:
    return torch.relu_(input)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(input, 0), 6)."""
    return _nn.hardtanh_(input, 0.0, 6.0) if inplace else _nn.relu6(input)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """input if input > 0 else alpha * (exp(input) - 1)."""
    return _nn.elu_(input, alpha) if inplace else _nn.elu(input, alpha)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _nn.elu_(input, alpha)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(input, alpha) with SELU's constants."""
    return torch.selu_(input) if inplace else torch.selu(input)


def selu_(input: Tensor) -> Tensor:
    return torch.selu_(input)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return torch.celu_(input, alpha) if inplace else torch.celu(input, alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return torch.celu_(input, alpha)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (approximate='tanh': the tanh approximation)."""
    return _nn.gelu(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    return _nn.silu_(input) if inplace else _nn.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    return _nn.mish_(input) if inplace else _nn.mish(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """input if input >= 0 else negative_slope * input."""
    return _nn.leaky_relu_(input, negative_slope) if inplace else _nn.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return _nn.leaky_relu_(input, negative_slope)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """leaky_relu with a slope drawn from U(lower, upper) per non-positive element in training,
    the mean slope (lower + upper) / 2 otherwise."""
    return torch.rrelu_(input, lower, upper, training) if inplace else torch.rrelu(input, lower, upper, training)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return torch.rrelu_(input, lower, upper, training)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """input clamped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _nn.hardtanh_(input, min_val, max_val) if inplace else _nn.hardtanh(input, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, inplace=True)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6."""
    return _nn.hardsigmoid_(input) if inplace else _nn.hardsigmoid(input)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6."""
    return _nn.hardswish_(input) if inplace else _nn.hardswish(input)


def sigmoid(input: Tensor) -> Tensor:
    """1 / (1 + exp(-input))."""
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    """tanh(input)."""
    return input.tanh()


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta (x where beta * x > threshold)."""
    return _nn.softplus(input, beta, threshold)


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x)."""
    return input - input.tanh()


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, 0 elsewhere."""
    return input.masked_fill(input.abs() <= lambd, 0)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd above lambd, x + lambd below -lambd, 0 between."""
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return input - input.clamp(-lambd, lambd)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b), where a and b are the halves of input along dim."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.dim()} is size {size}")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    return -_nn.softplus(-input, 1.0, 20.0)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + weight * min(0, x), weight per channel (dim 1) or one for all."""
    return torch.prelu(input, weight)


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim (computed in dtype when given)."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim, dtype=dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """softmax(-x) along dim."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """log(softmax(x)) along dim, computed stably."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim, dtype=dtype)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p) (identity unless training)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not inplace:
        return torch.dropout(input, p, training)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.zero_()
    keep = torch.empty_like(input).bernoulli_(1.0 - p)
    return input.mul_(keep.div_(1.0 - p))


# Last, over every function above and imported: PyTorch's Python-level functions hand __torch_function__
# calls (fx tracing, tensor subclasses, modes) to their handler as themselves.
from torch.nn._overridable import make_overridable  # noqa: E402

make_overridable(globals())
