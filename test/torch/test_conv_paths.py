"""conv2d/conv1d through each of the forward kernel's paths, against a float64 NumPy reference.

aten/native/cpu/conv.pyx picks a path by shape and dtype. float32/float64: depthwise
convolutions (groups == channels) are a direct loop; the rest tasks on OpenMP threads calling
BLAS's GEMM (float32 on AVX-512: Ember's kernel, aten/native/cpu/gemm_f32.h), a task being a band
of output rows of one image (images with at least 256 output positions; a 1x1 stride-1 unpadded
kernel reads the band in place) or several small images, with tiny per-group products done as
loops. Integers: one batched np.matmul for 1x1, bands through np.matmul, or several small images
per GEMM.
The OpInfo samples (test/opinfo/nn.py) are small; these cases reach the other paths with
strides, dilation, groups, padding, bias, views and both thread counts.
"""
from __future__ import annotations

import numpy as np
import pytest

import torch
from opinfo.nn import conv2d_reference as _ref


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _rand(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-4, 5, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


@pytest.fixture(params=[1, 2], ids=["1thread", "2threads"])
def threads(request):
    saved = torch.get_num_threads()
    torch.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(saved)


# (input shape, weight shape, kwargs): >= 256 output positions per image unless marked
BANDED = [
    ((3, 5, 20, 18), (7, 5, 3, 3), dict(padding=1)),
    ((2, 4, 41, 37), (6, 4, 3, 3), dict(stride=2, padding=(2, 1), dilation=2)),
    ((2, 6, 24, 20), (6, 3, 3, 3), dict(padding=1, groups=2)),
    ((2, 6, 24, 20), (6, 1, 3, 3), dict(padding=1, groups=6)),          # depthwise: a direct loop
    ((2, 4, 41, 37), (8, 1, 3, 5), dict(stride=2, padding=(1, 3), dilation=(2, 1), groups=4)),   # multiplier 2
    ((3, 3, 5, 6), (3, 1, 3, 3), dict(padding=2, groups=3)),             # depthwise, small images
    ((2, 4, 21, 19), (4, 2, 1, 3), dict(padding=(0, 1), groups=2)),      # 1 x 6 per group: a loop, not BLAS
    ((1, 3, 30, 41), (4, 3, 3, 5), dict(stride=(1, 2), padding=(0, 2))),
    ((2, 3, 33, 35), (5, 3, 1, 1), dict(stride=2)),                    # 1x1, strided: unfolded
    ((2, 3, 17, 16), (5, 3, 1, 1), dict(padding=1)),                   # 1x1, padded: unfolded
    ((1, 2, 64, 9), (3, 2, 5, 5), dict(padding=2)),                    # narrow: bands of many rows
    ((1, 130, 18, 18), (8, 130, 3, 3), dict(padding=1)),               # deep: a band is a few rows
    ((2, 64, 40, 40), (8, 64, 3, 3), dict(padding=1)),                 # 6 bands of 7 rows, the last short
    ((2, 3, 22, 19), (4, 3, 3, 3), dict(padding=2, dilation=2)),       # same size, dilated: whole-band copies
    ((1, 3, 30, 20), (4, 3, 5, 3), dict(padding=(2, 1))),
    ((1, 2, 3, 300), (2, 2, 7, 3), dict(padding=(3, 1))),               # taps whose rows are all padding
    ((1, 20, 21, 23), (37, 20, 3, 3), dict(padding=1)),                # float32 kernel: 16-row panels, one partial
    ((9, 6, 9, 9), (33, 6, 3, 3), dict(padding=1)),                    # small images beside each other, 33 rows
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bias", [False, True], ids=["nobias", "bias"])
@pytest.mark.parametrize("xs,ws,kw", BANDED, ids=[f"{xs}-{ws}-{kw}" for xs, ws, kw in BANDED])
def test_conv2d_banded_path_matches_the_float64_reference(xs, ws, kw, bias, dtype, threads):
    x, w = _rand(xs, dtype, 1), _rand(ws, dtype, 2)
    b = _rand(ws[:1], dtype, 3) if bias else None
    got = torch.conv2d(torch.from_numpy(x), torch.from_numpy(w), None if b is None else torch.from_numpy(b), **kw)
    want = _ref(x, w, b, _pair(kw.get("stride", 1)), _pair(kw.get("padding", 0)), _pair(kw.get("dilation", 1)),
                kw.get("groups", 1))
    assert got.dtype == torch.from_numpy(x).dtype and tuple(got.shape) == want.shape
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * np.abs(want).max())


def test_conv2d_banded_path_gives_the_same_bits_on_one_and_two_threads():
    x, w, b = (torch.from_numpy(_rand(s, np.float32, i)) for i, s in enumerate([(5, 8, 30, 30), (16, 8, 3, 3), (16,)]))
    saved = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = torch.conv2d(x, w, b, padding=1).numpy().copy()
        torch.set_num_threads(2)
        two = torch.conv2d(x, w, b, padding=1).numpy()
    finally:
        torch.set_num_threads(saved)
    assert np.array_equal(one, two)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_banded_path_on_views(dtype, threads):
    base = _rand((2, 20, 22, 6), dtype, 4)               # NHWC memory, seen as NCHW
    x = np.transpose(base, (0, 3, 1, 2))[:, :, 1:, ::1]   # (2, 6, 19, 22): channels-last and offset
    wbase = _rand((3, 3, 6, 8), dtype, 5)
    w = np.transpose(wbase, (3, 2, 0, 1))                 # a permuted weight
    tx = torch.from_numpy(np.ascontiguousarray(base)).permute(0, 3, 1, 2).narrow(2, 1, 19)
    tw = torch.from_numpy(np.ascontiguousarray(wbase)).permute(3, 2, 0, 1)
    assert not tx.is_contiguous() and not tw.is_contiguous()
    got = torch.conv2d(tx, tw, padding=1)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), _ref(x, w, None, (1, 1), (1, 1), (1, 1), 1), rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_conv2d_banded_path_for_integers_is_exact(dtype, threads):
    # integers have no BLAS: the same bands through np.matmul, the bias added per band
    x, w, b = _rand((2, 3, 20, 17), dtype, 6), _rand((4, 3, 3, 3), dtype, 7), _rand((4,), dtype, 8)
    got = torch.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding=1, stride=(1, 1))
    want = _ref(x, w, b, (1, 1), (1, 1), (1, 1), 1)
    assert got.dtype == torch.from_numpy(x).dtype
    assert np.array_equal(got.numpy(), want.astype(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_same_padding_on_big_images(dtype, threads):
    x, w = _rand((2, 3, 21, 18), dtype, 9), _rand((4, 3, 4, 4), dtype, 10)
    got = torch.conv2d(torch.from_numpy(x), torch.from_numpy(w), padding="same")
    # 'same' with an even kernel: total padding 3 per dim, the extra one on the bottom/right
    want = _ref(np.pad(x, ((0, 0), (0, 0), (1, 2), (1, 2))), w, None, (1, 1), (0, 0), (1, 1), 1)
    assert tuple(got.shape) == (2, 4, 21, 18)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * 10)


ONE_BY_ONE = [((3, 7, 20, 20), (5, 7, 1, 1), 1),      # one band per image, read in place
              ((2, 6, 30, 20), (4, 3, 1, 1), 2),      # groups
              ((2, 300, 40, 40), (8, 300, 1, 1), 1),  # several bands per image
              ((20, 6, 5, 5), (4, 6, 1, 1), 1)]       # small images: several per GEMM, unfolded


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
@pytest.mark.parametrize("xs,ws,groups", ONE_BY_ONE, ids=[f"{xs}-{ws}-g{g}" for xs, ws, g in ONE_BY_ONE])
def test_conv2d_one_by_one_is_a_plain_gemm(xs, ws, groups, dtype, threads):
    x, w, b = _rand(xs, dtype, 11), _rand(ws, dtype, 12), _rand(ws[:1], dtype, 13)
    got = torch.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), groups=groups)
    want = _ref(x, w, b, (1, 1), (0, 0), (1, 1), groups)
    if dtype == np.int64:
        assert np.array_equal(got.numpy(), want.astype(dtype))
    else:
        tol = 1e-4 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_small_images_batched_through_one_gemm(dtype, threads):
    # 7x7 outputs: several images per GEMM, transposed into the output
    x, w, b = _rand((40, 6, 7, 7), dtype, 14), _rand((10, 3, 3, 3), dtype, 15), _rand((10,), dtype, 16)
    got = torch.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding=1, groups=2)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), _ref(x, w, b, (1, 1), (1, 1), (1, 1), 2), rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv1d_long_sequences_take_the_banded_path(dtype, threads):
    x, w, b = _rand((3, 4, 300), dtype, 17), _rand((6, 2, 5), dtype, 18), _rand((6,), dtype, 19)
    got = torch.conv1d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding=2, dilation=2,
                       groups=2)
    want = _ref(x[:, :, None], w[:, :, None], b, (1, 1), (0, 2), (1, 2), 2)[:, :, 0]
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * 10)


def test_conv2d_from_several_python_threads_at_once_gives_the_serial_results():
    # the banded path sets BLAS's (global) thread count while any convolution is inside it
    from concurrent.futures import ThreadPoolExecutor
    cases = [(torch.from_numpy(_rand((2, 8, 24 + i, 20), np.float32, 30 + i)),
              torch.from_numpy(_rand((6, 8, 3, 3), np.float32, 40 + i))) for i in range(6)]
    serial = [torch.conv2d(x, w, padding=1).numpy().copy() for x, w in cases]
    with ThreadPoolExecutor(3) as pool:
        for _ in range(3):
            got = list(pool.map(lambda c: torch.conv2d(c[0], c[1], padding=1).numpy(), cases))
            assert all(np.array_equal(a, b) for a, b in zip(got, serial))


def test_conv2d_leaves_numpys_blas_usable():
    # the banded path sets BLAS's thread count for its loop and puts it back
    x, w = torch.from_numpy(_rand((2, 3, 20, 20), np.float32, 20)), torch.from_numpy(_rand((4, 3, 3, 3), np.float32, 21))
    torch.conv2d(x, w, padding=1)
    a = _rand((300, 200), np.float64, 22)
    np.testing.assert_allclose(a @ a.T, np.einsum("ik,jk->ij", a, a), rtol=1e-12, atol=1e-9)
