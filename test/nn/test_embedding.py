"""Embedding and F.embedding / F.one_hot: lookups, padding_idx, max_norm, scale_grad_by_freq, from_pretrained,
gradcheck, and PyTorch 2.13's reprs and error messages (literals generated once with PyTorch 2.13)."""
from __future__ import annotations

import numpy as np
import pytest

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import gradcheck

RNG = np.random.default_rng(0)
IDX = np.array([[1, 2, 2, 5], [5, 0, 9, 2]])


def test_embedding_looks_up_rows_and_accumulates_gradients():
    w = RNG.standard_normal((10, 4))
    m = nn.Embedding.from_pretrained(torch.tensor(w), freeze=False)
    y = m(torch.tensor(IDX))
    np.testing.assert_array_equal(y.detach().numpy(), w[IDX])
    g = RNG.standard_normal(y.shape)
    (y * torch.tensor(g)).sum().backward()
    ref = np.zeros_like(w)
    np.add.at(ref, IDX, g)
    np.testing.assert_allclose(m.weight.grad.numpy(), ref, rtol=1e-12)


def test_padding_idx_row_starts_zero_and_gets_no_gradient():
    m = nn.Embedding(10, 3, padding_idx=2)
    np.testing.assert_array_equal(m.weight[2].detach().numpy(), np.zeros(3))
    assert m.weight[3].abs().sum().item() > 0
    assert nn.Embedding(10, 3, padding_idx=-2).padding_idx == 8
    assert nn.Embedding(10, 3, padding_idx=-2).weight[8].abs().sum().item() == 0
    m(torch.tensor(IDX)).pow(2).sum().backward()
    np.testing.assert_array_equal(m.weight.grad[2].numpy(), np.zeros(3))
    assert m.weight.grad[5].abs().sum().item() > 0


def test_default_init_is_standard_normal():
    w = nn.Embedding(1000, 50).weight.detach().numpy()
    assert abs(w.mean()) < 0.02 and abs(w.std() - 1) < 0.02


def test_max_norm_renormalises_looked_up_rows_in_place():
    w = RNG.standard_normal((10, 4)) * 2
    m = nn.Embedding.from_pretrained(torch.tensor(w), max_norm=1.0)
    y = m(torch.tensor(IDX)).numpy()
    used = np.unique(IDX)
    norms = np.linalg.norm(w, axis=1, keepdims=True)
    ref = np.where((norms > 1.0) & np.isin(np.arange(10), used)[:, None], w / (norms + 1e-7), w)
    np.testing.assert_allclose(m.weight.detach().numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(y, ref[IDX], rtol=1e-12)
    np.testing.assert_array_equal(m.weight[3].detach().numpy(), w[3])  # unused row untouched


def test_scale_grad_by_freq_divides_by_index_count():
    m = nn.Embedding.from_pretrained(torch.zeros(10, 2, dtype=torch.float64), freeze=False, scale_grad_by_freq=True)
    m(torch.tensor(IDX)).sum().backward()
    counts = np.bincount(IDX.reshape(-1), minlength=10)
    np.testing.assert_allclose(m.weight.grad.numpy()[:, 0], np.where(counts > 0, 1.0, 0.0))


def test_from_pretrained_freezes_by_default_and_keeps_values():
    w = torch.tensor(RNG.standard_normal((4, 3)))
    m = nn.Embedding.from_pretrained(w)
    assert m.weight.requires_grad is False and m.num_embeddings == 4 and m.embedding_dim == 3
    np.testing.assert_array_equal(m.weight.detach().numpy(), w.numpy())
    assert nn.Embedding.from_pretrained(w, freeze=False).weight.requires_grad is True
    assert list(m.state_dict().keys()) == ["weight"]


def test_embedding_gradcheck_float64():
    w = torch.randn(6, 3, dtype=torch.float64, requires_grad=True)
    idx = torch.tensor([[0, 2, 2], [5, 1, 0]])
    assert gradcheck(lambda w: F.embedding(idx, w), (w,))


def test_one_hot():
    np.testing.assert_array_equal(F.one_hot(torch.tensor([0, 3, 1]), 5).numpy(), np.eye(5, dtype=np.int64)[[0, 3, 1]])
    got = F.one_hot(torch.tensor([[0, 3], [1, 2]]))
    assert got.dtype == torch.int64 and got.shape == (2, 2, 4)
    with pytest.raises(RuntimeError, match="^Class values must be non-negative.$"):
        F.one_hot(torch.tensor([-1, 2]), 3)
    with pytest.raises(RuntimeError, match="^Class values must be smaller than num_classes.$"):
        F.one_hot(torch.tensor([1, 3]), 3)


def test_embedding_repr_matches_pytorch():
    # Literals from PyTorch 2.13.
    assert repr(nn.Embedding(10, 3)) == "Embedding(10, 3)"
    assert repr(nn.Embedding(10, 3, padding_idx=-1, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True)) == (
        "Embedding(10, 3, padding_idx=9, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True)")


def test_embedding_errors_match_pytorch():
    with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
        nn.Embedding(4, 2, padding_idx=4)
    with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
        nn.Embedding(4, 2, padding_idx=-5)
    with pytest.raises(AssertionError, match="^Shape of weight does not match num_embeddings and embedding_dim$"):
        nn.Embedding(4, 2, _weight=torch.zeros(3, 2))
    with pytest.raises(AssertionError, match="^Embeddings parameter is expected to be 2-dimensional$"):
        nn.Embedding.from_pretrained(torch.zeros(3))
    with pytest.raises(RuntimeError, match=r"^Expected tensor for argument #1 'indices' to have one of the following "
                                           r"scalar types: Long, Int; but got torch.FloatTensor instead \(while "
                                           r"checking arguments for embedding\)$"):
        nn.Embedding(4, 2)(torch.zeros(3))
