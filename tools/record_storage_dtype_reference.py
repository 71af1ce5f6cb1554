"""Record what PyTorch computes, and refuses, on the dtypes it gives few loops: the float8 storage
types and the barebones unsigned ones (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_storage_dtype_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`storage_ops.json`: for each dtype and each case of CASES, the outputs' dtypes and raw bits (as
unsigned integers of the dtype's width; bool and int64 outputs as their values), or the error type
when PyTorch refuses. The inputs are built from INPUT_BITS by the same function the tests call.
Under `creation`, for uint8 and the unsigned dtypes: torch.tensor and torch.full of each of
CREATION_VALUES, or the error type and message.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "dtypes"
REFERENCE_PACKAGE = "torch"
DTYPES = ("uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")
# Eight elements of each dtype, as raw bits: zeros, small values, the largest, the sign bit, NaNs
# (float8), the values around 2**15, 2**31, 2**63 (unsigned).
INPUT_BITS: dict[str, list[int]] = {
    "uint16": [0, 1, 7, 2 ** 15 - 1, 2 ** 15, 2 ** 16 - 1, 3, 7],
    "uint32": [0, 1, 7, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 3, 7],
    "uint64": [0, 1, 7, 2 ** 63 - 1, 2 ** 63, 2 ** 64 - 1, 3, 7],
    "float8_e4m3fn": [0x00, 0x38, 0xB8, 0x7E, 0x80, 0x7F, 0x01, 0x38],
    "float8_e5m2": [0x00, 0x3C, 0xBC, 0x7B, 0x80, 0x7C, 0x7E, 0x3C],
    "float8_e4m3fnuz": [0x00, 0x40, 0xC0, 0x7F, 0xFF, 0x80, 0x01, 0x40],
    "float8_e5m2fnuz": [0x00, 0x40, 0xC0, 0x7F, 0xFF, 0x80, 0x01, 0x40],
}
RAW = {1: "uint8", 2: "int16", 4: "int32", 8: "int64"}


def make_input(torch: Any, name: str) -> Any:
    """The dtype's eight input elements, from their bits."""
    dtype = getattr(torch, name)
    bits = np.array(INPUT_BITS[name], dtype=np.uint64).astype({1: np.uint8, 2: np.uint16, 4: np.uint32,
                                                                8: np.uint64}[dtype.itemsize])
    raw = bits.view({1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64}[dtype.itemsize])
    return torch.from_numpy(raw.copy()).view(dtype)


def cases(torch: Any, device: str = "cpu") -> dict[str, Callable[[Any], Any]]:
    mask = torch.tensor([True, False, True, False, True, False, True, True], device=device)
    idx = torch.tensor([5, 0, 2], device=device)
    reverse = torch.tensor([7, 6, 5, 4, 3, 2, 1, 0], device=device)     # not flip(): PyTorch refuses it here
    return {
        "abs": torch.abs, "eq": lambda t: torch.eq(t, t[reverse]), "ne": lambda t: torch.ne(t, t[reverse]),
        "eq_scalar": lambda t: t == 1, "isnan": torch.isnan, "isinf": torch.isinf, "isfinite": torch.isfinite,
        "isposinf": torch.isposinf, "isneginf": torch.isneginf, "floor": torch.floor, "ceil": torch.ceil,
        "trunc": torch.trunc, "round": torch.round, "nan_to_num": torch.nan_to_num,
        "where": lambda t: torch.where(mask, t, t[reverse]), "flip": lambda t: t.flip(0),
        "getitem_index": lambda t: t[idx], "getitem_mask": lambda t: t[mask],
        "index_select": lambda t: t.index_select(0, idx), "masked_select": lambda t: t.masked_select(mask),
        "index_put": lambda t: t.index_put((idx,), t[:3]),
        "index_put_accumulate": lambda t: t.index_put((idx,), t[:3], accumulate=True),
        "setitem_index": lambda t: _set(t, idx, t[:3]),
        "all": torch.all, "any": torch.any, "all_dim": lambda t: t.reshape(2, 4).all(1),
        "sum": torch.sum, "sum_dim": lambda t: t.reshape(2, 4).sum(1), "prod": torch.prod,
        "cumsum": lambda t: t.cumsum(0), "cumprod": lambda t: t.cumprod(0),
        "mul": lambda t: t * t, "add": lambda t: t + t, "max": torch.max,
        "sort": lambda t: t.sort(), "unique": torch.unique,
    }


# Python numbers given to torch.tensor and torch.full for the unsigned dtypes (PyTorch unpacks uint64
# over its whole range and checks the others with c10's overflow rules); "nan" stands for NaN.
CREATION_VALUES: list[Any] = [-1, 2 ** 16, 2 ** 32, 2 ** 63, 2 ** 64 - 1, 2 ** 64, 1.5, -1.5, -0.5, 255.9, 3e19,
                              "nan", True]


def creations(torch: Any) -> dict[str, Callable[[Any, Any], Any]]:
    return {"tensor": lambda v, dtype: torch.tensor([v], dtype=dtype),
            "full": lambda v, dtype: torch.full((1,), v, dtype=dtype)}


def creation_value(value: Any) -> Any:
    return float("nan") if value == "nan" else value


def _set(t: Any, idx: Any, values: Any) -> Any:
    t = t.clone()
    t[idx] = values
    return t


def outputs(torch: Any, result: Any) -> dict[str, Any]:
    """Dtypes and raw bits of a result (a tensor or a tuple of them)."""
    results = result if isinstance(result, (tuple, list)) else (result,)
    out = []
    for r in results:
        name = str(r.dtype).removeprefix("torch.")
        if r.dtype in (torch.bool, torch.int64):
            values = [int(v) for v in r.reshape(-1).cpu().tolist()]
        else:
            raw = r.contiguous().view(getattr(torch, RAW[r.dtype.itemsize])).reshape(-1).cpu().tolist()
            values = [v % (1 << (8 * r.dtype.itemsize)) for v in raw]
        out.append({"dtype": name, "shape": list(r.shape), "bits": values})
    return {"outputs": out}


def run(torch: Any, name: str, fn: Callable[[Any], Any]) -> dict[str, Any]:
    try:
        return outputs(torch, fn(make_input(torch, name)))
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__}


def run_creation(torch: Any, fn: Callable[[Any, Any], Any], value: Any, name: str) -> dict[str, Any]:
    try:
        return outputs(torch, fn(creation_value(value), getattr(torch, name)))
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    table = {name: {case: run(torch, name, fn) for case, fn in cases(torch).items()} for name in DTYPES}
    created = {name: {how: [run_creation(torch, fn, value, name) for value in CREATION_VALUES]
                      for how, fn in creations(torch).items()} for name in ("uint8", "uint16", "uint32", "uint64")}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "storage_ops.json").write_text(json.dumps({"torch": torch.__version__, "results": table,
                                                          "creation": created}, indent=1) + "\n")
    print(f"wrote {out_dir / 'storage_ops.json'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
