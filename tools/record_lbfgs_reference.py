"""Record PyTorch's torch.optim.LBFGS trajectories for the optimizer tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_lbfgs_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`lbfgs.json`: for each case of CASES, what `run_case` returns under PyTorch: the loss each step()
returns, the parameters after each step, and the state's evaluation and iteration counters. The
problems are in float64 (the Rosenbrock function, and a small tanh network fitted to seeded data,
whose inputs torch.manual_seed draws as Ember does); the tests run the same `run_case` on Ember.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "optim"
REFERENCE_PACKAGE = "torch"
STEPS = 5

CASES: list[dict[str, Any]] = [
    {"problem": "rosenbrock", "lr": 0.1, "max_iter": 20, "history_size": 10, "line_search_fn": None},
    {"problem": "rosenbrock", "lr": 1.0, "max_iter": 20, "history_size": 10, "line_search_fn": "strong_wolfe"},
    {"problem": "rosenbrock", "lr": 0.5, "max_iter": 7, "history_size": 3, "line_search_fn": "strong_wolfe",
     "tolerance_change": 1e-12},
    {"problem": "rosenbrock", "lr": 5.0, "max_iter": 10, "max_eval": 12, "line_search_fn": "strong_wolfe"},
    {"problem": "network", "lr": 0.8, "max_iter": 10, "history_size": 5, "line_search_fn": None},
    {"problem": "network", "lr": 1.0, "max_iter": 10, "history_size": 5, "line_search_fn": "strong_wolfe",
     "max_eval": 15},
]


def run_case(torch: Any, case: dict[str, Any]) -> dict[str, Any]:
    options = {k: v for k, v in case.items() if k != "problem"}
    if case["problem"] == "rosenbrock":
        point = torch.tensor([-1.5, 2.0], dtype=torch.float64, requires_grad=True)
        params = [point]

        def loss_fn() -> Any:
            return (1 - point[0]) ** 2 + 100 * (point[1] - point[0] ** 2) ** 2
    else:
        torch.manual_seed(0)
        x = torch.randn(24, 3, dtype=torch.float64)
        y = (x @ torch.randn(3, 1, dtype=torch.float64)).tanh() + 0.1 * torch.randn(24, 1, dtype=torch.float64)
        w1 = torch.randn(3, 6, dtype=torch.float64, requires_grad=True)
        w2 = torch.randn(6, 1, dtype=torch.float64, requires_grad=True)
        params = [w1, w2]

        def loss_fn() -> Any:
            return (((x @ w1).tanh() @ w2 - y) ** 2).mean()
    optimizer = torch.optim.LBFGS(params, **options)

    def closure() -> Any:
        optimizer.zero_grad()
        loss = loss_fn()
        loss.backward()
        return loss

    losses, trajectory = [], []
    for _ in range(STEPS):
        losses.append(float(optimizer.step(closure)))
        trajectory.append([p.detach().reshape(-1).tolist() for p in params])
    state = optimizer.state[params[0]]
    return {"losses": losses, "params": trajectory, "func_evals": state["func_evals"], "n_iter": state["n_iter"]}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = [{"case": case, "result": run_case(torch, case)} for case in CASES]
    path = out_dir / "lbfgs.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
