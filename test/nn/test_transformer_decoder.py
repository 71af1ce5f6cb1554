"""nn.Transformer, TransformerDecoder and TransformerDecoderLayer against PyTorch 2.13
(tools/record_transformer_reference.py): seeded weights in PyTorch's order, outputs with causal and
padding masks (batch-first, pre-norm, GELU, unbatched), input gradients and parameter names."""
import json
from pathlib import Path

import numpy as np
import pytest

import torch
from torch import nn
from tools import record_transformer_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "norms" / "transformer.json")
                       .read_text())["cases"]


@pytest.mark.parametrize("case", record.CASES)
def test_transformer_is_pytorchs(case):
    got, want = record.run_case(torch, case), REFERENCE[case]
    assert got["names"] == want["names"]
    for name, values in want["first_weights"].items():
        np.testing.assert_allclose(got["first_weights"][name], values, rtol=1e-6, atol=1e-7, err_msg=name)
    np.testing.assert_allclose(got["out"], want["out"], rtol=1e-5, atol=2e-6)
    np.testing.assert_allclose(got["grad"], want["grad"], rtol=1e-5, atol=2e-6)


def test_transformer_checks_and_mask_helper():
    model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
    with pytest.raises(RuntimeError, match="^the batch number of src and tgt must be equal$"):
        model(torch.randn(4, 2, 8), torch.randn(3, 3, 8))
    with pytest.raises(RuntimeError, match="^the feature number of src and tgt must be equal to d_model$"):
        model(torch.randn(4, 2, 8), torch.randn(3, 2, 6))
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert torch.equal(torch.isinf(mask), torch.ones(3, 3, dtype=torch.bool).triu(1))

    class Subclass(nn.Transformer):      # what the word language model example defines at import
        def __init__(self):
            super().__init__(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
    assert isinstance(Subclass().decoder, nn.TransformerDecoder)
