"""The handwritten CUDA kernels (aten/native/cuda/kernels/*.cu) against the CPU results on the
same inputs: float32 within 1e-5 relative (GEMMs: scaled by K), float64 tighter, ints exact.

Run where an NVIDIA GPU and PyCUDA are present: `pip install -e .[cuda]`, then `pytest -m cuda`.
"""
import numpy as np
import pytest

import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]

FLOATS = [torch.float32, torch.float64]


def _pair(shape, dtype, seed=0):
    cpu = torch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(dtype)
    return cpu, cpu.cuda()


def _close(got, expected, rtol):
    assert got.device.type == "cuda" and got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got.detach().cpu().numpy(), expected.detach().numpy(), rtol=rtol, atol=rtol)


# ---- copies ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int16, torch.uint8, torch.bool])
def test_views_copy_and_clone_on_the_device_as_on_the_cpu(dtype):
    cpu = torch.arange(60).reshape(3, 4, 5).to(dtype)
    gpu = cpu.cuda()
    for view in (lambda t: t.transpose(0, 2), lambda t: t[:, 1::2, ::3], lambda t: t.permute(1, 2, 0)[1]):
        assert torch.equal(view(gpu).contiguous().cpu(), view(cpu).contiguous())
        assert torch.equal(view(gpu).clone().cpu(), view(cpu).clone())
    target_cpu, target_gpu = torch.zeros(5, 4, 3, dtype=dtype), torch.zeros(5, 4, 3, dtype=dtype, device="cuda")
    target_cpu.transpose(0, 2).copy_(cpu)
    target_gpu.transpose(0, 2).copy_(gpu)
    assert torch.equal(target_gpu.cpu(), target_cpu)


def test_copy_broadcasts_and_converts_on_the_device():
    gpu = torch.zeros(3, 4, device="cuda")
    gpu.copy_(torch.arange(4, dtype=torch.int64, device="cuda"))
    assert gpu.tolist() == [[0.0, 1.0, 2.0, 3.0]] * 3
    gpu[1].copy_(torch.tensor([9, 8, 7, 6]))
    assert gpu.tolist()[1] == [9.0, 8.0, 7.0, 6.0]


# ---- matmul family -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (7, 13, 5), (128, 128, 128), (130, 257, 129), (512, 64, 300)])
def test_mm_matches_the_cpu_for_every_layout(dtype, m, k, n):
    a_cpu, a_gpu = _pair((m, k), dtype)
    b_cpu, b_gpu = _pair((k, n), dtype, 1)
    rtol = (1e-5 if dtype == torch.float32 else 1e-12) * max(1, k) ** 0.5
    _close(torch.mm(a_gpu, b_gpu), torch.mm(a_cpu, b_cpu), rtol)
    _close(torch.mm(a_gpu.t().contiguous().t(), b_gpu.t().contiguous().t()), torch.mm(a_cpu, b_cpu), rtol)
    bias_cpu, bias_gpu = _pair((n,), dtype, 2)
    _close(torch.addmm(bias_gpu, a_gpu, b_gpu, beta=0.5, alpha=2.0), torch.addmm(bias_cpu, a_cpu, b_cpu, beta=0.5,
                                                                                 alpha=2.0), rtol)


@pytest.mark.parametrize("dtype", FLOATS)
def test_bmm_and_matmul_match_the_cpu(dtype):
    a_cpu, a_gpu = _pair((6, 33, 17), dtype)
    b_cpu, b_gpu = _pair((6, 17, 40), dtype, 1)
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    _close(torch.bmm(a_gpu, b_gpu), torch.bmm(a_cpu, b_cpu), rtol)
    _close(a_gpu @ b_gpu, a_cpu @ b_cpu, rtol)
    _close(torch.bmm(a_gpu, a_gpu.transpose(1, 2)), torch.bmm(a_cpu, a_cpu.transpose(1, 2)), rtol)


def test_mm_errors_as_on_the_cpu():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)"):
        torch.mm(torch.ones(2, 3, device="cuda"), torch.ones(2, 3, device="cuda"))
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.mm(torch.ones(2, 3, device="cuda"), torch.ones(3, 2))


# ---- reductions and softmax ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [None, 0, 1, -1, (0, 2), (1, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_mean_amax_amin_match_the_cpu(dtype, dim, keepdim):
    cpu, gpu = _pair((5, 300, 7), dtype)
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    for op in ("sum", "mean", "amax", "amin"):
        if dim is None:   # as PyTorch: keepdim needs a dim
            got, expected = getattr(torch, op)(gpu), getattr(torch, op)(cpu)
        else:
            got, expected = getattr(torch, op)(gpu, dim, keepdim=keepdim), getattr(torch, op)(cpu, dim, keepdim=keepdim)
        _close(got, expected, rtol)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64])
def test_max_min_argmax_argmin_match_the_cpu_with_ties_and_nan(dtype):
    cpu = torch.tensor([[3, 1, 3, 0], [2, 2, 5, 5], [7, 0, 0, 7]], dtype=dtype)
    if dtype.is_floating_point:
        cpu[1, 1] = float("nan")
    gpu = cpu.cuda()
    for dim in (0, 1, -1):
        for op in (torch.max, torch.min):
            v_gpu, i_gpu = op(gpu, dim)
            v_cpu, i_cpu = op(cpu, dim)
            np.testing.assert_array_equal(v_gpu.cpu().numpy(), v_cpu.numpy())
            assert torch.equal(i_gpu.cpu(), i_cpu)
        assert torch.equal(torch.argmax(gpu, dim).cpu(), torch.argmax(cpu, dim))
        assert torch.equal(torch.argmin(gpu, dim, keepdim=True).cpu(), torch.argmin(cpu, dim, keepdim=True))
    assert torch.equal(torch.argmax(gpu).cpu(), torch.argmax(cpu))
    np.testing.assert_array_equal(torch.max(gpu).cpu().numpy(), torch.max(cpu).numpy())


def test_integer_sum_is_int64_as_on_the_cpu():
    cpu = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    got = torch.sum(cpu.cuda(), 1)
    assert got.dtype == torch.int64 and got.tolist() == torch.sum(cpu, 1).tolist()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_and_log_softmax_match_the_cpu(dtype, dim):
    cpu, gpu = _pair((4, 1000, 3), dtype)
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    _close(torch.softmax(gpu, dim), torch.softmax(cpu, dim), rtol)
    _close(torch.log_softmax(gpu, dim), torch.log_softmax(cpu, dim), rtol)


def test_reductions_of_empty_dims_error_as_on_the_cpu():
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        torch.amax(torch.ones(0, 3, device="cuda"), 0)
    assert torch.sum(torch.ones(0, 3, device="cuda"), 0).tolist() == [0.0, 0.0, 0.0]


def test_addmm_with_an_empty_inner_dimension_or_beta_zero():
    bias = torch.tensor([1.0, float("nan")], device="cuda")
    assert torch.addmm(bias, torch.ones(3, 0, device="cuda"), torch.ones(0, 2, device="cuda"), beta=2.0).tolist()[0][0] \
        == 2.0
    assert torch.addmm(bias, torch.ones(1, 2, device="cuda"), torch.ones(2, 2, device="cuda"), beta=0).tolist() == [
        [2.0, 2.0]]


def test_an_op_without_a_cuda_kernel_raises_not_implemented_naming_it():
    with pytest.raises(NotImplementedError, match=r"Could not run 'aten::\w+' with arguments from the 'CUDA' backend"):
        torch.mode(torch.ones(4, device="cuda"))


# ---- losses and a whole training run -------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_and_cross_entropy_match_the_cpu(dtype, reduction):
    logits_cpu, logits_gpu = _pair((70, 10), dtype)
    target_cpu = torch.from_numpy(np.random.default_rng(3).integers(0, 10, 70))
    target_cpu[5] = -100
    weight_cpu = torch.linspace(0.5, 2.0, 10, dtype=dtype)
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    for weight in (None, weight_cpu):
        kwargs = dict(reduction=reduction, weight=weight)
        expected = torch.nn.functional.cross_entropy(logits_cpu, target_cpu, **kwargs)
        gpu_kwargs = dict(reduction=reduction, weight=None if weight is None else weight.cuda())
        _close(torch.nn.functional.cross_entropy(logits_gpu, target_cpu.cuda(), **gpu_kwargs), expected, rtol)


def test_nll_loss_target_out_of_bounds_is_an_index_error():
    with pytest.raises(IndexError, match="Target 12 is out of bounds."):
        torch.nn.functional.nll_loss(torch.zeros(3, 10, device="cuda"), torch.tensor([1, 12, 0], device="cuda"))
        torch.cuda.synchronize()        # the target is checked on the device, reported here


def test_the_digits_mlp_trains_on_the_gpu_as_on_the_cpu():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
    import train_digits
    torch.manual_seed(0)
    cpu_accuracy = train_digits.fit(train_digits.MLP(), 3, 0.1, 0)
    torch.manual_seed(0)
    gpu_accuracy = train_digits.fit(train_digits.MLP(), 3, 0.1, 0, device="cuda")
    assert abs(gpu_accuracy - cpu_accuracy) <= 0.01


def _small_cnn():
    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(4, 6, 3, groups=2), torch.nn.GroupNorm(2, 6), torch.nn.GELU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Dropout(0.0), torch.nn.Linear(6, 3)).double()


def test_a_cnn_trains_on_the_device_step_for_step_as_on_the_cpu(tmp_path):
    torch.manual_seed(0)
    cpu_model = _small_cnn()
    gpu_model = _small_cnn().cuda()
    gpu_model.load_state_dict(cpu_model.state_dict())
    x = torch.randn(8, 1, 8, 8, dtype=torch.float64)
    y = torch.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    losses = {}
    for model, device in ((cpu_model, "cpu"), (gpu_model, "cuda")):
        optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
        losses[device] = []
        for _ in range(4):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device), label_smoothing=0.1)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            losses[device].append(loss.item())
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-9)
    torch.save(gpu_model.state_dict(), tmp_path / "cnn.pt")
    restored = _small_cnn()
    restored.load_state_dict(torch.load(tmp_path / "cnn.pt", map_location="cpu"))
    for (name, a), b in zip(restored.state_dict().items(), cpu_model.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12, err_msg=name)


# ---- in-place and out= variants of the generated pointwise ops -----------------------------------

def test_inplace_and_out_pointwise_variants_write_into_their_target():
    cpu = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    gpu = cpu.cuda()
    gpu.add_(torch.ones(4, device="cuda"), alpha=2)
    gpu.t().mul_(torch.full((4, 3), 0.5, device="cuda"))     # through a transposed view
    cpu.add_(torch.ones(4), alpha=2)
    cpu.t().mul_(torch.full((4, 3), 0.5))
    assert torch.equal(gpu.cpu(), cpu)
    out = torch.empty(0, device="cuda")
    torch.exp(gpu, out=out)
    np.testing.assert_allclose(out.cpu().numpy(), torch.exp(cpu).numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        torch.ones(3, dtype=torch.int64, device="cuda").add_(torch.ones(3, device="cuda"))
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        torch.ones(3, device="cuda").add_(torch.ones(2, 3, device="cuda"))


def test_inplace_and_out_variants_write_in_place_without_a_temporary():
    gpu = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)
    address, version = gpu.data_ptr(), gpu._version
    gpu.mul_(gpu).sub_(torch.ones(4, dtype=torch.int64, device="cuda"), alpha=3)   # self as operand; int converted
    assert gpu.data_ptr() == address and gpu._version == version + 2
    expected = torch.arange(12, dtype=torch.float32).reshape(3, 4) ** 2 - 3
    assert torch.equal(gpu.cpu(), expected)
    out = torch.empty(3, 4, device="cuda")
    address = out.data_ptr()
    assert torch.add(gpu, 1, out=out) is out and out.data_ptr() == address
    assert torch.equal(out.cpu(), expected + 1)


def test_an_out_tensor_on_the_cpu_for_a_cuda_op_is_the_same_device_error():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device.*cpu and cuda:0"):
        torch.add(torch.ones(3, device="cuda"), 1, out=torch.empty(3))


@pytest.mark.parametrize("case", ["shifted", "broadcast row"])
def test_inplace_partial_overlap_is_pytorchs_error_on_both_devices(case):
    for device in ("cpu", "cuda"):
        x = torch.arange(6.0, device=device)
        with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer"):
            if case == "shifted":
                x[1:].add_(x[:-1])
            else:
                x.reshape(2, 3).add_(x.reshape(2, 3)[0])


# ---- indexing, embedding, cat, layer norm ------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select_and_index_add_match_the_cpu(dtype, dim):
    cpu = torch.arange(60).reshape(3, 4, 5).to(dtype)
    index = torch.tensor([2, 0, 2, 1])
    index = index[index < cpu.shape[dim]]
    assert torch.equal(torch.index_select(cpu.cuda(), dim, index.cuda()).cpu(), torch.index_select(cpu, dim, index))
    source_shape = list(cpu.shape)
    source_shape[dim] = len(index)
    source = torch.arange(int(np.prod(source_shape))).reshape(source_shape).to(dtype)
    got = torch.index_add(cpu.cuda(), dim, index.cuda(), source.cuda(), alpha=2)   # repeated 2: atomics
    assert torch.equal(got.cpu(), torch.index_add(cpu, dim, index, source, alpha=2))


def test_index_errors_as_on_the_cpu():
    with pytest.raises(IndexError, match="index out of range in self"):
        torch.index_select(torch.ones(3, 4, device="cuda"), 0, torch.tensor([5], device="cuda")).cpu()
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
        torch.index_add(torch.ones(3, 4, device="cuda"), 0, torch.tensor([5], device="cuda"),
                        torch.ones(1, 4, device="cuda")).cpu()


def test_embedding_forward_and_backward_match_the_cpu():
    weight_cpu = torch.randn(10, 6, dtype=torch.float64, requires_grad=True)
    weight_gpu = weight_cpu.detach().cuda().requires_grad_()
    indices = torch.tensor([[1, 3, 3], [0, 9, 1]])
    out_cpu = torch.nn.functional.embedding(indices, weight_cpu, padding_idx=0)
    out_gpu = torch.nn.functional.embedding(indices.cuda(), weight_gpu, padding_idx=0)
    _close(out_gpu, out_cpu.detach(), 1e-12)
    out_cpu.square().sum().backward()
    out_gpu.square().sum().backward()
    _close(weight_gpu.grad, weight_cpu.grad, 1e-12)


def test_cat_matches_the_cpu_with_promotion_and_views():
    a, b = torch.arange(6).reshape(2, 3), torch.arange(4.0).reshape(2, 2)
    for dim in (1, -1):
        assert torch.equal(torch.cat([a.cuda(), b.cuda()], dim).cpu(), torch.cat([a, b], dim))
    c = torch.arange(12.0).reshape(3, 4).t()
    assert torch.equal(torch.cat([c.cuda(), c.cuda()], 0).cpu(), torch.cat([c, c], 0))
    with pytest.raises(RuntimeError, match="Sizes of tensors must match except in dimension 0"):
        torch.cat([torch.ones(2, 3, device="cuda"), torch.ones(2, 4, device="cuda")])


@pytest.mark.parametrize("dtype", FLOATS)
def test_layer_norm_forward_and_backward_match_the_cpu(dtype):
    x_cpu = torch.randn(8, 5, 32, dtype=dtype, requires_grad=True)
    w_cpu = torch.randn(32, dtype=dtype, requires_grad=True)
    b_cpu = torch.randn(32, dtype=dtype, requires_grad=True)
    x_gpu, w_gpu, b_gpu = (t.detach().cuda().requires_grad_() for t in (x_cpu, w_cpu, b_cpu))
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    out_cpu = torch.nn.functional.layer_norm(x_cpu, (32,), w_cpu, b_cpu)
    out_gpu = torch.nn.functional.layer_norm(x_gpu, (32,), w_gpu, b_gpu)
    _close(out_gpu, out_cpu.detach(), rtol)
    out_cpu.square().sum().backward()
    out_gpu.square().sum().backward()
    for g, c in ((x_gpu, x_cpu), (w_gpu, w_cpu), (b_gpu, b_cpu)):
        _close(g.grad, c.grad, rtol * 10)


# ---- fills, overlap, launch limits ---------------------------------------------------------------

def test_fills_of_every_dtype():
    assert torch.ones(3, dtype=torch.bool, device="cuda").tolist() == [True] * 3
    assert torch.full((3,), 1.5, dtype=torch.float16, device="cuda").tolist() == [1.5] * 3
    assert torch.zeros(2, dtype=torch.int8, device="cuda").tolist() == [0, 0]


def test_log_softmax_of_large_logits_keeps_its_precision():
    x = torch.tensor([1e6, 1e6 + 1, 1e6 - 3])
    _close(torch.log_softmax(x.cuda(), 0), torch.log_softmax(x, 0), 1e-5)


def test_overlapping_copies_raise_as_pytorch_or_go_through_a_temporary():
    x = torch.arange(10.0, device="cuda")
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        x[1:].copy_(x[:-1])
    gpu = torch.arange(9.0).reshape(3, 3).cuda()
    with pytest.raises(RuntimeError, match="refer to a single memory location"):    # PyTorch 2.13's, as on the CPU
        gpu.copy_(gpu.t())
    x = torch.arange(8.0, device="cuda")
    windows = x.as_strided((2, 3), (1, 1), 2)          # [[2, 3, 4], [3, 4, 5]]: no dense layout, so no check
    x[:6].view(2, 3).copy_(windows)                     # read whole (into a temporary) before the write
    assert x.cpu().tolist() == [2.0, 3.0, 4.0, 3.0, 4.0, 5.0, 6.0, 7.0]


def test_bmm_beyond_the_grid_limit_of_batches():
    a = torch.randn(70000, 2, 3, device="cuda")
    b = torch.randn(70000, 3, 2, device="cuda")
    _close(torch.bmm(a, b), torch.bmm(a.cpu(), b.cpu()), 1e-5)


# ---- random ------------------------------------------------------------------------------------

def test_seeded_random_draws_repeat_and_have_the_right_distribution():
    torch.manual_seed(7)
    first = torch.rand(1 << 20, device="cuda")
    torch.cuda.manual_seed(7)
    assert torch.equal(torch.rand(1 << 20, device="cuda").cpu(), first.cpu())
    values = first.cpu().numpy()
    assert 0.0 <= values.min() and values.max() < 1.0 and abs(values.mean() - 0.5) < 0.005
    normal = torch.randn(1 << 20, dtype=torch.float64, device="cuda").cpu().numpy()
    assert abs(normal.mean()) < 0.01 and abs(normal.std() - 1) < 0.01
    ones = torch.empty(1 << 20, device="cuda").bernoulli_(0.3).cpu().numpy()
    assert set(np.unique(ones)) <= {0.0, 1.0} and abs(ones.mean() - 0.3) < 0.005


def test_dropout_on_the_gpu_zeroes_and_scales():
    x = torch.ones(1 << 16, device="cuda")
    y = torch.nn.functional.dropout(x, 0.25, training=True).cpu().numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)} and abs((y == 0).mean() - 0.25) < 0.01


def test_a_cpu_generator_for_a_cuda_tensor_is_an_error():
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"):
        torch.empty(3, device="cuda").uniform_(generator=torch.Generator())


# ---- convolution and pooling ---------------------------------------------------------------------

CONV_CASES = [
    dict(shape=(2, 3, 9, 8), weight=(4, 3, 3, 3)),
    dict(shape=(2, 4, 9, 8), weight=(6, 2, 3, 2), stride=(2, 1), padding=(1, 2), dilation=(2, 1), groups=2),
    dict(shape=(1, 4, 7, 7), weight=(4, 1, 3, 3), padding=1, groups=4),
    dict(shape=(2, 3, 20), weight=(5, 3, 4), stride=2, padding=1),
    dict(shape=(2, 4, 5, 6, 4), weight=(6, 2, 3, 2, 3), stride=(2, 1, 1), padding=(1, 0, 2), dilation=(1, 2, 1),
         groups=2),
]


@pytest.mark.parametrize("case", CONV_CASES, ids=range(len(CONV_CASES)))
@pytest.mark.parametrize("transposed", [False, True])
def test_convolution_forward_and_backward_match_the_cpu(case, transposed):
    k = len(case["shape"]) - 2
    weight_shape = case["weight"]
    if transposed:   # (C_in, C_out / groups, ...) for the same channel counts
        groups = case.get("groups", 1)
        weight_shape = (case["shape"][1], weight_shape[0] // groups) + tuple(weight_shape[2:])
    x_cpu, x_gpu = (t.requires_grad_() for t in _pair(case["shape"], torch.float64))
    w_cpu, w_gpu = (t.requires_grad_() for t in _pair(weight_shape, torch.float64, 1))
    out_channels = weight_shape[1] * case.get("groups", 1) if transposed else weight_shape[0]
    b_cpu, b_gpu = (t.requires_grad_() for t in _pair((out_channels,), torch.float64, 2))
    options = dict(stride=case.get("stride", 1), padding=case.get("padding", 0), dilation=case.get("dilation", 1),
                   groups=case.get("groups", 1))
    name = ("conv_transpose" if transposed else "conv") + f"{k}d"
    fn = getattr(torch.nn.functional, name)
    out_cpu, out_gpu = fn(x_cpu, w_cpu, b_cpu, **options), fn(x_gpu, w_gpu, b_gpu, **options)
    _close(out_gpu, out_cpu.detach(), 1e-10)
    out_cpu.square().sum().backward()
    out_gpu.square().sum().backward()
    for g, c in ((x_gpu, x_cpu), (w_gpu, w_cpu), (b_gpu, b_cpu)):
        _close(g.grad, c.grad, 1e-10)


def test_transposed_convolution_with_output_padding_matches_the_cpu():
    x_cpu, x_gpu = (t.requires_grad_() for t in _pair((2, 4, 5, 6), torch.float64))
    w_cpu, w_gpu = (t.requires_grad_() for t in _pair((4, 3, 3, 2), torch.float64, 1))
    options = dict(stride=(2, 3), padding=(1, 0), output_padding=(1, 2), dilation=(1, 2))
    out_cpu = torch.nn.functional.conv_transpose2d(x_cpu, w_cpu, **options)
    out_gpu = torch.nn.functional.conv_transpose2d(x_gpu, w_gpu, **options)
    _close(out_gpu, out_cpu, 1e-10)
    out_cpu.square().sum().backward()
    out_gpu.square().sum().backward()
    _close(x_gpu.grad, x_cpu.grad, 1e-10)
    _close(w_gpu.grad, w_cpu.grad, 1e-10)


def test_max_pool2d_forward_and_backward_match_the_cpu():
    x_cpu, x_gpu = (t.requires_grad_() for t in _pair((2, 3, 9, 10), torch.float64))
    for options in (dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)):
        out_cpu, idx_cpu = torch.nn.functional.max_pool2d(x_cpu, return_indices=True, **options)
        out_gpu, idx_gpu = torch.nn.functional.max_pool2d(x_gpu, return_indices=True, **options)
        _close(out_gpu, out_cpu.detach(), 1e-15)
        assert torch.equal(idx_gpu.cpu(), idx_cpu)
        out_cpu.sum().backward()
        out_gpu.sum().backward()
        _close(x_gpu.grad, x_cpu.grad, 1e-15)


# ---- upsampling (kernels/upsample.cu) -------------------------------------------------------------

UPSAMPLE_CASES = [((2, 3, 7), dict(size=12, mode="linear")), ((2, 3, 7), dict(scale_factor=0.6, mode="nearest")),
                  ((1, 2, 5, 6), dict(size=(8, 4), mode="bilinear", align_corners=True)),
                  ((1, 2, 5, 6), dict(scale_factor=1.7, mode="bicubic")),
                  ((1, 2, 5, 6), dict(size=(9, 11), mode="nearest-exact")),
                  ((1, 2, 3, 4, 5), dict(size=(5, 3, 8), mode="trilinear")),
                  ((1, 2, 3, 4, 5), dict(scale_factor=(2.0, 1.5, 0.5), mode="nearest"))]


@pytest.mark.parametrize("case", UPSAMPLE_CASES, ids=range(len(UPSAMPLE_CASES)))
@pytest.mark.parametrize("dtype", FLOATS)
def test_upsampling_forward_and_backward_match_the_cpu(case, dtype):
    shape, options = case
    x_cpu, x_gpu = (t.requires_grad_() for t in _pair(shape, dtype))
    out_cpu = torch.nn.functional.interpolate(x_cpu, **options)
    out_gpu = torch.nn.functional.interpolate(x_gpu, **options)
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    _close(out_gpu, out_cpu.detach(), rtol)
    out_cpu.square().sum().backward()
    out_gpu.square().sum().backward()
    _close(x_gpu.grad, x_cpu.grad, rtol)


def test_upsampling_float16_and_uint8_on_the_device_as_on_the_cpu():
    cpu = torch.arange(24, dtype=torch.uint8).reshape(1, 2, 3, 4)
    assert torch.equal(torch.nn.functional.interpolate(cpu.cuda(), scale_factor=1.5).cpu(),
                       torch.nn.functional.interpolate(cpu, scale_factor=1.5))
    half = torch.randn(1, 2, 3, 4).half()
    out = torch.nn.functional.interpolate(half.cuda(), size=(5, 7), mode="bilinear")
    assert out.dtype == torch.float16
    # the device may fuse a multiply-add, which can move a float16 rounding by one step
    np.testing.assert_allclose(out.cpu().float().numpy(),
                               torch.nn.functional.interpolate(half, size=(5, 7), mode="bilinear").float().numpy(),
                               rtol=1e-3, atol=1e-3)


# ---- linalg on the device: det up to 3x3, cross, vecdot, norms ------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_small_determinants_cross_and_vecdot_run_on_the_device(n):
    cpu, gpu = (t.requires_grad_() for t in _pair((4, n, n), torch.float64))
    _close(torch.linalg.det(gpu), torch.linalg.det(cpu).detach(), 1e-12)
    torch.linalg.det(cpu).sum().backward()
    torch.linalg.det(gpu).sum().backward()
    _close(gpu.grad, cpu.grad, 1e-10)
    a_cpu, a_gpu = _pair((2, 3), torch.float64, 1)
    b_cpu, b_gpu = _pair((2, 3), torch.float64, 2)
    _close(torch.linalg.cross(a_gpu, b_gpu), torch.linalg.cross(a_cpu, b_cpu), 1e-12)
    _close(torch.linalg.vecdot(a_gpu, b_gpu), torch.linalg.vecdot(a_cpu, b_cpu), 1e-12)


# ---- composite nn ops on the device: grid sampling, folding, 3-d and adaptive pools, distances ----------

COMPOSITE_CASES = {
    "grid_sample": (lambda x, g: torch.nn.functional.grid_sample(x, g, padding_mode="reflection", align_corners=False),
                    [(2, 3, 5, 6), (2, 4, 7, 2)]),
    "grid_sample_bicubic": (lambda x, g: torch.nn.functional.grid_sample(x, g, mode="bicubic", align_corners=True),
                            [(1, 2, 4, 5), (1, 3, 3, 2)]),
    "unfold_fold": (lambda x: torch.nn.functional.fold(torch.nn.functional.unfold(x, 3, padding=1), (5, 6), 3,
                                                       padding=1), [(2, 3, 5, 6)]),
    "max_pool3d": (lambda x: torch.nn.functional.max_pool3d(x, 2, stride=1, padding=1), [(1, 2, 4, 5, 6)]),
    "avg_pool3d": (lambda x: torch.nn.functional.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True),
                   [(1, 2, 5, 6, 7)]),
    "adaptive_max_pool2d": (lambda x: torch.nn.functional.adaptive_max_pool2d(x, (3, 4)), [(2, 3, 7, 9)]),
    "cdist": (lambda a, b: torch.cdist(a, b), [(2, 30, 3), (2, 5, 3)]),
}


@pytest.mark.parametrize("name", COMPOSITE_CASES)
def test_composite_nn_ops_match_the_cpu(name):
    fn, shapes = COMPOSITE_CASES[name]
    pairs = [tuple(t.requires_grad_() for t in _pair(s, torch.float64, i)) for i, s in enumerate(shapes)]
    if name.startswith("grid_sample"):      # grid coordinates inside and a little outside [-1, 1]
        pairs[1] = tuple(t.detach().tanh().mul(1.2).requires_grad_() for t in pairs[1])
    out_cpu = fn(*[p[0] for p in pairs])
    out_gpu = fn(*[p[1] for p in pairs])
    _close(out_gpu, out_cpu.detach(), 1e-10)
    out_cpu.square().sum().backward()
    out_gpu.square().sum().backward()
    for cpu, gpu in pairs:
        _close(gpu.grad, cpu.grad, 1e-9)


# ---- float16 (computed in float32, rounded once) -----------------------------------------------

HALF_CASES = {
    "mm": lambda a, b: a @ b,
    "bmm": lambda a, b: a.reshape(2, 3, 8) @ b.reshape(2, 8, 3),
    "addmm": lambda a, b: torch.addmm(b[:6, :6], a, b, beta=0.5),
    "sum": lambda a, b: a.sum(1),
    "mean": lambda a, b: a.mean(),
    "amax": lambda a, b: a.amax(0),
    "max_dim": lambda a, b: a.max(1)[0],
    "argmax": lambda a, b: a.argmax(1),
    "softmax": lambda a, b: a.softmax(-1),
    "log_softmax": lambda a, b: a.log_softmax(0),
    "layer_norm": lambda a, b: torch.nn.functional.layer_norm(a, (8,)),
    "conv2d": lambda a, b: torch.nn.functional.conv2d(a.reshape(1, 2, 3, 8), b.reshape(12, 2, 2, 1)),
    "avg_pool2d": lambda a, b: torch.nn.functional.avg_pool2d(a.reshape(1, 2, 3, 8), 2),
}


@pytest.mark.parametrize("name", list(HALF_CASES))
def test_float16_kernels_compute_in_float_and_round_as_the_cpu(name):
    rng = np.random.default_rng(3)
    a = torch.from_numpy(rng.standard_normal((6, 8))).half()
    b = torch.from_numpy(rng.standard_normal((8, 6))).half()
    got = HALF_CASES[name](a.cuda(), b.cuda())
    wide = HALF_CASES[name](a.float(), b.float())       # the float32 result on the CPU, rounded once
    expected = wide.half() if wide.dtype == torch.float32 else wide
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got.cpu().float().numpy(), expected.float().numpy(), rtol=1e-3, atol=1e-3)


def test_float16_sum_can_ask_for_a_float32_result():
    a = torch.full((1000,), 0.1, dtype=torch.float16, device="cuda")
    total = a.sum(dtype=torch.float32)
    assert total.dtype == torch.float32 and abs(total.item() - 1000 * float(np.float16(0.1))) < 1e-2


@pytest.mark.parametrize("groups", [1, 2])
def test_convolution_in_batch_chunks_matches_the_cpu(monkeypatch, groups):
    import aten.native.cuda.conv as cuda_conv
    monkeypatch.setattr(cuda_conv, "_COLS_LIMIT", 100)      # one sample's columns at a time
    x_cpu, x_gpu = _pair((5, 4, 6, 7), torch.float64)
    w_cpu, w_gpu = _pair((6, 4 // groups, 3, 3), torch.float64, 1)
    b_cpu, b_gpu = _pair((6,), torch.float64, 2)
    _close(torch.nn.functional.conv2d(x_gpu, w_gpu, b_gpu, padding=1, groups=groups),
           torch.nn.functional.conv2d(x_cpu, w_cpu, b_cpu, padding=1, groups=groups), 1e-12)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64, torch.bool])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_and_cumprod_match_the_cpu(dtype, dim):
    cpu = torch.from_numpy(np.random.default_rng(4).integers(-3, 4, (4, 5, 6))).to(dtype)
    for op in (torch.cumsum, torch.cumprod):
        got, expected = op(cpu.cuda(), dim), op(cpu, dim)
        assert got.dtype == expected.dtype and torch.equal(got.cpu(), expected)
    assert torch.equal(torch.cumsum(cpu.cuda(), dim, dtype=torch.float64).cpu(), torch.cumsum(cpu, dim,
                                                                                             dtype=torch.float64))


def test_cumsum_in_place_and_its_gradient_match_the_cpu():
    x_cpu, x_gpu = (t.requires_grad_() for t in _pair((3, 7), torch.float64))
    for x in (x_cpu, x_gpu):
        (x.cumsum(1) * torch.arange(7.0, dtype=torch.float64, device=x.device)).sum().backward()
    _close(x_gpu.grad, x_cpu.grad, 1e-12)
    ints = torch.arange(6, device="cuda")
    ints.cumsum_(0)
    assert ints.tolist() == [0, 1, 3, 6, 10, 15]
    with pytest.raises(RuntimeError, match="Bad in-place call: input tensor dtype long int and output tensor dtype "
                                           "double should match"):
        ints.cumsum_(0, dtype=torch.float64)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.bool])
def test_prod_matches_the_cpu(dtype):
    cpu = torch.from_numpy(np.random.default_rng(5).integers(-2, 3, (3, 4, 5))).to(dtype)
    for dim in (0, -1):
        for keepdim in (False, True):
            got, expected = torch.prod(cpu.cuda(), dim, keepdim=keepdim), torch.prod(cpu, dim, keepdim=keepdim)
            assert got.dtype == expected.dtype and torch.equal(got.cpu(), expected)
    assert torch.equal(torch.prod(cpu.cuda()).cpu(), torch.prod(cpu))
    assert torch.prod(torch.ones(0, 3, device="cuda"), 0).tolist() == [1.0, 1.0, 1.0]


# ---- cummax, cummin, logcumsumexp ----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int64, torch.int32,
                                   torch.int16, torch.int8, torch.uint8, torch.bool])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cummax_and_cummin_match_the_cpu_with_ties_and_nan(dtype, dim):
    data = np.random.default_rng(9).integers(0, 4, (5, 6, 3)).astype(np.float64)
    if dtype.is_floating_point:
        data[1, 2, 0] = data[3, 0, 1] = np.nan
    cpu = torch.from_numpy(data).to(dtype)
    for op in (torch.cummax, torch.cummin):
        (values, indices), (ev, ei) = op(cpu.cuda(), dim), op(cpu, dim)
        assert values.dtype == dtype and indices.dtype == torch.int64
        np.testing.assert_array_equal(values.cpu().numpy(), ev.numpy())
        np.testing.assert_array_equal(indices.cpu().numpy(), ei.numpy())


def test_cummax_backpropagates_as_on_the_cpu():
    cpu = torch.randn(4, 7, dtype=torch.float64, requires_grad=True)
    gpu = cpu.detach().cuda().requires_grad_()
    torch.cummax(cpu, 1).values.sum().backward()
    torch.cummax(gpu, 1).values.sum().backward()
    np.testing.assert_array_equal(gpu.grad.cpu().numpy(), cpu.grad.numpy())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_logcumsumexp_matches_the_cpu_with_infinities(dtype):
    data = np.random.default_rng(10).standard_normal((4, 9)) * 50
    data[0, :3] = -np.inf
    data[1, 4] = np.inf
    data[2, 2] = np.nan
    cpu = torch.from_numpy(data).to(dtype)
    for dim in (0, 1):
        np.testing.assert_allclose(torch.logcumsumexp(cpu.cuda(), dim).cpu().numpy(),
                                   torch.logcumsumexp(cpu, dim).numpy(), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        torch.logcumsumexp(torch.ones(3, dtype=torch.int64, device="cuda"), 0)


# ---- digamma, gcd, lcm (kernels/special.cu) -------------------------------------------------------

SPECIAL_POINTS = [0.0, -0.0, -1.0, -2.5, -1e-9, 0.3, 0.5, 1.0, 2.25, 9.999, 10.0, 10.5, 123.25, float("inf"),
                  float("nan")]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int64])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
def test_digamma_and_polygamma_match_the_cpu_at_poles_and_beyond(dtype, n):
    """The same method as the CPU's; a GPU's libm may differ from glibc's in the last bits."""
    cpu = torch.tensor(SPECIAL_POINTS, dtype=torch.float64).to(dtype) if dtype.is_floating_point \
        else torch.arange(-3, 20)
    rtol = 1e-12 if dtype == torch.float64 else 1e-5 if dtype != torch.float16 else 1e-3
    for got, expected in [(torch.digamma(cpu.cuda()), torch.digamma(cpu)),
                          (torch.polygamma(n, cpu.cuda()), torch.polygamma(n, cpu))]:
        assert got.dtype == expected.dtype
        np.testing.assert_allclose(got.cpu().double().numpy(), expected.double().numpy(), rtol=rtol)


def test_digamma_backpropagates_through_polygamma_as_on_the_cpu():
    cpu = torch.tensor([0.5, 2.0, 7.5, -1.5], dtype=torch.float64, requires_grad=True)
    gpu = cpu.detach().cuda().requires_grad_()
    torch.digamma(cpu).sum().backward()
    torch.digamma(gpu).sum().backward()
    np.testing.assert_allclose(gpu.grad.cpu().numpy(), cpu.grad.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match="polygamma\\(n, x\\) does not support negative n."):
        torch.polygamma(-1, gpu.detach())


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int16, torch.uint8])
def test_gcd_and_lcm_match_the_cpu_with_broadcasting(dtype):
    rng = np.random.default_rng(16)
    a = torch.from_numpy(rng.integers(-20 if dtype != torch.uint8 else 0, 60, (4, 1))).to(dtype)
    b = torch.from_numpy(rng.integers(0, 60, (5,))).to(dtype)
    for op in (torch.gcd, torch.lcm):
        got, expected = op(a.cuda(), b.cuda()), op(a, b)
        assert got.dtype == expected.dtype and torch.equal(got.cpu(), expected)
    assert torch.equal(torch.gcd(a.cuda(), torch.tensor(6, dtype=dtype)).cpu(), torch.gcd(a, torch.tensor(6, dtype=dtype)))
    with pytest.raises(NotImplementedError, match="\"gcd_cuda\" not implemented for 'Float'"):
        torch.gcd(torch.ones(2, device="cuda"), torch.ones(2, device="cuda"))
