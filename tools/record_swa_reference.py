"""Record PyTorch's torch.optim.swa_utils results for the weight-averaging tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_swa_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `swa.json`:
for each case of CASES, what `run_case` returns under PyTorch: SWALR's learning rates after
construction and each step, AveragedModel's parameters, buffers, state_dict keys and forward pass
after a few updates of a model trained by random steps, update_bn's recomputed statistics, or the
error's type and message. Weights and data come from torch.manual_seed, which Ember reproduces bit
for bit; the tests run the same `run_case` on Ember and compare.
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
SCHEDULE_CASES = ("swalr_cos", "swalr_linear_per_group", "swalr_no_annealing", "swalr_after_lr_change",
                  "swalr_state_dict")
AVERAGING_CASES = ("averaged_swa", "averaged_swa_use_buffers", "averaged_ema_avg_fn", "averaged_ema_multi_avg_fn",
                   "averaged_ema_multi_use_buffers", "averaged_swa_multi_avg_fn", "averaged_custom_avg_fn",
                   "averaged_swa_multi_use_buffers")
BN_CASES = ("update_bn", "update_bn_tensor_loader", "update_bn_without_batchnorm")
ERROR_CASES = ("error_anneal_strategy", "error_anneal_epochs_negative", "error_anneal_epochs_float",
               "error_swa_lr_count", "error_both_avg_fns", "error_ema_decay", "error_ema_multi_decay")
CASES = SCHEDULE_CASES + AVERAGING_CASES + BN_CASES + ERROR_CASES


def _optimizer(torch: Any, groups: int = 1) -> Any:
    torch.manual_seed(0)
    params = [torch.nn.Parameter(torch.randn(2)) for _ in range(groups)]
    return torch.optim.SGD([{"params": [p], "lr": 0.5 * (i + 1)} for i, p in enumerate(params)], lr=0.5)


def _schedule_case(torch: Any, swa: Any, name: str) -> dict[str, Any]:
    opt = _optimizer(torch, 2 if name == "swalr_linear_per_group" else 1)
    if name == "swalr_cos":
        sched = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=4)
    elif name == "swalr_linear_per_group":
        sched = swa.SWALR(opt, swa_lr=[0.05, 0.2], anneal_epochs=3, anneal_strategy="linear")
    elif name == "swalr_no_annealing":
        sched = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=0)
    else:
        sched = swa.SWALR(opt, swa_lr=0.05, anneal_epochs=5, anneal_strategy="linear")
    lrs = [[g["lr"] for g in opt.param_groups]]
    for step in range(7):
        opt.step()
        sched.step()
        if name == "swalr_after_lr_change" and step == 1:
            opt.param_groups[0]["lr"] = 1.0   # the chainable form anneals from wherever the lr is
        lrs.append([g["lr"] for g in opt.param_groups])
    out: dict[str, Any] = {"lrs": lrs, "last": sched.get_last_lr(), "swa_lr": [g["swa_lr"] for g in opt.param_groups]}
    if name == "swalr_state_dict":
        state = sched.state_dict()
        out["keys"] = sorted(state)
        fresh = swa.SWALR(_optimizer(torch), swa_lr=0.3, anneal_strategy="cos")
        fresh.load_state_dict(state)
        out["loaded"] = [fresh._anneal_strategy, fresh.anneal_func(0.5), fresh.anneal_epochs, fresh.last_epoch]
    return out


def _model(torch: Any) -> Any:
    torch.manual_seed(0)
    nn = torch.nn
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


def _averaged(torch: Any, swa: Any, name: str, model: Any) -> Any:
    if name in ("averaged_swa", "averaged_swa_use_buffers"):
        return swa.AveragedModel(model, use_buffers=name.endswith("use_buffers"))
    if name == "averaged_ema_avg_fn":
        return swa.AveragedModel(model, avg_fn=swa.get_ema_avg_fn(0.9))
    if name in ("averaged_ema_multi_avg_fn", "averaged_ema_multi_use_buffers"):
        return swa.AveragedModel(model, multi_avg_fn=swa.get_ema_multi_avg_fn(0.8),
                                 use_buffers=name.endswith("use_buffers"))
    if name in ("averaged_swa_multi_avg_fn", "averaged_swa_multi_use_buffers"):
        return swa.AveragedModel(model, multi_avg_fn=swa.get_swa_multi_avg_fn(),
                                 use_buffers=name.endswith("use_buffers"))
    return swa.AveragedModel(model, avg_fn=lambda avg, cur, n: avg * 0.5 + cur * 0.5 + n)  # averaged_custom_avg_fn


def _averaging_case(torch: Any, swa: Any, name: str) -> dict[str, Any]:
    model = _model(torch)
    averaged = _averaged(torch, swa, name, model)
    torch.manual_seed(1)
    for _ in range(4):
        with torch.no_grad():
            for p in model.parameters():
                p.add_(torch.randn_like(p))
        model(torch.randn(5, 3))        # training mode: moves the BatchNorm statistics
        averaged.update_parameters(model)
    state = averaged.state_dict()
    averaged.eval()
    return {"state_dict": {k: v.tolist() for k, v in state.items()}, "keys": list(state),
            "n_averaged": [averaged.n_averaged.item(), str(averaged.n_averaged.dtype)],
            "forward": averaged(torch.ones(2, 3)).detach().tolist(),
            "requires_grad": [p.requires_grad for p in averaged.parameters()]}


def _bn_case(torch: Any, swa: Any, name: str) -> dict[str, Any]:
    torch.manual_seed(0)
    nn = torch.nn
    if name == "update_bn_without_batchnorm":
        model = nn.Linear(3, 2)
        swa.update_bn([torch.randn(4, 3)], model)
        return {"state_dict": {k: v.tolist() for k, v in model.state_dict().items()}}
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4, momentum=0.3), nn.ReLU(), nn.Linear(4, 2),
                          nn.BatchNorm1d(2))
    model(torch.randn(6, 3))
    model.eval()
    batches = [torch.randn(n, 3) for n in (4, 7, 5)]
    loader = batches if name == "update_bn_tensor_loader" else [(x, torch.zeros(len(x))) for x in batches]
    swa.update_bn(loader, model)
    return {"buffers": {k: v.tolist() for k, v in model.named_buffers()}, "training": model.training,
            "momenta": [model[1].momentum, model[4].momentum]}


def _error(torch: Any, swa: Any, name: str) -> None:
    opt = _optimizer(torch)
    if name == "error_anneal_strategy":
        swa.SWALR(opt, swa_lr=0.1, anneal_strategy="exp")
    elif name == "error_anneal_epochs_negative":
        swa.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)
    elif name == "error_anneal_epochs_float":
        swa.SWALR(opt, swa_lr=0.1, anneal_epochs=2.0)
    elif name == "error_swa_lr_count":
        swa.SWALR(opt, swa_lr=[0.1, 0.2])
    elif name == "error_both_avg_fns":
        swa.AveragedModel(torch.nn.Linear(2, 2), avg_fn=swa.get_swa_avg_fn(), multi_avg_fn=swa.get_swa_multi_avg_fn())
    elif name == "error_ema_decay":
        swa.get_ema_avg_fn(1.5)
    elif name == "error_ema_multi_decay":
        swa.get_ema_multi_avg_fn(-0.1)


def run_case(torch: Any, name: str) -> dict[str, Any]:
    swa = importlib.import_module(torch.__name__ + ".optim.swa_utils")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name in ERROR_CASES:
            try:
                _error(torch, swa, name)
            except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
                return {"error": type(e).__name__, "message": str(e)}
            return {"error": None}
        try:
            if name in SCHEDULE_CASES:
                return _schedule_case(torch, swa, name)
            if name in AVERAGING_CASES:
                return _averaging_case(torch, swa, name)
            return _bn_case(torch, swa, name)
        except Exception as e:  # noqa: BLE001 (some combinations fail on PyTorch: that is recorded too)
            return {"error": type(e).__name__, "message": str(e)}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "swa.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
