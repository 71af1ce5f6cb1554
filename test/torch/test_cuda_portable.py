"""Operators that run on CUDA through the portable kernels (aten/native/composite/portable.py and
the reductions in composite/reduction.py) against the CPU's own kernels, forward and backward.

Run with a GPU (`pytest -m cuda`) or on the CUDA host emulator (`EMBER_CUDA_EMULATOR=1`).
"""
import numpy as np
import pytest

import torch
import torch.nn.functional as F

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def _inputs(shape, seed=0, dtype=torch.float64):
    cpu = torch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(dtype)
    return cpu.requires_grad_(), cpu.detach().cuda().requires_grad_()


def _same(fn, shape=(3, 5, 4), rtol=1e-10, seed=0, backward=True):
    """fn on the CPU and on the device: equal results and, when backward, equal gradients."""
    cpu, gpu = _inputs(shape, seed)
    expected, got = fn(cpu), fn(gpu)
    for e, g in zip(expected if isinstance(expected, tuple) else (expected,), got if isinstance(got, tuple) else (got,)):
        assert g.device.type == "cuda" and g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g.detach().cpu().numpy(), e.detach().numpy(), rtol=rtol, atol=rtol)
    if backward:
        first = lambda r: r[0] if isinstance(r, tuple) else r   # noqa: E731
        first(expected).sum().backward()
        first(got).sum().backward()
        np.testing.assert_allclose(gpu.grad.cpu().numpy(), cpu.grad.numpy(), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dim", [None, 1, (0, 2), -1])
@pytest.mark.parametrize("correction", [0, 1, 2])
@pytest.mark.parametrize("keepdim", [False, True])
def test_var_std_and_their_means_match_the_cpu(dim, correction, keepdim):
    _same(lambda t: torch.var(t, dim, correction=correction, keepdim=keepdim))
    _same(lambda t: torch.std(t, dim, correction=correction, keepdim=keepdim))
    _same(lambda t: torch.var_mean(t, dim, correction=correction, keepdim=keepdim))
    _same(lambda t: torch.std_mean(t, dim, correction=correction, keepdim=keepdim))


def test_var_of_integers_is_refused_as_on_the_cpu():
    with pytest.raises(RuntimeError, match="std and var only support floating point and complex dtypes"):
        torch.arange(4, device="cuda").var()


@pytest.mark.parametrize("dim", [0, -1, (0, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp_matches_the_cpu_with_infinities(dim, keepdim):
    _same(lambda t: torch.logsumexp(t * 30, dim, keepdim=keepdim))
    cpu = torch.tensor([[float("-inf"), float("-inf")], [float("inf"), 1.0], [1000.0, 1000.0]])
    assert torch.equal(torch.logsumexp(cpu.cuda(), 1).cpu(), torch.logsumexp(cpu, 1))


@pytest.mark.parametrize("ord", [2, 1, 0, 3.5, float("inf"), float("-inf")])
@pytest.mark.parametrize("dim", [None, 1, (0, 2)])
def test_vector_norms_match_the_cpu(ord, dim):
    _same(lambda t: torch.linalg.vector_norm(t, ord, dim), backward=ord not in (0,))


def test_clip_grad_norm_works_on_the_device():
    cpu, gpu = torch.nn.Linear(5, 3).double(), None
    gpu = torch.nn.Linear(5, 3).double().cuda()
    gpu.load_state_dict(cpu.state_dict())
    x = torch.randn(4, 5, dtype=torch.float64)
    cpu(x).pow(2).sum().backward()
    gpu(x.cuda()).pow(2).sum().backward()
    norms = torch.nn.utils.clip_grad_norm_(cpu.parameters(), 0.5), torch.nn.utils.clip_grad_norm_(gpu.parameters(), 0.5)
    assert abs(norms[0].item() - norms[1].item()) < 1e-10
    np.testing.assert_allclose(gpu.weight.grad.cpu().numpy(), cpu.weight.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int64, torch.float32])
def test_any_and_all_match_the_cpu(dtype):
    cpu = torch.tensor([[0, 1, 0], [1, 1, 1], [0, 0, 0]]).to(dtype)
    gpu = cpu.cuda()
    for op in (torch.any, torch.all):
        assert torch.equal(op(gpu).cpu(), op(cpu))
        for dim in (0, 1):
            for keepdim in (False, True):
                got, expected = op(gpu, dim, keepdim=keepdim).cpu(), op(cpu, dim, keepdim=keepdim)
                assert got.dtype == expected.dtype and torch.equal(got, expected)


def test_masked_fill_matches_the_cpu_and_keeps_the_dtype():
    mask_cpu = torch.tensor([[True, False, True, False, False]])
    _same(lambda t: t.masked_fill(mask_cpu.to(t.device).unsqueeze(-1).expand(3, 5, 4), -2.5))
    ints = torch.arange(6).reshape(2, 3)
    mask = torch.tensor([True, False, True])
    assert torch.equal(ints.cuda().masked_fill(mask.cuda(), 7.9).cpu(), ints.masked_fill(mask, 7.9))
    filled = ints.cuda()
    filled.masked_fill_(mask.cuda(), torch.tensor(-1))
    assert torch.equal(filled.cpu(), ints.clone().masked_fill_(mask, torch.tensor(-1)))
    with pytest.raises(RuntimeError, match="masked_fill_ only supports boolean masks, but got mask with dtype Long"):
        ints.cuda().masked_fill(torch.ones(3, dtype=torch.int64, device="cuda"), 0)


@pytest.mark.parametrize("diagonal", [-2, 0, 1, 5])
def test_tril_and_triu_match_the_cpu(diagonal):
    _same(lambda t: torch.tril(t, diagonal))
    _same(lambda t: torch.triu(t, diagonal))


def test_flip_repeat_and_pad_match_the_cpu():
    _same(lambda t: t.flip(0, 2))
    _same(lambda t: t.repeat(2, 1, 3))
    _same(lambda t: t.repeat(2, 1, 1, 2))
    _same(lambda t: F.pad(t, (1, 2, 0, 3), value=0.5))
    _same(lambda t: F.pad(t, (-1, 2, 1, -2)))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_mse_and_bce_with_logits_losses_match_the_cpu(reduction):
    target = torch.rand(3, 5, 4, dtype=torch.float64)
    pos_weight = torch.rand(4, dtype=torch.float64) * 3
    _same(lambda t: F.mse_loss(t, target.to(t.device), reduction=reduction))
    _same(lambda t: F.binary_cross_entropy_with_logits(t * 20, target.to(t.device), reduction=reduction))
    _same(lambda t: F.binary_cross_entropy_with_logits(t, target.to(t.device), pos_weight=pos_weight.to(t.device),
                                                       weight=target.to(t.device), reduction=reduction))


def test_one_hot_matches_the_cpu():
    labels = torch.tensor([[0, 3], [2, 1]])
    assert torch.equal(F.one_hot(labels.cuda()).cpu(), F.one_hot(labels))
    assert torch.equal(F.one_hot(labels.cuda(), 6).cpu(), F.one_hot(labels, 6))
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(labels.cuda(), 3)


def test_causal_attention_matches_the_cpu():
    q, k, v = (torch.randn(2, 3, 5, 8, dtype=torch.float64) for _ in range(3))
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    got = F.scaled_dot_product_attention(q.cuda(), k.cuda(), v.cuda(), is_causal=True)
    np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-10)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.uint8, torch.float32])
def test_randint_draws_in_range_and_covers_it(dtype):
    torch.cuda.manual_seed(0)
    draws = torch.randint(3, 10, (4000,), device="cuda", dtype=dtype).cpu()
    assert draws.dtype == dtype and int(draws.min()) == 3 and int(draws.max()) == 9
    counts = np.bincount(draws.numpy().astype(np.int64))[3:]
    assert counts.min() > 4000 / 7 * 0.8


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_matches_the_cpu_with_its_running_statistics(training, affine):
    stats_cpu = [torch.rand(5, dtype=torch.float64), torch.rand(5, dtype=torch.float64) + 0.5]
    stats_gpu = [s.cuda() for s in stats_cpu]
    weight, bias = torch.rand(5, dtype=torch.float64), torch.rand(5, dtype=torch.float64)

    def bn(t):
        stats = stats_gpu if t.is_cuda else stats_cpu
        w, b = (weight.to(t.device), bias.to(t.device)) if affine else (None, None)
        return F.batch_norm(t, *stats, w, b, training=training, momentum=0.3, eps=1e-3)
    _same(bn, shape=(4, 5, 3, 2))
    for got, expected in zip(stats_gpu, stats_cpu):
        np.testing.assert_allclose(got.cpu().numpy(), expected.numpy(), rtol=1e-10)


def test_group_norm_matches_the_cpu():
    weight, bias = torch.rand(6, dtype=torch.float64), torch.rand(6, dtype=torch.float64)
    _same(lambda t: F.group_norm(t, 3, weight.to(t.device), bias.to(t.device), eps=1e-4), shape=(2, 6, 3, 3))
    _same(lambda t: F.group_norm(t, 2), shape=(2, 6, 5))


@pytest.mark.parametrize("kernel, stride, padding, ceil_mode, count_include_pad, divisor", [
    (2, None, 0, False, True, None), (3, 2, 1, False, True, None), (3, 2, 1, True, False, None),
    ((2, 3), (1, 2), (1, 1), True, True, None), (3, 1, 1, False, True, 4)])
def test_avg_pool2d_matches_the_cpu(kernel, stride, padding, ceil_mode, count_include_pad, divisor):
    _same(lambda t: F.avg_pool2d(t, kernel, stride, padding, ceil_mode, count_include_pad, divisor), shape=(2, 3, 7, 6))


@pytest.mark.parametrize("output_size", [1, (3, 2), (7, 4), (5, 9)])
def test_adaptive_avg_pool2d_matches_the_cpu(output_size):
    _same(lambda t: F.adaptive_avg_pool2d(t, output_size), shape=(2, 3, 7, 6))


def test_pools_of_integers_are_refused_on_the_device():
    with pytest.raises(NotImplementedError, match="\"avg_pool2d_out_cuda_frame\" not implemented for 'Long'"):
        F.avg_pool2d(torch.ones(1, 1, 4, 4, dtype=torch.int64, device="cuda"), 2)


def test_float16_reductions_compute_in_float32_and_do_not_overflow():
    x = torch.tensor([0.0, 20.0] * 500, dtype=torch.float16)
    assert torch.equal(x.cuda().var().cpu(), x.var())
    big = torch.tensor([300.0, 400.0], dtype=torch.float16)
    assert big.cuda().norm().item() == 500.0
    assert torch.logsumexp(torch.tensor([20.0, 20.0], dtype=torch.float16).cuda(), 0).dtype == torch.float16
    mean, var = torch.var_mean(x.cuda())
    assert mean.dtype == var.dtype == torch.float16


def test_float16_batch_and_group_norm_match_the_cpu():
    x = torch.randn(4, 2, 5, dtype=torch.float16)
    stats_cpu = [torch.zeros(2, dtype=torch.float16), torch.ones(2, dtype=torch.float16)]
    stats_gpu = [s.cuda() for s in stats_cpu]
    expected = F.batch_norm(x, *stats_cpu, training=True)
    got = F.batch_norm(x.cuda(), *stats_gpu, training=True)
    assert got.dtype == torch.float16
    np.testing.assert_allclose(got.cpu().float().numpy(), expected.float().numpy(), atol=2e-3)
    for g, e in zip(stats_gpu, stats_cpu):
        np.testing.assert_allclose(g.cpu().float().numpy(), e.float().numpy(), atol=1e-3)
    np.testing.assert_allclose(F.group_norm(x.cuda(), 1).cpu().float().numpy(), F.group_norm(x, 1).float().numpy(),
                               atol=2e-3)


def test_edge_cases_match_the_cpu():
    ints = torch.tensor([[0, 1], [0, 0]])
    assert torch.equal(ints.cuda().any(dim=()).cpu(), ints.any(dim=()))
    assert torch.equal(F.group_norm(torch.randn(0, 4, 3, device="cuda"), 2).cpu(), torch.empty(0, 4, 3))
    assert torch.equal(torch.linalg.vector_norm(torch.zeros(0, 3, device="cuda"), float("inf"), dim=1).cpu(),
                       torch.empty(0))
    with pytest.raises(RuntimeError, match="cannot compute the -1 norm on an empty tensor"):
        torch.linalg.vector_norm(torch.zeros(0, device="cuda"), -1)
    assert torch.tensor(1.0, device="cuda").flip(0).item() == 1.0
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        torch.zeros(2, 2, device="cuda").flip(0, -2)
    assert torch.tensor(1.0, device="cuda").index_fill_(0, torch.tensor([0], device="cuda"), 5.0).item() == 5.0
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 1 with size 4"):
        torch.zeros(3, 4, device="cuda").index_fill(1, torch.tensor([7], device="cuda"), 1.0)
        torch.cuda.synchronize()
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for unsigned char"):
        torch.zeros(4, dtype=torch.uint8, device="cuda").random_(0, 300)
    sums = torch.sum(torch.tensor([1.5, 2.25, 3.0], device="cuda"), dtype=torch.float16)
    assert sums.dtype == torch.float16 and sums.item() == 6.75


# ---- matrix-vector and batched-add products (composite/portable_linalg.py) --------------------------

@pytest.mark.parametrize("op, shapes", [
    (lambda a, b: torch.dot(a, b), [(7,), (7,)]),
    (lambda a, b: torch.vdot(a, b), [(7,), (7,)]),
    (lambda a, b: torch.mv(a, b), [(4, 7), (7,)]),
    (lambda a, b: torch.mv(a.t(), b), [(7, 4), (7,)]),
    (lambda a, b: torch.addmv(b[:4], a, b, beta=0.5, alpha=2), [(4, 7), (7,)]),
    (lambda a, b: torch.baddbmm(a[:, :, :3] @ b[:, :, :3].transpose(1, 2), a, b.transpose(1, 2), beta=2,
                                alpha=-1), [(2, 3, 5), (2, 3, 5)]),
    (lambda a, b: torch.addbmm(a[0, :, :3], a, b, alpha=0.5), [(3, 4, 5), (3, 5, 3)]),
    (lambda a, b: torch.matmul(a, b), [(5,), (5, 3)]),
], ids=["dot", "vdot", "mv", "mv_transposed", "addmv", "baddbmm", "addbmm", "matmul_vector_matrix"])
def test_matrix_vector_products_match_the_cpu_forward_and_backward(op, shapes):
    (a_cpu, a_gpu), (b_cpu, b_gpu) = _inputs(shapes[0], 1), _inputs(shapes[1], 2)
    expected, got = op(a_cpu, b_cpu), op(a_gpu, b_gpu)
    assert got.device.type == "cuda" and got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-10)
    expected.sum().backward()
    got.sum().backward()
    for cpu, gpu in ((a_cpu, a_gpu), (b_cpu, b_gpu)):
        np.testing.assert_allclose(gpu.grad.cpu().numpy(), cpu.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_beta_zero_ignores_nan_in_the_added_tensor():
    mat, vec = torch.randn(3, 4, device="cuda"), torch.randn(4, device="cuda")
    got = torch.addmv(torch.full((3,), float("nan"), device="cuda"), mat, vec, beta=0)
    assert torch.isfinite(got).all()
    b = torch.randn(2, 3, 4, device="cuda")
    assert torch.isfinite(torch.baddbmm(torch.full((2, 3, 3), float("nan"), device="cuda"), b, b.transpose(1, 2),
                                        beta=0)).all()


def test_matrix_vector_shape_errors_are_the_cpus():
    m, v = torch.zeros(3, 4, device="cuda"), torch.zeros(5, device="cuda")
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(3\), mat \(3x4\), vec \(5\)"):
        torch.mv(m, v)
    with pytest.raises(RuntimeError, match="1D tensors expected, but got 2D and 1D tensors"):
        torch.dot(m, v)
    with pytest.raises(RuntimeError, match="inconsistent tensor size"):
        torch.dot(torch.zeros(3, device="cuda"), v)
    with pytest.raises(RuntimeError, match="batch1 must be a 3D tensor"):
        torch.baddbmm(m, m, m)


# ---- losses ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_matches_the_cpu_with_its_clamped_logs(reduction, weighted):
    probabilities = torch.tensor([[0.0, 0.3, 1.0], [0.5, 0.99, 1e-30]], dtype=torch.float64)
    target = torch.tensor([[0.0, 1.0, 1.0], [0.2, 0.0, 1.0]], dtype=torch.float64)
    weight = torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64) if weighted else None
    cpu = probabilities.clone().requires_grad_()
    gpu = probabilities.cuda().requires_grad_()
    expected = F.binary_cross_entropy(cpu, target, weight, reduction=reduction)
    got = F.binary_cross_entropy(gpu, target.cuda(), None if weight is None else weight.cuda(), reduction=reduction)
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(), rtol=1e-12)
    got.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(gpu.grad.cpu().numpy(), cpu.grad.numpy(), rtol=1e-12)


def test_binary_cross_entropy_refuses_inputs_outside_zero_to_one():
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(torch.tensor([1.5], device="cuda"), torch.tensor([1.0], device="cuda"))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_spatial_cross_entropy_matches_the_cpu(reduction):
    cpu, gpu = _inputs((2, 4, 3, 5), 3)
    target = torch.from_numpy(np.random.default_rng(4).integers(0, 4, (2, 3, 5)))
    target[0, 0, 0] = -100
    weight = torch.tensor([1.0, 2.0, 0.5, 1.5], dtype=torch.float64)
    expected = F.cross_entropy(cpu, target, weight, reduction=reduction)
    got = F.cross_entropy(gpu, target.cuda(), weight.cuda(), reduction=reduction)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    expected.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(gpu.grad.cpu().numpy(), cpu.grad.numpy(), rtol=1e-10, atol=1e-12)
    with pytest.raises(RuntimeError, match="size mismatch"):
        F.nll_loss(gpu, target[:, :2].cuda())


# ---- comparison, counting and data movement (composite/portable_shape.py) ----------------------------

def test_equal_compares_shape_and_values_on_the_device():
    a = torch.arange(6.0, device="cuda").reshape(2, 3)
    assert torch.equal(a, a.clone()) and not torch.equal(a, a.t()) and not torch.equal(a, a + 1)
    assert torch.equal(torch.zeros(0, 3, device="cuda"), torch.zeros(0, 3, device="cuda"))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.equal(a, a.cpu())


@pytest.mark.parametrize("dim", [None, 0, (0, 2), -1])
def test_count_nonzero_matches_the_cpu(dim):
    cpu = torch.from_numpy(np.random.default_rng(5).integers(-1, 2, (3, 4, 5)))
    assert torch.equal(torch.count_nonzero(cpu.cuda(), dim).cpu(), torch.count_nonzero(cpu, dim))


@pytest.mark.parametrize("shifts, dims", [(2, None), (-7, None), ((1, -2), (0, 2)), (5, 1), ((0,), (1,))])
def test_roll_matches_the_cpu(shifts, dims):
    _same(lambda t: torch.roll(t, shifts, dims))
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        torch.roll(torch.zeros(3, device="cuda"), (1, 2), (0,))


def test_take_along_dim_broadcasts_as_on_the_cpu():
    indices = torch.from_numpy(np.random.default_rng(6).integers(0, 4, (3, 1, 2)))
    _same(lambda t: torch.take_along_dim(t, indices.to(t.device), 2))
    _same(lambda t: torch.take_along_dim(t, indices.to(t.device).reshape(-1)))
    values = torch.randn(4, 6, dtype=torch.float64)
    order = torch.argsort(values, 1)
    assert torch.equal(torch.take_along_dim(values.cuda(), order.cuda(), 1).cpu(),
                       torch.take_along_dim(values, order, 1))


def test_index_copy_matches_the_cpu_and_checks_its_indices():
    source = torch.randn(3, 2, 4, dtype=torch.float64)
    index = torch.tensor([4, 0, 2])
    _same(lambda t: t.index_copy(0, index.to(t.device), source.to(t.device)), shape=(5, 2, 4))
    target = torch.zeros(5, 2, 4, dtype=torch.float64, device="cuda")
    target.index_copy_(0, index.cuda(), source.cuda())
    assert torch.equal(target.cpu(), torch.zeros(5, 2, 4, dtype=torch.float64).index_copy_(0, index, source))
    with pytest.raises(IndexError, match="index_copy_\\(\\): index 5 is out of bounds for dimension 0 with size 5"):
        target.index_copy_(0, torch.tensor([5, 0, 1], device="cuda"), source.cuda())
    with pytest.raises(RuntimeError, match="index_copy_\\(\\): Expected a long tensor for index"):
        target.index_copy_(0, torch.tensor([1, 0, 2], dtype=torch.int32, device="cuda"), source.cuda())


# ---- einsum (composite/portable_einsum.py) --------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("bij,bjk", [(2, 3, 4), (2, 4, 2)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("iij->j", [(3, 3, 2)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i->", [(5,), (5,)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("i...->...", [(3, 2, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("ab,bc,ca->", [(2, 3), (3, 4), (4, 2)]),
    ("bi,bi->b", [(1, 4), (3, 4)]),
    ("ij,ij->ij", [(3, 1), (3, 4)]),
    ("i,j,k->ijk", [(2,), (3,), (4,)]),
    ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("ab,ab,ab->a", [(3, 4), (3, 4), (3, 4)]),
]


@pytest.mark.parametrize("equation, shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_matches_the_cpu_forward_and_backward(equation, shapes):
    pairs = [_inputs(shape, seed) for seed, shape in enumerate(shapes)]
    expected = torch.einsum(equation, *[cpu for cpu, _ in pairs])
    got = torch.einsum(equation, *[gpu for _, gpu in pairs])
    assert got.device.type == "cuda" and got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-10)
    expected.sum().backward()
    got.sum().backward()
    for cpu, gpu in pairs:
        np.testing.assert_allclose(gpu.grad.cpu().numpy(), cpu.grad.numpy(), rtol=1e-10, atol=1e-10)


def test_einsum_of_integers_sums_in_int64_and_checks_as_the_cpu():
    t = torch.arange(6, dtype=torch.int32).reshape(2, 3)
    got = torch.einsum("ij->i", t.cuda())
    assert got.dtype == torch.int64 and torch.equal(got.cpu(), torch.einsum("ij->i", t))
    with pytest.raises(RuntimeError, match="einsum\\(\\): output subscript k does not appear"):
        torch.einsum("ij->k", t.cuda())
    with pytest.raises(RuntimeError, match="einsum\\(\\): subscript j has size 3 for operand 1 which does not "
                                           "broadcast with previously seen size 4"):
        torch.einsum("ij,jk->ik", torch.zeros(2, 4, device="cuda"), torch.zeros(3, 2, device="cuda"))


def test_einsum_permutation_is_a_view_on_the_device():
    t = torch.randn(3, 4, device="cuda")
    view = torch.einsum("ij->ji", t)
    assert view.data_ptr() == t.data_ptr() and view.stride() == (1, 4)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape, pad", [((2, 3, 7), (2, 3)), ((3, 7), (0, 6)), ((2, 2, 5, 6), (1, 2, 3, 4)),
                                        ((2, 5, 6), (5, 0, 0, 4)), ((1, 2, 3, 4, 5), (1, 2, 0, 3, 2, 1))])
def test_reflection_and_replication_padding_match_the_cpu(mode, shape, pad):
    _same(lambda t: F.pad(t, pad, mode=mode), shape=shape)


def test_padding_errors_are_the_cpus():
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding input dimension"):
        F.pad(torch.zeros(1, 2, 3, device="cuda"), (3, 0), mode="reflect")


def test_float16_matrix_vector_products_compute_as_the_cpu():
    a = torch.randn(3, 4).half()
    v = torch.randn(4).half()
    for op in (lambda m, x: torch.mv(m, x), lambda m, x: torch.dot(m[0], x), lambda m, x: torch.addmv(m[:, 0], m, x),
               lambda m, x: torch.baddbmm(m[None, :, :3], m[None], m.t()[None, :, :3])):
        expected, got = op(a, v), op(a.cuda(), v.cuda())
        assert got.dtype == torch.float16
        np.testing.assert_allclose(got.cpu().float().numpy(), expected.float().numpy(), rtol=2e-3, atol=2e-3)


def test_roll_and_pads_move_every_dtype_and_roll_a_dim_named_twice():
    for t in (torch.arange(6).reshape(2, 3).half(), torch.tensor([[True, False, False], [False, True, True]])):
        assert torch.equal(torch.roll(t.cuda(), 1).cpu(), torch.roll(t, 1))
    x = torch.arange(5.0).reshape(1, 1, 5).half()
    assert torch.equal(F.pad(x.cuda(), (2, 1), mode="reflect").cpu(), F.pad(x, (2, 1), mode="reflect"))
    grid = torch.arange(12).reshape(3, 4)
    expected = torch.tensor([[2, 3, 0, 1], [6, 7, 4, 5], [10, 11, 8, 9]])
    assert torch.equal(torch.roll(grid, (1, 1), (1, 1)), expected)
    assert torch.equal(torch.roll(grid.cuda(), (1, 1), (1, 1)).cpu(), expected)
    with pytest.raises(IndexError, match="Dimension specified as -1 but tensor has no dimensions"):
        torch.roll(torch.tensor(3, device="cuda"), 1, -1)


def test_loss_dtype_errors_are_the_cpus():
    with pytest.raises(NotImplementedError, match="\"binary_cross_entropy\" not implemented for 'Long'"):
        torch.ops.aten.binary_cross_entropy(torch.ones(3, dtype=torch.int64, device="cuda"),
                                            torch.ones(3, dtype=torch.int64, device="cuda"))
    scores = torch.randn(2, 3, 4, 4, device="cuda")
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.nll_loss(scores, torch.zeros(2, 4, 4, dtype=torch.int32, device="cuda"))
