"""Record PyTorch's instance normalisation for the InstanceNorm tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_instance_norm_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`instance_norm.json`: for each case of CASES, what `run_case` returns under PyTorch: the outputs of
two training passes and an evaluation pass of an InstanceNorm module over seeded inputs, the
gradients of the input and parameters, and the running statistics after them.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "norms"
REFERENCE_PACKAGE = "torch"
CASES: list[tuple[str, list[int], dict[str, Any]]] = [
    ("InstanceNorm1d", [2, 3, 5], {}), ("InstanceNorm1d", [3, 6], {"affine": True}),
    ("InstanceNorm2d", [2, 3, 4, 4], {"affine": True, "track_running_stats": True, "momentum": 0.3}),
    ("InstanceNorm2d", [2, 3, 3, 5], {"track_running_stats": True, "momentum": None}),
    ("InstanceNorm3d", [1, 2, 3, 2, 4], {"affine": True, "eps": 1e-3}),
]


def run_case(torch: Any, name: str, shape: list[int], options: dict[str, Any]) -> dict[str, Any]:
    torch.manual_seed(0)
    batched = len(shape) == int(name[-2]) + 2
    module = getattr(torch.nn, name)(shape[1] if batched else shape[0], **options)
    if module.affine:
        with torch.no_grad():
            module.weight.copy_(torch.rand(module.num_features) + 0.5)
            module.bias.copy_(torch.randn(module.num_features))
    outs, grads = [], []
    for _ in range(2):
        x = (torch.randn(shape) * 3 + 1).requires_grad_()
        y = module(x)
        (y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        outs.append(y.detach().reshape(-1).tolist())
        grads.append(x.grad.reshape(-1).tolist())
    module.eval()
    outs.append(module(torch.randn(shape)).detach().reshape(-1).tolist())
    stats = {k: v.reshape(-1).tolist() for k, v in module.state_dict().items() if k != "num_batches_tracked"}
    params = [p.grad.reshape(-1).tolist() for p in module.parameters()]
    return {"outs": outs, "grads": grads, "state": stats, "param_grads": params}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = [{"name": n, "shape": s, "options": o, "result": run_case(torch, n, s, o)} for n, s, o in CASES]
    path = out_dir / "instance_norm.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
