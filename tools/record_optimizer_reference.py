"""Record PyTorch's trajectories of the element-wise optimizers for the optimizer tests (needs a real
PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_optimizer_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`optimizers.json`: for each configuration of CASES, what `run_case` returns under PyTorch: the
parameters after each of STEPS steps with gradients drawn from torch.manual_seed (which Ember
reproduces bit for bit), the state's keys, and the errors of invalid arguments. The tests run the same
`run_case` on Ember and compare.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "optim"
REFERENCE_PACKAGE = "torch"
STEPS = 7

CASES: list[tuple[str, dict[str, Any]]] = [
    ("Adadelta", {}), ("Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-5, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {}), ("Adamax", {"lr": 0.01, "betas": (0.8, 0.95), "weight_decay": 0.05, "maximize": True}),
    ("NAdam", {}), ("NAdam", {"lr": 0.01, "momentum_decay": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {}), ("RAdam", {"lr": 0.05, "betas": (0.5, 0.6), "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.05, "betas": (0.5, 0.6), "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("Rprop", {}), ("Rprop", {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2), "maximize": True}),
    ("ASGD", {}), ("ASGD", {"lr": 0.1, "lambd": 0.01, "alpha": 0.5, "t0": 3, "weight_decay": 0.1}),
]
ERRORS: list[tuple[str, dict[str, Any]]] = [
    ("Adadelta", {"lr": -1.0}), ("Adadelta", {"rho": 1.5}), ("Adadelta", {"eps": -1.0}),
    ("Adadelta", {"weight_decay": -1.0}), ("Adamax", {"betas": (1.0, 0.9)}), ("Adamax", {"betas": (0.9, -0.1)}),
    ("NAdam", {"momentum_decay": -1.0}), ("RAdam", {"eps": -1e-8}), ("Rprop", {"etas": (1.5, 1.2)}),
    ("Rprop", {"lr": -0.1}), ("ASGD", {"weight_decay": -0.5}),
    # SparseAdam refuses dense gradients at its step (every gradient, in Ember)
    ("SparseAdam", {}), ("SparseAdam", {"lr": -1.0}), ("SparseAdam", {"eps": 0.0}),
    ("SparseAdam", {"betas": (0.9, 1.0)}),
]


def run_case(torch: Any, name: str, options: dict[str, Any]) -> dict[str, Any]:
    torch.manual_seed(0)
    params = [torch.randn(3, 4, requires_grad=True), torch.randn(5, requires_grad=True)]
    try:
        optimizer = getattr(torch.optim, name)(params, **options)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    trajectory = []
    for step in range(STEPS):
        for p in params:
            p.grad = torch.randn(p.shape) * (1.0 if step % 3 else -2.0)
        try:
            optimizer.step()
        except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
            return {"error": type(e).__name__, "message": str(e), "at_step": step}
        trajectory.append([p.detach().reshape(-1).tolist() for p in params])
    state = optimizer.state[params[0]]
    return {"params": trajectory, "state": sorted(state),
            "scalars": {k: float(v) for k, v in state.items() if isinstance(v, torch.Tensor) and v.dim() == 0}}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = [{"optimizer": n, "options": o, "result": run_case(torch, n, o)} for n, o in CASES + ERRORS]
    path = out_dir / "optimizers.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
