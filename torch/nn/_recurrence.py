"""The recurrences behind nn.RNN/LSTM/GRU and their cells (PyTorch's _VF.rnn_tanh/lstm/gru).

Composed of Ember operators (addmm, sigmoid, tanh, ...), so autograd differentiates them. Per
layer and direction the input projection for every timestep is one matmul; each timestep then
costs one addmm for the hidden projection plus a few pointwise ops. Gate order and formulas are
PyTorch's: LSTM (i, f, g, o); GRU (r, z, n) with b_hn inside r * (W_hn h + b_hn)."""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

__all__: list[str] = []

def _affine(x: Tensor, weight_t: Tensor, bias: Tensor | None) -> Tensor:
    """x @ weight_t (+ bias), one kernel."""
    if bias is None:
        return x.mm(weight_t)
    return torch.addmm(bias, x, weight_t)


# -- cells (hidden state h, or (h, c) for LSTM; biases may be None) -----------------------------
def rnn_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None, b_hh: Tensor | None,
             nonlinearity: str) -> Tensor:
    """h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    pre = _affine(input, w_ih.t(), b_ih) + _affine(hx, w_hh.t(), b_hh)
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def lstm_cell(input: Tensor, hx: tuple[Tensor, Tensor], w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
              b_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    """(h', c') of one LSTM step."""
    gates = _affine(input, w_ih.t(), b_ih) + _affine(hx[0], w_hh.t(), b_hh)
    return _lstm_gates(gates, hx[1], None)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
             b_hh: Tensor | None) -> Tensor:
    """h' of one GRU step."""
    return _gru_gates(_affine(input, w_ih.t(), b_ih), _affine(hx, w_hh.t(), b_hh), hx)


def _lstm_gates(gates: Tensor, c: Tensor, w_hr_t: Tensor | None) -> tuple[Tensor, Tensor]:
    i, f, g, o = gates.chunk(4, 1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h_next = o.sigmoid() * c_next.tanh()
    if w_hr_t is not None:
        h_next = h_next.mm(w_hr_t)
    return h_next, c_next


def _gru_gates(gi: Tensor, gh: Tensor, h: Tensor) -> Tensor:
    i_r, i_z, i_n = gi.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (h - n) * z + n       # (1 - z) * n + z * h, as PyTorch's kernel arranges it


# -- one direction of one layer over a whole sequence ------------------------------------------
def _direction(mode: str, x: Tensor, state: tuple[Tensor, ...], params: Sequence[Tensor | None],
               reverse: bool) -> tuple[Tensor, tuple[Tensor, ...]]:
    """Run x (T, B, I) through one layer direction; returns (output (T, B, H), final state)."""
    w_ih, w_hh, b_ih, b_hh, w_hr = params
    assert w_ih is not None and w_hh is not None
    steps, batch = x.shape[0], x.shape[1]
    w_hh_t = w_hh.t()
    if mode == "GRU":
        in_bias = b_ih            # b_hh stays with the hidden projection: b_hn is gated by r
    elif b_ih is not None and b_hh is not None:
        in_bias = b_ih + b_hh     # both biases fold into the precomputed input projection
    else:
        in_bias = None
    projected = _affine(x.reshape(steps * batch, x.shape[2]), w_ih.t(), in_bias)
    inputs = projected.view(steps, batch, projected.shape[1]).unbind(0)
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    outputs: list[Tensor] = []
    if mode == "LSTM":
        h, c = state
        w_hr_t = None if w_hr is None else w_hr.t()
        for t in order:
            h, c = _lstm_gates(torch.addmm(inputs[t], h, w_hh_t), c, w_hr_t)
            outputs.append(h)
        final: tuple[Tensor, ...] = (h, c)
    elif mode == "GRU":
        (h,) = state
        for t in order:
            h = _gru_gates(inputs[t], _affine(h, w_hh_t, b_hh), h)
            outputs.append(h)
        final = (h,)
    else:
        (h,) = state
        relu = mode == "RNN_RELU"
        for t in order:
            pre = torch.addmm(inputs[t], h, w_hh_t)
            h = pre.relu() if relu else pre.tanh()
            outputs.append(h)
        final = (h,)
    if reverse:
        outputs.reverse()
    return torch.stack(outputs, 0), final


def _autocast(t: Tensor, device: str, low: torch.dtype) -> Tensor:
    eligible = t.is_floating_point() and t.device.type == device and t.dtype is not torch.float64
    return t.to(low) if eligible else t


def run(mode: str, input: Tensor, hx: tuple[Tensor, ...], weights: Sequence[Tensor], has_biases: bool,
        num_layers: int, dropout: float, train: bool, bidirectional: bool, batch_first: bool,
        proj_size: int = 0) -> tuple[Tensor, tuple[Tensor, ...]]:
    """The full stacked (bi)directional recurrence: (output, (h_n,) or (h_n, c_n)).

    weights are flat, per layer and direction: w_ih, w_hh, [b_ih, b_hh], [w_hr] (PyTorch's order);
    hx holds (num_layers * num_directions, B, H) tensors."""
    per = 2 + (2 if has_biases else 0) + (1 if proj_size > 0 else 0)
    directions = 2 if bidirectional else 1
    device = input.device.type
    if torch.is_autocast_enabled(device) and (device == "cuda" or mode != "GRU"):
        # PyTorch's fused recurrent layers are on autocast's lower-precision list (cuDNN's for every
        # mode; on the CPU mkldnn_rnn_layer, which its GRU does not use): input, state and weights
        # all cast to the autocast dtype.
        low = torch.get_autocast_dtype(device)
        input, hx = _autocast(input, device, low), tuple(_autocast(h, device, low) for h in hx)
        weights = [_autocast(w, device, low) for w in weights]
    x = input.transpose(0, 1) if batch_first else input
    finals: list[tuple[Tensor, ...]] = []
    for layer in range(num_layers):
        outs: list[Tensor] = []
        for direction in range(directions):
            idx = layer * directions + direction
            group = weights[idx * per:(idx + 1) * per]
            w_ih, w_hh = group[0], group[1]
            b_ih, b_hh = (group[2], group[3]) if has_biases else (None, None)
            w_hr = group[-1] if proj_size > 0 else None
            state = tuple(s[idx] for s in hx)
            out, final = _direction(mode, x, state, (w_ih, w_hh, b_ih, b_hh, w_hr), direction == 1)
            outs.append(out)
            finals.append(final)
        x = outs[0] if directions == 1 else torch.cat(outs, 2)
        if dropout != 0 and train and layer < num_layers - 1:
            x = torch.dropout(x, dropout, True)
    output = x.transpose(0, 1) if batch_first else x
    return output, tuple(torch.stack([f[k] for f in finals], 0) for k in range(len(hx)))
