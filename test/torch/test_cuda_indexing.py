"""Advanced indexing, index_put, gather, scatter and nonzero on CUDA (kernels/index.cu's take/put
kernels) against the CPU on the same inputs, including the errors.

Run with a GPU (`pytest -m cuda`) or on the CUDA host emulator (`EMBER_CUDA_EMULATOR=1`).
"""
import numpy as np
import pytest

import torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]

BASE = torch.arange(120, dtype=torch.float64).reshape(4, 5, 6)
I = torch.tensor


def _index_cases():
    return [
        (I([0, 3, -1]),),
        (slice(None), I([[1, 4], [0, 0]])),
        (I([0, 2]), I([1, -5])),                       # adjacent, broadcast together
        (I([0, 2]), slice(None), I([[5], [0]])),       # not adjacent: the block goes first
        (Ellipsis, I([2, 2, 1])),
        (BASE[:, 0, 0] > 50,),                         # a mask over the first dim
        (slice(1, 3), BASE[0] % 3 == 0),               # a 2-dim mask after a slice
        (None, I([1]), 2),
        (I(1),),                                       # a 0-dim index tensor
        (torch.tensor(True),),                         # a 0-dim mask
        (BASE > 1000,),                                # a mask selecting nothing
    ]


@pytest.mark.parametrize("key", _index_cases(), ids=range(len(_index_cases())))
@pytest.mark.parametrize("dtype", [torch.float64, torch.int16, torch.bool])
def test_indexing_matches_the_cpu(key, dtype):
    cpu = BASE.to(dtype)
    gpu_key = tuple(k.cuda() if isinstance(k, torch.Tensor) else k for k in key)
    expected = cpu[key]
    got = cpu.cuda()[gpu_key]
    assert got.device.type == "cuda" and got.shape == expected.shape and torch.equal(got.cpu(), expected)
    assert torch.equal(cpu.cuda()[key].cpu(), expected)          # CPU index tensors are allowed too


def test_indexing_a_transposed_view_reads_through_its_strides():
    cpu = BASE.transpose(0, 2)[1:]
    key = (I([0, 2, 4]), slice(None), I([3, 0, 1]))
    assert torch.equal(BASE.cuda().transpose(0, 2)[1:][key].cpu(), cpu[key])


@pytest.mark.parametrize("key, message", [
    ((I([4]),), "index 4 is out of bounds for dimension 0 with size 4"),
    ((I([0]), I([-6])), "index -6 is out of bounds for dimension 1 with size 5"),
    ((I([0, 1]), I([0, 1, 2])), r"shape mismatch: indexing tensors could not be broadcast together with shapes "
                                r"\[2\], \[3\]"),
    ((BASE[0] > 0,), r"The shape of the mask \[5, 6\] at index 0 does not match the shape of the indexed tensor "
                     r"\[4, 5, 6\] at index 0"),
    ((I([0.5]),), "tensors used as indices must be long, int, byte or bool tensors"),
])
def test_bad_indices_raise_the_cpus_errors(key, message):
    with pytest.raises(IndexError, match=message):
        BASE[key]
    with pytest.raises(IndexError, match=message):
        BASE.cuda()[tuple(k.cuda() for k in key)]
        torch.cuda.synchronize()        # an index out of range is found on the device, reported here


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_matches_the_cpu_with_broadcast_values(accumulate):
    for key, values in [((I([0, 2, 3]),), torch.ones(5, 6, dtype=torch.float64)),
                        ((I([1, 1, 3]), I([0, 0, 2])), torch.arange(6, dtype=torch.float64)),
                        ((BASE > 100,), torch.tensor(-1.0, dtype=torch.float64)),
                        ((I([0, 3]), I([[4], [0]]), I([5, 0])), torch.arange(4, dtype=torch.float64).reshape(2, 2))]:
        expected = BASE.clone().index_put_(key, values, accumulate=accumulate)
        got = BASE.cuda().index_put_(tuple(k.cuda() for k in key), values.cuda(), accumulate=accumulate)
        if accumulate or key[0].tolist() != [1, 1, 3]:      # duplicates without accumulate: any write may win
            assert torch.equal(got.cpu(), expected)


def test_setitem_with_slices_and_index_tensors_matches_the_cpu():
    for key, values in [((slice(None), I([1, 4, 3])), 7.0), ((I([0, 3]), slice(None), I([5, 0])), 1.5),
                        ((Ellipsis, I([[0], [2]])), torch.arange(2.0, dtype=torch.float64).reshape(2, 1))]:
        expected, got = BASE.clone(), BASE.cuda()
        expected[key] = values
        got[tuple(k.cuda() if isinstance(k, torch.Tensor) else k for k in key)] = \
            values.cuda() if isinstance(values, torch.Tensor) else values
        assert torch.equal(got.cpu(), expected)


def test_index_put_accumulates_every_duplicate_and_checks_dtypes():
    counts = torch.zeros(4, dtype=torch.int64, device="cuda")
    counts.index_put_((torch.tensor([0, 1, 1, 3, 3, 3], device="cuda"),), torch.tensor(1, device="cuda"),
                      accumulate=True)
    assert counts.tolist() == [1, 2, 0, 3]
    with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match, got Long "
                                           "for the destination and Float for the source."):
        counts.index_put_((torch.tensor([0], device="cuda"),), torch.tensor([1.0], device="cuda"))
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[2\] cannot be broadcast to "
                                           r"indexing result of shape \[3\]"):
        counts.index_put_((torch.tensor([0, 1, 2], device="cuda"),), torch.ones(2, dtype=torch.int64, device="cuda"))


def test_setitem_with_masks_and_its_gradient_match_the_cpu():
    x_cpu = torch.randn(6, 4, dtype=torch.float64, requires_grad=True)
    x_gpu = x_cpu.detach().cuda().requires_grad_()
    for x in (x_cpu, x_gpu):
        y = x * 2
        y[y > 0] = 0.0
        y[torch.tensor([0, 5], device=x.device)].sum().backward()
    np.testing.assert_array_equal(x_gpu.grad.cpu().numpy(), x_cpu.grad.numpy())


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gather_scatter_and_scatter_add_match_the_cpu(dim):
    rng = np.random.default_rng(dim + 5)
    src = torch.from_numpy(rng.standard_normal((4, 5, 6)))
    shape = [3, 4, 5]
    shape[dim] = 7
    index = torch.from_numpy(rng.integers(0, src.shape[dim], shape))
    assert torch.equal(torch.gather(src.cuda(), dim, index.cuda()).cpu(), torch.gather(src, dim, index))
    target = torch.zeros(4, 5, 6, dtype=torch.float64)
    values = torch.from_numpy(rng.standard_normal((8, 8, 8)))
    added = torch.scatter_add(target.cuda(), dim, index.cuda(), values.cuda()).cpu()
    np.testing.assert_allclose(added.numpy(), torch.scatter_add(target, dim, index, values).numpy(), rtol=1e-12)
    unique = torch.from_numpy(np.argsort(rng.random((4, 5, 6)), axis=dim % 3))[:3, :4, :5]
    assert torch.equal(torch.scatter(target.cuda(), dim, unique.cuda(), values.cuda()).cpu(),
                       torch.scatter(target, dim, unique, values))
    assert torch.equal(target.cuda().scatter_(dim, unique.cuda(), 2.5).cpu(), target.clone().scatter_(dim, unique, 2.5))


def test_gather_and_its_gradient_through_cross_entropy_style_picks():
    logits_cpu = torch.randn(5, 7, dtype=torch.float64, requires_grad=True)
    logits_gpu = logits_cpu.detach().cuda().requires_grad_()
    labels = torch.tensor([[0], [6], [3], [3], [1]])
    for logits in (logits_cpu, logits_gpu):
        logits.log_softmax(1).gather(1, labels.to(logits.device)).sum().backward()
    np.testing.assert_allclose(logits_gpu.grad.cpu().numpy(), logits_cpu.grad.numpy(), rtol=1e-12)


def test_gather_and_scatter_errors_are_the_cpus():
    x = torch.zeros(3, 4, device="cuda")
    with pytest.raises(RuntimeError, match="index 4 is out of bounds for dimension 1 with size 4"):
        torch.gather(x, 1, torch.tensor([[0, 4]], device="cuda"))
        torch.cuda.synchronize()
    with pytest.raises(RuntimeError, match="Index tensor must have the same number of dimensions as input tensor"):
        torch.gather(x, 1, torch.tensor([0], device="cuda"))
    with pytest.raises(RuntimeError, match="scatter\\(\\): Expected self.dtype to be equal to src.dtype"):
        x.scatter_(0, torch.tensor([[0]], device="cuda"), torch.ones(1, 1, dtype=torch.float64, device="cuda"))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.int64, torch.int32, torch.int16,
                                   torch.int8, torch.bool, torch.uint8])
def test_nonzero_matches_the_cpu(dtype):
    rng = np.random.default_rng(1)
    for shape in [(0,), (7,), (3, 1000), (2, 3, 4)]:
        cpu = torch.from_numpy(rng.integers(0, 3, shape) * (rng.random(shape) < 0.3)).to(dtype)
        assert torch.equal(torch.nonzero(cpu.cuda()).cpu(), torch.nonzero(cpu))
    assert torch.equal(torch.nonzero(torch.tensor(5, device="cuda")).cpu(), torch.nonzero(torch.tensor(5)))
    if dtype.is_floating_point:     # -0.0 is zero, NaN is not
        special = torch.tensor([-0.0, float("nan"), 0.0, 1.0], dtype=dtype)
        assert torch.nonzero(special.cuda()).cpu().tolist() == [[1], [3]]


def test_gather_and_scatter_take_zero_dim_tensors_as_the_cpu():
    x = torch.tensor([1.0, 2.0, 3.0])
    index = torch.tensor(1)
    assert torch.equal(x.cuda().gather(0, index.cuda()).cpu(), x.gather(0, index))
    assert torch.equal(x.cuda().scatter_(0, index.cuda(), torch.tensor(9.0).cuda()).cpu(),
                       x.clone().scatter_(0, index, torch.tensor(9.0)))
    scalar = torch.zeros(())
    assert torch.equal(scalar.cuda().scatter(0, torch.tensor([0]).cuda(), torch.tensor([5.0]).cuda()).cpu(),
                       scalar.scatter(0, torch.tensor([0]), torch.tensor([5.0])))


def test_index_put_into_a_tensor_of_sixteen_dims():
    x = torch.zeros((2,) * 16)
    key = (torch.zeros((1,) * 16, dtype=torch.int64),)
    assert torch.equal(x.cuda().index_put_(tuple(k.cuda() for k in key), torch.tensor(1.0)).cpu(),
                       x.clone().index_put_(key, torch.tensor(1.0)))


def test_a_cpu_half_operand_is_a_device_mismatch_not_an_upload():
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        torch.mm(torch.ones(2, 2, dtype=torch.float16, device="cuda"), torch.ones(2, 2, dtype=torch.float16))


# ---- scatter with a reduction -----------------------------------------------------------------------

@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int32, torch.int64])
def test_scatter_reduce_matches_the_cpu(reduce, include_self, dtype):
    rng = np.random.default_rng(7)
    self_ = torch.from_numpy(rng.integers(-5, 6, (4, 6))).to(dtype)
    src = torch.from_numpy(rng.integers(-5, 6, (3, 6))).to(dtype)
    index = torch.from_numpy(rng.integers(0, 4, (3, 6)))
    expected = self_.scatter_reduce(0, index, src, reduce, include_self=include_self)
    got = self_.cuda().scatter_reduce(0, index.cuda(), src.cuda(), reduce, include_self=include_self)
    assert got.device.type == "cuda" and got.dtype == dtype
    assert torch.equal(got.cpu(), expected)
    strided = self_.t().contiguous().cuda().t()       # in place on a non-contiguous tensor
    strided.scatter_reduce_(0, index.cuda(), src.cuda(), reduce, include_self=include_self)
    assert torch.equal(strided.cpu(), expected)


def test_scatter_reduce_propagates_nan_in_amax_and_amin():
    self_ = torch.tensor([0.0, 1.0, float("nan")])
    src = torch.tensor([float("nan"), 5.0, 2.0, -3.0])
    index = torch.tensor([0, 1, 2, 1])
    for reduce in ("amax", "amin"):
        expected = self_.scatter_reduce(0, index, src, reduce)
        got = self_.cuda().scatter_reduce(0, index.cuda(), src.cuda(), reduce).cpu()
        np.testing.assert_array_equal(got.numpy(), expected.numpy())


def test_scatter_reduce_backpropagates_as_on_the_cpu():
    rng = np.random.default_rng(8)
    index = torch.from_numpy(rng.integers(0, 3, (5, 4)))
    for reduce in ("sum", "mean", "amax", "prod"):
        self_cpu = torch.from_numpy(rng.standard_normal((3, 4))).requires_grad_()
        src_cpu = torch.from_numpy(rng.standard_normal((5, 4))).requires_grad_()
        self_gpu = self_cpu.detach().cuda().requires_grad_()
        src_gpu = src_cpu.detach().cuda().requires_grad_()
        self_cpu.scatter_reduce(0, index, src_cpu, reduce).sum().backward()
        self_gpu.scatter_reduce(0, index.cuda(), src_gpu, reduce).sum().backward()
        np.testing.assert_allclose(self_gpu.grad.cpu().numpy(), self_cpu.grad.numpy(), rtol=1e-10)
        np.testing.assert_allclose(src_gpu.grad.cpu().numpy(), src_cpu.grad.numpy(), rtol=1e-10)


def test_legacy_scatter_reduce_add_and_multiply_match_the_cpu():
    self_ = torch.arange(1.0, 9.0).reshape(2, 4)
    index = torch.tensor([[0, 1, 0, 1]])
    src = torch.full((1, 4), 3.0)
    for reduce in ("add", "multiply"):
        with pytest.warns(UserWarning, match="The reduce argument of torch.scatter with Tensor src is deprecated"):
            got = self_.cuda().scatter(0, index.cuda(), src.cuda(), reduce=reduce)
        with pytest.warns(UserWarning):
            expected = self_.scatter(0, index, src, reduce=reduce)
        assert torch.equal(got.cpu(), expected)
        assert torch.equal(self_.cuda().scatter(0, index.cuda(), 2.0, reduce=reduce).cpu(),
                           self_.scatter(0, index, 2.0, reduce=reduce))


def test_scatter_reduce_errors_are_the_cpus():
    t = torch.zeros(3, device="cuda")
    index = torch.tensor([0, 1], device="cuda")
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got max"):
        t.scatter_reduce(0, index, t[:2], "max")
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        t.scatter_reduce(0, torch.tensor([0, 3], device="cuda"), t[:2], "amax")
        torch.cuda.synchronize()


@pytest.mark.parametrize("dtype", [torch.float16, torch.int16, torch.int8, torch.uint8, torch.bool])
@pytest.mark.parametrize("reduce", ["sum", "prod", "amax", "amin"])
def test_scatter_reduce_of_narrow_dtypes_reduces_in_a_wider_one_as_the_cpu(dtype, reduce):
    rng = np.random.default_rng(15)
    self_ = torch.from_numpy(rng.integers(0, 3, (3, 4))).to(dtype)
    src = torch.from_numpy(rng.integers(0, 3, (5, 4))).to(dtype)
    index = torch.from_numpy(rng.integers(0, 3, (5, 4)))
    for include_self in (True, False):
        expected = self_.scatter_reduce(0, index, src, reduce, include_self=include_self)
        got = self_.cuda().scatter_reduce(0, index.cuda(), src.cuda(), reduce, include_self=include_self)
        assert got.dtype == dtype and torch.equal(got.cpu(), expected)
