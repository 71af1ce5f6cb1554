"""Record PyTorch's CTC loss (F.ctc_loss, torch.ctc_loss, nn.CTCLoss) for the CTC tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_ctc_loss_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `ctc_loss.json`:
for each case of CASES, what `run_case` returns under PyTorch: the losses for each reduction, the
gradient with respect to log_probs (PyTorch's form, exp(lp) minus the alignment posterior) and with
respect to the logits they were log-softmaxed from, or the error's type and message. Inputs come
from NumPy's generator (log_probs normalised by NumPy), so both frameworks see the same bits.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "ctc_loss"
REFERENCE_PACKAGE = "torch"

# name -> (T, C, padded targets per sample, input_lengths, keyword arguments); targets are
# concatenated for "concat" names, int32 for "int32" names, and lengths are tensors for "tensor" names.
SPECS: dict[str, tuple[int, int, list[list[int]], list[int], dict[str, Any]]] = {
    "padded": (6, 5, [[1, 1, 2, 3], [2, 4], []], [6, 5, 4], {}),
    "concat": (6, 5, [[1, 1, 2, 3], [2, 4], []], [6, 5, 4], {}),
    "int32": (6, 5, [[1, 2], [3, 3]], [6, 6], {}),
    "tensor_lengths": (6, 5, [[1, 2], [3, 3]], [6, 3], {}),
    "blank_last": (5, 4, [[0, 1], [2, 2, 0]], [5, 5], {"blank": 3}),
    "impossible": (3, 4, [[1, 1, 1], [2]], [3, 3], {}),
    "impossible_zero_infinity": (3, 4, [[1, 1, 1], [2]], [3, 3], {"zero_infinity": True}),
    "empty_inputs": (4, 3, [[], [1], [2]], [0, 0, 4], {}),
    "empty_inputs_zero_infinity": (4, 3, [[], [1], [2]], [0, 0, 4], {"zero_infinity": True}),
    "long": (40, 12, [[(3 * i + b) % 11 + 1 for i in range(9 - b)] for b in range(4)], [40, 37, 30, 25], {}),
    "float64": (7, 6, [[5, 1, 5], [2]], [7, 4], {}),
    "unbatched": (6, 5, [[1, 2, 2]], [6], {}),
}
CASES = tuple(SPECS) + ("module_repr", "error_input_too_long", "error_negative_input", "error_target_too_short",
                        "error_negative_target", "error_concat_size", "error_targets_3d", "error_log_probs_4d",
                        "error_blank", "error_input_lengths_size", "error_target_lengths_size", "error_half",
                        "error_float_lengths", "error_reduction", "private_float_targets", "torch_ctc_loss_default",
                        "unbatched_0d_tensor_lengths", "error_empty_log_probs", "error_backward_grad_2d")


def _inputs(torch: Any, name: str) -> tuple[Any, Any, Any, Any, Any, dict[str, Any]]:
    T, C, padded, input_lengths, kwargs = SPECS[name]
    rng = np.random.default_rng(len(name) * 7919 + T * C)
    B = len(padded)
    dtype = torch.float64 if name == "float64" else torch.float32
    logits = torch.from_numpy(rng.standard_normal((T, B, C))).to(dtype)
    target_lengths = [len(t) for t in padded]
    if name == "concat":
        targets = torch.tensor([v for t in padded for v in t], dtype=torch.int64)
    else:
        width = max(target_lengths, default=0)
        targets = torch.tensor([t + [1] * (width - len(t)) for t in padded], dtype=torch.int64).reshape(B, width)
    if name == "int32":
        targets = targets.int()
    if name == "unbatched":
        logits, targets = logits[:, 0], targets[0]
    il: Any = input_lengths
    tl: Any = target_lengths
    if name == "tensor_lengths":
        il, tl = torch.tensor(il), torch.tensor(tl)
    return logits, targets, il, tl, B, kwargs


def normalised(torch: Any, logits: Any) -> Any:
    """log_softmax of the logits computed in float64 by NumPy, then rounded to their dtype: the same
    bits in both frameworks, so the CTC kernels are compared on identical inputs."""
    x = logits.double().numpy()
    shifted = x - x.max(-1, keepdims=True)
    return torch.from_numpy(shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))).to(logits.dtype)


def _operator(torch: Any, name: str) -> dict[str, Any]:
    F = torch.nn.functional  # noqa: N806 (PyTorch's spelling)
    logits, targets, il, tl, B, kwargs = _inputs(torch, name)
    out: dict[str, Any] = {}
    log_probs = normalised(torch, logits)
    for reduction in ("none", "mean", "sum"):
        out[reduction] = F.ctc_loss(log_probs, targets, il, tl, reduction=reduction, **kwargs).tolist()
    weights = torch.linspace(0.5, 1.5, B, dtype=logits.dtype)
    lp = log_probs.clone().requires_grad_()
    loss = F.ctc_loss(lp, targets, il, tl, reduction="none", **kwargs)
    (loss * (weights if loss.dim() else weights[0])).sum().backward()
    leaf = logits.clone().requires_grad_()
    F.ctc_loss(leaf.log_softmax(-1), targets, il, tl, reduction="mean", **kwargs).backward()
    out["grad_log_probs"] = lp.grad.tolist()
    out["grad_logits"] = leaf.grad.tolist()
    return out


def _steps(torch: Any, name: str) -> Any:
    F = torch.nn.functional  # noqa: N806 (PyTorch's spelling)
    lp = torch.from_numpy(np.random.default_rng(0).standard_normal((5, 2, 4))).float().log_softmax(2)
    t = torch.tensor([[1, 2], [1, 1]])
    cases = {
        "module_repr": lambda: [repr(torch.nn.CTCLoss()), repr(torch.nn.CTCLoss(blank=2, zero_infinity=True))],
        "error_input_too_long": lambda: F.ctc_loss(lp, t, [5, 6], [2, 2]),
        "error_negative_input": lambda: F.ctc_loss(lp, t, [5, -1], [2, 2]),
        "error_target_too_short": lambda: F.ctc_loss(lp, t, [5, 5], [2, 3]),
        "error_negative_target": lambda: F.ctc_loss(lp, t, [5, 5], [2, -1]),
        "error_concat_size": lambda: F.ctc_loss(lp, torch.tensor([1, 2, 1]), [5, 5], [2, 2]),
        "error_targets_3d": lambda: F.ctc_loss(lp, t.unsqueeze(0), [5, 5], [2, 2]),
        "error_log_probs_4d": lambda: F.ctc_loss(lp.unsqueeze(0), t, [5, 5], [2, 2]),
        "error_blank": lambda: F.ctc_loss(lp, t, [5, 5], [2, 2], blank=4),
        "error_input_lengths_size": lambda: F.ctc_loss(lp, t, [5, 5, 5], [2, 2]),
        "error_target_lengths_size": lambda: F.ctc_loss(lp, t, [5, 5], [2, 2, 1]),
        "error_half": lambda: F.ctc_loss(lp.half(), t, [5, 5], [2, 2]),
        "error_float_lengths": lambda: F.ctc_loss(lp, t, torch.tensor([5.0, 5.0]), torch.tensor([2, 2])),
        "error_reduction": lambda: F.ctc_loss(lp, t, [5, 5], [2, 2], reduction="foo"),
        "private_float_targets": lambda: torch._ctc_loss(lp, t.float(), [5, 5], [2, 2]),
        # PyTorch's binding reads `int reduction=Mean` as 0: the bare torch.ctc_loss does not reduce.
        "torch_ctc_loss_default": lambda: torch.ctc_loss(lp, t, [5, 5], [2, 2]).tolist(),
        "unbatched_0d_tensor_lengths": lambda: F.ctc_loss(lp[:, 0], t[0], torch.tensor(5), torch.tensor(2)).tolist(),
        "error_empty_log_probs": lambda: F.ctc_loss(lp[:0], t, [0, 0], [2, 2]),
        "error_backward_grad_2d": lambda: torch.ops.aten._ctc_loss_backward(
            torch.ones(2, 1), lp, t, [5, 5], [2, 2], *torch._ctc_loss(lp, t, [5, 5], [2, 2]), 0),
    }
    return cases[name]()


def run_case(torch: Any, name: str) -> dict[str, Any]:
    try:
        if name in SPECS:
            return _operator(torch, name)
        return {"result": _steps(torch, name)}
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "ctc_loss.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
