"""Float mm/bmm/addmm/baddbmm go straight to BLAS on the tensors' memory, split across Ember's
threads (aten/native/cpu/blas.pyx run_gemm): whole batches per thread, else bands of rows or
columns. Every layout an operand can have (row-major, transposed, row gaps, a broadcast batch,
strides BLAS cannot read) and every split must give NumPy's float64 product."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch
from aten.native.cpu.blas import blas_threads

LAYOUTS = ["contiguous", "transposed", "row_gap", "strided", "broadcast"]
DTYPES = {torch.float32: (np.float32, 2e-5), torch.float64: (np.float64, 1e-12)}


def _operand(rng, batch, rows, cols, layout, dtype):
    """A (batch, rows, cols) tensor whose memory is laid out as `layout`, and its values."""
    np_dtype = DTYPES[dtype][0]
    if layout == "transposed":
        base = rng.standard_normal((batch, cols, rows)).astype(np_dtype)
        values = np.swapaxes(base, 1, 2)
        return torch.from_numpy(base).transpose(1, 2), values
    if layout == "row_gap":          # rows further apart than their width: BLAS's leading dimension
        base = rng.standard_normal((batch, rows, cols + 3)).astype(np_dtype)
        return torch.from_numpy(base)[:, :, :cols], base[:, :, :cols]
    if layout == "strided":          # no unit stride at all: copied first
        base = rng.standard_normal((batch, 2 * rows, 2 * cols)).astype(np_dtype)
        return torch.from_numpy(base)[:, ::2, ::2], base[:, ::2, ::2]
    if layout == "broadcast":        # one matrix repeated over the batch (batch stride 0)
        base = rng.standard_normal((1, rows, cols)).astype(np_dtype)
        return torch.from_numpy(base).expand(batch, rows, cols), np.broadcast_to(base, (batch, rows, cols))
    values = rng.standard_normal((batch, rows, cols)).astype(np_dtype)
    return torch.from_numpy(values), values


def _check(product, expected, dtype):
    tol = DTYPES[dtype][1] * max(1.0, float(np.abs(expected).max(initial=0.0)))
    assert product.dtype == dtype
    np.testing.assert_allclose(product.numpy().astype(np.float64), expected, rtol=tol, atol=tol)


dims = st.sampled_from([0, 1, 2, 3, 17, 64, 130])


@settings(max_examples=120, deadline=None)
@given(batch=st.sampled_from([1, 2, 3, 5]), m=dims, n=dims, k=dims, layout_a=st.sampled_from(LAYOUTS),
       layout_b=st.sampled_from(LAYOUTS), dtype=st.sampled_from(list(DTYPES)), threads=st.sampled_from([1, 2, 3]),
       seed=st.integers(0, 2**16))
def test_bmm_and_mm_match_numpy_for_every_layout_and_thread_split(batch, m, n, k, layout_a, layout_b, dtype,
                                                                 threads, seed):
    rng = np.random.default_rng(seed)
    a, a_values = _operand(rng, batch, m, k, layout_a, dtype)
    b, b_values = _operand(rng, batch, k, n, layout_b, dtype)
    expected = np.matmul(a_values.astype(np.float64), b_values.astype(np.float64))
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        _check(torch.bmm(a, b), expected, dtype)
        _check(torch.mm(a[0], b[0]), expected[0], dtype)
        bias = torch.from_numpy(rng.standard_normal(n).astype(DTYPES[dtype][0]))
        _check(torch.addmm(bias, a[0], b[0], beta=0.5, alpha=2.0),
               0.5 * bias.numpy().astype(np.float64) + 2.0 * expected[0], dtype)
        # beta 1: each thread writes the bias into its band of rows (or columns) before accumulating onto it
        _check(torch.addmm(bias, a[0], b[0], alpha=2.0), bias.numpy().astype(np.float64) + 2.0 * expected[0], dtype)
        _check(torch.baddbmm(bias, a, b), bias.numpy().astype(np.float64) + expected, dtype)
    finally:
        torch.set_num_threads(before)


@pytest.mark.parametrize("shape", [(512, 64, 256), (7, 300, 900), (900, 300, 7), (1, 2000, 300), (2000, 1, 300)])
def test_one_product_split_into_row_or_column_bands_matches_numpy(shape):
    m, k, n = shape
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    product = torch.mm(torch.from_numpy(a), torch.from_numpy(b))
    np.testing.assert_allclose(product.numpy(), a @ b, rtol=1e-12, atol=1e-12)
    rows = rng.standard_normal((3, n))
    bias = torch.from_numpy(rows)[1]                     # a row at a storage offset
    np.testing.assert_allclose(torch.addmm(bias, torch.from_numpy(a), torch.from_numpy(b)).numpy(),
                               rows[1] + a @ b, rtol=1e-12, atol=1e-12)
    gapped = torch.from_numpy(rng.standard_normal((n, 2)))[:, 0]      # not contiguous: broadcast by a copy first
    np.testing.assert_allclose(torch.addmm(gapped, torch.from_numpy(a), torch.from_numpy(b)).numpy(),
                               gapped.numpy() + a @ b, rtol=1e-12, atol=1e-12)


def test_bmm_leaves_the_operands_and_blas_thread_count_unchanged():
    before = blas_threads()
    a = torch.randn(4, 40, 50)
    b = torch.randn(4, 60, 50).transpose(1, 2)
    a_copy, b_copy = a.clone(), b.clone()
    torch.bmm(a, b)
    assert torch.equal(a, a_copy) and torch.equal(b, b_copy)
    assert blas_threads() == before


def test_matmul_broadcasts_batches_through_the_blas_path():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 1, 20, 30)), rng.standard_normal((4, 30, 10))
    product = torch.matmul(torch.from_numpy(a), torch.from_numpy(b))
    assert product.shape == (3, 4, 20, 10)
    np.testing.assert_allclose(product.numpy(), np.matmul(a, b), rtol=1e-12, atol=1e-12)


def test_an_expanded_operand_is_copied_alone_beside_a_transposed_one():
    # the weight gradient of a Linear under .sum(): x^T @ (ones expanded); only the expanded side is copied
    rng = np.random.default_rng(7)
    x = rng.standard_normal((300, 40)).astype(np.float32)
    g = torch.tensor(0.5).expand(300, 24)
    product = torch.mm(torch.from_numpy(x).t(), g)
    _check(product, x.astype(np.float64).T @ np.full((300, 24), 0.5), torch.float32)
    row = torch.from_numpy(rng.standard_normal((1, 24)).astype(np.float32))
    product = torch.mm(torch.from_numpy(x).t(), row.expand(300, 24))
    _check(product, x.astype(np.float64).T @ np.broadcast_to(row.numpy().astype(np.float64), (300, 24)),
           torch.float32)


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("addend_shape", [(24,), (1, 24), (30, 1), (30, 24), ()])
@pytest.mark.parametrize("alpha, beta", [(1, 1), (2.0, 0.5), (1, -3), (0.25, 1)])
def test_addmm_accumulates_the_product_onto_the_broadcast_addend(dtype, addend_shape, alpha, beta):
    # the addend is written into the output and one BLAS call adds alpha * a @ b onto it (PyTorch's order)
    rng = np.random.default_rng(3)
    np_dtype = DTYPES[dtype][0]
    a, b = rng.standard_normal((30, 17)).astype(np_dtype), rng.standard_normal((17, 24)).astype(np_dtype)
    addend = rng.standard_normal(addend_shape).astype(np_dtype)
    expected = beta * addend.astype(np.float64) + alpha * (a.astype(np.float64) @ b.astype(np.float64))
    out = torch.addmm(torch.from_numpy(addend), torch.from_numpy(a), torch.from_numpy(b), beta=beta, alpha=alpha)
    assert out.shape == (30, 24) and out.dtype == dtype
    _check(out, expected, dtype)
    batched = torch.baddbmm(torch.from_numpy(addend), torch.from_numpy(a).expand(3, 30, 17),
                            torch.from_numpy(b).expand(3, 17, 24), beta=beta, alpha=alpha)
    _check(batched, np.broadcast_to(expected, (3, 30, 24)), dtype)


def test_addmm_with_beta_zero_ignores_nan_in_the_addend():
    nan = torch.full((4,), float("nan"))
    a = torch.ones(3, 5)
    assert torch.equal(torch.addmm(nan, a, torch.ones(5, 4), beta=0), torch.full((3, 4), 5.0))
    assert torch.addmm(nan, a, torch.ones(5, 4)).isnan().all()
