"""The CTC loss: `ctc_loss` (both overloads) reduces `_ctc_loss`'s per-sample negative log
likelihoods as PyTorch does (mean divides each by its target length, at least 1, then averages;
zero_infinity replaces inf by 0); `_ctc_loss` and `_ctc_loss_backward` also have device-neutral
kernels here, composed of tensor ops, which CUDA runs: one step of the alpha (beta) recursion
per input position, vectorised over the batch and the extended target, the same log-space
arithmetic as the CPU kernel (aten/native/cpu/ctc_loss.pyx), and the per-label collection of
alpha*beta as a scatter of maxima then of exponentials."""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.ctc_checks import check_ctc_arguments, check_lengths_integral, check_target_labels
from c10.scalar_type import dtype_from_name

_ctc = find_operator("_ctc_loss")
_ctc_backward = find_operator("_ctc_loss_backward")
_arange = find_operator("arange")
_empty = find_operator("empty.memory_format")
_full = find_operator("full")
_tensor = find_operator("scalar_tensor")
_where = find_operator("where.self")
_cat_op = find_operator("cat")
_INT64 = dtype_from_name("int64")
_INF = math.inf


def _lengths(values: Any) -> list[int]:
    """Lengths given as a sequence or as a tensor of any shape (0-d for one unbatched sample)."""
    return [int(v) for v in (values.reshape(-1).tolist() if hasattr(values, "reshape") else values)]


def ctc_loss(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int = 0,
             reduction: int = 1, zero_infinity: bool = False) -> Any:
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    res = _ctc(lp, targets.to(device=lp.device, dtype=_INT64), input_lengths, target_lengths, blank, zero_infinity)[0]
    if zero_infinity:
        res = _where(res == _INF, _tensor(0.0, dtype=res.dtype, device=res.device), res)
    if reduction == 1:
        return (res / _lengths_tensor(target_lengths, res).clamp_min(1)).mean()
    if reduction == 2:
        return res.sum()
    return res if batched else res.squeeze(0)


def _lengths_tensor(values: Any, like: Any) -> Any:
    lengths = _lengths(values)
    return _index_tensor(lengths, like.device).to(dtype=like.dtype)


def ctc_loss_tensor(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int = 0,
                    reduction: int = 1, zero_infinity: bool = False) -> Any:
    check_lengths_integral(input_lengths, target_lengths)
    return ctc_loss(log_probs, targets, _lengths(input_lengths), _lengths(target_lengths), blank, reduction,
                    zero_infinity)


def ctc_loss_lengths_tensor(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int = 0,
                            zero_infinity: bool = False) -> Any:
    check_lengths_integral(input_lengths, target_lengths)
    return _ctc(log_probs, targets, _lengths(input_lengths), _lengths(target_lengths), blank, zero_infinity)


def ctc_loss_backward_lengths_tensor(grad: Any, log_probs: Any, targets: Any, input_lengths: Any,
                                     target_lengths: Any, neg_log_likelihood: Any, log_alpha: Any, blank: int,
                                     zero_infinity: bool = False) -> Any:
    check_lengths_integral(input_lengths, target_lengths)
    return _ctc_backward(grad, log_probs, targets, _lengths(input_lengths), _lengths(target_lengths),
                         neg_log_likelihood, log_alpha, blank, zero_infinity)


# ---- the device-neutral kernels ---------------------------------------------------------------

class _Problem:
    """What both directions share: the extended targets (blank, l1, blank, l2, ..., blank), the
    log-probabilities of their labels at every input position, and the masks of the recursion."""

    def __init__(self, log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int,
                 op: str) -> None:
        geometry = check_ctc_arguments(log_probs, targets, input_lengths, target_lengths, blank)
        if log_probs.dtype.name not in ("float32", "float64"):
            raise NotImplementedError(f'"{op}" not implemented for \'{log_probs.dtype.type_name}\'')
        self.T, self.B, self.C = geometry.max_input_length, geometry.batch_size, geometry.num_labels
        self.S = 2 * geometry.max_target_length + 1
        device = log_probs.device
        lengths = _lengths(target_lengths)
        width = geometry.max_target_length
        self.tl = _index_tensor(lengths, device)
        j = _arange(width, dtype=_INT64, device=device).unsqueeze(0)
        in_target = j < self.tl.unsqueeze(1)                                   # (B, width)
        if targets.dim() == 1:       # concatenated: sample b's labels start after those of the samples before it
            starts = (self.tl.cumsum(0) - self.tl).unsqueeze(1)
            picks = _where(in_target, starts + j, _tensor(0, dtype=_INT64, device=device))
            labels = targets.index_select(0, picks.reshape(-1)).reshape(self.B, width) if targets.numel() else \
                _full((self.B, width), blank, dtype=_INT64, device=device)
        else:
            labels = targets[:, :width]
        labels = labels.to(dtype=_INT64)
        if bool(in_target.any()):
            used = labels[in_target]
            check_target_labels(int(used.min()), int(used.max()), self.C)
        blanks = _full((self.B, width), blank, dtype=_INT64, device=device)
        labels = _where(in_target, labels, blanks)
        pairs = find_operator("stack")([blanks, labels], 2).reshape(self.B, 2 * width)
        self.ext = _cat(pairs, _full((self.B, 1), blank, dtype=_INT64, device=device))    # (B, S)
        self.il = _index_tensor(_lengths(input_lengths), device)
        s = _arange(self.S, dtype=_INT64, device=device)
        self.valid = s.unsqueeze(0) <= 2 * self.tl.unsqueeze(1)                # (B, S)
        self.neg = _tensor(-_INF, dtype=log_probs.dtype, device=device)
        lp_bt = log_probs.permute(1, 0, 2)                                      # (B, T, C)
        self.lpe = lp_bt.gather(2, self.ext.unsqueeze(1).expand(self.B, self.T, self.S))   # (B, T, S)
        shifted = _shift_right(self.ext, 2, -1)
        self.skip_from_left = (s.unsqueeze(0) >= 2) & (shifted != self.ext)     # alpha may come from s - 2
        self.skip_from_right = _shift_left(self.skip_from_left, 2, False)       # beta may come from s + 2

    def lse3(self, a: Any, b: Any, c: Any) -> Any:
        m = a.maximum(b).maximum(c)
        m = _where(m == -_INF, _tensor(0.0, dtype=m.dtype, device=m.device), m)
        return ((a - m).exp() + (b - m).exp() + (c - m).exp()).log() + m


def _index_tensor(values: list[int], device: Any) -> Any:
    """An int64 tensor of the list's values, on device."""
    host = _empty((len(values),), dtype=_INT64)
    host._numpy_view()[:] = values
    return host.to(device)


def _shift_right(x: Any, k: int, fill: Any) -> Any:
    if x.shape[1] <= k:
        return _full(tuple(x.shape), fill, dtype=x.dtype, device=x.device)
    pad = _full((x.shape[0], k), fill, dtype=x.dtype, device=x.device)
    return _cat(pad, x[:, :x.shape[1] - k])


def _shift_left(x: Any, k: int, fill: Any) -> Any:
    if x.shape[1] <= k:
        return _full(tuple(x.shape), fill, dtype=x.dtype, device=x.device)
    pad = _full((x.shape[0], k), fill, dtype=x.dtype, device=x.device)
    return _cat(x[:, k:], pad)


def _cat(a: Any, b: Any) -> Any:
    return _cat_op([a, b], 1)


def ctc_loss_portable(log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int = 0,
                      zero_infinity: bool = False) -> Any:
    p = _Problem(log_probs, targets, input_lengths, target_lengths, blank, "ctc_loss_cuda")
    neg, B, T, S = p.neg, p.B, p.T, p.S
    device, dtype = log_probs.device, log_probs.dtype
    s = _arange(S, dtype=_INT64, device=device).unsqueeze(0)
    first = (s == 0) | ((s == 1) & (p.tl.unsqueeze(1) > 0))         # T >= 1: log_probs is never empty
    rows = [_where(first & (p.il.unsqueeze(1) > 0), p.lpe[:, 0], neg)]
    for t in range(1, T):
        prev = rows[-1]
        a2 = _shift_right(prev, 1, -_INF)
        a3 = _where(p.skip_from_left, _shift_right(prev, 2, -_INF), neg)
        step = p.lse3(prev, a2, a3) + p.lpe[:, t]
        rows.append(_where(p.valid & (p.il.unsqueeze(1) > t), step, neg))
    log_alpha = find_operator("stack")(rows, 1)
    last = (p.il - 1).clamp_min(0)
    final = log_alpha.gather(1, last.view(B, 1, 1).expand(B, 1, S)).squeeze(1)
    l1 = final.gather(1, (2 * p.tl).unsqueeze(1)).squeeze(1)
    l2 = _where(p.tl > 0, final.gather(1, (2 * p.tl - 1).clamp_min(0).unsqueeze(1)).squeeze(1), neg)
    m = l1.maximum(l2)
    m = _where(m == -_INF, _tensor(0.0, dtype=dtype, device=device), m)
    nll = -(((l1 - m).exp() + (l2 - m).exp()).log() + m)
    empty_input = _where(p.tl == 0, _tensor(0.0, dtype=dtype, device=device),
                         _tensor(_INF, dtype=dtype, device=device))
    return _where(p.il == 0, empty_input, nll), log_alpha


def ctc_loss_backward_portable(grad: Any, log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any,
                               neg_log_likelihood: Any, log_alpha: Any, blank: int,
                               zero_infinity: bool = False) -> Any:
    p = _Problem(log_probs, targets, input_lengths, target_lengths, blank, "ctc_loss_backward_cuda")
    neg, B, T, S, C = p.neg, p.B, p.T, p.S, p.C
    device, dtype = log_probs.device, log_probs.dtype
    s = _arange(S, dtype=_INT64, device=device).unsqueeze(0)
    tl, il = p.tl.unsqueeze(1), p.il.unsqueeze(1)
    ends = (s == 2 * tl) | ((s == 2 * tl - 1) & (tl > 0))
    rows: list[Any] = [None] * T
    after = _full((B, S), -_INF, dtype=dtype, device=device)
    for t in range(T - 1, -1, -1):
        b2 = _shift_left(after, 1, -_INF)
        b3 = _where(p.skip_from_right, _shift_left(after, 2, -_INF), neg)
        step = p.lse3(after, b2, b3) + p.lpe[:, t]
        start = _where(ends, p.lpe[:, t], neg)
        rows[t] = _where(il - 1 == t, start, _where(p.valid & (il - 1 > t), step, neg))
        after = rows[t]
    log_beta = find_operator("stack")(rows, 1)                                 # (B, T, S)
    ab = log_alpha + log_beta
    index = p.ext.unsqueeze(1).expand(B, T, S)
    peak = _full((B, T, C), -_INF, dtype=dtype, device=device).scatter_reduce(2, index, ab, "amax")
    peak = _where(peak == -_INF, _tensor(0.0, dtype=dtype, device=device), peak)
    total = _full((B, T, C), 0.0, dtype=dtype, device=device).scatter_add(2, index, (ab - peak.gather(2, index)).exp())
    collected = total.log() + peak
    lp = log_probs.permute(1, 0, 2)
    nll = neg_log_likelihood.view(B, 1, 1)
    g = (lp.exp() - (collected + nll - lp).exp()) * grad.view(B, 1, 1)
    keep = _arange(T, dtype=_INT64, device=device).view(1, T, 1) < p.il.view(B, 1, 1)
    if zero_infinity:
        keep = keep & (nll != _INF)
    g = _where(keep, g, _tensor(0.0, dtype=dtype, device=device))
    return g.permute(1, 0, 2).contiguous()
