"""Record PyTorch's torch.nn.utils.prune results for the pruning tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_prune_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `prune.json`:
for each case of CASES, what `run_case` returns under PyTorch: the masks, pruned tensors, parameter
and buffer names and a forward pass after the pruning steps, or the error's type and message. The
modules' weights and the random choices come from torch.manual_seed, which Ember reproduces bit for
bit; the tests run the same `run_case` on Ember and compare.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "prune"
REFERENCE_PACKAGE = "torch"
CASES = ("l1_then_ln", "random", "global", "custom_then_remove", "importance_scores", "conv_ln_inf",
         "error_amount_range", "error_amount_type", "error_structured_1d", "error_amount_count",
         "error_remove_unpruned", "error_global_structured")


def _steps(torch: Any, prune: Any, name: str) -> Any:
    torch.manual_seed(0)
    if name == "l1_then_ln":
        m = torch.nn.Linear(6, 4)
        prune.l1_unstructured(m, "weight", amount=0.3)
        prune.ln_structured(m, "weight", amount=1, n=2, dim=0)
        prune.l1_unstructured(m, "weight", amount=3)
        return [m]
    if name == "random":
        m = torch.nn.Linear(5, 6)
        prune.random_unstructured(m, "weight", amount=7)
        prune.random_structured(m, "weight", amount=0.4, dim=1)
        prune.random_unstructured(m, "bias", amount=0.5)
        return [m]
    if name == "global":
        a, b = torch.nn.Linear(4, 3), torch.nn.Linear(3, 2)
        prune.l1_unstructured(b, "weight", amount=1)
        prune.global_unstructured([(a, "weight"), (b, "weight"), (a, "bias")], pruning_method=prune.L1Unstructured,
                                  amount=0.4)
        return [a, b]
    if name == "custom_then_remove":
        m = torch.nn.Linear(3, 2)
        prune.custom_from_mask(m, "weight", mask=torch.tensor([[1, 0, 1], [0, 1, 1]]))
        prune.identity(m, "bias")
        prune.remove(m, "weight")
        return [m]
    if name == "importance_scores":
        m = torch.nn.Linear(4, 3)
        scores = torch.arange(12.0).reshape(3, 4).flip(0)
        prune.l1_unstructured(m, "weight", amount=0.5, importance_scores=scores)
        prune.ln_structured(m, "weight", amount=1, n=1, dim=1, importance_scores=scores)
        return [m]
    if name == "conv_ln_inf":
        m = torch.nn.Conv2d(2, 4, 3)
        prune.ln_structured(m, "weight", amount=0.5, n=float("inf"), dim=0)
        prune.ln_structured(m, "weight", amount=1, n=1, dim=1)
        return [m]
    m = torch.nn.Linear(3, 2)
    if name == "error_amount_range":
        prune.l1_unstructured(m, "weight", amount=1.5)
    elif name == "error_amount_type":
        prune.l1_unstructured(m, "weight", amount="half")
    elif name == "error_structured_1d":
        prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
    elif name == "error_amount_count":
        prune.l1_unstructured(m, "weight", amount=9)
    elif name == "error_remove_unpruned":
        prune.remove(m, "weight")
    elif name == "error_global_structured":
        prune.global_unstructured([(m, "weight")], pruning_method=prune.RandomStructured, amount=0.5)
    return [m]


def run_case(torch: Any, name: str) -> dict[str, Any]:
    prune = importlib.import_module(torch.__name__ + ".nn.utils.prune")
    try:
        modules = _steps(torch, prune, name)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    out: dict[str, Any] = {"pruned": [prune.is_pruned(m) for m in modules]}
    for i, m in enumerate(modules):
        out[f"{i} parameters"] = sorted(n for n, _ in m.named_parameters())
        out[f"{i} buffers"] = {n: b.tolist() for n, b in m.named_buffers()}
        out[f"{i} weight"] = m.weight.detach().tolist()
        out[f"{i} bias"] = m.bias.detach().tolist()
        x = torch.ones((1, 2, 4, 4) if isinstance(m, torch.nn.Conv2d) else (1, m.in_features))
        out[f"{i} forward"] = m(x).detach().tolist()
        out[f"{i} state_dict"] = sorted(m.state_dict())
    return out


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "prune.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
