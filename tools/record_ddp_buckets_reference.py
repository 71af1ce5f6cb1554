"""Record how PyTorch's DistributedDataParallel lays out its gradient buckets, for the bucket tests (needs a real
PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_ddp_buckets_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `ddp_buckets.json`: for
each configuration of CONFIGS, the buckets a communication hook is handed in each of three iterations (their
index and their parameters' names, in order), on one rank of a gloo group (the layout does not depend on the
group's size).
"""
from __future__ import annotations

import importlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "distributed" / "data"
REFERENCE_PACKAGE = "torch"
# DistributedDataParallel keyword arguments per configuration
CONFIGS: dict[str, dict[str, Any]] = {
    "default": {}, "find_unused": {"find_unused_parameters": True}, "small_cap": {"bucket_cap_mb": 0.5},
    "small_cap_find_unused": {"bucket_cap_mb": 0.5, "find_unused_parameters": True},
    "static_graph": {"static_graph": True, "bucket_cap_mb": 0.5}, "cap_list": {"bucket_cap_mb_list": [1, 1]},
    "mixed_dtypes": {"bucket_cap_mb": 0.5},
}


def _model(torch: Any, mixed: bool) -> Any:
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a, self.b = nn.Linear(300, 400), nn.Linear(400, 500)
            self.c, self.d = nn.Linear(500, 10), nn.Linear(10, 10)

        def forward(self, x: Any) -> Any:
            hidden = torch.relu(self.b(torch.relu(self.a(x))))
            return self.d(self.c(hidden.to(self.c.weight.dtype)).to(self.d.weight.dtype))

    torch.manual_seed(0)
    net = Net()
    if mixed:
        net.c.double()
    return net


def record(torch: Any) -> dict[str, list[list[list[Any]]]]:
    """{configuration: per iteration, the buckets handed to the hook as [index, [parameter names]]}; the caller
    has a process group of one rank."""
    layouts = {}
    for name, kwargs in CONFIGS.items():
        model = _model(torch, name == "mixed_dtypes")
        names = {id(p): n for n, p in model.named_parameters()}
        ddp = torch.nn.parallel.DistributedDataParallel(model, **kwargs)
        seen: list[list[Any]] = []

        def hook(state, bucket, seen=seen):      # (PyTorch refuses a bucket annotation other than GradBucket)
            seen.append([bucket.index(), [names[id(p)] for p in bucket.parameters()]])
            future = torch.futures.Future()
            future.set_result(bucket.buffer())
            return future
        ddp.register_comm_hook(None, hook)
        iterations = []
        for _ in range(3):
            seen.clear()
            ddp(torch.randn(2, 300)).sum().backward()
            iterations.append(list(seen))
        layouts[name] = iterations
    return layouts


def in_one_rank_group(torch: Any, run: Any) -> Any:
    """run() inside a gloo process group of one rank (file rendezvous), destroyed after."""
    dist = torch.distributed
    with tempfile.TemporaryDirectory() as directory:
        dist.init_process_group("gloo", init_method=f"file://{directory}/rendezvous", rank=0, world_size=1)
        try:
            return run()
        finally:
            dist.destroy_process_group()


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    layouts = in_one_rank_group(torch, lambda: record(torch))
    (out_dir / "ddp_buckets.json").write_text(json.dumps({"torch": torch.__version__, "layouts": layouts},
                                                         indent=1) + "\n")
    print(f"wrote {out_dir / 'ddp_buckets.json'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
