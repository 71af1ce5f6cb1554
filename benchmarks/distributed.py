"""torch.distributed on 2 local ranks (issue 28): all_reduce latency (8 B, 1 KB) and bandwidth (64 KB to 64 MB)
beside raw mpi4py's Allreduce on the same MPI (targets: at most 10 us for 1 KB, at least 80% of mpi4py's
bandwidth at 16 MB), and a DistributedDataParallel training step; with --compare-python, the same under another
interpreter's PyTorch (its Gloo backend).

    python -m benchmarks.distributed [--compare-python PATH] [--repeat N] [--quick]

Each implementation runs in its own processes: this file is started under the interpreter (from an empty
directory for the compared one, so that its `import torch` is that install's), spawns 2 ranks with
torch.multiprocessing, and prints one JSON line; raw mpi4py runs under mpiexec with no torch at all. Each rank
uses one thread (two ranks on two cores). Times are rank 0's per operation, the median of the repeats.
Like suite.py, the rank code uses the public torch API only.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

SIZES = [8, 1 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20]
THIS = Path(__file__).resolve()
REPO = THIS.parents[1]


def _reps(nbytes: int, quick: bool) -> int:
    reps = 2000 if nbytes <= 1 << 10 else 400 if nbytes <= 64 << 10 else 40 if nbytes <= 1 << 20 else 4
    return max(1, reps // 20) if quick else reps


def _median_time(op: Callable[[], Any], barrier: Callable[[], Any], reps: int, repeat: int) -> float:
    """Seconds per op, median over repeat loops of reps each (every loop starts after a barrier)."""
    op()
    times = []
    for _ in range(repeat):
        barrier()
        start = time.perf_counter()
        for _ in range(reps):
            op()
        times.append((time.perf_counter() - start) / reps)
    return statistics.median(times)


# -- rank code -----------------------------------------------------------------------------------------------------
def _all_reduce_rank(rank: int, init_method: str, out: str, repeat: int, quick: bool) -> None:
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=init_method, rank=rank, world_size=2)
    rows = {}
    for nbytes in SIZES[:4] if quick else SIZES:
        t = torch.ones(max(1, nbytes // 4))
        rows[nbytes] = _median_time(lambda: dist.all_reduce(t), dist.barrier, _reps(nbytes, quick), repeat)
    rows["ddp_step"] = _ddp_step_time(torch, dist, repeat, quick)
    if rank == 0:
        Path(out).write_text(json.dumps(rows))
    dist.destroy_process_group()


def _ddp_step_time(torch: Any, dist: Any, repeat: int, quick: bool) -> float:
    """One SGD step of a 4-layer MLP (2.9 M parameters: 11.7 MB of gradients in DDP's buckets), batch 32."""
    torch.manual_seed(0)
    layers = [torch.nn.Linear(784, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
              torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 10)]
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(*layers))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 784), torch.randint(0, 10, (32,))

    def step() -> None:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return _median_time(step, dist.barrier, 3 if quick else 20, repeat)


def _mpi4py_rank(out: str, repeat: int, quick: bool) -> None:
    import numpy as np
    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rows = {}
    for nbytes in SIZES[:4] if quick else SIZES:
        a = np.ones(max(1, nbytes // 4), np.float32)
        rows[nbytes] = _median_time(lambda: comm.Allreduce(MPI.IN_PLACE, a), comm.Barrier, _reps(nbytes, quick),
                                    repeat)
    if comm.Get_rank() == 0:
        Path(out).write_text(json.dumps(rows))


def _serve(repeat: int, quick: bool, out: str) -> None:
    """Under the interpreter measured: 2 spawned ranks, their results written to out."""
    import torch
    import torch.multiprocessing as mp
    with tempfile.TemporaryDirectory() as tmp:
        mp.spawn(_all_reduce_rank, args=(f"file://{tmp}/rendezvous", out, repeat, quick), nprocs=2)
    meta = json.loads(Path(out).read_text())
    meta["version"] = torch.__version__
    Path(out).write_text(json.dumps(meta))


# -- the driver ----------------------------------------------------------------------------------------------------
def _run(command: list[str], cwd: str, env: dict[str, str], out: str) -> dict[str, Any]:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return json.loads(Path(out).read_text())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.distributed", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--compare-python", metavar="PATH", help="another interpreter's PyTorch (its Gloo backend)")
    p.add_argument("--repeat", type=int, default=5, metavar="N", help="timed loops per figure (default 5)")
    p.add_argument("--quick", action="store_true", help="small sizes and short loops: a smoke test")
    p.add_argument("--serve", metavar="OUT", help=argparse.SUPPRESS)
    p.add_argument("--mpi4py", metavar="OUT", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        _serve(args.repeat, args.quick, args.serve)
        return 0
    if args.mpi4py:
        _mpi4py_rank(args.mpi4py, args.repeat, args.quick)
        return 0
    flags = ["--repeat", str(args.repeat)] + (["--quick"] if args.quick else [])
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    with tempfile.TemporaryDirectory(prefix="ember-dist-bench-") as tmp:
        ember_env = {**clean, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
        results = {"Ember": _run([sys.executable, str(THIS), *flags, "--serve", f"{tmp}/ember.json"], str(REPO),
                                 ember_env, f"{tmp}/ember.json")}
        mpiexec = str(Path(sys.executable).parent / "mpiexec")
        results["mpi4py"] = _run([mpiexec, "-n", "2", sys.executable, str(THIS), *flags, "--mpi4py",
                                  f"{tmp}/raw.json"], tmp, clean, f"{tmp}/raw.json")
        if args.compare_python:
            results["PyTorch"] = _run([args.compare_python, str(THIS), *flags, "--serve", f"{tmp}/torch.json"],
                                      tmp, {**clean, "OMP_NUM_THREADS": "1"}, f"{tmp}/torch.json")
    _print(results)
    return 0


def _print(results: dict[str, dict[str, Any]]) -> None:
    names = list(results)
    print("all_reduce of float32 on 2 local ranks: time per call (bandwidth: bytes / time)")
    print(f"{'size':>8}  " + "  ".join(f"{n:>22}" for n in names) + "  Ember/mpi4py bandwidth")
    for nbytes in SIZES:
        key = str(nbytes)
        if key not in results["Ember"]:
            continue
        cells = []
        for name in names:
            seconds = results[name].get(key)
            cells.append(f"{seconds * 1e6:10.1f} us {nbytes / seconds / 1e9:6.2f} GB/s" if seconds else f"{'-':>22}")
        share = results["mpi4py"][key] / results["Ember"][key]
        print(f"{_size(nbytes):>8}  " + "  ".join(cells) + f"  {share:6.0%}")
    line = f"DDP step (MLP of 2.9 M parameters, batch 32 per rank): Ember {results['Ember']['ddp_step'] * 1e3:.1f} ms"
    if "PyTorch" in results:
        torch_step = results["PyTorch"]["ddp_step"]
        line += f", PyTorch {results['PyTorch']['version']} {torch_step * 1e3:.1f} ms " \
                f"(ratio {torch_step / results['Ember']['ddp_step']:.2f})"
    print(line)


def _size(nbytes: int) -> str:
    return f"{nbytes >> 20} MB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KB" if nbytes >= 1 << 10 else f"{nbytes} B"


if __name__ == "__main__":
    sys.exit(main())
