"""sort on CUDA (kernels/sort.cu) and the selections written over it (topk, kthvalue, median,
nanmedian: composite/portable_sorting.py), multinomial and randperm: against the CPU's stable sort
and selections, which break ties the same way.

Run with a GPU (`pytest -m cuda`) or on the CUDA host emulator (`EMBER_CUDA_EMULATOR=1`).
"""
import numpy as np
import pytest

import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def _values(shape, dtype, seed=0, nans=True):
    """Few distinct values (many ties), and NaNs in floating dtypes."""
    rng = np.random.default_rng(seed)
    if dtype == torch.bool:
        return torch.from_numpy(rng.integers(0, 2, shape).astype(bool))
    data = rng.integers(-4, 5, shape).astype(np.float64)
    if nans and dtype.is_floating_point and data.size:
        data.flat[rng.integers(0, data.size, max(1, data.size // 7))] = np.nan
    return torch.from_numpy(data).to(dtype)


def _same(got, expected):
    for g, e in zip(got, expected):
        assert g.device.type == "cuda" and g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_array_equal(g.cpu().numpy(), e.numpy())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int64, torch.int32,
                                   torch.int16, torch.int8, torch.uint8, torch.bool])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_is_the_cpus_stable_sort_for_every_dtype(dtype, descending):
    cpu = _values((5, 37), dtype)
    if dtype == torch.uint8:
        cpu = cpu.abs()
    _same(torch.sort(cpu.cuda(), descending=descending), torch.sort(cpu, descending=descending, stable=True))
    _same(torch.sort(cpu.cuda(), stable=True, dim=0, descending=descending),
          torch.sort(cpu, stable=True, dim=0, descending=descending))


@pytest.mark.parametrize("shape, dim", [((3, 4, 5), 1), ((4, 6), -1), ((7,), 0), ((), 0), ((0, 3), 1),
                                        ((3, 0), 1), ((2, 1, 3), 1)])
def test_sort_along_any_dim_of_any_shape(shape, dim):
    cpu = _values(shape, torch.float64, seed=1)
    _same(torch.sort(cpu.cuda(), dim), torch.sort(cpu, dim=dim, stable=True))


@pytest.mark.parametrize("n", [2048, 2049, 5000])
def test_long_rows_sort_through_the_stepped_network(n):
    cpu = _values((2, n), torch.float32, seed=2)
    _same(torch.sort(cpu.cuda(), descending=True), torch.sort(cpu, descending=True, stable=True))
    _same(torch.sort(cpu.cuda().t(), 0), torch.sort(cpu.t(), dim=0, stable=True))


def test_sort_of_a_non_contiguous_view_and_argsort():
    cpu = _values((6, 8), torch.float32, seed=3)[:, ::2].t()
    _same(torch.sort(cpu.cuda(), -1), torch.sort(cpu, dim=-1, stable=True))
    assert torch.equal(torch.argsort(cpu.cuda(), descending=True).cpu(),
                       torch.argsort(cpu, descending=True, stable=True))


def test_sort_backpropagates_to_the_sorted_positions():
    cpu = torch.randn(4, 9, dtype=torch.float64, requires_grad=True)
    gpu = cpu.detach().cuda().requires_grad_()
    weights = torch.arange(9.0, dtype=torch.float64)
    (torch.sort(cpu, 1)[0] * weights).sum().backward()
    (torch.sort(gpu, 1)[0] * weights.cuda()).sum().backward()
    np.testing.assert_array_equal(gpu.grad.cpu().numpy(), cpu.grad.numpy())


@pytest.mark.parametrize("k, dim, largest", [(3, -1, True), (1, 0, False), (0, 1, True), (9, 1, False)])
def test_topk_is_the_cpus_on_distinct_values(k, dim, largest):
    cpu = torch.randn(6, 9, dtype=torch.float64)
    _same(torch.topk(cpu.cuda(), k, dim, largest), torch.topk(cpu, k, dim, largest))


def test_topk_puts_nan_first_and_checks_k():
    t = torch.tensor([1.0, float("nan"), 3.0, 2.0], device="cuda")
    values, indices = torch.topk(t, 2)
    assert np.isnan(values[0].item()) and values[1].item() == 3 and indices.tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        torch.topk(t, 5)


def test_top5_accuracy_as_a_training_script_computes_it():
    logits = torch.randn(32, 10, dtype=torch.float64)
    labels = torch.randint(0, 10, (32,))
    def top5(lg, lb):
        return (lg.topk(5, 1).indices == lb[:, None]).any(1).float().mean().item()
    assert top5(logits.cuda(), labels.cuda()) == top5(logits, labels)


def _same_selection(got, expected, source, dim, keepdim):
    """Equal values (NaN too); the indices may differ among ties (the CPU's selection is not stable)
    but must point at the selected value."""
    (values, indices), (expected_values, _) = got, expected
    np.testing.assert_array_equal(values.cpu().numpy(), expected_values.numpy())
    assert indices.dtype == torch.int64 and indices.device.type == "cuda"
    at = source.gather(dim, indices if keepdim else indices.unsqueeze(dim))
    np.testing.assert_array_equal(at.cpu().numpy(), values.cpu().numpy() if keepdim else
                                  values.unsqueeze(dim).cpu().numpy())


@pytest.mark.parametrize("dtype", [torch.float64, torch.int64])
@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue_and_medians_match_the_cpu(dtype, keepdim):
    cpu = _values((5, 7), dtype, seed=4)
    gpu = cpu.cuda()
    _same_selection(torch.kthvalue(gpu, 3, 1, keepdim), torch.kthvalue(cpu, 3, 1, keepdim), gpu, 1, keepdim)
    _same_selection(torch.median(gpu, 0, keepdim), torch.median(cpu, 0, keepdim), gpu, 0, keepdim)
    _same_selection(torch.nanmedian(gpu, 1, keepdim), torch.nanmedian(cpu, 1, keepdim), gpu, 1, keepdim)
    np.testing.assert_array_equal(torch.median(gpu).cpu().numpy(), torch.median(cpu).numpy())
    np.testing.assert_array_equal(torch.nanmedian(gpu).cpu().numpy(), torch.nanmedian(cpu).numpy())


def test_median_propagates_nan_and_nanmedian_skips_it():
    cpu = torch.tensor([[1.0, float("nan"), 3.0, float("nan")], [float("nan")] * 4, [4.0, 2.0, 1.0, 3.0]])
    gpu = cpu.cuda()
    _same(torch.median(gpu, 1), torch.median(cpu, 1))       # the first NaN, as the CPU
    _same_selection(torch.nanmedian(gpu, 1), torch.nanmedian(cpu, 1), gpu, 1, False)
    assert np.isnan(torch.median(gpu).item()) and torch.nanmedian(gpu).item() == torch.nanmedian(cpu).item()


def test_selection_errors_are_the_cpus():
    with pytest.raises(RuntimeError, match="kthvalue\\(\\): selected number k out of range for dimension 0"):
        torch.kthvalue(torch.zeros(3, device="cuda"), 4)
    with pytest.raises(IndexError, match="median\\(\\): Expected reduction dim 1 to have non-zero size."):
        torch.median(torch.zeros(2, 0, device="cuda"), 1)


def test_randperm_on_the_device_is_a_permutation_in_the_asked_dtype():
    for n, dtype in [(0, torch.int64), (1, torch.int64), (1000, torch.int32), (300, torch.float32)]:
        p = torch.randperm(n, device="cuda", dtype=dtype)
        assert p.device.type == "cuda" and p.dtype == dtype
        np.testing.assert_array_equal(np.sort(p.cpu().numpy()), np.arange(n))
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        torch.randperm(300, device="cuda", dtype=torch.int8)


def test_multinomial_without_replacement_draws_distinct_categories_by_weight():
    torch.cuda.manual_seed(0)
    p = torch.tensor([[0.0, 1.0, 2.0, 7.0], [5.0, 0.0, 0.0, 5.0]], device="cuda")
    draws = torch.multinomial(p, 2).cpu().numpy()
    assert draws.shape == (2, 2) and set(draws[1]) == {0, 3} and len(set(draws[0])) == 2 and 0 not in draws[0]
    first = torch.multinomial(p.repeat(2000, 1)[::2], 1).cpu().numpy().ravel()
    np.testing.assert_allclose(np.bincount(first, minlength=4) / first.size, [0, 0.1, 0.2, 0.7], atol=0.04)


def test_multinomial_with_replacement_follows_the_probabilities():
    p = torch.tensor([0.1, 0.0, 0.6, 0.3], dtype=torch.float64, device="cuda")
    draws = torch.multinomial(p, 20000, replacement=True).cpu().numpy()
    np.testing.assert_allclose(np.bincount(draws, minlength=4) / draws.size, [0.1, 0.0, 0.6, 0.3], atol=0.015)


def test_multinomial_checks_as_the_cpu_does():
    for p, message in [(torch.tensor([0.5, -0.1]), "encountering probability entry < 0"),
                       (torch.tensor([0.5, float("inf")]), "encountering probability entry = infinity or NaN"),
                       (torch.zeros(3), "sum of probabilities <= 0")]:
        with pytest.raises(RuntimeError, match=message):
            torch.multinomial(p.cuda(), 2, replacement=True)
        with pytest.raises(RuntimeError, match=message):
            torch.multinomial(p, 2, replacement=True)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size\\(-1\\) samples without"):
        torch.multinomial(torch.ones(3, device="cuda"), 4)


def test_sampling_from_a_language_model_on_the_device():
    torch.manual_seed(0)
    logits = torch.randn(4, 65, device="cuda")
    top = torch.topk(logits, 10)
    probs = torch.softmax(top.values, -1)
    tokens = torch.gather(top.indices, -1, torch.multinomial(probs, 1))
    assert tokens.shape == (4, 1) and tokens.device.type == "cuda"
    assert all(t in row for t, row in zip(tokens.cpu().ravel().tolist(), top.indices.cpu().tolist()))


# ---- searchsorted and bucketize (kernels/search.cu) -------------------------------------------------

@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32, torch.uint8])
def test_searchsorted_matches_the_cpu_for_rows_and_shared_boundaries(right, dtype):
    rng = np.random.default_rng(14)
    rows = torch.from_numpy(np.sort(rng.integers(0, 20, (3, 9)), axis=1)).to(dtype)
    values = torch.from_numpy(rng.integers(0, 21, (3, 5))).to(dtype)
    _same((torch.searchsorted(rows.cuda(), values.cuda(), right=right),),
          (torch.searchsorted(rows, values, right=right),))
    _same((torch.searchsorted(rows[0].cuda(), values.cuda(), right=right, out_int32=True),),
          (torch.searchsorted(rows[0], values, right=right, out_int32=True),))
    _same((torch.bucketize(values.cuda(), rows[1].cuda(), right=right),), (torch.bucketize(values, rows[1], right=right),))


def test_searchsorted_with_a_sorter_scalars_nan_and_mixed_dtypes_matches_the_cpu():
    boundaries = torch.tensor([3.0, 1.0, float("nan"), 2.0])
    sorter = torch.argsort(boundaries)
    values = torch.tensor([0.5, 2.0, 2.5, float("nan"), 9.0])
    _same((torch.searchsorted(boundaries.cuda(), values.cuda(), sorter=sorter.cuda()),),
          (torch.searchsorted(boundaries, values, sorter=sorter),))
    _same((torch.searchsorted(boundaries.cuda(), values.cuda(), side="right", sorter=sorter.cuda()),),
          (torch.searchsorted(boundaries, values, side="right", sorter=sorter),))
    ints = torch.tensor([1, 3, 5, 7])
    _same((torch.searchsorted(ints.cuda(), torch.tensor([2.5, 7.0]).cuda()),),
          (torch.searchsorted(ints, torch.tensor([2.5, 7.0])),))
    _same((torch.searchsorted(ints.cuda(), 4),), (torch.searchsorted(ints, 4),))
    _same((torch.bucketize(4.5, ints.cuda()),), (torch.bucketize(4.5, ints),))


def test_inverse_cdf_sampling_as_a_renderer_does_it():
    weights = torch.rand(4, 16, dtype=torch.float64) + 0.01
    cdf = torch.cumsum(weights / weights.sum(-1, keepdim=True), -1)
    u = torch.rand(4, 32, dtype=torch.float64)
    expected = torch.searchsorted(cdf, u, right=True)
    assert torch.equal(torch.searchsorted(cdf.cuda(), u.cuda(), right=True).cpu(), expected)


def test_searchsorted_errors_are_the_cpus():
    with pytest.raises(RuntimeError, match="torch.searchsorted\\(\\): sorter index out of range"):
        torch.searchsorted(torch.zeros(3, device="cuda"), torch.zeros(2, device="cuda"),
                           sorter=torch.tensor([0, 1, 5], device="cuda"))
    with pytest.raises(RuntimeError, match="side can only be 'left' or 'right' but got middle"):
        torch.searchsorted(torch.zeros(3, device="cuda"), torch.zeros(2, device="cuda"), side="middle")
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension, but got dim\\(2\\)"):
        torch.bucketize(torch.zeros(2, device="cuda"), torch.zeros(2, 2, device="cuda"))


def test_searchsorted_of_a_scalar_outside_the_boundaries_dtype_converts_as_the_cpu():
    for boundaries, value in [(torch.tensor([1, 2], dtype=torch.int8), 300), (torch.tensor([1.0, 2.0]), 1e300),
                              (torch.tensor([1, 2], dtype=torch.int16), -40000)]:
        assert torch.equal(torch.searchsorted(boundaries.cuda(), value).cpu(), torch.searchsorted(boundaries, value))
