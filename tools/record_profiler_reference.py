"""Record PyTorch's torch.profiler.schedule actions for the profiler tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_profiler_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`schedule.json`: for each keyword set of SCHEDULES, the action names of steps 0..STEPS-1.
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "profiler"
REFERENCE_PACKAGE = "torch"
STEPS = 24
SCHEDULES: list[dict[str, int]] = [
    {"wait": 1, "warmup": 1, "active": 2}, {"wait": 1, "warmup": 1, "active": 2, "repeat": 1},
    {"wait": 2, "warmup": 1, "active": 3, "repeat": 2, "skip_first": 3}, {"wait": 0, "warmup": 0, "active": 1},
    {"wait": 2, "warmup": 2, "active": 1, "repeat": 3, "skip_first_wait": 1},
    {"wait": 1, "warmup": 2, "active": 2, "skip_first": 2, "skip_first_wait": 1},
]


def actions(torch: Any, keywords: dict[str, int]) -> list[str]:
    profiler = importlib.import_module(torch.__name__ + ".profiler")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = profiler.schedule(**keywords)
    return [fn(step).name for step in range(STEPS)]


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = [{"schedule": keywords, "actions": actions(torch, keywords)} for keywords in SCHEDULES]
    (out_dir / "schedule.json").write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {out_dir / 'schedule.json'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
