"""Record PyTorch's torch.utils.flop_counter counts for the FLOP-counter tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_flop_counter_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`flop_counter.json`: for each workload of CASES, what `run_case` returns under PyTorch: the total and
the counts per module and operator of a FlopCounterMode around it. The tests run the same
`run_case` on Ember and compare.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "profiler"
REFERENCE_PACKAGE = "torch"
CASES = ("mlp_forward_backward", "matmul_shapes", "attention_and_einsum", "conv_forward", "conv_backward",
         "transformer_layer")


def _workload(torch: Any, name: str) -> Any:
    F = torch.nn.functional
    torch.manual_seed(0)
    if name == "mlp_forward_backward":
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(),
                                    torch.nn.Sequential(torch.nn.Linear(8, 2, bias=False)))
        x = torch.randn(3, 4, requires_grad=True)
        return lambda: model(x).sum().backward()
    if name == "matmul_shapes":
        shapes = [((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((2, 3, 4, 5), (5, 6)), ((7, 3, 4), (1, 4, 2)),
                  ((1, 3, 4), (7, 4, 2)), ((2, 1, 3, 4), (1, 5, 4, 2)), ((5,), (2, 5, 3))]
        pairs = [(torch.randn(a), torch.randn(b)) for a, b in shapes]
        mats = [torch.randn(2, 3, 4), torch.randn(2, 4, 5), torch.randn(2, 3, 5), torch.randn(3, 5)]

        def run() -> None:
            for a, b in pairs:
                torch.matmul(a, b)
            torch.baddbmm(mats[2], mats[0], mats[1])
            torch.addmm(mats[3], mats[0][0], mats[1][0])
            F.linear(torch.randn(2, 3, 4), torch.randn(6, 4), torch.randn(6))
        return run
    if name == "attention_and_einsum":
        q, k, v = torch.randn(1, 2, 5, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 4)

        def run() -> None:
            F.scaled_dot_product_attention(q, k, v)
            torch.einsum("ij,jk->ik", torch.randn(3, 4), torch.randn(4, 5))
            torch.einsum("bij,bjk,bkl->bil", torch.randn(2, 3, 4), torch.randn(2, 4, 5), torch.randn(2, 5, 6))
            torch.einsum("i,i->", torch.randn(7), torch.randn(7))
        return run
    if name == "conv_forward":
        def run() -> None:
            F.conv2d(torch.randn(2, 3, 8, 8), torch.randn(4, 3, 3, 3), stride=2, padding=1)
            F.conv1d(torch.randn(2, 4, 9), torch.randn(6, 2, 3), groups=2)
            F.conv_transpose2d(torch.randn(2, 3, 5, 5), torch.randn(3, 4, 3, 3), stride=2)
            F.conv3d(torch.randn(1, 2, 4, 5, 5), torch.randn(3, 2, 2, 3, 3))
        return run
    if name == "conv_backward":
        conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        x = torch.randn(2, 3, 8, 8, requires_grad=True)
        return lambda: conv(x).sum().backward()
    layer = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0, batch_first=True)
    x = torch.randn(2, 5, 16, requires_grad=True)
    return lambda: layer(x).sum().backward()


def run_case(torch: Any, name: str) -> dict[str, Any]:
    flop_counter = importlib.import_module(torch.__name__ + ".utils.flop_counter")
    work = _workload(torch, name)
    with flop_counter.FlopCounterMode(display=False) as counter:
        work()
    counts = {module: {str(op): n for op, n in ops.items()} for module, ops in counter.get_flop_counts().items()}
    return {"total": counter.get_total_flops(), "counts": counts}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "flop_counter.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
