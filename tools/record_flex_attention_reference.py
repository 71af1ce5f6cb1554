"""Record PyTorch's torch.nn.attention.flex_attention results for the attention tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_flex_attention_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`flex_attention.json`: for each case of CASES, what `run_case` returns under PyTorch: a block
mask's block lists and sparsity, or flex_attention's output and logsumexp (inputs
drawn with torch.manual_seed, which Ember reproduces bit for bit). The tests run the same
`run_case` on Ember and compare. (PyTorch has no flex_attention backward on the CPU, so the tests
check Ember's gradients with gradcheck instead.)
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "attention"
REFERENCE_PACKAGE = "torch"

# mask_mod / score_mod names -> how they are built from the torch module
MASKS = ("causal", "window_and_causal", "prefix_or_causal", "late_rows")
SCORES = ("relative_bias", "head_scale", "none")

CASES: list[dict[str, Any]] = [
    {"kind": "mask", "mask": "causal", "B": None, "H": None, "Q": 200, "KV": 300, "block": 64},
    {"kind": "mask", "mask": "window_and_causal", "B": 2, "H": 3, "Q": 37, "KV": 45, "block": [16, 8]},
    {"kind": "mask", "mask": "prefix_or_causal", "B": 1, "H": 2, "Q": 64, "KV": 64, "block": 16},
    {"kind": "attention", "q": [2, 4, 10, 8], "kv": [2, 2, 12, 8], "gqa": True, "score": "relative_bias",
     "mask": "causal", "mask_bh": [2, 1], "block": 4, "dtype": "float32"},
    {"kind": "attention", "q": [1, 2, 9, 4], "kv": [1, 2, 7, 4], "gqa": False, "score": "head_scale",
     "mask": None, "scale": 0.3, "dtype": "float64"},
    {"kind": "attention", "q": [2, 2, 8, 6], "kv": [2, 2, 8, 6], "gqa": False, "score": "none",
     "mask": "late_rows", "mask_bh": [None, None], "block": 4, "dtype": "float32"},
]


def mod(torch: Any, name: str | None) -> Any:
    """The mask_mod or score_mod of that name (the same code under PyTorch and Ember)."""
    fa = importlib.import_module(torch.__name__ + ".nn.attention.flex_attention")

    def causal(b: Any, h: Any, q: Any, kv: Any) -> Any:
        return q >= kv

    def window(b: Any, h: Any, q: Any, kv: Any) -> Any:
        return (q - kv) <= 5 + b

    def prefix(b: Any, h: Any, q: Any, kv: Any) -> Any:
        return kv < 4 + 8 * h

    def late_rows(b: Any, h: Any, q: Any, kv: Any) -> Any:
        return (kv <= q) & (q >= 3)

    def relative_bias(score: Any, b: Any, h: Any, q: Any, kv: Any) -> Any:
        return score + (q - kv) * 0.1

    def head_scale(score: Any, b: Any, h: Any, q: Any, kv: Any) -> Any:
        return score * (h + 1)

    table = {"causal": causal, "window_and_causal": fa.and_masks(window, causal),
             "prefix_or_causal": fa.or_masks(prefix, causal), "late_rows": late_rows,
             "relative_bias": relative_bias, "head_scale": head_scale, "none": None}
    return table[name] if name is not None else None


def _list(t: Any) -> Any:
    return None if t is None else t.detach().double().tolist()


def run_case(torch: Any, case: dict[str, Any]) -> dict[str, Any]:
    fa = importlib.import_module(torch.__name__ + ".nn.attention.flex_attention")
    block = tuple(case["block"]) if isinstance(case.get("block"), list) else case.get("block", 128)
    if case["kind"] == "mask":
        bm = fa.create_block_mask(mod(torch, case["mask"]), case["B"], case["H"], case["Q"], case["KV"],
                                  device="cpu", BLOCK_SIZE=block)
        return {name: _list(getattr(bm, name)) for name in
                ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices", "q_num_blocks",
                 "q_indices", "full_q_num_blocks", "full_q_indices")} | {
            "sparsity": bm.sparsity(), "shape": list(bm.shape), "dense": _list(bm.to_dense()), "repr": repr(bm),
            "str": str(bm)}
    dtype = getattr(torch, case["dtype"])
    torch.manual_seed(0)
    q = torch.randn(case["q"], dtype=dtype)
    k = torch.randn(case["kv"], dtype=dtype)
    v = torch.randn(case["kv"], dtype=dtype)
    bm = None
    if case["mask"] is not None:
        B, H = case["mask_bh"]
        bm = fa.create_block_mask(mod(torch, case["mask"]), B, H, case["q"][2], case["kv"][2], device="cpu",
                                  BLOCK_SIZE=block)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # PyTorch warns that flex_attention runs uncompiled
        out, aux = fa.flex_attention(q, k, v, score_mod=mod(torch, case["score"]), block_mask=bm,
                                     scale=case.get("scale"), enable_gqa=case["gqa"],
                                     return_aux=fa.AuxRequest(lse=True))
    return {"out": _list(out), "lse": _list(aux.lse), "max_scores": aux.max_scores}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = [{"case": case, "result": run_case(torch, case)} for case in CASES]
    path = out_dir / "flex_attention.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=None) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
