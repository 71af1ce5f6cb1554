"""Record PyTorch's F.interpolate results for the interpolation tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_interpolate_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`interpolate.json`: for each case of CASES, what `run_case` returns under PyTorch: the output of
F.interpolate on a seeded input and the input's gradient for a seeded output gradient, or the error's
type and message. The inputs come from torch.manual_seed, which Ember reproduces bit for bit; the
tests run the same `run_case` on Ember and compare.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "interpolate"
REFERENCE_PACKAGE = "torch"

# name -> (input shape, dtype, interpolate's keyword arguments)
SPECS: dict[str, tuple[tuple[int, ...], str, dict[str, Any]]] = {
    "nearest1d_size": ((2, 3, 5), "float32", {"size": 8}),
    "nearest1d_scale": ((2, 3, 5), "float64", {"scale_factor": 1.7}),
    "nearest2d_double": ((1, 2, 3, 4), "float32", {"scale_factor": 2}),
    "nearest2d_down": ((1, 2, 7, 9), "float32", {"size": (3, 4)}),
    "nearest3d_mixed": ((1, 2, 3, 4, 5), "float32", {"scale_factor": (1.5, 0.75, 2.0)}),
    "nearest_exact1d": ((2, 2, 6), "float32", {"size": 9, "mode": "nearest-exact"}),
    "nearest_exact2d_scale": ((1, 2, 5, 6), "float64", {"scale_factor": 1.3, "mode": "nearest-exact"}),
    "nearest_exact3d": ((1, 1, 3, 4, 5), "float32", {"size": (4, 3, 7), "mode": "nearest-exact"}),
    "linear_size": ((2, 3, 5), "float32", {"size": 11, "mode": "linear"}),
    "linear_align": ((2, 3, 5), "float64", {"size": 11, "mode": "linear", "align_corners": True}),
    "linear_scale_recompute": ((1, 2, 7), "float32", {"scale_factor": 1.45, "mode": "linear",
                                                      "recompute_scale_factor": True}),
    "linear_scale": ((1, 2, 7), "float32", {"scale_factor": 1.45, "mode": "linear"}),
    "bilinear_up": ((2, 3, 4, 5), "float32", {"size": (7, 9), "mode": "bilinear"}),
    "bilinear_down_align": ((1, 2, 9, 8), "float64", {"size": (4, 3), "mode": "bilinear", "align_corners": True}),
    "bilinear_scale": ((1, 2, 5, 5), "float32", {"scale_factor": (2.5, 0.6), "mode": "bilinear"}),
    "bilinear_same_size": ((1, 2, 4, 4), "float32", {"size": (4, 4), "mode": "bilinear"}),
    "bilinear_bfloat16": ((1, 2, 4, 5), "bfloat16", {"size": (6, 7), "mode": "bilinear"}),
    "bicubic_up": ((1, 2, 4, 5), "float32", {"size": (9, 7), "mode": "bicubic"}),
    "bicubic_align": ((1, 2, 4, 5), "float64", {"scale_factor": 1.8, "mode": "bicubic", "align_corners": True}),
    "bicubic_down": ((2, 1, 9, 10), "float64", {"size": (4, 6), "mode": "bicubic"}),
    "trilinear_up": ((1, 2, 3, 4, 5), "float32", {"size": (5, 6, 7), "mode": "trilinear"}),
    "trilinear_align_scale": ((1, 1, 4, 3, 5), "float64", {"scale_factor": 1.5, "mode": "trilinear",
                                                           "align_corners": True}),
    "area2d": ((1, 2, 8, 9), "float32", {"size": (3, 4), "mode": "area"}),
    "area1d_scale": ((1, 2, 10), "float64", {"scale_factor": 0.5, "mode": "area"}),
    "error_align_nearest": ((1, 2, 4, 4), "float32", {"scale_factor": 2, "align_corners": True}),
    "error_both": ((1, 2, 4, 4), "float32", {"size": 3, "scale_factor": 2}),
    "error_neither": ((1, 2, 4, 4), "float32", {}),
    "error_size_length": ((1, 2, 4, 4), "float32", {"size": (3, 4, 5)}),
    "error_scale_length": ((1, 2, 4), "float32", {"scale_factor": (2, 2)}),
    "error_size_type": ((1, 2, 4, 4), "float32", {"size": (3, 3.0)}),
    "error_recompute_with_size": ((1, 2, 4), "float32", {"size": 3, "recompute_scale_factor": True}),
    "error_bilinear_3d": ((1, 2, 4), "float32", {"size": 3, "mode": "bilinear"}),
    "error_linear_4d": ((1, 2, 4, 4), "float32", {"size": 3, "mode": "linear"}),
    "error_trilinear_4d": ((1, 2, 4, 4), "float32", {"size": 3, "mode": "trilinear"}),
    "error_2d_input": ((2, 4), "float32", {"size": 3}),
    "error_unknown_mode": ((1, 2, 4, 4), "float32", {"size": 3, "mode": "cubic"}),
    "error_antialias_nearest": ((1, 2, 4, 4), "float32", {"size": 3, "antialias": True}),
    "error_lanczos_needs_antialias": ((1, 2, 4, 4), "float32", {"size": 3, "mode": "lanczos"}),
    "error_zero_output": ((1, 2, 4, 4), "float32", {"size": (0, 3), "mode": "bilinear"}),
    "error_integer_bilinear": ((1, 2, 4, 4), "int64", {"size": 3, "mode": "bilinear"}),
    "error_integer_nearest1d": ((1, 2, 4), "int32", {"size": 3}),
    "error_empty_channels": ((1, 0, 4), "float32", {"size": 3, "mode": "linear"}),
}
CASES = tuple(SPECS)


def run_case(torch: Any, name: str) -> dict[str, Any]:
    shape, dtype_name, kwargs = SPECS[name]
    dtype = getattr(torch, dtype_name)
    torch.manual_seed(0)
    if dtype.is_floating_point:
        x = torch.randn(shape, dtype=torch.float64).to(dtype).requires_grad_()
    else:
        x = torch.randint(0, 9, shape, dtype=dtype)
    try:
        y = torch.nn.functional.interpolate(x, **kwargs)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    grad = torch.randn(y.shape, dtype=torch.float64).to(dtype)
    y.backward(grad)
    return {"output": y.detach().double().tolist(), "grad": x.grad.double().tolist(), "dtype": str(y.dtype)}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "interpolate.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
