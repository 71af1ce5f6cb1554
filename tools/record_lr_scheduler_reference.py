"""Record PyTorch's cyclic learning-rate schedules for the scheduler tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_lr_scheduler_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`cyclic_lr.json`: for each case of CASES, what `run_case` returns under PyTorch: the learning rates
(and momentum or beta1) of two param groups after construction and after each step, or the error of
invalid arguments. The tests run the same `run_case` on Ember and compare.
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "optim"
REFERENCE_PACKAGE = "torch"
STEPS = 14
CASES = ("cyclic_triangular", "cyclic_triangular2_asymmetric", "cyclic_exp_range_adam", "cyclic_custom_fn",
         "cyclic_no_momentum", "warm_restarts", "warm_restarts_mult2", "warm_restarts_fractional",
         "warm_restarts_interleaved", "error_mode", "error_t0", "error_tmult", "error_momentum")


def _schedule(torch: Any, name: str, optimizer: Any) -> Any:
    L = torch.optim.lr_scheduler
    if name == "cyclic_triangular":
        return L.CyclicLR(optimizer, base_lr=[0.01, 0.02], max_lr=[0.1, 0.2], step_size_up=3)
    if name == "cyclic_triangular2_asymmetric":
        return L.CyclicLR(optimizer, 0.01, 0.1, step_size_up=2, step_size_down=4, mode="triangular2")
    if name == "cyclic_exp_range_adam":
        return L.CyclicLR(optimizer, 0.001, 0.01, step_size_up=3, mode="exp_range", gamma=0.9,
                          base_momentum=0.85, max_momentum=0.95)
    if name == "cyclic_custom_fn":
        return L.CyclicLR(optimizer, 0.01, 0.05, step_size_up=2, scale_fn=lambda x: 0.5 ** x,
                          scale_mode="iterations")
    if name == "cyclic_no_momentum":
        return L.CyclicLR(optimizer, 0.01, 0.05, step_size_up=3, cycle_momentum=False)
    if name.startswith("warm_restarts"):
        return L.CosineAnnealingWarmRestarts(optimizer, T_0=3, T_mult=2 if name.endswith("mult2") else 1,
                                             eta_min=0.001)
    if name == "error_mode":
        return L.CyclicLR(optimizer, 0.01, 0.1, mode="sawtooth")
    if name == "error_t0":
        return L.CosineAnnealingWarmRestarts(optimizer, T_0=0)
    if name == "error_tmult":
        return L.CosineAnnealingWarmRestarts(optimizer, T_0=2, T_mult=0)
    return L.CyclicLR(torch.optim.Rprop([torch.zeros(1, requires_grad=True)]), 0.01, 0.1)


def run_case(torch: Any, name: str) -> dict[str, Any]:
    params = [torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)]
    groups = [{"params": params[:1]}, {"params": params[1:], "lr": 0.05}]
    optimizer = (torch.optim.Adam(groups, lr=0.1) if "adam" in name else torch.optim.SGD(groups, lr=0.1, momentum=0.9))
    try:
        scheduler = _schedule(torch, name, optimizer)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    key = "betas" if "adam" in name else "momentum"

    def record() -> list[Any]:
        return [list(scheduler.get_last_lr()),
                [g[key][0] if key == "betas" else g[key] for g in optimizer.param_groups]]
    seen = [record()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # step(epoch) is deprecated for the chainable schedulers
        for step in range(STEPS):
            optimizer.step()
            if name == "warm_restarts_fractional":
                scheduler.step(step * 0.75)
            elif name == "warm_restarts_interleaved" and step == 6:
                scheduler.step(11)
            else:
                scheduler.step()
            seen.append(record())
    return {"sequence": seen, "last_epoch": scheduler.last_epoch}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "cyclic_lr.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
