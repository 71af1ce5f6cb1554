"""Record PyTorch's DistributedSampler for the sampler tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_distributed_sampler_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`distributed_sampler.json`: for each configuration of CONFIGS, each rank's indices over two epochs
and its length, or the error type and message PyTorch raises.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "samplers"
REFERENCE_PACKAGE = "torch"
# (dataset length, num_replicas, rank or None for every rank, shuffle, seed, drop_last)
CONFIGS: list[tuple[int, int, int | None, bool, int, bool]] = [
    (10, 3, None, False, 0, False), (10, 3, None, True, 0, False), (10, 3, None, True, 7, True),
    (10, 3, None, False, 0, True), (2, 5, None, True, 0, False), (0, 2, None, True, 0, False),
    (100, 4, None, True, 3, False), (10, 3, 3, False, 0, False), (10, 3, -1, False, 0, False),
]


def sample(torch: Any, length: int, replicas: int, rank: int, shuffle: bool, seed: int,
           drop_last: bool) -> dict[str, Any]:
    module = importlib.import_module(torch.__name__ + ".utils.data.distributed")
    try:
        sampler = module.DistributedSampler(list(range(length)), num_replicas=replicas, rank=rank, shuffle=shuffle,
                                            seed=seed, drop_last=drop_last)
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}
    epochs = []
    for epoch in range(2):
        sampler.set_epoch(epoch)
        epochs.append(list(sampler))
    return {"len": len(sampler), "epochs": epochs}


def record(torch: Any) -> list[dict[str, Any]]:
    out = []
    for length, replicas, rank, shuffle, seed, drop_last in CONFIGS:
        ranks = range(replicas) if rank is None else [rank]
        out.append({"config": [length, replicas, rank, shuffle, seed, drop_last],
                    "ranks": [sample(torch, length, replicas, r, shuffle, seed, drop_last) for r in ranks]})
    return out


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "distributed_sampler.json").write_text(json.dumps({"torch": torch.__version__, "configs": record(torch)},
                                                                 indent=1) + "\n")
    print(f"wrote {out_dir / 'distributed_sampler.json'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
