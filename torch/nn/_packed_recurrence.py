"""The recurrences of nn.RNN/LSTM/GRU over a PackedSequence (PyTorch's _VF.rnn_tanh/lstm/gru with
batch_sizes).

The cell math is torch/nn/_recurrence.py's. Packed data is time-major and sorted by decreasing
length, so at step t the running sequences are the first batch_sizes[t] rows of the state: the
forward direction sheds rows as sequences end (each one's final state is its last valid step) and
the reverse direction, walking back from the last step, takes rows in from the initial state as
sequences start."""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor
from torch.nn._recurrence import _affine, _autocast, _gru_gates, _lstm_gates

__all__: list[str] = []

_State = tuple[Tensor, ...]


class _Layer:
    """One direction of one layer: its weights, transposed once, and the step function."""

    def __init__(self, mode: str, params: Sequence[Tensor | None]) -> None:
        w_ih, w_hh, b_ih, b_hh, w_hr = params
        assert w_ih is not None and w_hh is not None
        self.mode = mode
        self.w_ih_t, self.w_hh_t = w_ih.t(), w_hh.t()
        self.b_hh = b_hh
        self.w_hr_t = None if w_hr is None else w_hr.t()
        if mode == "GRU":
            self.in_bias = b_ih      # b_hh stays with the hidden projection: b_hn is gated by r
        elif b_ih is not None and b_hh is not None:
            self.in_bias = b_ih + b_hh
        else:
            self.in_bias = None

    def project(self, data: Tensor) -> Tensor:
        """The input projection of every packed row, one matmul."""
        return _affine(data, self.w_ih_t, self.in_bias)

    def step(self, projected: Tensor, state: _State) -> _State:
        if self.mode == "LSTM":
            return _lstm_gates(torch.addmm(projected, state[0], self.w_hh_t), state[1], self.w_hr_t)
        if self.mode == "GRU":
            return (_gru_gates(projected, _affine(state[0], self.w_hh_t, self.b_hh), state[0]),)
        pre = torch.addmm(projected, state[0], self.w_hh_t)
        return (pre.relu() if self.mode == "RNN_RELU" else pre.tanh(),)


def _forward(layer: _Layer, steps: Sequence[Tensor], state: _State) -> tuple[Tensor, _State]:
    outputs: list[Tensor] = []
    finished: list[_State] = []     # rows of the sequences that ended, latest-ending first
    for step in steps:
        size = step.size(0)
        if size < state[0].size(0):
            finished.append(tuple(s[size:] for s in state))
            state = tuple(s[:size] for s in state)
        state = layer.step(step, state)
        outputs.append(state[0])
    finals = tuple(torch.cat([state[k], *(rows[k] for rows in reversed(finished))]) for k in range(len(state)))
    return torch.cat(outputs), finals


def _reverse(layer: _Layer, steps: Sequence[Tensor], initial: _State) -> tuple[Tensor, _State]:
    outputs: list[Tensor] = []
    state = tuple(s[:steps[-1].size(0)] for s in initial)
    for step in reversed(steps):
        size, running = step.size(0), state[0].size(0)
        if size > running:
            state = tuple(torch.cat([s, s0[running:size]]) for s, s0 in zip(state, initial))
        state = layer.step(step, state)
        outputs.append(state[0])
    outputs.reverse()
    return torch.cat(outputs), state


def run(mode: str, data: Tensor, batch_sizes: Tensor, hx: _State, weights: Sequence[Tensor], has_biases: bool,
        num_layers: int, dropout: float, train: bool, bidirectional: bool,
        proj_size: int = 0) -> tuple[Tensor, _State]:
    """(packed output data, (h_n,) or (h_n, c_n)) of the stacked (bi)directional recurrence.

    data is (sum(batch_sizes), input_size); hx holds (num_layers * num_directions, batch_sizes[0], H)
    tensors; weights are flat per layer and direction as _recurrence.run's."""
    per = 2 + (2 if has_biases else 0) + (1 if proj_size > 0 else 0)
    directions = 2 if bidirectional else 1
    device = data.device.type
    if torch.is_autocast_enabled(device) and (device == "cuda" or mode.startswith("RNN")):
        # PyTorch's autocast lists the packed overloads of cuDNN's RNNs, but on the CPU only
        # rnn_tanh/rnn_relu's: a packed LSTM or GRU there keeps its input's dtype.
        low = torch.get_autocast_dtype(device)
        data, hx = _autocast(data, device, low), tuple(_autocast(h, device, low) for h in hx)
        weights = [_autocast(w, device, low) for w in weights]
    sizes = [int(s) for s in batch_sizes.tolist()]
    finals: list[_State] = []
    for index in range(num_layers):
        outs: list[Tensor] = []
        for direction in range(directions):
            idx = index * directions + direction
            group = weights[idx * per:(idx + 1) * per]
            biases = (group[2], group[3]) if has_biases else (None, None)
            layer = _Layer(mode, (group[0], group[1], *biases, group[-1] if proj_size > 0 else None))
            walk = _reverse if direction == 1 else _forward
            # split, not sliced per step: one backward node gathers the steps' gradients
            steps = layer.project(data).split(sizes)
            out, final = walk(layer, steps, tuple(s[idx] for s in hx))
            outs.append(out)
            finals.append(final)
        data = outs[0] if directions == 1 else torch.cat(outs, 1)
        if dropout != 0 and train and index < num_layers - 1:
            data = torch.dropout(data, dropout, True)
    return data, tuple(torch.stack([f[k] for f in finals], 0) for k in range(len(hx)))
