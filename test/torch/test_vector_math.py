"""float32 exp, exp2, expm1, log, log1p, tanh, erf, sigmoid, silu through aten/native/cpu/vec_math.h.

Their float32 loops are generated as C compiled for the baseline and for AVX2+FMA (picked at
run time; ATEN_CPU_CAPABILITY=default forces the baseline). Checked here against NumPy in
float64: the error in float32 ulps (of the exact result) over a dense sweep of float32 bit
patterns and over hypothesis' values, the special values (inf, -inf, NaN, +-0, overflow to inf,
underflow through the denormals to 0), and that a value's result does not depend on the
layout (contiguous, strided, offset, tail of a vector) or the thread count.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch

REPO = Path(__file__).resolve().parents[2]
F32_MAX = float(np.finfo(np.float32).max)


def _sigmoid64(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


_erf64 = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    return _erf64(x).astype(np.float64)


# torch function, float64 reference, max ulp error allowed, the domain measured (where the
# float32 op is meant to track the exact result: sigmoid below -88.7 is 0, as in PyTorch,
# because exp(-x) overflows float32).
OPS = {
    "exp": (torch.exp, np.exp, 1.5, (-np.inf, np.inf)),
    "exp2": (torch.exp2, np.exp2, 1.5, (-np.inf, np.inf)),
    "expm1": (torch.expm1, np.expm1, 2.0, (-np.inf, np.inf)),
    "log": (torch.log, np.log, 1.5, (-np.inf, np.inf)),
    "log1p": (torch.log1p, np.log1p, 2.0, (-np.inf, np.inf)),
    "tanh": (torch.tanh, np.tanh, 2.0, (-np.inf, np.inf)),
    "erf": (torch.erf, _erf, 2.0, (-np.inf, np.inf)),
    "sigmoid": (torch.sigmoid, _sigmoid64, 2.5, (-88.0, np.inf)),
    "silu": (lambda t: torch.ops.aten.silu.default(t), lambda x: x * _sigmoid64(x), 3.0, (-88.0, np.inf)),
}


def _ulp32(ref: np.ndarray) -> np.ndarray:
    """The float32 ulp at each exact (float64) result: 2^-149 in the denormal range."""
    a = np.minimum(np.abs(ref), F32_MAX)
    _, e = np.frexp(a)
    return np.ldexp(1.0, np.maximum(e - 24, -149))


def ulp_errors(name: str, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(|result - exact| in float32 ulps, where result and exact disagree on non-finite values)
    for the finite float32 values x in the op's domain."""
    fn, ref_fn, _, (lo, hi) = OPS[name]
    x = x[(x >= lo) & (x <= hi)]
    got = fn(torch.from_numpy(x)).numpy().astype(np.float64)
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(np.float64))
        ref32 = ref.astype(np.float32).astype(np.float64)   # the correctly rounded float32 result
    special = ~np.isfinite(ref32) | ~np.isfinite(got)
    mismatch = special & ~((got == ref32) | (np.isnan(got) & np.isnan(ref32)))
    with np.errstate(all="ignore"):
        err = np.where(special, 0.0, np.abs(got - ref) / _ulp32(ref))
    return err, x[mismatch]


def dense_float32_sweep(step: int) -> np.ndarray:
    """Every `step`-th float32 bit pattern of both signs (step odd: every exponent and many
    mantissas), plus the neighbourhoods of the overflow/underflow thresholds and of 0 and 1."""
    bits = np.arange(0, 1 << 31, step, dtype=np.uint32)
    pos = bits.view(np.float32)
    edges = np.array([88.72283935546875, 88.7228317, 88.3, 88.0, -87.33654, -103.97208, -104.0, -104.5,
                      128.0, -126.0, -149.0, -150.0, 1.0, 0.5, 0.625, 1e-30], dtype=np.float32)
    near = (edges.view(np.int32)[:, None] + np.arange(-300, 301, dtype=np.int32)).ravel().view(np.float32)
    x = np.concatenate([pos, -pos, near, -near])
    return x[np.isfinite(x)]


@pytest.mark.parametrize("name", sorted(OPS))
def test_float32_error_is_within_its_ulp_bound_over_a_dense_sweep(name):
    err, mismatched = ulp_errors(name, dense_float32_sweep(1021))
    assert mismatched.size == 0, f"{name}: inf/NaN where NumPy gives otherwise at {mismatched[:5]}"
    assert err.max() <= OPS[name][2], f"{name}: {err.max():.3f} ulp"


@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=1, max_size=40))
@settings(max_examples=200, deadline=None)
def test_float32_error_is_within_its_ulp_bound_for_any_values(values):
    x = np.array(values, dtype=np.float32)
    for name in OPS:
        err, mismatched = ulp_errors(name, x)
        assert mismatched.size == 0 and (err.size == 0 or err.max() <= OPS[name][2]), (name, x)


def _specials() -> np.ndarray:
    return np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 88.72283172607422, 88.72283935546875, 89.0, -87.3,
                     -87.4, -100.0, -103.9, -103.97, -104.0, -104.5, -110.0, 1e-45, 1e-40, -1e-40, 1.0, -1.0,
                     127.9, 128.0, -149.0, -149.6, -150.0, -151.0, F32_MAX, -F32_MAX, 80.0, 80.1, -0.5, 0.5,
                     -0.999, -1.0, -1.0000001, 3.92, -3.93, 0.875, 1e-8, -1e-8], dtype=np.float32)


@pytest.mark.parametrize("name, ref_fn", [("exp", np.exp), ("exp2", np.exp2), ("expm1", np.expm1), ("log", np.log),
                                          ("log1p", np.log1p), ("tanh", np.tanh), ("erf", _erf)])
def test_special_values_overflow_and_denormal_underflow_round_as_the_exact_result(name, ref_fn):
    """inf, -inf, NaN, +-0, inf on overflow, denormals then 0 on underflow: the float32 rounding
    of the exact value (within one ulp where finite), signs of zeros included."""
    x = _specials()
    got = OPS[name][0](torch.from_numpy(x)).numpy()
    with np.errstate(all="ignore"):
        ref = ref_fn(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(np.isinf(got) & (got > 0), np.isinf(ref) & (ref > 0))
    np.testing.assert_array_equal(np.isinf(got) & (got < 0), np.isinf(ref) & (ref < 0))
    np.testing.assert_array_equal(got == 0, ref == 0)
    np.testing.assert_array_equal(np.signbit(got[got == 0]), np.signbit(ref[ref == 0]))
    finite = np.isfinite(ref) & (ref != 0)
    dist = np.abs(got[finite].view(np.int32).astype(np.int64) - ref[finite].view(np.int32).astype(np.int64))
    assert dist.max(initial=0) <= 1


def test_exp_gives_denormals_down_to_the_smallest_and_zero_below():
    x = torch.tensor([-87.5, -100.0, -103.9, -103.972, -104.0])
    got = torch.exp(x).numpy()
    smallest = np.float32(np.ldexp(1.0, -149))
    assert 0 < got[0] < np.finfo(np.float32).tiny and 0 < got[1] < got[0]
    assert got[3] == smallest and got[4] == 0


def test_sigmoid_and_silu_saturate_as_pytorch():
    """PyTorch computes 1 / (1 + exp(-x)) in float32: 0 once exp(-x) overflows, 1 above ~17."""
    x = torch.tensor([-np.inf, -1000.0, -89.0, 0.0, 20.0, np.inf, np.nan])
    s = torch.sigmoid(x).numpy()
    assert list(s[:3]) == [0, 0, 0] and s[3] == 0.5 and list(s[4:6]) == [1, 1] and np.isnan(s[6])
    silu = torch.ops.aten.silu.default(x).numpy()
    assert np.isnan(silu[0]) and silu[1] == 0 and np.signbit(silu[1]) and silu[5] == np.inf and np.isnan(silu[6])


@pytest.mark.parametrize("name", sorted(OPS))
def test_result_of_a_value_does_not_depend_on_layout_offset_or_threads(name, threads):
    fn = OPS[name][0]
    rng = np.random.default_rng(7)
    base = (rng.standard_normal(40_000) * 30).astype(np.float32)
    expected = np.stack([fn(torch.from_numpy(base[i:i + 1])).numpy()[0] for i in range(64)])
    full = fn(torch.from_numpy(base)).numpy()
    np.testing.assert_array_equal(full[:64], expected)
    for offset, length in [(1, 7), (3, 13), (5, 33), (0, 64)]:   # vector tails and unaligned starts
        np.testing.assert_array_equal(fn(torch.from_numpy(base[offset:offset + length].copy())).numpy(),
                                      expected[offset:offset + length])
    strided = torch.from_numpy(base).reshape(-1, 4).select(1, 1)    # gathered in blocks
    np.testing.assert_array_equal(fn(strided).numpy(), full[1::4])
    torch.set_num_threads(2)
    np.testing.assert_array_equal(fn(torch.from_numpy(base)).numpy(), full)


def test_float64_and_integer_inputs_are_unchanged():
    x = np.linspace(-50, 50, 1001)
    np.testing.assert_allclose(torch.exp(torch.from_numpy(x)).numpy(), np.exp(x), rtol=1e-15)
    got = torch.exp(torch.arange(-5, 6))
    assert got.dtype == torch.float32
    np.testing.assert_allclose(got.numpy(), np.exp(np.arange(-5, 6)), rtol=2e-7)


def test_baseline_path_without_avx2_is_as_accurate():
    """ATEN_CPU_CAPABILITY=default: the SSE2 build of the same loops (what a CPU without AVX2
    runs) meets the same bounds and specials."""
    code = (
        "import sys; sys.path[:0] = [{test!r}, {repo!r}]\n"
        "import numpy as np, test_vector_math as m\n"
        "from aten.native.cpu import nn_softmax\n"
        "assert nn_softmax.cpu_capability() == 'default'\n"
        "x = m.dense_float32_sweep(4099)\n"
        "for name in m.OPS:\n"
        "    err, bad = m.ulp_errors(name, x)\n"
        "    assert bad.size == 0 and err.max() <= m.OPS[name][2], (name, err.max())\n"
        "m.test_special_values_overflow_and_denormal_underflow_round_as_the_exact_result('exp', np.exp)\n"
        "m.test_special_values_overflow_and_denormal_underflow_round_as_the_exact_result('log', np.log)\n"
        "print('ok')\n"
    ).format(test=str(Path(__file__).parent), repo=str(REPO))
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-2000:]


def _sweep_digest() -> str:
    """The bits of every op of OPS over the sweep, and of GELU and its gradient, as one hash."""
    import hashlib
    x = torch.from_numpy(dense_float32_sweep(4099))
    h = hashlib.sha256()
    for name in sorted(OPS):
        h.update(OPS[name][0](x).numpy().tobytes())
    h.update(torch.nn.functional.gelu(x).numpy().tobytes())
    h.update(torch.ops.aten.gelu_backward(torch.ones_like(x), x).numpy().tobytes())
    return h.hexdigest()


def test_the_avx512_loops_give_the_avx2_loops_bits():
    """The AVX-512 build (picked where the CPU has it) runs the same formulas with the same FMA contractions as
    the AVX2 build, 16 lanes at a time instead of 8: each element's bits are the same."""
    code = (f"import sys; sys.path[:0] = [{str(Path(__file__).parent)!r}, {str(REPO)!r}]\n"
            "import test_vector_math as m; print(m._sweep_digest())\n")
    digests = []
    for capability in ("avx2", None):
        env = dict(os.environ)
        env.pop("ATEN_CPU_CAPABILITY", None)
        if capability:
            env["ATEN_CPU_CAPABILITY"] = capability
        result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == 0, result.stderr[-2000:]
        digests.append(result.stdout.strip())
    assert digests[0] == digests[1]
