"""Record PyTorch's torch.nn.utils.rnn results and packed RNN/LSTM/GRU passes for the packing tests
(needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_rnn_packing_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`rnn_packing.json`: for each case of CASES, what `run_case` returns under PyTorch: packed data,
batch sizes and permutations, padded tensors and lengths, the gradients that flow back through
them, the packed output and final states of a recurrent layer with the gradients of its input,
initial state and weights, or the error's type and message. Inputs and weights come from
torch.manual_seed, which Ember reproduces bit for bit; the tests run the same `run_case` on Ember
and compare.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "rnn_packing"
REFERENCE_PACKAGE = "torch"
UTIL_CASES = ("pack_sorted", "pack_unsorted_batch_first_ties", "pack_float_length_tensor", "pack_trailing_dims",
              "pad_packed_total_length", "pad_packed_batch_first_padding_value", "pad_sequence_right",
              "pad_sequence_left_batch_first", "pad_sequence_int_padding", "pad_sequence_broadcasts",
              "pad_sequence_from_tensor", "pack_sequence_unsorted", "unpack_sequence", "unpad_sequence",
              "invert_permutation", "packed_to_and_pair", "autocast_cpu_dtypes")
MODULE_CASES = ("rnn_tanh", "rnn_relu_two_layers_bidirectional", "gru", "gru_bidirectional_hx",
                "lstm_two_layers_bidirectional", "lstm_proj_hx", "lstm_batch_first_is_ignored", "rnn_no_bias_sorted",
                "lstm_three_layers_dropout")
ERROR_CASES = ("error_not_sorted", "error_zero_length", "error_lengths_count", "error_lengths_2d", "error_empty",
               "error_total_length", "error_padding_side", "error_pad_empty", "error_pad_not_iterable",
               "error_data_not_pair", "error_gru_hidden_size", "error_rnn_input_size")
CASES = UTIL_CASES + MODULE_CASES + ERROR_CASES


def _seeded_input(torch: Any, *shape: int) -> Any:
    torch.manual_seed(1)
    return torch.randn(*shape, requires_grad=True)


def _weighting(torch: Any, t: Any) -> Any:
    """A fixed, position-dependent weighting so every element's gradient differs."""
    return torch.linspace(-1.0, 1.0, t.numel(), dtype=t.dtype).reshape(t.shape)


def _backward(torch: Any, *outs: Any) -> None:
    sum(((o * _weighting(torch, o)).sum() for o in outs), torch.zeros(())).backward()


def _packed(p: Any) -> dict[str, Any]:
    return {"data": p.data.detach().tolist(), "batch_sizes": p.batch_sizes.tolist(),
            "sorted_indices": None if p.sorted_indices is None else p.sorted_indices.tolist(),
            "unsorted_indices": None if p.unsorted_indices is None else p.unsorted_indices.tolist(),
            "type": type(p).__name__, "batch_sizes_dtype": str(p.batch_sizes.dtype)}


def _pack_case(torch: Any, R: Any, name: str) -> dict[str, Any]:
    if name == "pack_sorted":
        x = _seeded_input(torch, 5, 3, 2)
        p = R.pack_padded_sequence(x, [5, 3, 2])
    elif name == "pack_unsorted_batch_first_ties":
        x = _seeded_input(torch, 5, 4, 3)
        p = R.pack_padded_sequence(x, torch.tensor([2, 4, 2, 1]), batch_first=True, enforce_sorted=False)
    elif name == "pack_float_length_tensor":
        x = _seeded_input(torch, 3, 3)
        p = R.pack_padded_sequence(x, torch.tensor([3.7, 2.0, 1.2]))
    else:  # pack_trailing_dims
        x = _seeded_input(torch, 4, 2, 2, 3)
        p = R.pack_padded_sequence(x, [3, 4], enforce_sorted=False)
    _backward(torch, p.data)
    return {**_packed(p), "grad": x.grad.tolist()}


def _pad_case(torch: Any, R: Any, name: str) -> dict[str, Any]:
    if name in ("pad_packed_total_length", "pad_packed_batch_first_padding_value"):
        x = _seeded_input(torch, 4, 3, 2)
        p = R.pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False)
        if name == "pad_packed_total_length":
            out, lengths = R.pad_packed_sequence(p, total_length=6)
        else:
            out, lengths = R.pad_packed_sequence(p, batch_first=True, padding_value=-2.5)
        _backward(torch, out)
        return {"out": out.tolist(), "lengths": lengths.tolist(), "lengths_dtype": str(lengths.dtype),
                "grad": x.grad.tolist()}
    torch.manual_seed(2)
    seqs = [torch.randn(n, 2, requires_grad=True) for n in (2, 4, 3)]
    if name == "pad_sequence_right":
        out = R.pad_sequence(seqs, padding_value=7.0)
    elif name == "pad_sequence_left_batch_first":
        out = R.pad_sequence(seqs, batch_first=True, padding_side="left")
    elif name == "pad_sequence_int_padding":
        seqs = [torch.arange(n) for n in (2, 3)]
        out = R.pad_sequence(seqs, padding_value=1.5)
    elif name == "pad_sequence_broadcasts":
        seqs = [torch.ones(2, 3), torch.arange(3.0, requires_grad=True)]
        out = R.pad_sequence(seqs, batch_first=True)
    else:  # pad_sequence_from_tensor: a tensor is an iterable of its rows
        seqs = [torch.arange(6.0).reshape(2, 3).requires_grad_()]
        out = R.pad_sequence(seqs[0])
    result: dict[str, Any] = {"out": out.tolist(), "dtype": str(out.dtype)}
    if out.requires_grad:
        _backward(torch, out)
        result["grads"] = [None if s.grad is None else s.grad.tolist() for s in seqs]
    return result


def _sequence_case(torch: Any, R: Any, name: str) -> dict[str, Any]:
    torch.manual_seed(3)
    seqs = [torch.randn(n, 2, requires_grad=True) for n in (2, 5, 3)]
    if name == "pack_sequence_unsorted":
        p = R.pack_sequence(seqs, enforce_sorted=False)
        _backward(torch, p.data)
        return {**_packed(p), "grads": [s.grad.tolist() for s in seqs]}
    if name == "unpack_sequence":
        back = R.unpack_sequence(R.pack_sequence(seqs, enforce_sorted=False))
        _backward(torch, *back)
        return {"back": [b.tolist() for b in back], "grads": [s.grad.tolist() for s in seqs]}
    padded = R.pad_sequence(seqs)
    back = R.unpad_sequence(padded, torch.tensor([2, 5, 3]))
    return {"back": [b.tolist() for b in back], "padded_shape_after": list(padded.shape)}


def _misc_case(torch: Any, R: Any, name: str) -> dict[str, Any]:
    if name == "autocast_cpu_dtypes":
        p = R.pack_sequence([torch.ones(3, 2), torch.ones(2, 2)])
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return {kind: str(getattr(torch.nn, kind)(2, 3)(p)[0].data.dtype) for kind in ("RNN", "GRU", "LSTM")}
    if name == "invert_permutation":
        return {"inverse": R.invert_permutation(torch.tensor([3, 0, 4, 1, 2])).tolist(),
                "none": R.invert_permutation(None)}
    p = R.pack_sequence([torch.arange(3.0), torch.arange(2.0)], enforce_sorted=False)
    d = p.to(torch.float64)
    pair = R.PackedSequence((torch.arange(3.0), torch.tensor([2, 1])))
    return {"same": [p.to(torch.float32) is p, p.cpu() is p, p.float() is p], "double": _packed(d),
            "long": _packed(p.long()), "is_cuda": p.is_cuda, "is_pinned": p.is_pinned(), "pair": _packed(pair),
            "fields": list(p._fields)}


def _module(torch: Any, name: str) -> tuple[Any, Any]:
    """(module, hx or None), weights from manual_seed(0)."""
    torch.manual_seed(0)
    nn = torch.nn
    if name == "rnn_tanh":
        return nn.RNN(3, 4), None
    if name == "rnn_relu_two_layers_bidirectional":
        return nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bidirectional=True), None
    if name == "rnn_no_bias_sorted":
        return nn.RNN(3, 4, bias=False), None
    if name == "gru":
        return nn.GRU(3, 4), None
    if name == "gru_bidirectional_hx":
        m = nn.GRU(3, 4, bidirectional=True)
        return m, torch.randn(2, 4, 4, requires_grad=True)
    if name == "lstm_two_layers_bidirectional":
        return nn.LSTM(3, 4, num_layers=2, bidirectional=True), None
    if name == "lstm_proj_hx":
        m = nn.LSTM(3, 5, num_layers=2, proj_size=2)
        return m, (torch.randn(2, 4, 2, requires_grad=True), torch.randn(2, 4, 5, requires_grad=True))
    if name == "lstm_three_layers_dropout":
        return nn.LSTM(3, 4, num_layers=3, dropout=0.5), None
    return nn.LSTM(3, 4, batch_first=True), None  # lstm_batch_first_is_ignored


def _module_case(torch: Any, R: Any, name: str) -> dict[str, Any]:
    m, hx = _module(torch, name)
    x = _seeded_input(torch, 5, 4, 3)
    lengths = [5, 4, 2, 1] if name == "rnn_no_bias_sorted" else [3, 5, 1, 4]
    p = R.pack_padded_sequence(x, lengths, enforce_sorted=name == "rnn_no_bias_sorted")
    out, h = m(p) if hx is None else m(p, hx)
    states = list(h) if isinstance(h, tuple) else [h]
    _backward(torch, out.data, *states)
    hxs = [] if hx is None else (list(hx) if isinstance(hx, tuple) else [hx])
    return {**_packed(out), "states": [s.tolist() for s in states], "x_grad": x.grad.tolist(),
            "hx_grads": [t.grad.tolist() for t in hxs],
            "weight_grads": {n: w.grad.tolist() for n, w in m.named_parameters()}}


def _error(torch: Any, R: Any, name: str) -> None:
    x = torch.zeros(4, 3, 2)
    seqs = [torch.ones(3), torch.ones(2)]
    if name == "error_not_sorted":
        R.pack_padded_sequence(x, [2, 3, 1])
    elif name == "error_zero_length":
        R.pack_padded_sequence(x, [3, 1, 0])
    elif name == "error_lengths_count":
        R.pack_padded_sequence(x, [3, 2])
    elif name == "error_lengths_2d":
        R.pack_padded_sequence(x, torch.tensor([[3, 2, 1]]))
    elif name == "error_empty":
        R.pack_padded_sequence(torch.zeros(3, 0), [])
    elif name == "error_total_length":
        R.pad_packed_sequence(R.pack_sequence(seqs), total_length=2)
    elif name == "error_padding_side":
        R.pad_sequence(seqs, padding_side="middle")
    elif name == "error_pad_empty":
        R.pad_sequence([])
    elif name == "error_pad_not_iterable":
        R.pad_sequence(5)
    elif name == "error_data_not_pair":
        R.PackedSequence(torch.ones(3))
    elif name == "error_gru_hidden_size":
        torch.nn.GRU(2, 3)(R.pack_padded_sequence(x, [3, 2, 1]), torch.zeros(1, 2, 3))
    elif name == "error_rnn_input_size":
        torch.nn.RNN(3, 3)(R.pack_padded_sequence(x, [3, 2, 1]))


def run_case(torch: Any, name: str) -> dict[str, Any]:
    R = importlib.import_module(torch.__name__ + ".nn.utils.rnn")
    if name in ERROR_CASES:
        try:
            _error(torch, R, name)
        except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
            return {"error": type(e).__name__, "message": str(e)}
        return {"error": None}
    if name in MODULE_CASES:
        return _module_case(torch, R, name)
    if name.startswith("pack_") and name != "pack_sequence_unsorted":
        return _pack_case(torch, R, name)
    if name.startswith("pad_"):
        return _pad_case(torch, R, name)
    if name in ("pack_sequence_unsorted", "unpack_sequence", "unpad_sequence"):
        return _sequence_case(torch, R, name)
    return _misc_case(torch, R, name)


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "rnn_packing.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
