"""Every generated .cu compiles with nvcc (skipped where nvcc is absent)."""
from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted((REPO / "aten/native/cuda").glob("_gen_*.cu"))


def test_each_pointwise_op_has_a_generated_cuda_source():
    assert {p.stem for p in SOURCES} >= {"_gen_add", "_gen_sub", "_gen_mul", "_gen_div", "_gen_neg", "_gen_exp"}


def _compile(source: Path, out_dir: Path) -> tuple[int, str, int]:
    # -cubin for sm_90 (H100/H200), the arch PyCUDA compiles for at run time there.
    cubin = out_dir / (source.stem + ".cubin")
    run = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-o", str(cubin), str(source)], capture_output=True, text=True)
    return run.returncode, run.stderr, cubin.stat().st_size if cubin.exists() else 0


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, tuple[int, str, int]]:
    """Every source compiled once, on all cores (each nvcc run is single-threaded and ~1.5 s)."""
    out_dir = tmp_path_factory.mktemp("cubins")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip(SOURCES, pool.map(lambda s: _compile(s, out_dir), SOURCES)))


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed on this machine")
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_generated_cuda_source_compiles_with_nvcc(source, compiled):
    returncode, stderr, size = compiled[source]
    assert returncode == 0, stderr
    assert size > 0
