"""The edit loop, measured: add one pointwise op to the schema of a copy of this (built) tree,
rebuild with `setup.py build_ext --inplace`, and check torch.<op>, Tensor.<op> and its .cu.

Usage: .venv/bin/python benchmarks/schema_edit_rebuild.py (after make build)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NEW_OP = """
- func: squared_plus(Tensor self, Tensor other) -> Tensor
  variants: function, method
  tags: [pointwise]
  ember_pointwise:
    formula: self * self + other
    dtypes: All
"""
CHECK = ("import torch; x = torch.tensor([1, 2, 3]); "
         "print(torch.squared_plus(x, 1).tolist(), x.squared_plus(torch.tensor([0.5])).tolist())")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "ember"
        # copytree keeps mtimes (copy2), so the copy is as up to date as the tree it came from.
        shutil.copytree(REPO, copy, ignore=shutil.ignore_patterns(".venv", ".git"), symlinks=True)
        with open(copy / "aten/native/native_functions.yaml", "a") as f:
            f.write(NEW_OP)
        env = dict(os.environ, PYTHONPATH=str(copy))
        start = time.perf_counter()
        build = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=copy, env=env,
                               capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if build.returncode != 0:
            print(build.stdout[-3000:], build.stderr[-3000:])
            return 1
        run = subprocess.run([sys.executable, "-c", CHECK], cwd=copy, env=env, capture_output=True, text=True)
        print(f"rebuild after adding one op: {elapsed:.1f} s")
        print(f"torch.squared_plus / Tensor.squared_plus: {run.stdout.strip() or run.stderr.strip()[-500:]}")
        cu = copy / "aten/native/cuda/_gen_squared_plus.cu"
        print(f"{cu.relative_to(copy)} exists: {cu.exists()}")
        return 0 if run.returncode == 0 and cu.exists() else 1


if __name__ == "__main__":
    sys.exit(main())
