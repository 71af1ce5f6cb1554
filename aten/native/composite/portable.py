"""Portable kernels: operators whose CPU kernel is a Cython loop of its own, written again over other
operators so that a device without a dedicated kernel (CUDA) runs them on the device. Each is
registered as CompositeExplicitAutograd beside the CPU kernel, so the CPU keeps its loop and
autograd uses the operator's own derivative either way. Checks and messages are the CPU kernels'.
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.composite.losses import reduce_loss
from aten.native.meta.loss_checks import check_binary_cross_entropy, check_nll_loss2d
from aten.native.meta.norm_checks import check_batch_norm, check_group_norm
from aten.native.meta.opmath import write_quietly
from c10.scalar_type import CPP_TYPE_NAMES
from c10 import scalar_type

_where = find_operator("where.self")
_to = find_operator("to.dtype")
_copy_ = find_operator("copy_")
_arange = find_operator("arange")
_arange_range = find_operator("arange.start_step")
_full = find_operator("full")
_reshape = find_operator("reshape")
_expand = find_operator("expand")
_narrow = find_operator("narrow")
_index_select = find_operator("index_select")
_unsqueeze = find_operator("unsqueeze")
_sub = find_operator("sub.Tensor")
_mul = find_operator("mul.Tensor")
_add = find_operator("add.Tensor")
_le = find_operator("le.Tensor")
_ge = find_operator("ge.Tensor")
_eq = find_operator("eq.Tensor")
_isneginf = find_operator("isneginf")
_all_dim = find_operator("all.dim")
_softmax = find_operator("_softmax")
_amax = find_operator("amax")
_amin = find_operator("amin")
_exp = find_operator("exp")
_log1p = find_operator("log1p")
_neg = find_operator("neg")
_clamp_min = find_operator("clamp_min")
_uniform_ = find_operator("uniform_")
_floor = find_operator("floor")
_abs = find_operator("abs")
_clone = find_operator("clone")
_var_mean = find_operator("var_mean.correction")
_sqrt = find_operator("sqrt")
_div = find_operator("div.Tensor")
_empty = find_operator("empty.memory_format")
_log = find_operator("log")
_logical_and = find_operator("logical_and")
_all = find_operator("all")
_permute = find_operator("permute")
_nll_loss_forward = find_operator("nll_loss_forward")

_BOOL = scalar_type.dtype_from_name("bool")
_INT64 = scalar_type.dtype_from_name("int64")
_FLOAT64 = scalar_type.dtype_from_name("float64")
_FLOAT32 = scalar_type.dtype_from_name("float32")
_HALF = scalar_type.dtype_from_name("float16")


def not_implemented_for(op: str, t: Any, suffix: str = "") -> NotImplementedError:
    """PyTorch's error for a dtype a kernel has no loop for, the kernel named after t's device:
    "op_cuda" not implemented for 'Bool'. Shared by the portable modules."""
    return NotImplementedError(f'"{op}_{t.device.type}{suffix}" not implemented for \'{t.dtype.type_name}\'')


def _same_dtype(result: Any, like: Any) -> Any:
    return result if result.dtype is like.dtype else _to(result, like.dtype)


# ---- masked_fill ---------------------------------------------------------------------------------

def _check_mask(mask: Any) -> None:
    if mask.dtype is not _BOOL:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.type_name}")


def _value_item(value: Any) -> Any:
    if value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    return value.item()


def masked_fill_scalar(self: Any, mask: Any, value: Any) -> Any:
    _check_mask(mask)
    return _same_dtype(_where(mask, value, self), self)


def masked_fill_tensor(self: Any, mask: Any, value: Any) -> Any:
    return masked_fill_scalar(self, mask, _value_item(value))


def masked_fill__scalar(self: Any, mask: Any, value: Any) -> Any:
    _check_mask(mask)
    filled = _where(mask, value, self)
    if tuple(filled.shape) != tuple(self.shape):
        raise RuntimeError(f"The size of the mask {list(mask.shape)} must be broadcastable to the size of self "
                           f"{list(self.shape)}")
    return _copy_(self, filled)


def masked_fill__tensor(self: Any, mask: Any, value: Any) -> Any:
    return masked_fill__scalar(self, mask, _value_item(value))


# ---- triangles, flips, repeats, padding ------------------------------------------------------------

def _triangle(self: Any, diagonal: int, lower: bool) -> Any:
    if self.dim() < 2:
        raise RuntimeError(f"{'tril' if lower else 'triu'}: input tensor must have at least 2 dimensions")
    rows, cols = self.shape[-2], self.shape[-1]
    row = _reshape(_arange(rows, dtype=_INT64, device=self.device), (rows, 1))
    col = _arange(cols, dtype=_INT64, device=self.device)
    offset = _sub(col, row)
    keep = _le(offset, diagonal) if lower else _ge(offset, diagonal)
    return _same_dtype(_where(keep, self, 0), self)


def tril(self: Any, diagonal: int = 0) -> Any:
    return _triangle(self, diagonal, True)


def triu(self: Any, diagonal: int = 0) -> Any:
    return _triangle(self, diagonal, False)


def flip(self: Any, dims: Any) -> Any:
    wrapped = [self._wrap_dim(d) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if self.dim() == 0 or not wrapped:
        return _clone(self)
    out = self
    for d in wrapped:
        out = _index_select(out, d, _arange_range(self.shape[d] - 1, -1, -1, dtype=_INT64, device=self.device))
    return out


def repeat(self: Any, repeats: Any) -> Any:
    repeats = [int(r) for r in repeats]
    if len(repeats) < self.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(repeats)}: {repeats}")
    sizes = [1] * (len(repeats) - self.dim()) + list(self.shape)
    interleaved: list[int] = []
    expanded: list[int] = []
    for r, s in zip(repeats, sizes):
        interleaved += [1, s]
        expanded += [r, s]
    tiled = _expand(_reshape(self, interleaved), expanded)
    return _reshape(tiled, [r * s for r, s in zip(repeats, sizes)])


def constant_pad_nd(self: Any, pad: Any, value: Any = 0) -> Any:
    pad = [int(p) for p in pad]
    if len(pad) % 2 != 0:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > self.dim():
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)}while the input has {self.dim()}dimensions.")
    shape = list(self.shape)
    source, target = self, None
    spans = []
    for i in range(len(pad) // 2):
        d = self.dim() - 1 - i
        lo, hi, size = pad[2 * i], pad[2 * i + 1], shape[d]
        if size + min(lo, 0) + min(hi, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        shape[d] = size + lo + hi
        if shape[d] < 0:
            raise RuntimeError(f"The input size {size}, plus negative padding {lo} and {hi} resulted in a negative "
                               f"output size, which is invalid. Check dimension {d} of your input.")
        kept = size + min(lo, 0) + min(hi, 0)
        source = _narrow(source, d, max(-lo, 0), kept)
        spans.append((d, max(lo, 0), kept))
    out = _full(tuple(shape), value, dtype=self.dtype, device=self.device)
    target = out
    for d, start, length in spans:
        target = _narrow(target, d, start, length)
    if target.numel():
        _copy_(target, source)
    return out


# ---- nn ---------------------------------------------------------------------------------------------

def mse_loss(self: Any, target: Any, reduction: int = 1) -> Any:
    difference = _sub(self, target)
    return reduce_loss(_mul(difference, difference), reduction)


def binary_cross_entropy_with_logits(self: Any, target: Any, weight: Any = None, pos_weight: Any = None,
                                     reduction: int = 1) -> Any:
    """(1 - t) x + w_pos (log1p(exp(-|x|)) + max(-x, 0)), w_pos = (pos_weight - 1) t + 1: PyTorch's
    stable form, which never takes exp of a large positive number."""
    softplus_neg = _add(_log1p(_exp(_neg(_abs(self)))), _clamp_min(_neg(self), 0))
    log_weight = softplus_neg if pos_weight is None else \
        _mul(_add(_mul(_sub(pos_weight, 1), target), 1), softplus_neg)
    loss = _add(_mul(_sub(1, target), self), log_weight)
    if weight is not None:
        loss = _mul(loss, weight)
    return reduce_loss(loss, reduction)


def binary_cross_entropy(self: Any, target: Any, weight: Any = None, reduction: int = 1) -> Any:
    """(t - 1) max(log(1 - x), -100) - t max(log(x), -100): PyTorch clamps the logs so that x of
    0 or 1 gives a finite loss. Checking x's range costs one device sync (CUDA asserts instead)."""
    check_binary_cross_entropy(self, target, weight, reduction)
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f'"binary_cross_entropy" not implemented for \'{self.dtype.type_name}\'')
    if self.numel() and not _all(_logical_and(_ge(self, 0), _le(self, 1))).item():
        raise RuntimeError("all elements of input should be between 0 and 1")
    log_x = _clamp_min(_log(self), -100)
    log_1mx = _clamp_min(_log1p(_neg(self)), -100)
    loss = _sub(_mul(_sub(target, 1), log_1mx), _mul(target, log_x))
    if weight is not None:
        loss = _mul(loss, weight)
    return reduce_loss(_same_dtype(loss, self), reduction)


def nll_loss2d_forward(self: Any, target: Any, weight: Any, reduction: int, ignore_index: int) -> Any:
    """nll_loss over the N*H*W pixels: classes moved last, pixels as the batch."""
    check_nll_loss2d(self, target)
    if target.dtype is not _INT64 and target.dtype.name != "uint8":
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target.dtype.type_name}")
    n, c, h, w = self.shape
    pixels = _reshape(_permute(self, (0, 2, 3, 1)), (n * h * w, c))
    output, total_weight = _nll_loss_forward(pixels, _reshape(target, (n * h * w,)), weight, reduction, ignore_index)
    return (_reshape(output, (n, h, w)) if reduction == 0 else output), total_weight


def one_hot(self: Any, num_classes: int = -1) -> Any:
    if self.dtype is not _INT64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if self.numel() == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return _full((*self.shape, num_classes), 0, dtype=_INT64, device=self.device)
    if _amin(self, (), False).item() < 0:
        raise RuntimeError("Class values must be non-negative.")
    top = int(_amax(self, (), False).item())
    if num_classes == -1:
        num_classes = top + 1
    elif num_classes <= top:
        raise RuntimeError("Class values must be smaller than num_classes.")
    classes = _arange(num_classes, dtype=_INT64, device=self.device)
    return _to(_eq(_unsqueeze(self, -1), classes), _INT64)


def safe_softmax(self: Any, dim: int, dtype: Any = None) -> Any:
    """softmax, except that rows whose every element is -inf give 0 (not NaN): attention masks."""
    x = self if dtype is None else _to(self, dtype)
    out = _softmax(x, dim, False)
    if out.numel() == 0 or x.dim() == 0:
        return out
    masked = _all_dim(_isneginf(x), dim, True)
    return _same_dtype(_where(masked, 0, out), out)


def random_from(self: Any, from_: int, to: Any = None, generator: Any = None) -> Any:
    """Integers uniform in [from, to) drawn as floor(from + (to - from) u), u uniform in [0, 1) in
    double; to None means up to the dtype's largest integer (2**mantissa for floating dtypes)."""
    if to is None:
        to = _largest_integer(self.dtype) + 1
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    if not self.dtype.is_floating_point:
        name = CPP_TYPE_NAMES[self.dtype.name]
        bits = 8 * self.dtype.itemsize
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if self.dtype.is_signed else (0, (1 << bits) - 1)
        if self.dtype is _BOOL:
            low, high = 0, 1
        if not low <= from_ <= high:
            raise RuntimeError(f"from is out of bounds for {name}")
        if not low <= to - 1 <= high:
            raise RuntimeError(f"to - 1 is out of bounds for {name}")
    draws = _uniform_(_full(tuple(self.shape), 0, dtype=_FLOAT64, device=self.device), 0.0, 1.0,
                      generator=generator)
    values = _add(_floor(_mul(draws, float(to - from_))), float(from_))
    return _copy_(self, _same_dtype(values, self))


def random_to(self: Any, to: int, generator: Any = None) -> Any:
    return random_from(self, 0, to, generator)


def random_(self: Any, generator: Any = None) -> Any:
    return random_from(self, 0, None, generator)


_MANTISSA_BITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _largest_integer(dtype: Any) -> int:
    """The largest integer the dtype holds exactly (every smaller one too)."""
    if dtype.is_floating_point:
        return 1 << _MANTISSA_BITS[dtype.name]
    if dtype is _BOOL:
        return 1
    bits = 8 * dtype.itemsize
    return (1 << (bits - 1)) - 1 if dtype.is_signed else (1 << bits) - 1


# ---- normalisation ----------------------------------------------------------------------------------

def _channels(t: Any, dims: int) -> Any:
    """A (C,) tensor viewed as (1, C, 1, ...) against a dims-dimensional input."""
    return _reshape(t, [1, -1] + [1] * (dims - 2))


def _affine(normalized: Any, weight: Any, bias: Any, dims: int) -> Any:
    if weight is not None:
        normalized = _mul(normalized, _channels(weight, dims))
    if bias is not None:
        normalized = _add(normalized, _channels(bias, dims))
    return normalized


def _write_quietly(statistic: Any, value: Any) -> None:
    """Running statistics are written without a version bump, as PyTorch's native_batch_norm (its schema does
    not mark them written): a module applied twice in one forward still runs its first call's backward."""
    write_quietly(_copy_, statistic, value)


def native_batch_norm(input: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any, training: bool,
                      momentum: float, eps: float) -> Any:
    """(output, save_mean, save_invstd): batch statistics in training (and the running ones moved
    towards them, the variance unbiased), the running ones in evaluation, as the CPU kernel."""
    if input.dtype is _HALF:     # computed in float32, running statistics written back rounded
        wide = [None if t is None else _to(t, _FLOAT32) for t in (input, weight, bias, running_mean, running_var)]
        out, save_mean, save_invstd = native_batch_norm(wide[0], wide[1], wide[2], wide[3], wide[4], training,
                                                        momentum, eps)
        for original, widened in ((running_mean, wide[3]), (running_var, wide[4])):
            if training and original is not None:
                _write_quietly(original, widened)
        return _to(out, _HALF), _to(save_mean, _HALF), _to(save_invstd, _HALF)
    check_batch_norm(input, weight, bias, running_mean, running_var, training)
    nd = input.dim()
    if training:
        dims = [0] + list(range(2, nd))
        variance, mean = _var_mean(input, dims, correction=0)
        invstd = _div(1.0, _sqrt(_add(variance, eps)))
        count = input.numel() // input.shape[1]
        if running_mean is not None:
            _write_quietly(running_mean, _add(_mul(running_mean, 1 - momentum), _mul(mean, momentum)))
        if running_var is not None:
            unbiased = _mul(variance, count / max(count - 1, 1))
            _write_quietly(running_var, _add(_mul(running_var, 1 - momentum), _mul(unbiased, momentum)))
        save_mean, save_invstd = mean, invstd
    else:
        mean, invstd = running_mean, _div(1.0, _sqrt(_add(running_var, eps)))
        save_mean = _empty((0,), dtype=input.dtype, device=input.device)
        save_invstd = _empty((0,), dtype=input.dtype, device=input.device)
    normalized = _mul(_sub(input, _channels(mean, nd)), _channels(invstd, nd))
    return _same_dtype(_affine(normalized, weight, bias, nd), input), save_mean, save_invstd


def native_group_norm(input: Any, weight: Any, bias: Any, N: int, C: int, HxW: int, group: int, eps: float) -> Any:
    """(output, mean, rstd), the statistics (N, group) over each group's channels and positions."""
    if input.dtype is _HALF:     # computed in float32
        wide = [None if t is None else _to(t, _FLOAT32) for t in (input, weight, bias)]
        return tuple(_to(t, _HALF) for t in native_group_norm(wide[0], wide[1], wide[2], N, C, HxW, group, eps))
    check_group_norm(input, weight, bias, N, C, HxW, group)
    grouped = _reshape(input, (N, group, C // group * HxW))
    variance, mean = _var_mean(grouped, [2], correction=0, keepdim=True)
    rstd = _div(1.0, _sqrt(_add(variance, eps)))
    normalized = _reshape(_mul(_sub(grouped, mean), rstd), tuple(input.shape))
    out = _affine(normalized, weight, bias, input.dim()) if input.dim() >= 2 else normalized
    return out, _reshape(mean, (N, group)), _reshape(rstd, (N, group))


# ---- index_fill -----------------------------------------------------------------------------------

_index_put_ = find_operator("index_put_")


def index_fill__scalar(self: Any, dim: int, index: Any, value: Any) -> Any:
    """self[..., index, ...] = value along dim: index_put_ with the index at dim's place."""
    if index.dtype is not _INT64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    d = self._wrap_dim(dim)
    if index.dim() > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    target = self if self.dim() else _reshape(self, (1,))       # a 0-dim self is filled as (1,)
    size = target.shape[d]
    if index.numel():
        low, high = _amin(index, (), False).item(), _amax(index, (), False).item()
        if low < -size or high >= size:      # checked here to name dim, as the CPU's message does
            bad = next(v for v in index.reshape(-1).tolist() if not -size <= v < size)
            raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
    filler = _full((), value, dtype=self.dtype, device=self.device)
    _index_put_(target, [None] * d + [index.reshape(-1)], filler, False)
    return self


def index_fill__tensor(self: Any, dim: int, index: Any, value: Any) -> Any:
    if value.dim() != 0:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    return index_fill__scalar(self, dim, index, value.item())


def index_fill_scalar(self: Any, dim: int, index: Any, value: Any) -> Any:
    return index_fill__scalar(_clone(self), dim, index, value)


def index_fill_tensor(self: Any, dim: int, index: Any, value: Any) -> Any:
    return index_fill__tensor(_clone(self), dim, index, value)
