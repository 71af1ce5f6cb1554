"""einops' own test suite, as the package ships it, run on Ember with its torch backend: its operations, layers,
packing and einsum, and its torch.compile tests (fullgraph capture of its functions and layers, static and
dynamic shapes), against the NumPy values it computes itself."""
import os
import subprocess
import sys
from pathlib import Path

import pytest


def test_einops_own_tests_pass_with_the_torch_backend(tmp_path):
    einops = pytest.importorskip("einops")
    tests = Path(einops.__file__).resolve().parent / "tests"
    root = Path(__file__).resolve().parents[2]
    environment = {**os.environ, "EINOPS_TEST_BACKENDS": "torch",
                   "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(tests)], cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout.splitlines()[-1] and "failed" not in done.stdout.splitlines()[-1]
