"""F.scaled_dot_product_attention, nn.MultiheadAttention, nn.TransformerEncoderLayer/Encoder:
numerics against NumPy float64 references, gradcheck, and PyTorch's names, reprs and errors.

The literal reprs, state_dict keys and error messages were printed once by PyTorch 2.13."""
from __future__ import annotations

import math

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import gradcheck


def _np_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _np_sdpa(q, k, v, mask=None, scale=None):
    s = (q @ np.swapaxes(k, -1, -2)) * (scale if scale is not None else 1 / math.sqrt(q.shape[-1]))
    if mask is not None:
        s = s + (np.where(mask, 0.0, -np.inf) if mask.dtype == bool else mask)
    return _np_softmax(s) @ v


def _np_mha(m, q, k, v, add_mask=None):
    """Batch-first (N, L, E) NumPy MHA from m's packed weights; add_mask (N, L, S) additive.
    Returns output and head-averaged weights."""
    sd = {key: t.detach().double().numpy() for key, t in m.state_dict().items()}
    E, H = m.embed_dim, m.num_heads
    w, b = sd["in_proj_weight"], sd.get("in_proj_bias", np.zeros(3 * E))
    qp, kp, vp = q @ w[:E].T + b[:E], k @ w[E:2 * E].T + b[E:2 * E], v @ w[2 * E:].T + b[2 * E:]

    def heads(t):
        return t.reshape(t.shape[0], t.shape[1], H, E // H).transpose(0, 2, 1, 3)

    s = heads(qp) @ heads(kp).transpose(0, 1, 3, 2) / math.sqrt(E // H)
    if add_mask is not None:
        s = s + add_mask[:, None]
    a = _np_softmax(s)
    o = (a @ heads(vp)).transpose(0, 2, 1, 3).reshape(q.shape[0], q.shape[1], E)
    o = o @ sd["out_proj.weight"].T + sd.get("out_proj.bias", np.zeros(E))
    return o, a.mean(1)


# -- scaled_dot_product_attention ---------------------------------------------------------------
def test_sdpa_matches_numpy_with_masks_causal_and_scale():
    q = torch.randn(2, 3, 4, 5, dtype=torch.float64)
    k = torch.randn(2, 3, 6, 5, dtype=torch.float64)
    v = torch.randn(2, 3, 6, 7, dtype=torch.float64)
    qn, kn, vn = q.numpy(), k.numpy(), v.numpy()
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v).numpy(), _np_sdpa(qn, kn, vn), rtol=1e-12)
    keep = torch.rand(4, 6) > 0.3
    keep[:, 0] = True
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=0.3).numpy(),
                               _np_sdpa(qn, kn, vn, keep.numpy(), 0.3), rtol=1e-12)
    add = torch.randn(4, 6, dtype=torch.float64)
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, attn_mask=add).numpy(),
                               _np_sdpa(qn, kn, vn, add.numpy()), rtol=1e-12)
    causal = np.tril(np.ones((4, 6), dtype=bool))
    np.testing.assert_allclose(F.scaled_dot_product_attention(q, k, v, is_causal=True).numpy(),
                               _np_sdpa(qn, kn, vn, causal), rtol=1e-12)


def test_sdpa_gradcheck_and_dropout():
    q = torch.randn(2, 3, 4, dtype=torch.float64, requires_grad=True)
    k = torch.randn(2, 5, 4, dtype=torch.float64, requires_grad=True)
    v = torch.randn(2, 5, 3, dtype=torch.float64, requires_grad=True)
    mask = torch.rand(3, 5) > 0.3
    mask[:, 0] = True
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=mask), (q, k, v))
    assert gradcheck(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.7), (q, k, v))
    out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    assert out.shape == (2, 3, 3) and not torch.allclose(out, F.scaled_dot_product_attention(q, k, v))


# -- MultiheadAttention -------------------------------------------------------------------------
def test_mha_self_attention_matches_numpy_and_averages_weights():
    m = nn.MultiheadAttention(8, 2, batch_first=True).double()
    with torch.no_grad():
        m.in_proj_bias.normal_()
        m.out_proj.bias.normal_()
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    out, w = m(x, x, x)
    ref_out, ref_w = _np_mha(m, x.numpy(), x.numpy(), x.numpy())
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), ref_w, rtol=1e-10, atol=1e-12)
    per_head = m(x, x, x, average_attn_weights=False)[1]
    assert per_head.shape == (2, 2, 5, 5)
    torch.testing.assert_close(per_head.mean(1), w)
    out_nw, none = m(x, x, x, need_weights=False)
    assert none is None
    torch.testing.assert_close(out_nw, out)


def test_mha_masks_match_numpy():
    m = nn.MultiheadAttention(8, 4, batch_first=True).double()
    q = torch.randn(2, 3, 8, dtype=torch.float64)
    kv = torch.randn(2, 6, 8, dtype=torch.float64)
    pad = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
    attn = torch.randn(3, 6, dtype=torch.float64)
    combined = attn.numpy()[None] + np.where(pad.numpy(), -np.inf, 0.0)[:, None, :]
    ref_out, ref_w = _np_mha(m, q.numpy(), kv.numpy(), kv.numpy(), combined)
    for need_weights in (True, False):
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and attn_mask is deprecated"):
            out, w = m(q, kv, kv, key_padding_mask=pad, attn_mask=attn, need_weights=need_weights)
        np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-10, atol=1e-12)
        if need_weights:
            np.testing.assert_allclose(w.detach().numpy(), ref_w, rtol=1e-10, atol=1e-12)
    bool_attn = torch.rand(3, 6) > 0.5
    bool_attn[:, 0] = False
    ref_out, _ = _np_mha(m, q.numpy(), kv.numpy(), kv.numpy(),
                         np.broadcast_to(np.where(bool_attn.numpy(), -np.inf, 0.0), (2, 3, 6)))
    np.testing.assert_allclose(m(q, kv, kv, attn_mask=bool_attn)[0].detach().numpy(), ref_out, rtol=1e-10)


def test_mha_sequence_first_unbatched_and_separate_kv_dims():
    m = nn.MultiheadAttention(8, 2)
    x = torch.randn(5, 2, 8)
    out, w = m(x, x, x)
    assert out.shape == (5, 2, 8) and w.shape == (2, 5, 5)
    out1, w1 = m(x[:, 1], x[:, 1], x[:, 1])
    torch.testing.assert_close(out1, out[:, 1])
    torch.testing.assert_close(w1, w[1])
    c = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True, batch_first=True)
    out, w = c(torch.randn(2, 4, 8), torch.randn(2, 6, 3), torch.randn(2, 6, 5))
    assert out.shape == (2, 4, 8) and w.shape == (2, 4, 8)       # 6 keys + bias_k + zero attention


def test_mha_gradcheck_float64():
    m = nn.MultiheadAttention(4, 2, kdim=3, vdim=2).double()
    q = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
    k = torch.randn(5, 2, 3, dtype=torch.float64, requires_grad=True)
    v = torch.randn(5, 2, 2, dtype=torch.float64, requires_grad=True)
    pad = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    assert gradcheck(lambda q, k, v: m(q, k, v, key_padding_mask=pad)[0], (q, k, v))
    loss = m(q, k, v)[0].pow(2).sum()
    params = list(m.parameters())
    grads = torch.autograd.grad(loss, params)
    assert all(g.shape == p.shape and g.abs().sum() > 0 for p, g in zip(params, grads))


def test_mha_parameters_init_and_repr_as_pytorch():
    m = nn.MultiheadAttention(8, 2)
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, "
                       "out_features=8, bias=True)\n)")
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == [
        ('in_proj_weight', (24, 8)), ('in_proj_bias', (24,)), ('out_proj.weight', (8, 8)), ('out_proj.bias', (8,))]
    assert m.in_proj_bias.abs().sum().item() == 0 and m.out_proj.bias.abs().sum().item() == 0
    bound = math.sqrt(6 / (24 + 8))                   # xavier_uniform_ on (3E, E)
    assert m.in_proj_weight.abs().max().item() <= bound
    assert isinstance(m.out_proj, nn.Linear)
    s = nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True, bias=False)
    assert [(k, tuple(v.shape)) for k, v in s.state_dict().items()] == [
        ('q_proj_weight', (8, 8)), ('k_proj_weight', (8, 3)), ('v_proj_weight', (8, 5)), ('bias_k', (1, 1, 8)),
        ('bias_v', (1, 1, 8)), ('out_proj.weight', (8, 8))]
    assert s.in_proj_weight is None and s.in_proj_bias is None


def test_mha_errors_as_pytorch():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(8, 3)
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0, got embed_dim=0 and "
                                         "num_heads=2 instead"):
        nn.MultiheadAttention(0, 2)
    m = nn.MultiheadAttention(8, 2)
    x = torch.randn(5, 2, 8)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is torch.Size\(\[4, 5\]\), but should "
                                           r"be \(5, 5\)."):
        m(x, x, x, attn_mask=torch.zeros(4, 5))
    with pytest.raises(AssertionError, match="For batched \\(3-D\\) `query`, expected `key` and `value` to be 3-D"):
        m(x, x[0], x[0])
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask are supported"):
        m(x, x, x, attn_mask=torch.zeros(5, 5, dtype=torch.int64))


# -- TransformerEncoderLayer / TransformerEncoder ------------------------------------------------
def _np_layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_numpy(norm_first):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True, norm_first=norm_first,
                                       layer_norm_eps=1e-3).double()
    with torch.no_grad():
        for p in layer.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    sd = {k: v.numpy() for k, v in layer.state_dict().items()}

    def ln(t, i):
        return _np_layer_norm(t, sd[f"norm{i}.weight"], sd[f"norm{i}.bias"], 1e-3)

    def sa(t):
        return _np_mha(layer.self_attn, t, t, t)[0]

    def ff(t):
        return np.maximum(t @ sd["linear1.weight"].T + sd["linear1.bias"], 0) @ sd["linear2.weight"].T \
            + sd["linear2.bias"]

    xn = x.numpy()
    if norm_first:
        h = xn + sa(ln(xn, 1))
        ref = h + ff(ln(h, 2))
    else:
        h = ln(xn + sa(xn), 1)
        ref = ln(h + ff(h), 2)
    np.testing.assert_allclose(layer(x).detach().numpy(), ref, rtol=1e-10, atol=1e-12)


def test_encoder_layer_masks_gelu_and_gradcheck():
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, activation="gelu").double()
    assert layer.activation is F.gelu and layer.activation_relu_or_gelu == 2
    x = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
    causal = torch.triu(torch.full((3, 3), float("-inf"), dtype=torch.float64), 1)
    pad = torch.zeros(2, 3, dtype=torch.float64)
    pad[0, 2] = float("-inf")
    assert gradcheck(lambda x: layer(x, src_mask=causal, src_key_padding_mask=pad), (x,))
    with torch.no_grad():
        a = layer(x, src_mask=causal, is_causal=True)
        b = layer(x, src_mask=causal)
    torch.testing.assert_close(a, b)
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(4, 2, activation="tanh")


def test_encoder_layer_names_and_repr_as_pytorch():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    assert repr(layer) == """TransformerEncoderLayer(
  (self_attn): MultiheadAttention(
    (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=True)
  )
  (linear1): Linear(in_features=8, out_features=16, bias=True)
  (dropout): Dropout(p=0.1, inplace=False)
  (linear2): Linear(in_features=16, out_features=8, bias=True)
  (norm1): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)
  (norm2): LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)
  (dropout1): Dropout(p=0.1, inplace=False)
  (dropout2): Dropout(p=0.1, inplace=False)
)"""
    assert isinstance(layer.norm1, nn.LayerNorm) and isinstance(layer.norm2, nn.LayerNorm)
    assert [(k, tuple(v.shape)) for k, v in layer.state_dict().items()] == [
        ('self_attn.in_proj_weight', (24, 8)), ('self_attn.in_proj_bias', (24,)),
        ('self_attn.out_proj.weight', (8, 8)), ('self_attn.out_proj.bias', (8,)), ('linear1.weight', (16, 8)),
        ('linear1.bias', (16,)), ('linear2.weight', (8, 16)), ('linear2.bias', (8,)), ('norm1.weight', (8,)),
        ('norm1.bias', (8,)), ('norm2.weight', (8,)), ('norm2.bias', (8,))]
    nobias = nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU(), bias=False, norm_first=True)
    assert list(nobias.state_dict()) == ['self_attn.in_proj_weight', 'self_attn.out_proj.weight', 'linear1.weight',
                                         'linear2.weight', 'norm1.weight', 'norm2.weight']
    assert repr(nobias).endswith("  (activation): GELU(approximate='none')\n)")


def test_encoder_stacks_deep_copies_and_applies_norm():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    norm = nn.LayerNorm(8)
    enc = nn.TransformerEncoder(layer, 2, norm=norm, enable_nested_tensor=False)
    assert len(enc.layers) == 2 and enc.layers[0] is not layer
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight
    torch.testing.assert_close(enc.layers[1].linear1.weight, layer.linear1.weight)
    assert list(enc.state_dict())[:2] == ['layers.0.self_attn.in_proj_weight', 'layers.0.self_attn.in_proj_bias']
    assert list(enc.state_dict())[-2:] == ['norm.weight', 'norm.bias']
    assert "(0-1): 2 x TransformerEncoderLayer(" in repr(enc)
    x = torch.randn(2, 5, 8)
    mask = torch.triu(torch.full((5, 5), float("-inf")), 1)
    expected = norm(enc.layers[1](enc.layers[0](x, src_mask=mask), src_mask=mask))
    torch.testing.assert_close(enc(x, mask=mask), expected)
    with pytest.warns(UserWarning, match="enable_nested_tensor is True, but self.use_nested_tensor is False because "
                                         "encoder_layer.self_attn.batch_first was not True"):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1)


def test_transformer_trains():
    torch.manual_seed(0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 1,
                                enable_nested_tensor=False)
    head = nn.Linear(8, 1)
    x = torch.randn(8, 4, 8)
    y = x.sum((1, 2)).unsqueeze(1) / 4
    params = list(enc.parameters()) + list(head.parameters())
    losses = []
    for _ in range(40):
        loss = (head(enc(x).mean(1)) - y).pow(2).mean()
        losses.append(loss.item())
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 0.05 * p.grad
    assert losses[-1] < 0.5 * losses[0]
