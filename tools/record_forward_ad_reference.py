"""Record which entries of the operator test database PyTorch differentiates in forward mode (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_forward_ad_reference.py

Run it from outside the repository (Ember's package is also called `torch`). For each entry with float64 samples
(test/opinfo), its first sample is called with every floating tensor argument made dual (torch.autograd.forward_ad)
and the outcome is written to test/data/forward_ad/support.json: "ok" when the result has a tangent, "no tangent"
when it has none (comparisons, argmax, integer draws), or PyTorch's error (type and message) when it raises, such as
"Trying to use forward AD with X that does not support it". test/torch/test_forward_ad_opinfo.py checks Ember
gives the same outcome for every entry.
"""
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

TOOLS_DIR = Path(__file__).resolve().parent
REFERENCE_PACKAGE = "torch"
OPERATOR_DATABASE = "opinfo"          # test/opinfo, imported from the test directory
TEST_DIR = TOOLS_DIR.parent / "test"
OUTPUT = TEST_DIR / "data" / "forward_ad" / "support.json"


def outcome(torch: Any, op: Any, sample: Any) -> str:
    """What calling op on sample with dual floating inputs gives: "ok", "no tangent" or "Error: message"."""
    fwAD = torch.autograd.forward_ad

    def convert(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            t = torch.from_numpy(value.copy())
            if t.dtype.is_floating_point or t.dtype.is_complex:
                return fwAD.make_dual(t, torch.ones_like(t))
            return t
        if isinstance(value, list):
            return [convert(v) for v in value]
        if isinstance(value, tuple):
            return tuple(convert(v) for v in value)
        return value

    try:
        with fwAD.dual_level():
            args = convert(sample.args)
            kwargs = {k: convert(v) for k, v in sample.kwargs.items()}
            result = op.function()(*args, **kwargs)
            outputs = result if isinstance(result, (tuple, list)) else (result,)
            tangents = [fwAD.unpack_dual(o).tangent for o in outputs if isinstance(o, torch.Tensor)]
            return "ok" if any(t is not None for t in tangents) else "no tangent"
    except Exception as e:        # the outcome being recorded
        return f"{type(e).__name__}: {str(e).splitlines()[0]}"


def _load_dtype_cases() -> None:
    """test/dtype_cases.py reads Ember's dtype.numpy_dtype; PyTorch's dtypes name their NumPy twin alike."""
    import types
    source = (TEST_DIR / "dtype_cases.py").read_text()
    old = "np.dtype(dt.numpy_dtype)"
    if old not in source:
        sys.exit(f"test/dtype_cases.py no longer reads {old}: update this recorder")
    module = types.ModuleType("dtype_cases")
    module.__file__ = str(TEST_DIR / "dtype_cases.py")
    sys.modules["dtype_cases"] = module
    exec(compile(source.replace(old, 'np.dtype(str(dt).removeprefix("torch."))'), module.__file__, "exec"),
         module.__dict__)


def main() -> None:
    torch = importlib.import_module(REFERENCE_PACKAGE)
    if (TOOLS_DIR.parent / "torch").resolve() == Path(torch.__file__).resolve().parent:
        sys.exit("run this with a real PyTorch, from outside the Ember repository")
    sys.path.insert(0, str(TEST_DIR))
    _load_dtype_cases()
    all_ops = importlib.import_module(OPERATOR_DATABASE).all_ops
    rng_seed = 0
    recorded: dict[str, str] = {}
    for op in all_ops():
        if torch.float64 not in op.dtypes:
            continue
        samples = list(op.sample_inputs(torch.float64, np.random.default_rng(rng_seed)))
        if not samples:
            continue
        recorded[op.id] = outcome(torch, op, samples[0])
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(json.dumps({"torch": torch.__version__, "outcomes": recorded}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(recorded)} outcomes to {OUTPUT}")


if __name__ == "__main__":
    main()
