"""nn.RNN/LSTM/GRU and their cells: PyTorch's parameters, reprs and checks; numerics against
NumPy float64 recurrences written from PyTorch's documented equations; gradcheck in float64.

The literal reprs, state_dict keys and error messages were printed once by PyTorch 2.13."""
from __future__ import annotations

import math

import numpy as np
import pytest

import torch
import torch.nn as nn
from torch.autograd import gradcheck


# -- NumPy references (PyTorch's docs: LSTM gates i, f, g, o; GRU r, z, n) -----------------------
def _sig(x):
    return 1 / (1 + np.exp(-x))


def _np_step(mode, x, state, p):
    w_ih, w_hh = p["weight_ih"], p["weight_hh"]
    b_ih = p.get("bias_ih", np.zeros(w_ih.shape[0]))
    b_hh = p.get("bias_hh", np.zeros(w_hh.shape[0]))
    gi, gh = x @ w_ih.T + b_ih, state[0] @ w_hh.T + b_hh
    if mode == "LSTM":
        i, f, g, o = np.split(gi + gh, 4, axis=1)
        c = _sig(f) * state[1] + _sig(i) * np.tanh(g)
        h = _sig(o) * np.tanh(c)
        if "weight_hr" in p:
            h = h @ p["weight_hr"].T
        return h, c
    if mode == "GRU":
        ir, iz, inn = np.split(gi, 3, axis=1)
        hr, hz, hn = np.split(gh, 3, axis=1)
        r, z = _sig(ir + hr), _sig(iz + hz)
        n = np.tanh(inn + r * hn)
        return ((1 - z) * n + z * state[0],)
    pre = gi + gh
    return (np.tanh(pre) if mode == "RNN_TANH" else np.maximum(pre, 0),)


def _np_run(module, x, hx):
    """x (T, B, I) float64; hx tuple of (L*D, B, H). Returns output (T, B, D*H) and final states."""
    sd = {k: v.detach().double().numpy() for k, v in module.state_dict().items()}
    dirs = 2 if module.bidirectional else 1
    finals = [[] for _ in hx]
    for layer in range(module.num_layers):
        outs = []
        for d in range(dirs):
            suffix = f"_l{layer}" + ("_reverse" if d else "")
            p = {k[:-len(suffix)]: v for k, v in sd.items() if k.endswith(suffix)}
            state = tuple(s[layer * dirs + d] for s in hx)
            steps = range(x.shape[0] - 1, -1, -1) if d else range(x.shape[0])
            ys = [None] * x.shape[0]
            for t in steps:
                state = _np_step(module.mode, x[t], state, p)
                ys[t] = state[0]
            outs.append(np.stack(ys))
            for k, s in enumerate(state):
                finals[k].append(s)
        x = np.concatenate(outs, axis=2)
    return x, tuple(np.stack(f) for f in finals)


CASES = [
    ("rnn_tanh", lambda: nn.RNN(3, 5, num_layers=2, bidirectional=True)),
    ("rnn_relu", lambda: nn.RNN(3, 5, nonlinearity="relu", bias=False)),
    ("lstm", lambda: nn.LSTM(3, 5, num_layers=2, bidirectional=True)),
    ("lstm_proj", lambda: nn.LSTM(3, 5, num_layers=2, proj_size=2)),
    ("gru", lambda: nn.GRU(3, 5, num_layers=2, bidirectional=True)),
    ("gru_nobias", lambda: nn.GRU(3, 4, bias=False)),
]


@pytest.mark.parametrize("name,make", CASES, ids=[c[0] for c in CASES])
def test_forward_matches_numpy_recurrence(name, make):
    m = make().double()
    x = torch.randn(4, 2, 3, dtype=torch.float64)
    dirs = 2 if m.bidirectional else 1
    real = m.proj_size or m.hidden_size
    h0 = torch.randn(m.num_layers * dirs, 2, real, dtype=torch.float64)
    if m.mode == "LSTM":
        c0 = torch.randn(m.num_layers * dirs, 2, m.hidden_size, dtype=torch.float64)
        out, (h, c) = m(x, (h0, c0))
        ref_out, (ref_h, ref_c) = _np_run(m, x.numpy(), (h0.numpy(), c0.numpy()))
        np.testing.assert_allclose(c.detach().numpy(), ref_c, rtol=1e-10, atol=1e-12)
    else:
        out, h = m(x, h0)
        ref_out, (ref_h,) = _np_run(m, x.numpy(), (h0.numpy(),))
    assert out.shape == (4, 2, dirs * real)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h.detach().numpy(), ref_h, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,make", CASES, ids=[c[0] for c in CASES])
def test_gradcheck_float64(name, make):
    m = make().double()
    x = torch.randn(3, 2, 3, dtype=torch.float64, requires_grad=True)
    params = list(m.parameters())

    # gradcheck w.r.t. the input; each parameter's gradient against a central difference.
    assert gradcheck(lambda x: m(x)[0], (x,))
    out, hidden = m(x)
    loss = out.pow(2).sum()
    grads = torch.autograd.grad(loss, params)
    eps = 1e-6
    for p, g in zip(params, grads):
        idx = (0,) * p.dim()
        with torch.no_grad():
            p[idx] += eps
            up = m(x)[0].pow(2).sum().item()
            p[idx] -= 2 * eps
            down = m(x)[0].pow(2).sum().item()
            p[idx] += eps
        assert g[idx].item() == pytest.approx((up - down) / (2 * eps), rel=1e-5, abs=1e-7)


def test_batch_first_and_unbatched_agree_with_sequence_first():
    m = nn.LSTM(3, 4, num_layers=2)
    bf = nn.LSTM(3, 4, num_layers=2, batch_first=True)
    bf.load_state_dict(m.state_dict())
    x = torch.randn(5, 2, 3)
    out, (h, c) = m(x)
    out_bf, (h_bf, c_bf) = bf(x.transpose(0, 1))
    assert out_bf.shape == (2, 5, 4)
    torch.testing.assert_close(out_bf, out.transpose(0, 1))
    torch.testing.assert_close(h_bf, h)
    out_u, (h_u, c_u) = m(x[:, 1])
    assert out_u.shape == (5, 4) and h_u.shape == (2, 4) and c_u.shape == (2, 4)
    torch.testing.assert_close(out_u, out[:, 1])
    torch.testing.assert_close(c_u, c[:, 1])
    g = nn.GRU(3, 4)
    x1 = torch.randn(5, 3)
    h0 = torch.randn(1, 4)
    out1, h1 = g(x1, h0)
    out2, h2 = g(x1.unsqueeze(1), h0.unsqueeze(1))
    torch.testing.assert_close(out1, out2.squeeze(1))
    torch.testing.assert_close(h1, h2.squeeze(1))


@pytest.mark.parametrize("cell,layer", [
    (lambda: nn.RNNCell(3, 4, nonlinearity="relu"), lambda: nn.RNN(3, 4, nonlinearity="relu")),
    (lambda: nn.LSTMCell(3, 4), lambda: nn.LSTM(3, 4)),
    (lambda: nn.GRUCell(3, 4, bias=False), lambda: nn.GRU(3, 4, bias=False)),
], ids=["rnn", "lstm", "gru"])
def test_cell_is_one_step_of_the_layer(cell, layer):
    c, m = cell(), layer()
    m.load_state_dict({f"{k}_l0": v for k, v in c.state_dict().items()})
    x = torch.randn(1, 2, 3)
    out, hidden = m(x)
    step = c(x[0])
    h = step[0] if isinstance(step, tuple) else step
    torch.testing.assert_close(h, out[0])
    unbatched = c(x[0, 1])
    torch.testing.assert_close(unbatched[0] if isinstance(unbatched, tuple) else unbatched, out[0, 1])


def test_parameter_names_shapes_and_repr_as_pytorch():
    m = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == [
        ('weight_ih_l0', (16, 3)), ('weight_hh_l0', (16, 4)), ('bias_ih_l0', (16,)), ('bias_hh_l0', (16,)),
        ('weight_ih_l0_reverse', (16, 3)), ('weight_hh_l0_reverse', (16, 4)), ('bias_ih_l0_reverse', (16,)),
        ('bias_hh_l0_reverse', (16,)), ('weight_ih_l1', (16, 8)), ('weight_hh_l1', (16, 4)), ('bias_ih_l1', (16,)),
        ('bias_hh_l1', (16,)), ('weight_ih_l1_reverse', (16, 8)), ('weight_hh_l1_reverse', (16, 4)),
        ('bias_ih_l1_reverse', (16,)), ('bias_hh_l1_reverse', (16,))]
    assert repr(m) == "LSTM(3, 4, num_layers=2, bidirectional=True)"
    p = nn.LSTM(3, 5, proj_size=2, bias=False)
    assert [(k, tuple(v.shape)) for k, v in p.state_dict().items()] == [
        ('weight_ih_l0', (20, 3)), ('weight_hh_l0', (20, 2)), ('weight_hr_l0', (2, 5))]
    assert repr(p) == "LSTM(3, 5, proj_size=2, bias=False)"
    r = nn.RNN(3, 4, 2, "relu", False, True, 0.5, True)
    assert repr(r) == "RNN(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5, bidirectional=True)"
    assert list(r.state_dict()) == ['weight_ih_l0', 'weight_hh_l0', 'weight_ih_l0_reverse', 'weight_hh_l0_reverse',
                                    'weight_ih_l1', 'weight_hh_l1', 'weight_ih_l1_reverse', 'weight_hh_l1_reverse']
    assert r.nonlinearity == "relu" and r.mode == "RNN_RELU"
    assert repr(nn.RNN(3, 4)) == "RNN(3, 4)"
    assert repr(nn.GRU(3, 4, batch_first=True)) == "GRU(3, 4, batch_first=True)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    assert repr(nn.GRUCell(3, 4, False)) == "GRUCell(3, 4, bias=False)"
    assert repr(nn.LSTMCell(3, 4)) == "LSTMCell(3, 4)"
    assert [k for k, _ in nn.GRUCell(3, 4).named_parameters()] == ['weight_ih', 'weight_hh', 'bias_ih', 'bias_hh']
    assert nn.GRUCell(3, 4, bias=False).bias_ih is None
    assert [[w.shape for w in ws] for ws in nn.GRU(2, 3).all_weights] == [[(9, 2), (9, 3), (9,), (9,)]]


def test_init_is_uniform_within_one_over_sqrt_hidden():
    m = nn.GRU(10, 25, num_layers=2)
    bound = 1 / math.sqrt(25)
    values = torch.cat([p.detach().reshape(-1) for p in m.parameters()])
    assert values.abs().max().item() <= bound
    assert values.abs().max().item() > 0.9 * bound
    assert abs(values.mean().item()) < 0.02


def test_dropout_between_layers_only_in_training():
    m = nn.LSTM(3, 8, num_layers=2, dropout=0.5)
    x = torch.randn(4, 2, 3)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    torch.testing.assert_close(a, b)
    m.train()
    assert not torch.allclose(m(x)[0], a)
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1, but got "
                                         "dropout=0.5 and num_layers=1"):
        nn.GRU(3, 4, dropout=0.5)


def test_errors_as_pytorch():
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'. Select from 'tanh' or 'relu'."):
        nn.RNN(3, 4, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="proj_size argument is only supported for LSTM, not RNN or GRU"):
        nn.GRU(3, 4, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(ValueError, match="dropout should be a number in range"):
        nn.LSTM(3, 4, dropout=2)
    with pytest.raises(TypeError, match="hidden_size should be of type int, got: float"):
        nn.LSTM(3, 4.0)
    m = nn.LSTM(3, 4)
    with pytest.raises(RuntimeError, match=r"input.size\(-1\) must be equal to input_size. Expected 3, got 5"):
        m(torch.randn(2, 1, 5))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 1, 4\), got \[1, 2, 4\]"):
        m(torch.randn(2, 1, 3), (torch.zeros(1, 2, 4), torch.zeros(1, 1, 4)))
    with pytest.raises(ValueError, match="LSTM: Expected input to be 2D or 3D, got 4D instead"):
        m(torch.randn(1, 2, 1, 3))
    with pytest.raises(RuntimeError, match="For batched 3-D input, hx should also be 3-D but got 2-D tensor"):
        nn.GRU(3, 4)(torch.randn(2, 1, 3), torch.zeros(1, 4))
    with pytest.raises(ValueError, match=r"RNN input dtype \(torch.float64\) does not match weight dtype"):
        nn.RNN(3, 4)(torch.randn(2, 1, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match="GRUCell: Expected input to be 1D or 2D, got 3D instead"):
        nn.GRUCell(3, 4)(torch.randn(1, 1, 3))


def test_training_reduces_loss():
    torch.manual_seed(0)
    m = nn.GRU(2, 8, batch_first=True)
    head = nn.Linear(8, 1)
    x = torch.randn(16, 6, 2)
    y = x[:, :, 0].cumsum(1)[:, -1:]       # running sum of the first feature
    params = list(m.parameters()) + list(head.parameters())
    first = None
    for _ in range(60):
        loss = (head(m(x)[0][:, -1]) - y).pow(2).mean()
        first = loss.item() if first is None else first
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 0.1 * p.grad
    assert loss.item() < 0.5 * first
