"""complex64 / complex128 on CUDA: the complex entries of the operator database (test/opinfo/complex_ops.py)
run on the device against their NumPy references (contiguous, strided, out= and in place), conversions to
and from every dtype as on the CPU, reductions, matrix products, autograd and random draws.

Run where an NVIDIA GPU and PyCUDA are present (`pip install -e .[cuda]`, then `pytest -m cuda`), or on
the host emulator (`EMBER_CUDA_EMULATOR=1`, as `make test` does).
"""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import torch
from dtype_cases import ALL_DTYPES, COMPLEX_DTYPES, TORCH_OF, dtype_id
from opinfo.complex_ops import OPS
from opinfo.core import OpInfo, assert_same, to_torch

pytestmark = [pytest.mark.cuda,
              pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]

CASES = [pytest.param(op, dt, id=f"{op.id}-{dtype_id(dt)}") for op in OPS for dt in op.dtypes]


def _cuda(value):
    """Tensors (also inside lists, tuples and dicts) moved to the device; Python numbers kept."""
    if isinstance(value, torch.Tensor):
        return value.cuda()
    if isinstance(value, (list, tuple)):
        return type(value)(_cuda(v) for v in value)
    if isinstance(value, dict):
        return {k: _cuda(v) for k, v in value.items()}
    return value


def _on_host(result):
    assert result.is_cuda, "the result left the device"
    return result.cpu()


def _samples(op: OpInfo, dtype: torch.dtype):
    for sample in op.sample_inputs(dtype, np.random.default_rng(1234)):
        with np.errstate(all="ignore"):
            expected = np.asarray(op.ref(*sample.args, **sample.kwargs))
        yield sample, expected, op.tolerance(expected.dtype)


@pytest.mark.parametrize("op, dtype", CASES)
def test_complex_op_on_cuda_matches_numpy(op: OpInfo, dtype: torch.dtype) -> None:
    for sample, expected, (rtol, atol) in _samples(op, dtype):
        for noncontiguous in (False, True):
            args = _cuda(to_torch(sample.args, noncontiguous))
            kwargs = _cuda(to_torch(sample.kwargs, noncontiguous))
            where = f"{op.id}({sample.name}) on cuda{' non-contiguous' if noncontiguous else ''}"
            assert_same(_on_host(op.function()(*args, **kwargs)), expected, rtol, atol, where)


@pytest.mark.parametrize("op, dtype", [c for c in CASES if c.values[0].supports_out])
def test_complex_op_on_cuda_writes_out(op: OpInfo, dtype: torch.dtype) -> None:
    for sample, expected, (rtol, atol) in _samples(op, dtype):
        out = torch.empty(expected.shape, dtype=TORCH_OF[expected.dtype], device="cuda")
        result = op.function()(*_cuda(to_torch(sample.args)), **_cuda(to_torch(sample.kwargs)), out=out)
        assert result is out
        assert_same(_on_host(out), expected, rtol, atol, f"{op.id}(out=) {sample.name} on cuda")


@pytest.mark.parametrize("op, dtype", [c for c in CASES if c.values[0].inplace])
def test_complex_op_on_cuda_updates_in_place(op: OpInfo, dtype: torch.dtype) -> None:
    for sample, expected, (rtol, atol) in _samples(op, dtype):
        first = sample.args[0]
        if not isinstance(first, np.ndarray) or expected.shape != first.shape:
            continue
        args = _cuda(to_torch(sample.args))
        inplace = getattr(args[0], op.inplace, None) or functools.partial(getattr(torch, op.inplace), args[0])
        assert inplace(*args[1:], **_cuda(to_torch(sample.kwargs))) is args[0]
        assert_same(_on_host(args[0]), expected.astype(first.dtype), rtol, atol, f"{op.id} in place on cuda")


def test_abs_of_complex_refuses_in_place_on_cuda_as_on_the_cpu():
    for device in ("cpu", "cuda"):
        with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors."):
            torch.ones(2, dtype=torch.complex64, device=device).abs_()


def _values(dtype: torch.dtype) -> torch.Tensor:
    z = np.array([1.5 - 2.25j, -3 + 0.5j, 0, 7.75 + 1j, -0.5 - 0j, 200 + 3j])
    return torch.from_numpy(z).to(dtype)


@pytest.mark.parametrize("src", COMPLEX_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("dst", ALL_DTYPES + COMPLEX_DTYPES + [torch.bfloat16, torch.float16], ids=dtype_id)
def test_conversions_from_complex_on_cuda_are_the_cpus(src, dst):
    cpu = _values(src)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # PyTorch warns once that the imaginary parts are dropped
        expected = cpu.to(dst)
        got = cpu.cuda().to(dst)
    assert torch.equal(_on_host(got), expected)
    # and back: a real tensor made complex on the device
    assert torch.equal(_on_host(expected.cuda().to(src)), expected.to(src))


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES, ids=dtype_id)
def test_complex_tensors_move_fill_and_view_on_cuda(dtype):
    cpu = _values(dtype).reshape(2, 3)
    gpu = cpu.cuda()
    assert gpu.dtype is dtype and gpu.is_cuda
    assert torch.equal(gpu.t().contiguous().cpu(), cpu.t().contiguous())
    assert torch.equal(cpu.t().cuda().cpu(), cpu.t())
    assert torch.equal(torch.full((2, 2), 1.5 - 2j, dtype=dtype, device="cuda").cpu(),
                       torch.full((2, 2), 1.5 - 2j, dtype=dtype))
    assert torch.equal(torch.zeros(3, dtype=dtype, device="cuda").fill_(2 + 1j).cpu(), torch.full((3,), 2 + 1j,
                                                                                              dtype=dtype))
    # the strided kernels: views of device memory
    assert torch.equal((gpu.t() * gpu[:, ::2].t()[:1]).cpu(), cpu.t() * cpu[:, ::2].t()[:1])
    np.testing.assert_allclose(gpu.t().exp().cpu().numpy(), cpu.t().exp().numpy(), rtol=_tol(dtype))
    assert torch.equal(torch.view_as_real(gpu).cpu(), torch.view_as_real(cpu))
    assert torch.equal(torch.complex(gpu.real, gpu.imag).cpu(), cpu)
    assert torch.equal(torch.cat([gpu, gpu[:, ::2]], 1).cpu(), torch.cat([cpu, cpu[:, ::2]], 1))
    assert str(gpu).endswith("device='cuda:0')" if dtype is torch.complex64 else "dtype=torch.complex128)")
    assert gpu[0, 1].item() == cpu[0, 1].item()


def test_a_real_fill_of_a_complex_value_needs_a_zero_imaginary_part_on_cuda_too():
    for device in ("cpu", "cuda"):
        with pytest.raises(RuntimeError, match="value cannot be converted to type float without overflow"):
            torch.zeros(2, device=device).fill_(1j)
        assert torch.zeros(2, device=device).fill_(2 + 0j).tolist() == [2.0, 2.0]


def _random(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(TORCH_OF_NUMPY[dtype])


TORCH_OF_NUMPY = {torch.complex64: np.complex64, torch.complex128: np.complex128}


def _tol(dtype, terms=1):
    return (2e-6 if dtype is torch.complex64 else 1e-12) * max(1, terms) ** 0.5


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("dims", [None, 0, 1, (0, 2), -1], ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
def test_complex_sum_mean_and_prod_on_cuda_match_numpy(dtype, dims, keepdim):
    a = _random((3, 5, 4), dtype, 0) / 2
    gpu = torch.from_numpy(a).cuda()
    axis = dims if dims is None or isinstance(dims, int) else tuple(dims)
    tol = _tol(dtype, 60)
    for name, ref in (("sum", np.sum), ("mean", np.mean)):
        got = getattr(gpu, name)(dim=dims, keepdim=keepdim) if dims is not None else getattr(gpu, name)()
        expected = ref(a, axis=axis, keepdims=keepdim) if dims is not None else ref(a)
        assert_same(_on_host(got), np.asarray(expected, a.dtype), tol, tol, f"{name} over {dims}")
    if dims is None or isinstance(dims, int):
        got = gpu.prod(dims, keepdim=keepdim) if dims is not None else gpu.prod()
        expected = np.prod(a, axis=axis, keepdims=keepdim and dims is not None)
        assert_same(_on_host(got), np.asarray(expected, a.dtype), tol, tol, f"prod over {dims}")


def test_complex_reductions_on_cuda_take_a_dtype_and_refuse_a_real_one():
    gpu = torch.from_numpy(_random((4, 3), torch.complex64, 1)).cuda()
    assert gpu.sum(dtype=torch.complex128).dtype is torch.complex128
    assert torch.ones(3, device="cuda").sum(dtype=torch.complex64).item() == 3 + 0j
    assert torch.ones((), dtype=torch.complex64, device="cuda").mul(2j).sum().item() == 2j
    with pytest.raises(RuntimeError, match="a complex input reduces to a complex dtype"):
        gpu.sum(dtype=torch.float32)
    assert torch.empty(0, 3, dtype=torch.complex64, device="cuda").prod(0).cpu().tolist() == [1, 1, 1]


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("m, k, n", [(1, 1, 1), (7, 13, 5), (130, 9, 129)])
def test_complex_matrix_products_on_cuda_match_numpy(dtype, m, k, n):
    a, b = _random((m, k), dtype, 2), _random((k, n), dtype, 3)
    ga, gb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    tol = _tol(dtype, k)
    assert_same(_on_host(torch.mm(ga, gb)), a @ b, tol, tol, "mm")
    assert_same(_on_host(ga.t().contiguous().t() @ gb.conj()), a @ b.conj(), tol, tol, "transposed @")
    assert_same(_on_host(torch.mv(ga, gb[:, 0])), a @ b[:, 0], tol, tol, "mv")
    batch_a, batch_b = _random((3, m, k), dtype, 4), _random((3, k, n), dtype, 5)
    assert_same(_on_host(torch.bmm(torch.from_numpy(batch_a).cuda(), torch.from_numpy(batch_b).cuda())),
                batch_a @ batch_b, tol, tol, "bmm")


def test_complex_addmm_is_refused_on_cuda_saying_so():
    z = torch.ones(2, 2, dtype=torch.complex64, device="cuda")
    with pytest.raises(NotImplementedError, match="addmm_cuda.*ComplexFloat"):
        torch.addmm(z, z, z, alpha=2)


def test_complex_gradients_on_cuda_are_the_cpus():
    x = torch.from_numpy(_random((4, 3), torch.complex128, 6))

    def loss(t):
        return ((t * t.conj() + t.exp()) / (t + 3)).abs().sum() + torch.view_as_real(t.sin() @ t.t()).pow(2).mean()

    cpu = x.clone().requires_grad_()
    loss(cpu).backward()
    gpu = x.cuda().requires_grad_()
    loss(gpu).backward()
    assert gpu.grad.is_cuda
    np.testing.assert_allclose(gpu.grad.cpu().numpy(), cpu.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES, ids=dtype_id)
def test_complex_random_draws_on_cuda_have_pytorchs_variance_per_part(dtype):
    torch.cuda.manual_seed(0)
    z = torch.randn(20000, dtype=dtype, device="cuda").cpu().numpy()
    assert abs(z.real.var() - 0.5) < 0.03 and abs(z.imag.var() - 0.5) < 0.03
    u = torch.rand(20000, dtype=dtype, device="cuda").cpu().numpy()
    assert 0 <= u.real.min() and u.real.max() < 1 and 0 <= u.imag.min() and u.imag.max() < 1


def test_ffts_on_cuda_raise_naming_the_backend():
    with pytest.raises(NotImplementedError, match="'aten::_fft_c2c' with arguments from the 'CUDA' backend"):
        torch.fft.fft(torch.ones(4, dtype=torch.complex64, device="cuda"))
