"""The CUDA random kernels' Philox4x32-10 (aten/native/cuda/kernels/philox.cuh), compiled for the
host, gives the published known-answer vectors (Random123's kat_vectors), and what the randomgen
package's Philox(number=4, width=32) gives for counter 1 (it steps its counter before each block)."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

KERNELS = Path(__file__).resolve().parents[2] / "aten/native/cuda/kernels"
HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include "philox.cuh"
int main(int argc, char** argv) {
  unsigned int v[6];
  for (int i = 0; i < 6; ++i) v[i] = (unsigned int)strtoul(argv[i + 1], 0, 0);
  ember_philox_words r = ember_philox(v[0], v[1], v[2], v[3], v[4], v[5]);
  printf("%08x %08x %08x %08x\n", r.w[0], r.w[1], r.w[2], r.w[3]);
  return 0;
}
"""
# (counter words, key words) -> output words
VECTORS = [
    ((0, 0, 0, 0, 0, 0), "6627e8d5 e169c58d bc57ac4c 9b00dbd8"),
    ((0xFFFFFFFF,) * 6, "408f276d 41c83b0e a20bc7c6 6d5451fd"),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0), "d16cfe09 94fdcceb 5001e420 24126ea1"),
    ((1, 0, 0, 0, 0, 0), "f8e4cca4 5cb200db b1a574eb 097eff67"),
]


@pytest.fixture(scope="module")
def philox(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler on this machine")
    work = tmp_path_factory.mktemp("philox")
    (work / "harness.cpp").write_text(HARNESS)
    subprocess.run([compiler, "-O2", f"-I{KERNELS}", "-o", str(work / "philox"), str(work / "harness.cpp")], check=True)
    return work / "philox"


@pytest.mark.parametrize("words, expected", VECTORS, ids=["zeros", "ones", "pi", "counter1"])
def test_philox4x32_10_gives_the_known_answers(philox, words, expected):
    run = subprocess.run([str(philox), *map(str, words)], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == expected
