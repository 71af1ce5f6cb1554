"""Conversions between dtypes, bit for bit against PyTorch 2.13's recorded results
(tools/record_cast_reference.py wrote test/data/dtypes/casts.npz): over a million float32 patterns
of every class (zeros, subnormals, normals, infinities, NaN payloads, overflow, rounding ties), every
16-bit pattern, doubles either side of every bfloat16 tie, integers around every power of two. Each
runs on the CPU and, under `-m cuda`, on CUDA."""
from pathlib import Path

import numpy as np
import pytest

import torch

CASTS = np.load(Path(__file__).resolve().parents[1] / "data" / "dtypes" / "casts.npz")
CONVERSIONS = sorted(name[:-len(".out")] for name in CASTS.files if name.endswith(".out"))
DEVICES = ["cpu", pytest.param("cuda", marks=[
    pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")])]
RAW = {1: (np.uint8, torch.uint8), 2: (np.int16, torch.int16), 4: (np.int32, torch.int32), 8: (np.int64, torch.int64)}


def inputs(name, src):
    """The conversion's input bits: recorded, or rebuilt from the recorded family's rule."""
    if f"{name}.in" in CASTS.files:
        return CASTS[f"{name}.in"]
    if src == "float32":
        upper = np.arange(1 << 16, dtype=np.uint32) << 16
        return (upper[:, None] | CASTS["float32_lower_halves"][None, :]).reshape(-1)
    return np.arange(1 << (8 * getattr(torch, src).itemsize), dtype=np.uint32)


def from_bits(bits, dtype, device):
    width, raw_dtype = RAW[dtype.itemsize]
    raw = torch.from_numpy(np.ascontiguousarray(bits.astype(np.uint64).astype(width.__name__.replace("u", ""))
                                                if width is not np.uint8 else bits.astype(np.uint8)))
    return raw.to(device).view(dtype) if dtype is not raw_dtype else raw.to(device)


def to_bits(t):
    width, raw_dtype = RAW[t.dtype.itemsize]
    return t.view(raw_dtype).cpu().numpy().astype(np.uint64) & ((1 << (8 * t.dtype.itemsize)) - 1)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("name", CONVERSIONS)
def test_conversion_gives_pytorchs_bits(name, device):
    src, dst = name.split("_to_")
    missing = [d for d in (src, dst) if not isinstance(getattr(torch, d, None), torch.dtype)]
    if missing:
        pytest.skip(f"Ember has no torch.{missing[0]} yet (recorded for the dtype issue)")
    src_dtype, dst_dtype = getattr(torch, src), getattr(torch, dst)
    bits = inputs(name, src)
    got = to_bits(from_bits(bits, src_dtype, device).to(dst_dtype))
    expected = CASTS[f"{name}.out"].astype(np.uint64)
    wrong = np.flatnonzero(got != expected)
    assert wrong.size == 0, (f"{wrong.size} of {bits.size} differ; first: input {int(bits[wrong[0]]):#x} gave "
                             f"{int(got[wrong[0]]):#x}, PyTorch {int(expected[wrong[0]]):#x}")


def test_the_recording_covers_a_million_float32_patterns_of_every_class():
    patterns = inputs("float32_to_bfloat16", "float32").astype(np.uint32)
    assert patterns.size >= 10 ** 6
    values = patterns.view(np.float32)
    exponent = (patterns >> 23) & 0xFF
    assert np.isnan(values).sum() > 4000 and np.isinf(values).sum() == 2       # NaNs: every payload top
    assert ((exponent == 0) & ((patterns & 0x7FFFFF) != 0)).any()        # subnormals
    assert ((patterns & 0xFFFF) == 0x8000).any()                            # bfloat16 rounding ties
