"""Record PyTorch's F.grid_sample, F.affine_grid, F.unfold and F.fold results (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_spatial_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `spatial.json`:
for each case of CASES, what `run_case` returns under PyTorch: the outputs and the gradients of every
floating input for a seeded output gradient, or the error's type and message. Inputs come from
torch.manual_seed, which Ember reproduces bit for bit; the tests run the same `run_case` on Ember.
"""
from __future__ import annotations

import importlib
import itertools
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "spatial"
REFERENCE_PACKAGE = "torch"

GRID_CASES = tuple(f"grid_sample_{m}_{p}_{a}" for m, p, a in itertools.product(
    ("bilinear", "nearest", "bicubic"), ("zeros", "border", "reflection"), ("aligned", "unaligned")))
GRID3D_CASES = tuple(f"grid_sample3d_{m}_{p}" for m, p in itertools.product(("bilinear", "nearest"),
                                                                            ("zeros", "border", "reflection")))
OTHER_CASES = ("affine_grid_2d", "affine_grid_2d_aligned", "affine_grid_3d", "unfold", "unfold_unbatched", "fold",
               "fold_unbatched", "error_grid_batch", "error_grid_last_dim", "error_grid_dtype", "error_bicubic_3d",
               "error_grid_mode", "error_affine_shape", "error_affine_size", "error_unfold_small",
               "error_unfold_kernel", "error_fold_channels", "error_fold_blocks", "error_fold_dims")
CASES = GRID_CASES + GRID3D_CASES + OTHER_CASES


def _inputs(torch: Any, name: str) -> tuple[Any, Any]:
    """(function of the inputs, inputs) for the case."""
    F = torch.nn.functional  # noqa: N806 (PyTorch's spelling)
    r = lambda *shape: torch.randn(*shape, dtype=torch.float64)  # noqa: E731
    grid = lambda *shape: torch.rand(*shape, dtype=torch.float64) * 2.4 - 1.2  # noqa: E731
    if name.startswith("grid_sample3d_"):
        _, _, mode, pad = name.split("_")
        return (lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=False)), \
            [r(1, 2, 3, 4, 5), grid(1, 2, 3, 4, 3)]
    if name.startswith("grid_sample_"):
        _, _, mode, pad, align = name.split("_")
        return (lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=align == "aligned")), \
            [r(2, 3, 5, 6), grid(2, 4, 7, 2)]
    cases: dict[str, Any] = {
        "affine_grid_2d": (lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=False), [r(2, 2, 3)]),
        "affine_grid_2d_aligned": (lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=True), [r(2, 2, 3)]),
        "affine_grid_3d": (lambda t: F.affine_grid(t, [1, 1, 2, 3, 4], align_corners=False), [r(1, 3, 4)]),
        "unfold": (lambda x: F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [r(2, 3, 6, 7)]),
        "unfold_unbatched": (lambda x: F.unfold(x, 2), [r(2, 3, 4)]),
        "fold": (lambda c: F.fold(c, (6, 7), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), [r(2, 18, 20)]),
        "fold_unbatched": (lambda c: F.fold(c, (3, 4), 2), [r(8, 6)]),
        "error_grid_batch": (lambda x, g: F.grid_sample(x, g, align_corners=False), [r(1, 2, 3, 3), r(2, 2, 2, 2)]),
        "error_grid_last_dim": (lambda x, g: F.grid_sample(x, g, align_corners=False), [r(1, 2, 3, 3), r(1, 2, 2, 3)]),
        "error_grid_dtype": (lambda x, g: F.grid_sample(x, g.float(), align_corners=False),
                             [r(1, 2, 3, 3), r(1, 2, 2, 2)]),
        "error_bicubic_3d": (lambda x, g: F.grid_sample(x, g, mode="bicubic", align_corners=False),
                             [r(1, 2, 3, 3, 3), r(1, 2, 2, 2, 3)]),
        "error_grid_mode": (lambda x, g: F.grid_sample(x, g, mode="linear", align_corners=False),
                            [r(1, 2, 3, 3), r(1, 2, 2, 2)]),
        "error_affine_shape": (lambda t: F.affine_grid(t, [2, 3, 4, 5], align_corners=False), [r(2, 3, 3)]),
        "error_affine_size": (lambda t: F.affine_grid(t, [2, 3, 4], align_corners=False), [r(2, 2, 3)]),
        "error_unfold_small": (lambda x: F.unfold(x, 5), [r(1, 2, 3, 3)]),
        "error_unfold_kernel": (lambda x: F.unfold(x, 0), [r(1, 2, 3, 3)]),
        "error_fold_channels": (lambda c: F.fold(c, 4, 2), [r(1, 5, 9)]),
        "error_fold_blocks": (lambda c: F.fold(c, 4, 2), [r(1, 8, 8)]),
        "error_fold_dims": (lambda c: F.fold(c, 4, 2), [r(2, 8, 9, 1)]),
    }
    return cases[name]


def run_case(torch: Any, name: str) -> dict[str, Any]:
    torch.manual_seed(0)
    fn, inputs = _inputs(torch, name)
    inputs = [t.requires_grad_() for t in inputs]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(*inputs)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    out.backward(torch.linspace(-1, 1, out.numel(), dtype=out.dtype).reshape(out.shape))
    return {"output": out.tolist(), "grads": [t.grad.tolist() for t in inputs]}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "spatial.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
