"""Record PyTorch's channel-wise and alpha dropouts for the dropout tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_dropout_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `dropout.json`:
for each case of CASES, what `run_case` returns under PyTorch: the output of the dropout function on a
seeded input (its noise drawn from torch.manual_seed, which Ember reproduces bit for bit), the
gradient of a weighted sum of it, the warnings' texts, or the error's type and message.
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "random"
REFERENCE_PACKAGE = "torch"
CASES: list[tuple[str, list[int], dict[str, Any]]] = [
    ("dropout1d", [2, 3, 5], {"p": 0.5}), ("dropout1d", [3, 5], {"p": 0.3}),
    ("dropout1d", [2, 3, 5], {"p": 0.4, "inplace": True}), ("dropout1d", [2, 3, 4, 5], {"p": 0.4}),
    ("dropout2d", [2, 4, 3, 3], {"p": 0.5}), ("dropout2d", [2, 4, 3], {"p": 0.5}),
    ("dropout2d", [2, 4, 3, 3, 2], {"p": 0.25}), ("dropout2d", [2, 4, 3, 3], {"p": 0.5, "training": False}),
    ("dropout3d", [2, 3, 2, 2, 2], {"p": 0.5}), ("dropout3d", [3, 2, 2, 2], {"p": 0.6}),
    ("dropout3d", [2, 3], {"p": 0.5}), ("dropout2d", [2, 4, 3, 3], {"p": 1.0}),
    ("alpha_dropout", [4, 5], {"p": 0.2, "training": True}), ("alpha_dropout", [4, 5], {"p": 0.2}),
    ("alpha_dropout", [4, 5], {"p": 1.0, "training": True}),
    ("feature_alpha_dropout", [2, 3, 4], {"p": 0.5, "training": True}),
    ("feature_alpha_dropout", [3], {"p": 0.5, "training": True}), ("dropout2d", [2, 4, 3, 3], {"p": 1.5}),
    ("alpha_dropout", [4, 5], {"p": 0.5, "training": True, "inplace": True}),
]


def run_case(torch: Any, name: str, shape: list[int], options: dict[str, Any]) -> dict[str, Any]:
    F = torch.nn.functional
    torch.manual_seed(0)
    base = torch.randn(shape, requires_grad=True)
    x = base.clone()     # not a leaf, so in-place variants may write it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = getattr(F, name)(x, **options)
        except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
            return {"error": type(e).__name__, "message": str(e)}
    (out * torch.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
    return {"out": out.detach().reshape(-1).tolist(), "shape": list(out.shape), "grad": base.grad.reshape(-1).tolist(),
            "warnings": [str(w.message) for w in caught]}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = [{"name": n, "shape": s, "options": o, "result": run_case(torch, n, s, o)} for n, s, o in CASES]
    path = out_dir / "dropout.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
