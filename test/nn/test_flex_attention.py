"""torch.nn.attention: flex_attention and its block masks against PyTorch 2.13's recorded results
(tools/record_flex_attention_reference.py), gradients by gradcheck, and sdpa_kernel's switches."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

import torch
from torch.autograd import gradcheck
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.flex_attention import BlockMask, create_block_mask, flex_attention
from tools import record_flex_attention_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "attention" / "flex_attention.json")
                       .read_text())


def _cases(kind):
    return [pytest.param(c, id=str(i)) for i, c in enumerate(REFERENCE["cases"]) if c["case"]["kind"] == kind]


@pytest.mark.parametrize("entry", _cases("mask"))
def test_block_mask_matches_pytorch(entry):
    got, want = record.run_case(torch, entry["case"]), entry["result"]
    for name in ("kv_num_blocks", "kv_indices", "full_kv_num_blocks", "full_kv_indices", "q_num_blocks", "q_indices",
                 "full_q_num_blocks", "full_q_indices", "shape", "dense", "repr", "str"):
        assert got[name] == want[name], name
    assert math.isclose(got["sparsity"], want["sparsity"], rel_tol=1e-12)


@pytest.mark.parametrize("entry", _cases("attention"))
def test_flex_attention_matches_pytorch(entry):
    got, want = record.run_case(torch, entry["case"]), entry["result"]
    tol = 1e-12 if entry["case"]["dtype"] == "float64" else 1e-5
    for name in ("out", "lse"):
        np.testing.assert_allclose(np.array(got[name]), np.array(want[name]), rtol=tol, atol=tol, err_msg=name)


def test_flex_attention_gradients_match_finite_differences():
    torch.manual_seed(0)
    q = torch.randn(1, 2, 6, 4, dtype=torch.float64, requires_grad=True)
    k = torch.randn(1, 1, 5, 4, dtype=torch.float64, requires_grad=True)
    v = torch.randn(1, 1, 5, 4, dtype=torch.float64, requires_grad=True)
    bm = create_block_mask(lambda b, h, qi, kv: (qi >= kv) & (qi >= 1), None, None, 6, 5, device="cpu", BLOCK_SIZE=2)

    def attend(q, k, v):
        return flex_attention(q, k, v, score_mod=lambda s, b, h, qi, kv: s * (h + 1) - 0.1 * (qi - kv),
                              block_mask=bm, enable_gqa=True)
    assert gradcheck(attend, (q, k, v))
    out = attend(q, k, v)
    assert out[0, :, 0].abs().max().item() == 0     # row 0 keeps nothing: zeros, as PyTorch


def test_flex_attention_without_mask_is_scaled_dot_product_attention():
    torch.manual_seed(1)
    q, k, v = torch.randn(2, 3, 5, 8), torch.randn(2, 3, 7, 8), torch.randn(2, 3, 7, 8)
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(flex_attention(q, k, v).numpy(), want.numpy(), rtol=1e-5, atol=1e-6)


def test_flex_attention_errors_match_pytorch():
    q, kv = torch.randn(1, 4, 3, 2), torch.randn(1, 2, 3, 2)
    with pytest.raises(ValueError, match=r"^Expect query and key/value to have the same number of heads but got "
                                         r"Hq=4 and Hkv=2. Try setting enable_gqa=True for GQA.$"):
        flex_attention(q, kv, kv)
    with pytest.raises(ValueError, match=r"^Expect number of query heads to be a multiple of kv heads for GQA but "
                                         r"got Hq=4 and Hkv=3.$"):
        flex_attention(q, torch.randn(1, 3, 3, 2), torch.randn(1, 3, 3, 2), enable_gqa=True)
    with pytest.raises(NotImplementedError, match="^NYI: query, key, and value must be 4D tensors$"):
        flex_attention(q[0], kv[0], kv[0])
    with pytest.raises(ValueError, match=r"^Expect query and key/value to have the same batch size, or non-none "
                                         r"block_mask, but got block_mask=None, Bq=2, and Bkv=1.$"):
        flex_attention(torch.randn(2, 1, 4, 8), torch.randn(1, 1, 4, 8), torch.randn(1, 1, 4, 8))
    bm = create_block_mask(lambda b, h, qi, kv: qi >= kv, None, None, 32, 32, device="cpu", BLOCK_SIZE=16)
    x = torch.randn(1, 1, 16, 8)
    with pytest.raises(ValueError, match=r"^block_mask was created for block_mask.shape=\(1, 1, 32, 32\) but got "
                                         r"q_len=16 and kv_len=16. As the block mask was created for a larger"):
        flex_attention(x, x, x, block_mask=bm)
    x = torch.randn(1, 1, 64, 8)
    with pytest.raises(ValueError, match="created for a smaller length than you're using it for"):
        flex_attention(x, x, x, block_mask=bm)


def test_a_sliced_block_mask_keeps_its_dims_and_refuses_its_mask_mod():
    bm = create_block_mask(lambda b, h, qi, kv: qi >= kv, 2, 1, 32, 32, device="cpu", BLOCK_SIZE=16)
    one = bm[1]
    assert one.kv_num_blocks.shape == (1, 1, 2) and one.shape == (1, 1, 32, 32)
    assert torch.equal(one.kv_indices, bm.kv_indices[1:2])
    x = torch.randn(1, 1, 32, 8)
    with pytest.raises(RuntimeError, match="^Cannot use mask_mod from a sliced BlockMask$"):
        flex_attention(x, x, x, block_mask=one)


def test_reduced_precision_scores_are_computed_in_float32():
    torch.manual_seed(2)
    q, k, v = (torch.randn(1, 2, 9, 16) * 3 for _ in range(3))
    want = flex_attention(q, k, v)
    got = flex_attention(q.bfloat16(), k.bfloat16(), v.bfloat16())
    upcast = flex_attention(q.bfloat16().float(), k.bfloat16().float(), v.bfloat16().float())
    assert got.dtype == torch.bfloat16
    # the scores of the rounded inputs in float32: only the final product is rounded to bfloat16
    np.testing.assert_allclose(got.float().numpy(), upcast.numpy(), rtol=2e-2, atol=2e-2)
    assert (got.float() - want).abs().max() < 0.2


def test_block_mask_from_kv_blocks_derives_the_query_blocks():
    bm = create_block_mask(lambda b, h, q, kv: q >= kv, 1, 1, 64, 64, device="cpu", BLOCK_SIZE=16)
    rebuilt = BlockMask.from_kv_blocks(bm.kv_num_blocks, bm.kv_indices, bm.full_kv_num_blocks, bm.full_kv_indices,
                                       BLOCK_SIZE=16, mask_mod=bm.mask_mod)
    for name in ("q_num_blocks", "q_indices", "full_q_num_blocks", "full_q_indices"):
        assert torch.equal(getattr(rebuilt, name), getattr(bm, name)), name
    assert rebuilt.shape == (1, 1, 64, 64) and torch.equal(rebuilt.to_dense(), bm.to_dense())


def test_sdpa_kernel_enables_only_the_named_backends_for_the_block():
    assert torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.math_sdp_enabled()
    with sdpa_kernel([SDPBackend.MATH]):
        assert not torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.math_sdp_enabled()
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        assert torch.backends.cuda.flash_sdp_enabled() and not torch.backends.cuda.math_sdp_enabled()
    assert torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.math_sdp_enabled()
    with pytest.raises(AssertionError, match="^Backend must be an instance of SDPBackend or a list of SDPBackend "
                                             "instances, got str$"):
        with sdpa_kernel("math"):
            pass


def test_cuda_graphs_are_named_and_refuse_clearly():
    assert torch.cuda.is_current_stream_capturing() is False
    for make in (torch.cuda.CUDAGraph, torch.cuda.graph_pool_handle, lambda: torch.cuda.graph(None),
                 lambda: torch.cuda.make_graphed_callables(torch.nn.Linear(2, 2), (torch.randn(1, 2),))):
        with pytest.raises(RuntimeError, match="^Ember does not support CUDA graphs yet"):
            make()
