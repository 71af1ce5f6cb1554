"""Record PyTorch's torch.linalg results for the linalg tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_linalg_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `linalg.json`:
for each case of CASES, what `run_case` returns under PyTorch: the results (as nested lists, dtypes
and shapes) or the error's type name and message. Inputs are small integer matrices written in the
case, so both libraries see the same numbers; the tests run the same `run_case` on Ember.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "linalg"
REFERENCE_PACKAGE = "torch"

SINGULAR = [[1.0, 2.0], [2.0, 4.0]]
SQUARE = [[4.0, 1.0, 2.0], [1.0, 5.0, 3.0], [2.0, 3.0, 6.0]]
WIDE = [[1.0, 2.0, 3.0], [4.0, 5.0, 7.0]]


def _steps(torch: Any, name: str) -> Any:
    L = torch.linalg
    t = lambda rows, **kw: torch.tensor(rows, **kw)  # noqa: E731
    cases = {
        "lu_factor": lambda: L.lu_factor(t(SQUARE)),
        "lu_factor_wide": lambda: L.lu_factor(t(WIDE)),
        "lu": lambda: L.lu(t(SQUARE)),
        "lu_solve": lambda: L.lu_solve(*L.lu_factor(t(SQUARE)), t([[1.0], [2.0], [3.0]])),
        "lu_solve_adjoint_right": lambda: L.lu_solve(*L.lu_factor(t(SQUARE)), t([[1.0, 2.0, 3.0]]), left=False,
                                                     adjoint=True),
        "slogdet_negative": lambda: L.slogdet(t([[0.0, 1.0], [1.0, 0.0]])),
        "logdet_negative": lambda: torch.logdet(t([[0.0, 1.0], [1.0, 0.0]])),
        "det_singular": lambda: L.det(t(SINGULAR)),
        "inv_ex_singular": lambda: L.inv_ex(t([[1.0, 2.0], [2.0, 4.0]]))[1],
        "cholesky_ex_info": lambda: L.cholesky_ex(t([[1.0, 2.0], [2.0, 1.0]]))[1],
        "solve_triangular_zero_diagonal": lambda: L.solve_triangular(t([[0.0, 1.0], [0.0, 2.0]]), t([[1.0], [1.0]]),
                                                                     upper=True),
        "qr_complete": lambda: [x.shape for x in L.qr(t(WIDE).T, mode="complete")],
        "qr_r": lambda: [x.shape for x in L.qr(t(WIDE), mode="r")],
        "svd_shapes": lambda: [x.shape for x in (*L.svd(t(WIDE)), *L.svd(t(WIDE), full_matrices=False))],
        "old_svd_shapes": lambda: [x.shape for x in (*torch.svd(t(WIDE)), *torch.svd(t(WIDE), compute_uv=False))],
        "lstsq_default": lambda: L.lstsq(t([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), t([[1.0], [2.0], [2.0]])),
        "lstsq_gelsd": lambda: L.lstsq(t([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]), t([[1.0], [2.0], [2.0]]),
                                       driver="gelsd"),
        "matrix_rank": lambda: [L.matrix_rank(t(SINGULAR)), L.matrix_rank(t(SQUARE)),
                                L.matrix_rank(t(SINGULAR), hermitian=True)],
        "pinv_singular": lambda: L.pinv(t(SINGULAR)),
        "matrix_power_zero": lambda: L.matrix_power(t(SQUARE), 0),
        "multi_dot_vectors": lambda: L.multi_dot([t([1.0, 2.0]), t([[1.0, 2.0], [3.0, 4.0]]), t([1.0, 1.0])]),
        "eigvalsh_upper": lambda: L.eigvalsh(t([[2.0, 1.0], [100.0, 3.0]]), UPLO="U"),
        "error_inv_singular": lambda: L.inv(t(SINGULAR)),
        "error_inv_batch": lambda: L.inv(torch.stack([torch.eye(2), t([[0.0, 0.0], [0.0, 0.0]])])),
        "error_inv_int": lambda: L.inv(t([[1, 2], [3, 4]])),
        "error_inv_half": lambda: L.inv(torch.eye(2, dtype=torch.float16)),
        "error_inv_vector": lambda: L.inv(t([1.0, 2.0])),
        "error_inv_rectangular": lambda: L.inv(t(WIDE)),
        "error_cholesky": lambda: L.cholesky(t([[1.0, 2.0], [2.0, 1.0]])),
        "error_cholesky_batch": lambda: L.cholesky(torch.stack([torch.eye(2), -torch.eye(2)])),
        "error_solve_singular": lambda: L.solve(t(SINGULAR), t([1.0, 1.0])),
        "error_solve_shapes": lambda: L.solve(torch.eye(2), t([1.0, 2.0, 3.0])),
        "error_solve_dtypes": lambda: L.solve(torch.eye(2), torch.ones(2, dtype=torch.float64)),
        "error_eigh_uplo": lambda: L.eigh(torch.eye(2), UPLO="X"),
        "error_qr_mode": lambda: L.qr(torch.eye(2), mode="x"),
        "error_lstsq_rows": lambda: L.lstsq(torch.ones(3, 2), torch.ones(4, 1)),
        "error_lu_factor_singular": lambda: L.lu_factor(t([[0.0, 0.0], [0.0, 0.0]])),
        "error_matrix_power_rectangular": lambda: L.matrix_power(t(WIDE), 2),
        "error_cross_length": lambda: L.cross(torch.ones(2, 2), torch.ones(2, 2)),
        "error_multi_dot_one": lambda: L.multi_dot([torch.ones(2)]),
        "error_multi_dot_shapes": lambda: L.multi_dot([torch.ones(2, 3), torch.ones(2, 3)]),
        "error_vecdot_dtypes": lambda: L.vecdot(torch.ones(2), torch.ones(2, dtype=torch.float64)),
        "error_det_half": lambda: L.det(torch.eye(2, dtype=torch.float16)),
        "error_cholesky_bfloat16": lambda: L.cholesky(torch.eye(2, dtype=torch.bfloat16)),
        "error_logdet_bfloat16": lambda: torch.logdet(torch.eye(2, dtype=torch.bfloat16)),
        "error_pinv_vector": lambda: L.pinv(torch.ones(3, dtype=torch.float64)),
        "error_matrix_rank_half": lambda: L.matrix_rank(torch.eye(2, dtype=torch.float16)),
        "error_svd_half": lambda: L.svdvals(torch.eye(2, dtype=torch.float16)),
        "geqrf": lambda: torch.geqrf(t(SQUARE)),
        "geqrf_wide": lambda: torch.geqrf(t(WIDE)),
        "geqrf_empty": lambda: torch.geqrf(torch.zeros(0, 3)),
        "householder_product_fewer": lambda: L.householder_product(t(SQUARE), t([0.5, 1.5])),
        "error_geqrf_vector": lambda: torch.geqrf(t([1.0, 2.0])),
        "error_geqrf_int": lambda: torch.geqrf(t([[1, 2], [3, 4]])),
        "error_geqrf_half": lambda: torch.geqrf(torch.eye(2, dtype=torch.float16)),
        "error_householder_vector": lambda: L.householder_product(t([1.0, 2.0]), t([1.0])),
        "error_householder_wide": lambda: L.householder_product(t(WIDE), t([1.0])),
        "error_householder_tau_long": lambda: L.householder_product(t(SQUARE), t([1.0, 1.0, 1.0, 1.0])),
        "error_householder_tau_ndim": lambda: L.householder_product(t(SQUARE), t([[1.0]])),
        "error_householder_tau_batch": lambda: L.householder_product(torch.ones(2, 3, 3), torch.ones(3, 3)),
        "error_householder_dtypes": lambda: L.householder_product(t(SQUARE), t([1.0], dtype=torch.float64)),
        "error_householder_int": lambda: L.householder_product(t([[1, 2], [3, 4]]), t([1])),
        "error_householder_half": lambda: L.householder_product(torch.eye(2).half(), t([1.0]).half()),
        "error_householder_tau_0d": lambda: L.householder_product(t(SQUARE), t(1.0)),
    }
    return cases[name]()


CASES = ("lu_factor", "lu_factor_wide", "lu", "lu_solve", "lu_solve_adjoint_right", "slogdet_negative",
         "logdet_negative", "det_singular", "inv_ex_singular", "cholesky_ex_info", "solve_triangular_zero_diagonal",
         "qr_complete", "qr_r", "svd_shapes", "old_svd_shapes", "lstsq_default", "lstsq_gelsd", "matrix_rank",
         "pinv_singular", "matrix_power_zero", "multi_dot_vectors", "eigvalsh_upper", "error_inv_singular",
         "error_inv_batch", "error_inv_int", "error_inv_half", "error_inv_vector", "error_inv_rectangular",
         "error_cholesky", "error_cholesky_batch", "error_solve_singular", "error_solve_shapes", "error_solve_dtypes",
         "error_eigh_uplo", "error_qr_mode", "error_lstsq_rows", "error_lu_factor_singular",
         "error_matrix_power_rectangular", "error_cross_length", "error_multi_dot_one", "error_multi_dot_shapes",
         "error_vecdot_dtypes", "error_det_half", "error_cholesky_bfloat16", "error_logdet_bfloat16", "error_pinv_vector",
         "error_matrix_rank_half", "error_svd_half", "geqrf", "geqrf_wide", "geqrf_empty", "householder_product_fewer",
         "error_geqrf_vector", "error_geqrf_int", "error_geqrf_half", "error_householder_vector",
         "error_householder_wide", "error_householder_tau_long", "error_householder_tau_ndim",
         "error_householder_tau_batch", "error_householder_dtypes", "error_householder_int",
         "error_householder_half", "error_householder_tau_0d")


def _plain(torch: Any, value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return {"dtype": str(value.dtype), "shape": list(value.shape), "values": value.tolist()}
    if isinstance(value, torch.Size):
        return list(value)
    if isinstance(value, (list, tuple)):
        return [_plain(torch, v) for v in value]
    return value


def run_case(torch: Any, name: str) -> dict[str, Any]:
    try:
        return {"result": _plain(torch, _steps(torch, name))}
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "linalg.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
