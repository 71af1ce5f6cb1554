"""Record PyTorch's F.embedding_bag / nn.EmbeddingBag results (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_embedding_bag_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`embedding_bag.json`: for each case of CASES, what `run_case` returns under PyTorch: the operator's four
results, the weight's (and per_sample_weights') gradient for a fixed output gradient, or the error's type
and message. Weights come from torch.manual_seed, which Ember reproduces bit for bit.
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "embedding_bag"
REFERENCE_PACKAGE = "torch"

INDICES = [1, 2, 4, 5, 4, 3, 2, 9, 0, 0]
OFFSETS = [0, 2, 2, 5, 8]

# name -> (mode, keyword arguments of torch.embedding_bag beyond the mode, use per_sample_weights)
SPECS: dict[str, tuple[int, dict[str, Any], bool]] = {
    "sum": (0, {}, False), "mean": (1, {}, False), "max": (2, {}, False),
    "sum_weighted": (0, {}, True), "mean_padding": (1, {"padding_idx": 0}, False),
    "max_padding": (2, {"padding_idx": 2}, False), "sum_last_offset": (0, {"include_last_offset": True}, False),
}
CASES = tuple(SPECS) + ("functional_2d", "module_repr", "error_weight_1d", "error_2d_with_offsets", "error_no_offsets",
                        "error_mode", "error_weights_with_mean", "error_index_range", "error_first_offset",
                        "error_float_indices", "error_last_offset", "error_negative_offset")


def _operator(torch: Any, name: str) -> dict[str, Any]:
    mode, kwargs, weighted = SPECS[name]
    torch.manual_seed(0)
    weight = torch.randn(10, 3, dtype=torch.float64, requires_grad=True)
    psw = torch.randn(len(INDICES), dtype=torch.float64, requires_grad=True) if weighted else None
    offsets = OFFSETS + [len(INDICES)] if kwargs.get("include_last_offset") else OFFSETS
    out = torch.embedding_bag(weight, torch.tensor(INDICES), torch.tensor(offsets), kwargs.get("scale_grad_by_freq",
                              False), mode, False, psw, kwargs.get("include_last_offset", False),
                              kwargs.get("padding_idx"))
    out[0].backward(torch.linspace(-1, 1, out[0].numel(), dtype=torch.float64).reshape(out[0].shape))
    return {"results": [t.tolist() for t in out], "weight_grad": weight.grad.tolist(),
            "psw_grad": None if psw is None else psw.grad.tolist()}


def _steps(torch: Any, name: str) -> Any:
    F = torch.nn.functional  # noqa: N806 (PyTorch's spelling)
    w = torch.randn(10, 3)
    cases = {
        "functional_2d": lambda: F.embedding_bag(torch.tensor([[1, 2, 3], [4, 4, 0]]), w, mode="max").tolist(),
        "module_repr": lambda: [repr(torch.nn.EmbeddingBag(10, 3)), repr(torch.nn.EmbeddingBag(10, 3, mode="sum",
                                                                                            padding_idx=-1))],
        "error_weight_1d": lambda: F.embedding_bag(torch.tensor([1, 2]), torch.randn(10)),
        "error_2d_with_offsets": lambda: F.embedding_bag(torch.tensor([[1, 2]]), w, torch.tensor([0])),
        "error_no_offsets": lambda: F.embedding_bag(torch.tensor([1, 2]), w),
        "error_mode": lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]), mode="min"),
        "error_weights_with_mean": lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([0]),
                                                           per_sample_weights=torch.ones(2)),
        "error_index_range": lambda: F.embedding_bag(torch.tensor([1, 20]), w, torch.tensor([0])),
        "error_first_offset": lambda: F.embedding_bag(torch.tensor([1, 2]), w, torch.tensor([1])),
        "error_float_indices": lambda: torch.embedding_bag(w, torch.tensor([1.0, 2.0]), torch.tensor([0])),
        "error_last_offset": lambda: F.embedding_bag(torch.tensor([1, 2, 3, 4]), w, torch.tensor([0, 2, 6])),
        "error_negative_offset": lambda: F.embedding_bag(torch.tensor([1, 2, 3, 4]), w, torch.tensor([0, -1])),
    }
    return cases[name]()


def run_case(torch: Any, name: str) -> dict[str, Any]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name in SPECS:
                return _operator(torch, name)
            torch.manual_seed(0)
            return {"result": _steps(torch, name)}
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "embedding_bag.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
