"""Record PyTorch's results for the tensor-combination tests (needs a real PyTorch): meshgrid,
cartesian_prod, block_diag, tensordot, cdist, pdist, dist, cov, corrcoef, tril/triu_indices, atleast_*d.

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_combinations_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`combinations.json`: for each case of CASES, what `run_case` returns under PyTorch (values with
dtypes and shapes, or the error's type and message). Inputs come from torch.manual_seed, which Ember
reproduces bit for bit; the tests run the same `run_case` on Ember.
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "combinations"
REFERENCE_PACKAGE = "torch"


def _cases(torch: Any) -> dict[str, Any]:
    r = lambda *shape, dtype=None: torch.randn(*shape, dtype=dtype or torch.float64)  # noqa: E731
    x, y, z = torch.arange(3.0), torch.arange(2.0), torch.tensor([5.0, 6.0, 7.0, 8.0])
    return {
        "meshgrid_ij": lambda: torch.meshgrid(x, y, z, indexing="ij"),
        "meshgrid_xy": lambda: torch.meshgrid(x, y, z, indexing="xy"),
        "meshgrid_list_default": lambda: torch.meshgrid([x, y]),
        "meshgrid_scalar": lambda: torch.meshgrid(torch.tensor(2.0), y, indexing="ij"),
        "cartesian_prod": lambda: torch.cartesian_prod(x, y, z),
        "cartesian_prod_one": lambda: torch.cartesian_prod(x),
        "block_diag": lambda: torch.block_diag(torch.tensor(1), torch.tensor([2.0, 3.0]),
                                               torch.ones(2, 1, dtype=torch.int64), torch.zeros(0, 2)),
        "tensordot_int": lambda: torch.tensordot(r(3, 4, 5), r(4, 5, 2)),
        "tensordot_lists": lambda: torch.tensordot(r(3, 4, 5), r(5, 3), dims=([2, 0], [0, 1])),
        "tensordot_zero": lambda: torch.tensordot(r(2, 3), r(4,), dims=0),
        "cdist_small": lambda: torch.cdist(r(2, 4, 3), r(2, 5, 3)),
        "cdist_mm": lambda: torch.cdist(r(30, 3), r(5, 3)),
        "cdist_p1_broadcast": lambda: torch.cdist(r(2, 1, 4, 3), r(3, 5, 3), p=1),
        "cdist_pinf_p0": lambda: [torch.cdist(r(4, 3), r(5, 3), p=float("inf")), torch.cdist(r(4, 3), r(4, 3), p=0)],
        "pdist": lambda: [torch.pdist(r(5, 3)), torch.pdist(r(4, 2), p=3)],
        "dist": lambda: [torch.dist(r(3, 4), r(4)), torch.dist(r(3), r(3), p=1)],
        "cov": lambda: [torch.cov(r(3, 6)), torch.cov(r(6)), torch.cov(r(2, 5), correction=0)],
        "cov_weights": lambda: torch.cov(r(2, 5), fweights=torch.tensor([1, 2, 1, 3, 1]), aweights=r(5).abs()),
        "cov_integers": lambda: torch.cov(torch.tensor([[1, 2, 4], [0, 3, 3]])),
        "corrcoef": lambda: [torch.corrcoef(r(3, 6)), torch.corrcoef(r(6))],
        "tril_triu_indices": lambda: [torch.tril_indices(3, 4, 1), torch.triu_indices(4, 3, -1),
                                      torch.tril_indices(0, 3), torch.triu_indices(3, 3, dtype=torch.int32)],
        "atleast": lambda: [torch.atleast_1d(torch.tensor(1.0)), torch.atleast_2d(x), torch.atleast_3d(r(2, 3)),
                            torch.atleast_3d(torch.tensor(1.0), x)],
        "error_meshgrid_2d": lambda: torch.meshgrid(torch.ones(2, 2), indexing="ij"),
        "error_meshgrid_dtypes": lambda: torch.meshgrid(x, r(2), indexing="ij"),
        "error_meshgrid_indexing": lambda: torch.meshgrid(x, indexing="zz"),
        "error_cartesian_prod_2d": lambda: torch.cartesian_prod(torch.ones(2, 2), x),
        "error_block_diag_3d": lambda: torch.block_diag(torch.ones(2, 2, 2)),
        "error_tensordot_sizes": lambda: torch.tensordot(r(2, 3), r(4, 2), dims=([1], [0])),
        "error_tensordot_lengths": lambda: torch.tensordot(r(2, 3), r(4, 2), dims=([1, 0], [0])),
        "error_tensordot_negative": lambda: torch.tensordot(r(2, 3), r(4, 2), dims=-1),
        "error_cdist_columns": lambda: torch.cdist(r(2, 3), r(4, 2)),
        "error_cdist_integers": lambda: torch.cdist(torch.ones(2, 3, dtype=torch.long),
                                                    torch.ones(4, 3, dtype=torch.long)),
        "error_cdist_p": lambda: torch.cdist(r(2, 3), r(4, 3), p=-1),
        "error_cdist_1d": lambda: torch.cdist(r(3), r(4, 3)),
        "error_cov_3d": lambda: torch.cov(r(2, 2, 2)),
        "error_pdist_3d": lambda: torch.pdist(r(2, 2, 2)),
        "error_tril_indices_float": lambda: torch.tril_indices(3, 3, dtype=torch.float32),
    }


CASES = ("meshgrid_ij", "meshgrid_xy", "meshgrid_list_default", "meshgrid_scalar", "cartesian_prod",
         "cartesian_prod_one", "block_diag", "tensordot_int", "tensordot_lists", "tensordot_zero", "cdist_small",
         "cdist_mm", "cdist_p1_broadcast", "cdist_pinf_p0", "pdist", "dist", "cov", "cov_weights", "cov_integers",
         "corrcoef", "tril_triu_indices", "atleast", "error_meshgrid_2d", "error_meshgrid_dtypes",
         "error_meshgrid_indexing", "error_cartesian_prod_2d", "error_block_diag_3d", "error_tensordot_sizes",
         "error_tensordot_lengths", "error_tensordot_negative", "error_cdist_columns", "error_cdist_integers",
         "error_cdist_p", "error_cdist_1d", "error_cov_3d", "error_pdist_3d", "error_tril_indices_float")


def _plain(torch: Any, value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "values": value.tolist()}
    if isinstance(value, (list, tuple)):
        return [_plain(torch, v) for v in value]
    return value


def run_case(torch: Any, name: str) -> dict[str, Any]:
    torch.manual_seed(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return {"result": _plain(torch, _cases(torch)[name]())}
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e).split("\n")[0]}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "combinations.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
