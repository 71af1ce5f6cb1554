"""Record PyTorch's 3-d, adaptive-max, unpooling and power-average pooling results (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_pooling_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `pooling.json`:
for each case of CASES, what `run_case` returns under PyTorch: the outputs (and indices) of the pool on
a seeded input and the input's gradient for a seeded output gradient, or the error's type and message.
Inputs come from torch.manual_seed, which Ember reproduces bit for bit; the tests run the same run_case.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "pooling"
REFERENCE_PACKAGE = "torch"

# name -> (input shape, function name in torch.nn.functional, positional args, keyword args)
SPECS: dict[str, tuple[tuple[int, ...], str, tuple[Any, ...], dict[str, Any]]] = {
    "max_pool3d": ((2, 2, 5, 6, 7), "max_pool3d", (2,), {"return_indices": True}),
    "max_pool3d_strided_padded": ((1, 2, 6, 5, 7), "max_pool3d", ((3, 2, 3),), {"stride": (2, 1, 2), "padding": 1,
                                                                              "return_indices": True}),
    "max_pool3d_dilated_ceil": ((1, 1, 7, 7, 6), "max_pool3d", (2,), {"stride": 2, "dilation": 2, "ceil_mode": True,
                                                                      "return_indices": True}),
    "max_pool3d_unbatched": ((2, 4, 4, 4), "max_pool3d", (2,), {"return_indices": True}),
    "avg_pool3d": ((2, 2, 5, 6, 7), "avg_pool3d", (2,), {}),
    "avg_pool3d_padded_exclude": ((1, 2, 5, 6, 4), "avg_pool3d", (3,), {"stride": 2, "padding": 1,
                                                                      "count_include_pad": False}),
    "avg_pool3d_ceil_include": ((1, 1, 6, 5, 7), "avg_pool3d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}),
    "avg_pool3d_divisor": ((1, 2, 4, 4, 4), "avg_pool3d", (2,), {"divisor_override": 3}),
    "adaptive_avg_pool3d": ((2, 2, 5, 7, 6), "adaptive_avg_pool3d", ((2, 3, None),), {}),
    "adaptive_max_pool1d": ((2, 3, 10), "adaptive_max_pool1d", (4,), {"return_indices": True}),
    "adaptive_max_pool2d": ((2, 3, 7, 9), "adaptive_max_pool2d", ((3, 4),), {"return_indices": True}),
    "adaptive_max_pool2d_even": ((1, 2, 8, 6), "adaptive_max_pool2d", ((4, 3),), {"return_indices": True}),
    "adaptive_max_pool3d": ((1, 2, 5, 6, 7), "adaptive_max_pool3d", ((2, 3, 4),), {"return_indices": True}),
    "lp_pool1d": ((2, 3, 9), "lp_pool1d", (2.0, 3), {"stride": 2}),
    "lp_pool2d": ((1, 2, 6, 6), "lp_pool2d", (3.0, 2), {}),
    "lp_pool3d": ((1, 2, 4, 4, 6), "lp_pool3d", (2.0, (2, 2, 3)), {}),
    "error_max_pool3d_dims": ((3, 4), "max_pool3d", (2,), {}),
    "error_max_pool3d_kernel": ((1, 2, 4, 4, 4), "max_pool3d", ((2, 2),), {}),
    "error_max_pool3d_pad": ((1, 2, 4, 4, 4), "max_pool3d", (3,), {"padding": 2}),
    "error_max_pool3d_small": ((1, 3, 2, 2, 2), "max_pool3d", (3,), {}),
    "error_avg_pool3d_small": ((1, 3, 2, 2, 2), "avg_pool3d", (3,), {}),
    "error_adaptive_max_pool2d_dims": ((3,), "adaptive_max_pool2d", (2,), {}),
    "error_adaptive_avg_pool3d_dims": ((3, 4), "adaptive_avg_pool3d", (2,), {}),
    "error_max_pool3d_stride": ((1, 1, 4, 4, 4), "max_pool3d", (2,), {"stride": 0}),
    "error_avg_pool3d_kernel": ((1, 1, 4, 4, 4), "avg_pool3d", (0,), {}),
    "lp_pool2d_inf": ((1, 2, 4, 6), "lp_pool2d", (float("inf"), 2), {}),
    "lp_pool1d_minus_inf": ((1, 2, 6), "lp_pool1d", (float("-inf"), 2), {}),
}
CASES = tuple(SPECS) + ("max_unpool2d_round_trip", "max_unpool1d_round_trip", "max_unpool3d_round_trip",
                        "error_max_unpool2d_index", "error_max_unpool2d_size")


def _unpool(torch: Any, name: str) -> Any:
    F = torch.nn.functional  # noqa: N806 (PyTorch's spelling)
    torch.manual_seed(0)
    if name == "max_unpool1d_round_trip":
        x = torch.randn(2, 3, 8, dtype=torch.float64, requires_grad=True)
        out, idx = F.max_pool1d(x, 2, return_indices=True)
        return x, F.max_unpool1d(out, idx, 2)
    if name == "max_unpool3d_round_trip":
        x = torch.randn(1, 2, 4, 4, 6, dtype=torch.float64, requires_grad=True)
        out, idx = F.max_pool3d(x, 2, return_indices=True)
        return x, F.max_unpool3d(out, idx, 2)
    x = torch.randn(1, 2, 5, 6, dtype=torch.float64, requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    if name == "error_max_unpool2d_index":
        return x, F.max_unpool2d(out, idx * 10, 2)
    if name == "error_max_unpool2d_size":
        return x, F.max_unpool2d(out, idx, 2, output_size=(9, 9))
    return x, F.max_unpool2d(out, idx, 2, output_size=(5, 6))


def run_case(torch: Any, name: str) -> dict[str, Any]:
    try:
        if name in SPECS:
            shape, fn, args, kwargs = SPECS[name]
            torch.manual_seed(0)
            x = torch.randn(shape, dtype=torch.float64, requires_grad=True)
            result = getattr(torch.nn.functional, fn)(x, *args, **kwargs)
        else:
            x, result = _unpool(torch, name)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    out, indices = result if isinstance(result, tuple) else (result, None)
    out.backward(torch.randn(out.shape, dtype=torch.float64))
    return {"output": out.tolist(), "indices": None if indices is None else indices.tolist(),
            "grad": x.grad.tolist()}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "pooling.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
