"""Every generated .cu compiles with nvcc (skipped where nvcc is absent)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted((REPO / "aten/native/cuda").glob("_gen_*.cu"))


def test_each_pointwise_op_has_a_generated_cuda_source():
    assert {p.stem for p in SOURCES} >= {"_gen_add", "_gen_sub", "_gen_mul", "_gen_div", "_gen_neg", "_gen_exp"}


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed on this machine")
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_generated_cuda_source_compiles_with_nvcc(source, tmp_path):
    # -cubin for sm_90 (H100/H200), the arch PyCUDA compiles for at run time there.
    run = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-o", str(tmp_path / "out.cubin"), str(source)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "out.cubin").stat().st_size > 0
