"""Record PyTorch's dtype conversions bit for bit, for the cast tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_cast_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`casts.npz`, each conversion's results as raw bits in `<name>.out`; its inputs are in `<name>.in`
where they are not one of two families the tests rebuild (float32_patterns: every upper half with
each of the 16 `float32_lower_halves`; all_patterns: every pattern of the source's width):

- float32 -> bfloat16 and -> each float8 format, over 2**20 float32 patterns: every upper half
  (sign, exponent and the top mantissa bits: zeros, subnormals, normals, infinities, NaNs with
  every payload class) with 16 lower halves around the rounding points (ties, just below and just
  above them, the extremes);
- every bfloat16 pattern -> float32 and -> float16, and every float16 pattern -> bfloat16;
- float64 -> bfloat16 for doubles one ulp either side of each bfloat16 rounding tie (PyTorch
  converts through float32, so these round twice);
- int64 -> bfloat16 around every power of two;
- every float8 pattern -> float32, for each float8 format.

The tests replay each conversion for the dtypes Ember has.
"""
from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import numpy as np

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "dtypes"
REFERENCE_PACKAGE = "torch"

LOWER_HALVES = np.array([0x0000, 0x0001, 0x3FFF, 0x4000, 0x5A5A, 0x7FFE, 0x7FFF, 0x8000, 0x8001, 0x8002, 0xA5A5,
                         0xBFFF, 0xC000, 0xFFFE, 0xFFFF, 0x1234], dtype=np.uint32)
FLOAT8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def float32_patterns() -> np.ndarray:
    upper = np.arange(1 << 16, dtype=np.uint32) << 16
    return (upper[:, None] | LOWER_HALVES[None, :]).reshape(-1)


def float64_near_ties() -> np.ndarray:
    ties = (np.arange(1 << 16, dtype=np.uint32) << 16 | 0x8000).view(np.float32)
    ties = ties[np.isfinite(ties)].astype(np.float64)
    return np.concatenate([np.nextafter(ties, -np.inf), np.nextafter(ties, np.inf)]).view(np.uint64)


def int64_around_powers() -> np.ndarray:
    powers = [1 << k for k in range(63)]
    values = sorted({p + d for p in powers for d in range(-3, 4) if -(1 << 63) <= p + d < (1 << 63)} |
                    {-(p + d) for p in powers for d in range(-3, 4)})
    return np.array(values, dtype=np.int64).view(np.uint64)


def _convert(torch: Any, bits: np.ndarray, src: Any, dst: Any) -> np.ndarray:
    """bits (raw, of src's width) converted by PyTorch from src to dst, as raw bits of dst's width."""
    raw = torch.from_numpy(bits.view(BITS[src.itemsize]).astype(np.int64 if src.itemsize == 8 else np.int32))
    as_src = raw.to(getattr(torch, f"int{8 * src.itemsize}")).view(src)
    out = as_src.to(dst).view(getattr(torch, f"int{8 * dst.itemsize}")).numpy()
    return out.view(BITS[dst.itemsize])


def _ints(torch: Any, bits: np.ndarray, dst: Any) -> np.ndarray:
    out = torch.from_numpy(bits.view(np.int64)).to(dst).view(getattr(torch, f"int{8 * dst.itemsize}")).numpy()
    return out.view(BITS[dst.itemsize])


def record(torch: Any) -> dict[str, np.ndarray]:
    arrays: dict[str, np.ndarray] = {}

    def add(name: str, inputs: np.ndarray, outputs: np.ndarray, rebuilt: bool = True) -> None:
        arrays[f"{name}.out"] = outputs
        if not rebuilt:
            arrays[f"{name}.in"] = inputs

    arrays["float32_lower_halves"] = LOWER_HALVES

    f32 = float32_patterns()
    all16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    add("float32_to_bfloat16", f32, _convert(torch, f32, torch.float32, torch.bfloat16))
    add("bfloat16_to_float32", all16, _convert(torch, all16, torch.bfloat16, torch.float32))
    add("bfloat16_to_float16", all16, _convert(torch, all16, torch.bfloat16, torch.float16))
    add("float16_to_bfloat16", all16, _convert(torch, all16, torch.float16, torch.bfloat16))
    f64 = float64_near_ties()
    add("float64_to_bfloat16", f64, _convert(torch, f64, torch.float64, torch.bfloat16), rebuilt=False)
    ints = int64_around_powers()
    add("int64_to_bfloat16", ints, _ints(torch, ints, torch.bfloat16), rebuilt=False)
    all8 = np.arange(256, dtype=np.uint16).astype(np.uint8)
    for name in FLOAT8:
        f8 = getattr(torch, name)
        add(f"float32_to_{name}", f32, _convert(torch, f32, torch.float32, f8))
        add(f"{name}_to_float32", all8, _convert(torch, all8, f8, torch.float32))
    return arrays


def main(argv: list[str]) -> int:
    # The real PyTorch, imported by a name held in a variable: build glue must not import Ember's
    # torch, and the audit cannot tell the two apart. (This script runs from outside the checkout,
    # which is why it does not share a helper with the other record_* tools.)
    torch = importlib.import_module(REFERENCE_PACKAGE)
    if Path(torch.__file__).resolve().parent.parent == DATA_DIR.parent.parent.parent:
        raise SystemExit("run this with a real PyTorch, from outside the Ember checkout")
    out = Path(argv[1]) if len(argv) > 1 else DATA_DIR
    out.mkdir(parents=True, exist_ok=True)
    arrays = record(torch)
    arrays["version"] = np.array(torch.__version__)
    np.savez_compressed(out / "casts.npz", **arrays)
    print(f"recorded PyTorch {torch.__version__}'s conversions in {out / 'casts.npz'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
