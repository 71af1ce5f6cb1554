"""Peak memory of torch.load on a large compressed checkpoint: a record should stream into its
storage, so the peak is about the tensor itself, not twice it.

Usage: .venv/bin/python -m benchmarks.load_memory [--gib N] [--python PATH]

Writes a checkpoint holding one float32 tensor of N GiB (default 1) whose records are deflated
(torch.save stores them; PyTorch reads either), then loads it in a fresh process and prints the
process's peak resident memory, beside a process that only allocates a tensor of that size.
--python runs the loads under another interpreter (e.g. a real PyTorch, from outside this tree).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import zipfile

_LOAD = ("import resource, sys, time, torch\n"
         "start = time.perf_counter()\n"
         "t = torch.load(sys.argv[1])\n"
         "seconds = time.perf_counter() - start\n"
         "assert t.numel() == int(sys.argv[2])\n"
         "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, seconds)\n")
_ALLOCATE = ("import resource, sys, torch\n"
             "t = torch.ones(int(sys.argv[2]))\n"
             "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, 0.0)\n")


def _write_checkpoint(path: str, numel: int) -> None:
    import torch
    values = torch.arange(numel, dtype=torch.float32).remainder_(251)     # compressible, not constant
    stored = path + ".stored"
    torch.save(values, stored)
    del values
    with zipfile.ZipFile(stored) as src, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as dst:
        for info in src.infolist():
            with src.open(info) as record, dst.open(info.filename, "w", force_zip64=True) as out:
                while chunk := record.read(1 << 24):
                    out.write(chunk)
    os.remove(stored)


def _run(python: str, code: str, path: str, numel: int) -> tuple[float, float]:
    done = subprocess.run([python, "-c", code, path, str(numel)], capture_output=True, text=True,
                          cwd=tempfile.gettempdir() if python != sys.executable else None, check=True)
    peak_kib, seconds = done.stdout.split()
    return int(peak_kib) / 1024, float(seconds)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.load_memory", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gib", type=float, default=1.0, help="size of the tensor in GiB (default 1)")
    p.add_argument("--python", default=sys.executable, help="the interpreter whose torch loads it")
    args = p.parse_args(argv)
    numel = int(args.gib * (1 << 30)) // 4
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "compressed.pt")
        start = time.perf_counter()
        _write_checkpoint(path, numel)
        print(f"checkpoint: {numel * 4 / (1 << 30):.2f} GiB of float32, deflated to "
              f"{os.path.getsize(path) / (1 << 20):.1f} MiB in {time.perf_counter() - start:.1f} s")
        base, _ = _run(args.python, _ALLOCATE, path, numel)
        peak, seconds = _run(args.python, _LOAD, path, numel)
        print(f"peak RSS allocating the tensor alone: {base:8.0f} MiB")
        print(f"peak RSS of torch.load:               {peak:8.0f} MiB  ({seconds:.1f} s, "
              f"{peak - base:+.0f} MiB over the tensor alone)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
