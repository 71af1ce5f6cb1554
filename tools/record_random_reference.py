"""Record PyTorch's CPU random numbers for test/torch/test_random.py (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_random_reference.py [OUTPUT_DIR] [--slow]
        [--reference=torch]

Run it from outside the repository (Ember's package is also called `torch`). Every case below
is a function of a torch module and numpy; the test replays the same cases with Ember and
compares the results byte for byte with what this script recorded with PyTorch:
`reference.npz` holds the small results' bytes back to back (one compressed array),
`reference.json` where each one starts and its shape and dtype, `digests.json` the SHA-256 of
the large ones, `meta.json` the PyTorch version and CPU capability they came from.
--slow also records the digest of a randperm large enough for PyTorch's 64-bit-word branch.
Float32 results of randn/normal_ on 16+ contiguous elements are those of PyTorch's AVX2
kernels (the build x86-64 CPUs run; ATEN_CPU_CAPABILITY=default would give others).
"""
from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "random"

Case = Callable[[Any], Any]


def _f32(a: Any) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


def _f64(a: Any) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def _transposed(shape: tuple[int, int], dtype: Any = np.float32, fill: float = 0.0) -> np.ndarray:
    """A transposed (non-contiguous) numpy view: torch.from_numpy keeps its strides."""
    return np.full(shape, fill, dtype=dtype).T


def _probs(seed: int, rows: int, cols: int, dtype: Any = np.float32) -> np.ndarray:
    p = np.random.RandomState(seed).rand(rows, cols)
    p[p < 0.2] = 0.0
    p[:, 0] = np.maximum(p[:, 0], 0.05)         # no all-zero row
    return p.astype(dtype)


def _seeded(seed: int, fn: Case) -> Case:
    """Seed the default generator, then run fn."""
    def run(torch: Any) -> Any:
        torch.manual_seed(seed)
        return fn(torch)
    return run


def _gen(seed: int, fn: Callable[[Any, Any], Any]) -> Case:
    """Run fn with a fresh torch.Generator seeded with seed."""
    def run(torch: Any) -> Any:
        return fn(torch, torch.Generator().manual_seed(seed))
    return run


def _sequence(seed: int, *fns: Case) -> Case:
    """Several calls in a row on the default generator (they share its state and normal cache)."""
    def run(torch: Any) -> Any:
        torch.manual_seed(seed)
        return tuple(fn(torch) for fn in fns)
    return run


def _cases() -> dict[str, Case]:
    T = lambda torch, a: torch.from_numpy(np.ascontiguousarray(a))   # noqa: E731
    V = lambda torch, a: torch.from_numpy(a)                          # noqa: E731  (keeps strides)
    c: dict[str, Case] = {}
    # rand / uniform_
    c["rand_f32"] = _seeded(0, lambda t: t.rand(37))
    c["rand_f32_seed42"] = _seeded(42, lambda t: t.rand(3, 5))
    c["rand_f64"] = _seeded(0, lambda t: t.rand(2, 3, dtype=t.float64))
    c["rand_0d"] = _seeded(7, lambda t: t.rand(()))
    c["rand_generator"] = _gen(123, lambda t, g: t.rand(4, 4, generator=g))
    c["rand_seed_negative"] = _seeded(-1, lambda t: t.rand(5))
    c["rand_seed_2_63"] = _seeded(2**63 + 11, lambda t: t.rand(5, dtype=t.float64))
    c["uniform_f32"] = _seeded(1, lambda t: t.empty(25).uniform_(-3.5, 7.25))
    c["uniform_f64"] = _seeded(1, lambda t: t.empty(25, dtype=t.float64).uniform_(-3.5, 7.25))
    c["uniform_f32_transposed"] = _seeded(2, lambda t: V(t, _transposed((4, 5))).uniform_(0.5, 2.0))
    c["rand_like_transposed"] = _seeded(3, lambda t: t.rand_like(V(t, _transposed((4, 6)))))
    # randn / normal_ (PyTorch: serial Box-Muller below 16 elements or non-contiguous, with the
    # second sample cached in the generator; vectorised in blocks of 16 above)
    c["randn_f32_7"] = _seeded(0, lambda t: t.randn(7))
    c["randn_f32_16"] = _seeded(0, lambda t: t.randn(16))
    c["randn_f32_45"] = _seeded(0, lambda t: t.randn(45))
    c["randn_f32_3x17"] = _seeded(5, lambda t: t.randn(3, 17))
    c["randn_f64_5"] = _seeded(0, lambda t: t.randn(5, dtype=t.float64))
    c["randn_f64_40"] = _seeded(0, lambda t: t.randn(40, dtype=t.float64))
    c["randn_cache_sequence"] = _sequence(9, lambda t: t.randn(3), lambda t: t.randn(3), lambda t: t.randn(20),
                                          lambda t: t.randn(1, dtype=t.float64))
    c["randn_generator"] = _gen(77, lambda t, g: t.randn(5, 7, generator=g))
    c["randn_like_transposed"] = _seeded(4, lambda t: t.randn_like(V(t, _transposed((6, 5)))))
    # complex: PyTorch draws the (..., 2) real view, normal with half the variance per part
    c["randn_c64_3"] = _seeded(0, lambda t: t.randn(3, dtype=t.complex64))
    c["randn_c64_4x5"] = _seeded(1, lambda t: t.randn(4, 5, dtype=t.complex64))
    c["randn_c128_9"] = _seeded(2, lambda t: t.randn(9, dtype=t.complex128))
    c["normal__c64_mean_std"] = _seeded(3, lambda t: t.empty(11, dtype=t.complex64).normal_(1.5, 3.0))
    c["rand_c64_10"] = _seeded(4, lambda t: t.rand(10, dtype=t.complex64))
    c["uniform__c128_bounds"] = _seeded(5, lambda t: t.empty(6, dtype=t.complex128).uniform_(-2.0, 3.0))
    c["normal__f32"] = _seeded(1, lambda t: t.empty(40).normal_(1.5, 0.3))
    c["normal__f32_small"] = _seeded(1, lambda t: t.empty(9).normal_(1.5, 0.3))
    c["normal__f64"] = _seeded(1, lambda t: t.empty(33, dtype=t.float64).normal_(-2.0, 4.5))
    c["normal__transposed"] = _seeded(6, lambda t: V(t, _transposed((5, 6))).normal_(0.5, 2.0))
    c["normal_float_float"] = _seeded(8, lambda t: t.normal(2.0, 3.0, (4, 5)))
    c["normal_float_float_f64"] = _gen(8, lambda t, g: t.normal(2.0, 3.0, size=(17,), generator=g,
                                                                 dtype=t.float64))
    c["normal_Tensor_float"] = _seeded(10, lambda t: t.normal(T(t, _f32(np.arange(20.0))), 0.5))
    c["normal_float_Tensor"] = _seeded(11, lambda t: t.normal(0.7, T(t, _f32(np.arange(20.0)))))
    c["normal_Tensor_Tensor"] = _seeded(12, lambda t: t.normal(T(t, _f32(np.arange(6.0).reshape(2, 3))),
                                                               T(t, _f64([1.0, 2.0, 3.0]))))
    c["normal_Tensor_Tensor_bcast"] = _seeded(13, lambda t: t.normal(T(t, _f64(np.arange(4.0).reshape(4, 1))),
                                                                     T(t, _f32([0.5, 1.5, 2.5]))))
    # randint / random_
    c["randint_high"] = _seeded(0, lambda t: t.randint(10, (20,)))
    c["randint_low_high"] = _seeded(0, lambda t: t.randint(-5, 1000, (4, 5)))
    c["randint_range_2_40"] = _seeded(0, lambda t: t.randint(0, 2**40, (6,)))
    c["randint_generator"] = _gen(5, lambda t, g: t.randint(3, 9, (10,), generator=g))
    for name in ("uint8", "int8", "int16", "int32", "float32", "float64"):
        c[f"randint_{name}"] = _seeded(1, lambda t, name=name: t.randint(-3 if name != "uint8" else 0, 100, (12,),
                                                                         dtype=getattr(t, name)))
    c["randint_bool"] = _seeded(1, lambda t: t.randint(0, 2, (12,), dtype=t.bool))
    c["randint_like_transposed"] = _seeded(2, lambda t: t.randint_like(V(t, _transposed((3, 4))), -7, 7))
    c["randint_like_high"] = _seeded(2, lambda t: t.randint_like(T(t, _f64(np.zeros(8))), 50))
    for name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"):
        c[f"random__{name}"] = _seeded(3, lambda t, name=name: t.empty(10, dtype=getattr(t, name)).random_())
    c["random__to_f64"] = _seeded(4, lambda t: t.empty(8, dtype=t.float64).random_(2**40))
    c["random__from_none_int16"] = _seeded(4, lambda t: t.empty(8, dtype=t.int16).random_(-100, None))
    c["random__from_none_f32"] = _seeded(4, lambda t: t.empty(8, dtype=t.float32).random_(3, None))
    c["random__full_int64"] = _seeded(4, lambda t: t.empty(6, dtype=t.int64).random_(-2**63, None))
    # randperm (32-bit words below 2**32 / 20 elements)
    c["randperm_10"] = _seeded(0, lambda t: t.randperm(10))
    c["randperm_100_int32"] = _seeded(1, lambda t: t.randperm(100, dtype=t.int32))
    c["randperm_20_float32"] = _gen(2, lambda t, g: t.randperm(20, generator=g, dtype=t.float32))
    c["randperm_1"] = _seeded(3, lambda t: (t.randperm(1), t.rand(2)))
    # bernoulli
    c["bernoulli_p_tensor_f32"] = _seeded(0, lambda t: t.bernoulli(T(t, _f32(np.linspace(0, 1, 20)))))
    c["bernoulli_p_tensor_f64"] = _seeded(0, lambda t: t.bernoulli(T(t, _f64(np.linspace(0, 1, 20)))))
    c["bernoulli_p_tensor_transposed"] = _seeded(1, lambda t: t.bernoulli(V(t, _probs(1, 4, 5).T)))
    c["bernoulli_float_p"] = _seeded(0, lambda t: t.bernoulli(t.empty(20), 0.3))
    c["bernoulli__broadcast_p"] = _seeded(2, lambda t: V(t, _transposed((6, 4))).bernoulli_(
        T(t, _f32(np.linspace(0.1, 0.9, 4).reshape(4, 1)))))
    for name in ("bool", "uint8", "int32", "int64", "float64"):
        c[f"bernoulli__{name}"] = _seeded(3, lambda t, name=name: t.empty(16, dtype=getattr(t, name)).bernoulli_(0.4))
    # multinomial
    c["multinomial_no_replacement"] = _seeded(0, lambda t: t.multinomial(T(t, _probs(0, 3, 8)), 4))
    c["multinomial_one_sample"] = _seeded(1, lambda t: t.multinomial(T(t, _probs(1, 3, 8)), 1))
    c["multinomial_one_sample_replacement"] = _seeded(1, lambda t: t.multinomial(T(t, _probs(1, 3, 8)), 1, True))
    c["multinomial_replacement"] = _seeded(2, lambda t: t.multinomial(T(t, _probs(2, 3, 8)), 12, True))
    c["multinomial_replacement_f64"] = _seeded(2, lambda t: t.multinomial(T(t, _probs(2, 3, 8, np.float64)), 12, True))
    c["multinomial_1d"] = _gen(3, lambda t, g: t.multinomial(T(t, _f32([0.1, 0.2, 0.3, 0.4, 0.0])), 3, generator=g))
    c["multinomial_transposed"] = _seeded(4, lambda t: t.multinomial(V(t, _probs(4, 8, 3).T), 2))
    # exponential_
    c["exponential__f32"] = _seeded(0, lambda t: t.empty(20).exponential_(2.5))
    c["exponential__f64"] = _seeded(0, lambda t: t.empty(20, dtype=t.float64).exponential_())
    # strided views: gaps, permuted dimensions, size-1 dimensions with odd strides, broadcast p
    c["uniform__sliced_permuted"] = _seeded(3, lambda t: V(t, np.zeros((6, 9, 4), np.float32)[1::2, ::3]
                                                           .transpose(2, 0, 1)).uniform_(-1, 1))
    c["normal__size1_dims"] = _seeded(4, lambda t: V(t, np.lib.stride_tricks.as_strided(
        np.zeros(40, np.float64), (3, 1, 5), (8, 64, 40))).normal_(1.0, 2.0))
    c["bernoulli__strided_broadcast_p"] = _seeded(5, lambda t: V(t, np.zeros((5, 3, 8), np.int16)[:, :, ::2]
                                                                 .transpose(1, 2, 0)).bernoulli_(
        V(t, np.linspace(0.1, 0.9, 40).reshape(8, 5)[::2, 2:3])))
    c["randn_like_sliced"] = _seeded(6, lambda t: t.randn_like(V(t, np.zeros((8, 10), np.float32)[::2, 1::3])))
    # cauchy_, log_normal_ (exp of the cached Box-Muller normal), geometric_
    c["cauchy__f32"] = _seeded(0, lambda t: t.empty(20).cauchy_(1.5, 2.0))
    c["cauchy__f64"] = _seeded(0, lambda t: t.empty(20, dtype=t.float64).cauchy_())
    c["log_normal__f32"] = _seeded(1, lambda t: t.empty(21).log_normal_(0.5, 0.7))
    c["log_normal__f64_then_randn"] = _sequence(1, lambda t: t.empty(21, dtype=t.float64).log_normal_(),
                                                lambda t: t.randn(3))
    for name in ("uint8", "int32", "int64", "float32", "float64"):
        c[f"geometric__{name}"] = _seeded(2, lambda t, name=name: t.empty(20, dtype=getattr(t, name)).geometric_(0.2))
    # dropout (PyTorch's CPU _dropout) and native_dropout
    c["dropout_f32"] = _seeded(0, lambda t: t.dropout(T(t, _f32(np.arange(1.0, 25.0).reshape(4, 6))), 0.4, True))
    c["dropout_f64_negative"] = _seeded(1, lambda t: t.dropout(T(t, _f64(np.linspace(-5, 5, 21))), 0.7, True))
    c["dropout_transposed"] = _seeded(2, lambda t: t.dropout(V(t, np.arange(1.0, 13.0, dtype=np.float32)
                                                                  .reshape(3, 4).T), 0.3, True))
    c["native_dropout_f32"] = _seeded(3, lambda t: t.native_dropout(T(t, _f32(np.linspace(-3, 3, 12))), 0.3, True))
    c["native_dropout_transposed"] = _seeded(4, lambda t: t.native_dropout(
        V(t, np.linspace(-3, 3, 12).astype(np.float32).reshape(3, 4).T), 0.6, True))
    # a bad probability stops PyTorch's kernel part way: the draws before it are consumed
    c["draws_after_bernoulli_error"] = _seeded(7, lambda t: _after_error(
        t, lambda: t.bernoulli(t.from_numpy(_f32([0.3, 0.5, 2.0, 0.1])))))
    c["draws_after_multinomial_error"] = _seeded(8, lambda t: _after_error(
        t, lambda: t.multinomial(t.from_numpy(_f32([[0.2, 0.8], [0.5, 0.5], [-1.0, 0.5]])), 2, True)))
    # generator state with a cached normal sample, then draws after it (the test also loads this
    # PyTorch state into Ember and checks the draws that follow)
    c["state_after_draws"] = _seeded(6, _state_then_draws)
    return c


def _after_error(torch: Any, fn: Callable[[], Any]) -> Any:
    try:
        fn()
    except RuntimeError:
        return torch.rand(4)
    raise AssertionError("expected a RuntimeError")


def _state_then_draws(torch: Any) -> Any:
    torch.rand(700)
    torch.randn(3)                       # leaves the second Box-Muller sample cached
    state = torch.get_rng_state()
    return state, torch.randn(5), torch.rand(3)


def _digest_cases() -> dict[str, Case]:
    """Large outputs, recorded as SHA-256 digests."""
    c: dict[str, Case] = {}
    c["randn_f32_1000003"] = _gen(1, lambda t, g: t.randn(1000003, generator=g))
    c["randn_f64_100003"] = _gen(2, lambda t, g: t.randn(100003, generator=g, dtype=t.float64))
    c["normal__f32_100001"] = _gen(3, lambda t, g: t.empty(100001).normal_(-2.5, 3.7, generator=g))
    c["uniform__f32_100000"] = _gen(4, lambda t, g: t.empty(100000).uniform_(-1.3, 17.9, generator=g))
    c["uniform__f64_100000"] = _gen(4, lambda t, g: t.empty(100000, dtype=t.float64).uniform_(-1.3, 17.9,
                                                                                          generator=g))
    c["exponential__f32_100000"] = _gen(5, lambda t, g: t.empty(100000).exponential_(0.37, generator=g))
    c["randint_100000"] = _gen(6, lambda t, g: t.randint(-1000, 1000, (100000,), generator=g))
    c["randperm_100000"] = _gen(7, lambda t, g: t.randperm(100000, generator=g))
    c["bernoulli_100000"] = _gen(8, lambda t, g: t.bernoulli(t.empty(100000), 0.37, generator=g))
    c["multinomial_replacement_10000"] = _gen(9, lambda t, g: t.multinomial(
        t.from_numpy(_probs(9, 10, 50)), 1000, True, generator=g))
    c["multinomial_no_replacement_50x37"] = _gen(10, lambda t, g: t.multinomial(
        t.from_numpy(_probs(10, 50, 37)), 20, generator=g))
    c["state_after_seed"] = _seeded(5, lambda t: t.get_rng_state())
    c["state_default_generator"] = lambda t: t.Generator().get_state()
    c["state_after_rand_700"] = _gen(5, lambda t, g: (t.rand(700, generator=g), g.get_state()))
    return c


# randperm with 2**32 / 20 or more elements switches to 64-bit words (and takes a minute and
# almost 1 GB): checked only when the test is asked for it (EMBER_SLOW_TESTS=1).
SLOW_DIGEST_CASES = {
    "randperm_214748364_int32": _gen(0, lambda t, g: t.randperm(214748364, generator=g, dtype=t.int32)),
}

CASES = _cases()
DIGEST_CASES = _digest_cases()


def as_arrays(result: Any) -> list[np.ndarray]:
    """A case's result (a tensor or a tuple of tensors) as numpy arrays."""
    if isinstance(result, (tuple, list)):
        return [a for r in result for a in as_arrays(r)]
    return [np.array(result.numpy(), copy=True)]


def load_reference(data_dir: Path = DATA_DIR) -> dict[str, list[np.ndarray]]:
    """The recorded small results: case name -> its arrays."""
    blob = np.load(data_dir / "reference.npz")["blob"].tobytes()
    index = json.loads((data_dir / "reference.json").read_text())
    out: dict[str, list[np.ndarray]] = {}
    for name, entries in index.items():
        arrays = []
        for e in entries:
            dtype = np.dtype(e["dtype"])
            count = int(np.prod(e["shape"], dtype=np.int64))
            arrays.append(np.frombuffer(blob, dtype=dtype, count=count, offset=e["offset"]).reshape(e["shape"]))
        out[name] = arrays
    return out


def digest(arrays: list[np.ndarray]) -> dict[str, Any]:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return {"sha256": h.hexdigest(), "shapes": [list(a.shape) for a in arrays],
            "dtypes": [str(a.dtype) for a in arrays]}


def main(argv: list[str]) -> int:
    # The reference is the real PyTorch, whose package is also called "torch" (run this from outside
    # the repository). Its name is an option, not an import statement: this build-glue package must
    # not import Ember's torch, and the audit cannot tell the two apart.
    reference = next((a.split("=", 1)[1] for a in argv if a.startswith("--reference=")), "torch")
    torch = importlib.import_module(reference)
    if not hasattr(torch, "backends"):
        print("record_random_reference.py needs a real PyTorch (run it from outside the Ember checkout)")
        return 2
    paths = [a for a in argv[1:] if not a.startswith("--")]
    out_dir = Path(paths[0]) if paths else DATA_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    blob = bytearray()
    index: dict[str, list[dict[str, Any]]] = {}
    for name, case in CASES.items():
        index[name] = []
        for a in as_arrays(case(torch)):
            index[name].append({"offset": len(blob), "shape": list(a.shape), "dtype": str(a.dtype)})
            blob += np.ascontiguousarray(a).tobytes()
    np.savez_compressed(out_dir / "reference.npz", blob=np.frombuffer(bytes(blob), dtype=np.uint8))
    (out_dir / "reference.json").write_text(json.dumps(index, separators=(",", ":"), sort_keys=True) + "\n")
    digests = {name: digest(as_arrays(case(torch))) for name, case in DIGEST_CASES.items()}
    if "--slow" in argv:
        digests.update({name: digest(as_arrays(case(torch))) for name, case in SLOW_DIGEST_CASES.items()})
    else:
        old = json.loads((out_dir / "digests.json").read_text()) if (out_dir / "digests.json").exists() else {}
        digests.update({name: old[name] for name in SLOW_DIGEST_CASES if name in old})
    (out_dir / "digests.json").write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    meta = {"torch": torch.__version__, "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "numpy": np.__version__}
    (out_dir / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"recorded {len(CASES)} cases ({len(blob)} bytes) and {len(digests)} digests in {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
