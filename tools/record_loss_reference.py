"""Record PyTorch's ranking, embedding and likelihood losses for the loss tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_loss_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `losses.json`:
for each case of CASES, what `run_case` returns under PyTorch: the loss of seeded inputs (from
torch.manual_seed, which Ember reproduces bit for bit) under each reduction, the gradients of the
summed loss, or the error's type and message. The tests run the same `run_case` on Ember and compare.
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "losses"
REFERENCE_PACKAGE = "torch"
REDUCTIONS = ("none", "mean", "sum")
CASES = ("margin_ranking", "margin_ranking_margin", "hinge_embedding", "cosine_embedding", "cosine_embedding_0d",
         "soft_margin", "multilabel_soft_margin", "multilabel_soft_margin_weight", "triplet_margin",
         "triplet_margin_swap_p1", "triplet_margin_with_distance", "poisson_nll", "poisson_nll_full_rate",
         "gaussian_nll", "gaussian_nll_heteroscedastic", "gaussian_nll_float_var_full",
         "error_margin_ranking_dims", "error_cosine_target", "error_triplet_margin", "error_gaussian_var",
         "error_gaussian_size", "error_poisson_reduction")


def _inputs(torch: Any, name: str) -> tuple[list[Any], dict[str, Any], str]:
    """(tensor arguments, options, the F function's name)."""
    torch.manual_seed(0)
    x, y, z = (torch.randn(4, 5) for _ in range(3))
    sign = torch.randint(0, 2, (4, 5)) * 2 - 1.0
    rows = torch.randint(0, 2, (4,)) * 2 - 1.0
    counts = torch.randint(0, 6, (4, 5)).double()
    table: dict[str, tuple[list[Any], dict[str, Any], str]] = {
        "margin_ranking": ([x, y, sign], {}, "margin_ranking_loss"),
        "margin_ranking_margin": ([x, y, sign], {"margin": 0.3}, "margin_ranking_loss"),
        "hinge_embedding": ([x, sign], {"margin": 0.5}, "hinge_embedding_loss"),
        "cosine_embedding": ([x, y, rows], {"margin": 0.1}, "cosine_embedding_loss"),
        "cosine_embedding_0d": ([x[0], y[0], rows[0]], {}, "cosine_embedding_loss"),
        "soft_margin": ([x, sign], {}, "soft_margin_loss"),
        "multilabel_soft_margin": ([x, (sign > 0).float()], {}, "multilabel_soft_margin_loss"),
        "multilabel_soft_margin_weight": ([x, (sign > 0).float()], {"weight": torch.rand(5)},
                                          "multilabel_soft_margin_loss"),
        "triplet_margin": ([x, y, z], {}, "triplet_margin_loss"),
        "triplet_margin_swap_p1": ([x, y, z], {"p": 1, "swap": True, "margin": 0.5}, "triplet_margin_loss"),
        "triplet_margin_with_distance": ([x, y, z], {"margin": 0.7, "swap": True},
                                         "triplet_margin_with_distance_loss"),
        "poisson_nll": ([x.double(), counts], {}, "poisson_nll_loss"),
        "poisson_nll_full_rate": ([x.double().exp(), counts], {"log_input": False, "full": True},
                                  "poisson_nll_loss"),
        "gaussian_nll": ([x, y, z.abs()], {}, "gaussian_nll_loss"),
        "gaussian_nll_heteroscedastic": ([x, y, z[:, :1].abs()], {"full": True}, "gaussian_nll_loss"),
        "gaussian_nll_float_var_full": ([x, y, 0.5], {"full": True, "eps": 1e-3}, "gaussian_nll_loss"),
        "error_margin_ranking_dims": ([x, y, rows], {}, "margin_ranking_loss"),
        "error_cosine_target": ([x, y, sign], {}, "cosine_embedding_loss"),
        "error_triplet_margin": ([x, y, z], {"margin": 0.0}, "triplet_margin_loss"),
        "error_gaussian_var": ([x, y, z], {}, "gaussian_nll_loss"),
        "error_gaussian_size": ([x, y, z[:2]], {}, "gaussian_nll_loss"),
        "error_poisson_reduction": ([x, counts], {"reduction": "avg"}, "poisson_nll_loss"),
    }
    return table[name]


# the arguments each function differentiates (the others are targets)
_DIFFERENTIABLE = {"margin_ranking_loss": (0, 1), "hinge_embedding_loss": (0,), "cosine_embedding_loss": (0, 1),
                   "soft_margin_loss": (0,), "multilabel_soft_margin_loss": (0,), "triplet_margin_loss": (0, 1, 2),
                   "triplet_margin_with_distance_loss": (0, 1, 2), "poisson_nll_loss": (0,),
                   "gaussian_nll_loss": (0, 2)}


def run_case(torch: Any, name: str) -> dict[str, Any]:
    tensors, options, function = _inputs(torch, name)
    leaves = [t.clone().requires_grad_() if i in _DIFFERENTIABLE[function] and isinstance(t, torch.Tensor) else t
              for i, t in enumerate(tensors)]
    fn = getattr(torch.nn.functional, function)
    out: dict[str, Any] = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for reduction in ([options.pop("reduction")] if "reduction" in options else REDUCTIONS):
                loss = fn(*leaves, reduction=reduction, **options)
                out[reduction] = loss.detach().double().reshape(-1).tolist()
            fn(*leaves, reduction="sum", **options).backward()
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    out["grads"] = [t.grad.double().reshape(-1).tolist() for t in leaves
                    if isinstance(t, torch.Tensor) and t.requires_grad]
    return out


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "losses.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
