"""Record PyTorch's nn.Transformer and its decoder for the transformer tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_transformer_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`transformer.json`: for each case of CASES, what `run_case` returns under PyTorch: the output of a
model built from torch.manual_seed (its weights drawn in PyTorch's order, which Ember reproduces)
over seeded inputs with masks, a few of its initial weights, the gradient of an input, and the
names of its parameters.
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "norms"
REFERENCE_PACKAGE = "torch"
CASES = ("transformer", "transformer_batch_first_norm_first_gelu", "decoder_causal_padding", "decoder_layer_unbatched")


def run_case(torch: Any, name: str) -> dict[str, Any]:
    nn = torch.nn
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # the encoder's nested-tensor fast-path notice
        if name == "transformer":
            model = nn.Transformer(d_model=16, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                   dim_feedforward=32, dropout=0.0)
        elif name == "transformer_batch_first_norm_first_gelu":
            model = nn.Transformer(d_model=16, nhead=4, num_encoder_layers=1, num_decoder_layers=2,
                                   dim_feedforward=24, dropout=0.0, activation="gelu", batch_first=True,
                                   norm_first=True)
        elif name == "decoder_causal_padding":
            layer = nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
            model = nn.TransformerDecoder(layer, 2, nn.LayerNorm(16))
        else:
            model = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    batch_first = name != "transformer" and name != "decoder_layer_unbatched"
    if name == "decoder_layer_unbatched":
        tgt, memory = torch.randn(5, 8, requires_grad=True), torch.randn(6, 8)
        out = model(tgt, memory)
    else:
        shape = (lambda s, b: (b, s, 16)) if batch_first else (lambda s, b: (s, b, 16))
        tgt = torch.randn(shape(5, 3), requires_grad=True)
        src = torch.randn(shape(6, 3))
        causal = nn.Transformer.generate_square_subsequent_mask(5)
        padding = torch.zeros(3, 6, dtype=torch.bool)
        padding[1, 4:] = True
        if name == "decoder_causal_padding":
            out = model(tgt, src, tgt_mask=causal, memory_key_padding_mask=padding)
        else:
            out = model(src, tgt, tgt_mask=causal, src_key_padding_mask=padding, memory_key_padding_mask=padding)
    out.sum().backward()
    params = dict(model.named_parameters())
    return {"out": out.detach().reshape(-1).tolist(), "grad": tgt.grad.reshape(-1).tolist(),
            "names": list(params), "first_weights": {n: p.detach().reshape(-1)[:6].tolist() for n, p in
                                                      list(params.items())[:4]}}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    path = out_dir / "transformer.json"
    path.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
