"""Every generated and handwritten .cu compiles with nvcc for sm_80 (A100) and sm_90 (H100/H200)
(skipped where nvcc is absent)."""
from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GENERATED = sorted((REPO / "aten/native/cuda").glob("_gen_*.cu"))
KERNELS = REPO / "aten/native/cuda/kernels"       # on the include path of every source, as PyCUDA compiles them
HANDWRITTEN = sorted(KERNELS.glob("*.cu"))
SOURCES = GENERATED + HANDWRITTEN
ARCHS = ("sm_80", "sm_90")


def test_each_pointwise_op_has_a_generated_cuda_source():
    assert {p.stem for p in GENERATED} >= {"_gen_add", "_gen_sub", "_gen_mul", "_gen_div", "_gen_neg", "_gen_exp",
                                           "_gen_cast"}


def test_the_handwritten_kernels_are_there():
    assert {p.stem for p in HANDWRITTEN} >= {"gemm", "reduce", "softmax", "copy"}


def test_no_cuda_code_is_written_in_python_strings():
    # Every kernel lives in a .cu file that the nvcc test below compiles; the launchers only name them.
    launchers = [p for p in (REPO / "aten/native/cuda").rglob("*.py") if not p.name.startswith("_gen_")]
    assert launchers
    for path in launchers:
        assert "__global__" not in path.read_text(), f"{path.relative_to(REPO)} writes a CUDA kernel in a string"


def _compile(source: Path, out_dir: Path) -> tuple[int, str, int]:
    """One fat binary with machine code for each arch of ARCHS (what PyCUDA builds at run time)."""
    fatbin = out_dir / (source.stem + ".fatbin")
    gencode = [f"-gencode=arch=compute_{a[3:]},code={a}" for a in ARCHS]
    run = subprocess.run(["nvcc", "-fatbin", *gencode, f"-I{source.parent}", f"-I{KERNELS}", f"-I{REPO}", "-o", str(fatbin),
                          str(source)], capture_output=True, text=True)
    return run.returncode, run.stderr, fatbin.stat().st_size if fatbin.exists() else 0


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, tuple[int, str, int]]:
    """Every source compiled once, on all cores (each nvcc run is single-threaded, ~3 s for both archs)."""
    out_dir = tmp_path_factory.mktemp("fatbins")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return dict(zip(SOURCES, pool.map(lambda s: _compile(s, out_dir), SOURCES)))


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed on this machine")
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_cuda_source_compiles_with_nvcc_for_each_arch_without_warnings(source, compiled):
    returncode, stderr, size = compiled[source]
    assert returncode == 0, stderr
    assert size > 0
    # PyCUDA shows a user nvcc's warnings (as a UserWarning) the first time a kernel compiles
    assert "warning" not in stderr, stderr
