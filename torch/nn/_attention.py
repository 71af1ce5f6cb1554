"""Attention functions behind nn.MultiheadAttention (PyTorch's torch.nn.functional versions).

scaled_dot_product_attention is the aten composite (aten/native/composite/nn.py), so autograd
differentiates it op by op. multi_head_attention_forward follows PyTorch's math path exactly:
with need_weights it computes the weights explicitly (baddbmm, softmax, bmm) so they can be
returned averaged over heads; without, it calls scaled_dot_product_attention."""
from __future__ import annotations

import math
import warnings
from typing import Any

import torch
from torch import Tensor
from torch._C import _nn

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(Q K^T * scale + mask) V; a bool mask keeps True positions, a float mask is added."""
    out: Tensor = _nn.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale=scale,
                                                   enable_gqa=enable_gqa)
    return out


def _none_or_dtype(input: Tensor | None) -> Any:
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type: Any, other_name: str, target_type: Any,
                    check_other: bool = True) -> Tensor | None:
    """A bool mask (True = masked out) becomes an additive float mask of target_type (-inf where True)."""
    if mask is None:
        return None
    is_float = torch.is_floating_point(mask)
    if mask.dtype != torch.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=2)
    if not is_float:
        mask = torch.zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                     attn_mask: Tensor | None, num_heads: int) -> bool:
    """Whether the call is batched (3-D query); PyTorch's AssertionErrors for inconsistent ranks."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D query "
                         "tensor")


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor, b: Tensor | None = None) -> list[Tensor]:
    """q, k, v projected by the packed (3E, E) weight; one matmul when q is k is v."""
    E = q.size(-1)
    if k is v:
        if q is k:
            proj = _nn.linear(q, w, b).unflatten(-1, (3, E))
            return list(proj.movedim(-2, 0).unbind(0))
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        kv = _nn.linear(k, w_kv, b_kv).unflatten(-1, (2, E)).movedim(-2, 0).unbind(0)
        return [_nn.linear(q, w_q, b_q), kv[0], kv[1]]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return [_nn.linear(q, w_q, b_q), _nn.linear(k, w_k, b_k), _nn.linear(v, w_v, b_v)]


def _pad_last(t: Tensor) -> Tensor:
    """One zero column appended on the last dim (F.pad(t, (0, 1)))."""
    return torch.constant_pad_nd(t, (0, 1))


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None, bias_v: Tensor | None,
        add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
        training: bool = True, key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
        k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention on (L, N, E) query and (S, N, E) key/value (or unbatched (L, E))."""
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                                       "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None      # scaled_dot_product_attention builds the causal mask itself
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            which = "q" if q_proj_weight is None else ("k" if k_proj_weight is None else "v")
            raise AssertionError(f"use_separate_proj_weight is True but {which}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q = _nn.linear(query, q_proj_weight, b_q)
        k = _nn.linear(key, k_proj_weight, b_k)
        v = _nn.linear(value, v_proj_weight, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = torch.cat([k, bias_k.repeat(1, bsz, 1)])
        v = torch.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = None if attn_mask is None else _pad_last(attn_mask)
        key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    # (L, N, E) -> (N * heads, L, head_dim)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = _static_or_split(k, static_k, "static_k", bsz * num_heads, head_dim)
    v = _static_or_split(v, static_v, "static_v", bsz * num_heads, head_dim)
    if add_zero_attn:
        zeros = (bsz * num_heads, 1, head_dim)
        k = torch.cat([k, torch.zeros(zeros, dtype=k.dtype, device=k.device)], dim=1)
        v = torch.cat([v, torch.zeros(zeros, dtype=v.dtype, device=v.device)], dim=1)
        attn_mask = None if attn_mask is None else _pad_last(attn_mask)
        key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        q_scaled = q * math.sqrt(1.0 / float(head_dim))
        if attn_mask is not None:
            weights = torch.baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            weights = torch.bmm(q_scaled, k.transpose(-2, -1))
        weights = weights.softmax(-1)
        if dropout_p > 0.0:
            weights = torch.dropout(weights, dropout_p, True)
        out = torch.bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = _nn.linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            return out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = _nn.linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
    return (out if is_batched else out.squeeze(1)), None


def _static_or_split(t: Tensor, static: Tensor | None, name: str, batch_heads: int, head_dim: int) -> Tensor:
    if static is None:
        return t.reshape(t.shape[0], batch_heads, head_dim).transpose(0, 1)
    if static.size(0) != batch_heads:
        raise AssertionError(f"expecting {name}.size(0) of {batch_heads}, but got {static.size(0)}")
    if static.size(2) != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {static.size(2)}")
    return static
