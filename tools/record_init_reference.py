"""Record PyTorch's torch.nn.init.orthogonal_ draws (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_init_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `init.json`: for
each case of CASES, the tensor `run_case` fills after torch.manual_seed(0), which Ember reproduces bit
for bit (the normal draws; the QR runs on each library's LAPACK, so the tests allow a few roundings).
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "init"
REFERENCE_PACKAGE = "torch"

SHAPES = {"orthogonal_tall": ((6, 4), "float32"), "orthogonal_wide": ((3, 5), "float32"),
          "orthogonal_conv": ((4, 2, 3), "float64"), "orthogonal_square": ((8, 8), "float32")}
CASES = tuple(SHAPES)


def run_case(torch: Any, name: str) -> list[Any]:
    shape, dtype = SHAPES[name]
    torch.manual_seed(0)
    tensor = torch.empty(shape, dtype=getattr(torch, dtype))
    return torch.nn.init.orthogonal_(tensor, gain=2.0).tolist()


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "init.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
