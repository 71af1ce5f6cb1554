"""The exact float32 ops that run as vector instructions where the CPU has them (sqrt, rsqrt, floor, ceil, trunc,
round, frac, and the selects relu, sign, maximum, minimum: aten/native/cpu/vec_math.h), the arithmetic ones whose
formula multiplies and adds (add and sub with alpha, addcmul, addcdiv: compiled without FMA contraction) and the
float32 <-> float16 conversions (F16C: aten/native/cpu/vec_half.h) give NumPy's bits exactly, over a dense sweep of
float32 bit patterns, contiguous, strided and broadcast, and the same bits on the baseline and AVX2 builds
(ATEN_CPU_CAPABILITY=default, avx2)."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import torch

REPO = Path(__file__).resolve().parents[2]


def sweep() -> np.ndarray:
    """Every 4099th float32 bit pattern (both signs, denormals, infinities, NaNs) and a few specials."""
    bits = np.arange(0, 1 << 32, 4099, dtype=np.uint64).astype(np.uint32)
    specials = np.array([0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 65504.0, 65520.0, 1e-8, np.inf, -np.inf, np.nan],
                        np.float32)
    return np.concatenate([bits.view(np.float32), specials])


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return np.float32(1) / np.sqrt(x)


def _relu(x: np.ndarray) -> np.ndarray:
    return np.where((x > 0) | np.isnan(x), x, np.float32(0))


OPS = {"sqrt": np.sqrt, "rsqrt": _rsqrt, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.rint,
       "frac": lambda x: x - np.trunc(x), "relu": _relu, "sign": np.sign}
# binary ones, against a shuffled copy of the sweep and a broadcast scalar: NaN-propagating maximum/minimum
BINARY = {"maximum": np.maximum, "minimum": np.minimum}
# a product and a sum, each rounded (no FMA), as NumPy computes them: against two shuffled copies of the sweep
SCALE = np.float32(0.3)
ARITHMETIC = {
    "add": (lambda x, y, z: torch.add(x, y, alpha=0.3), lambda x, y, z: x + SCALE * y),
    "sub": (lambda x, y, z: torch.sub(x, y, alpha=0.3), lambda x, y, z: x - SCALE * y),
    "addcmul": (lambda x, y, z: torch.addcmul(x, y, z, value=0.3), lambda x, y, z: x + SCALE * y * z),
    "addcdiv": (lambda x, y, z: torch.addcdiv(x, y, z, value=0.3), lambda x, y, z: x + SCALE * y / z),
}


def _operands() -> list[np.ndarray]:
    x = sweep()
    rng = np.random.default_rng(0)
    return [x, rng.permutation(x), rng.permutation(x)]


def _bits(a: np.ndarray) -> np.ndarray:
    """Bit patterns, every NaN the same (NumPy and the vector units differ in which NaN they make)."""
    a = np.ascontiguousarray(a)
    out = a.view(np.uint32 if a.dtype == np.float32 else np.uint16).copy()
    out[np.isnan(a)] = 0
    return out


@pytest.mark.parametrize("name", sorted(OPS))
def test_correctly_rounded_float32_op_gives_numpys_bits_in_every_layout(name):
    x = sweep()
    with np.errstate(all="ignore"):
        expected = _bits(OPS[name](x).astype(np.float32))
    fn = getattr(torch, name)
    assert np.array_equal(_bits(fn(torch.from_numpy(x)).numpy()), expected)
    strided = torch.from_numpy(np.repeat(x, 2))[::2]           # the gathered (strided) path
    assert np.array_equal(_bits(fn(strided).numpy()), expected)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_selecting_float32_op_gives_numpys_bits_with_tensors_and_broadcast_scalars(name):
    x = sweep()
    y = np.random.default_rng(0).permutation(x)
    fn = getattr(torch, name)
    assert np.array_equal(_bits(fn(torch.from_numpy(x), torch.from_numpy(y)).numpy()), _bits(BINARY[name](x, y)))
    for bound in (np.float32(0.5), np.float32(np.nan)):
        got = fn(torch.from_numpy(x), torch.tensor(bound))
        assert np.array_equal(_bits(got.numpy()), _bits(BINARY[name](x, bound)))
    # clamp composes them with a broadcast bound (the vector loops' broadcast path)
    expected = np.minimum(np.maximum(x, np.float32(-2)), np.float32(3))
    assert np.array_equal(_bits(torch.clamp(torch.from_numpy(x), -2, 3).numpy()), _bits(expected))


@pytest.mark.parametrize("name", sorted(ARITHMETIC))
def test_multiply_add_float32_op_rounds_each_step_as_numpy_in_every_layout(name):
    ours, numpys = ARITHMETIC[name]
    arrays = _operands()
    with np.errstate(all="ignore"):
        expected = _bits(numpys(*arrays))
    tensors = [torch.from_numpy(a) for a in arrays]
    assert np.array_equal(_bits(ours(*tensors).numpy()), expected)
    strided = [torch.from_numpy(np.repeat(a, 2))[::2] for a in arrays]      # the gathered (strided) path
    assert np.array_equal(_bits(ours(*strided).numpy()), expected)
    out = torch.empty(len(arrays[0]))
    getattr(torch, name)(*tensors[:2 if name in ("add", "sub") else 3], out=out,
                         **({"alpha": 0.3} if name in ("add", "sub") else {"value": 0.3}))
    assert np.array_equal(_bits(out.numpy()), expected)


def test_float16_conversions_give_numpys_bits_both_ways():
    x = sweep()
    with np.errstate(all="ignore"):
        expected = x.astype(np.float16)
    half = torch.from_numpy(x).half()
    assert np.array_equal(_bits(half.numpy()), _bits(expected))
    assert np.array_equal(_bits(half.float().numpy()), _bits(expected.astype(np.float32)))
    odd = torch.from_numpy(x[:1001]).half()                    # a tail shorter than one vector
    assert np.array_equal(_bits(odd.float().numpy()), _bits(expected[:1001].astype(np.float32)))


def digest() -> str:
    """The bits of every op above on the sweep, as one hash (what a build prints in the subprocess)."""
    x = torch.from_numpy(sweep())
    h = hashlib.sha256()
    for name in sorted(OPS):
        h.update(_bits(getattr(torch, name)(x).numpy()).tobytes())
    tensors = [torch.from_numpy(a) for a in _operands()]
    for name in sorted(ARITHMETIC):
        h.update(_bits(ARITHMETIC[name][0](*tensors).numpy()).tobytes())
    half = x.half()
    h.update(_bits(half.numpy()).tobytes())
    h.update(_bits(half.float().numpy()).tobytes())
    return h.hexdigest()


@pytest.mark.parametrize("capability", ["default", "avx2"])
def test_the_baseline_and_avx2_builds_give_the_same_bits(capability):
    code = (f"import sys; sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(REPO)!r}]\n"
            "import test_exact_vector_paths as m; print(m.digest())\n")
    env = dict(os.environ, ATEN_CPU_CAPABILITY=capability)
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == digest()
