"""complex64 / complex128 tensors as storage types (the first steps of complex support): creation,
printing, conversions to and from every dtype, scalars, indexing, type promotion, view_as_real/view_as_complex,
real/imag, torch.complex/polar, NumPy, DLPack and
checkpoints against PyTorch 2.13 (tools/record_complex_reference.py wrote test/data/complex/), and
a clear NotImplementedError from every op that does not compute in them yet (the ops that do:
test/opinfo/complex_ops.py and test_complex_autograd.py)."""
import io
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import torch
from opinfo import all_ops, complex_ops
from recorded import assert_matches
from opinfo.core import to_torch
from tools import record_complex_reference as record

DATA = Path(__file__).resolve().parents[1] / "data" / "complex"
REFERENCE = json.loads((DATA / "complex.json").read_text())["cases"]


@pytest.mark.parametrize("case", record.CASES)
def test_complex_tensors_do_what_they_do_on_pytorch(case):
    assert_matches(record.run_case(torch, case), REFERENCE[case], case, 0.0, 0.0)     # exactly


def test_casting_complex_to_real_warns_once_per_process_as_pytorch():
    from aten.native.cpu import copy as cpu_copy   # noqa: F401  (the flag lives there)
    z = torch.tensor([1 + 2j])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        z.float()
        z.float()
    messages = [str(w.message) for w in caught]
    assert messages.count("Casting complex values to real discards the imaginary part") <= 1


def test_checkpoints_written_by_pytorch_load_and_round_trip():
    expected = record.checkpoint(torch)
    loaded = torch.load(DATA / "checkpoint.pt")
    for key, tensor in expected.items():
        assert loaded[key].dtype is tensor.dtype and loaded[key].shape == tensor.shape
        assert loaded[key].tolist() == tensor.tolist()
    buffer = io.BytesIO()
    torch.save(loaded, buffer)
    buffer.seek(0)
    again = torch.load(buffer)
    assert all(again[k].tolist() == loaded[k].tolist() and again[k].dtype is loaded[k].dtype for k in loaded)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_numpy_arrays_are_shared_both_ways(dtype):
    a = np.array([[1 + 2j, -3j], [0.5, 4 - 4j]], dtype)
    t = torch.from_numpy(a)
    assert t.dtype is getattr(torch, np.dtype(dtype).name)
    a[0, 0] = 7j
    assert t[0, 0].item() == 7j and t.numpy() is not a and np.shares_memory(t.numpy(), a)
    np.testing.assert_array_equal(torch.tensor(a).numpy(), a)


def test_complex128_copies_move_all_sixteen_bytes():
    w = torch.tensor([[1 + 2j, 3 - 4j, 5j], [6.5, -7j, 8 + 8j]], dtype=torch.complex128)
    assert w.t().contiguous().tolist() == [list(col) for col in zip(*w.tolist())]
    assert w[:, ::2].clone().tolist() == [row[::2] for row in w.tolist()]
    assert torch.cat([w, w]).tolist() == w.tolist() * 2


@pytest.mark.parametrize("op", [lambda z: z.floor(), lambda z: z.cumsum(0), lambda z: torch.erf(z),
                                lambda z: torch.expm1(z), lambda z: z.sort()])
@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_ops_that_do_not_compute_in_complex_yet_say_so(op, dtype):
    z = torch.tensor([1 + 2j, -3j], dtype=dtype)
    with pytest.raises(NotImplementedError, match=f"not implemented for '{dtype.type_name}'"):
        op(z)


def test_complex128_indexing_is_refused_where_complex64_moves_elements():
    z = torch.tensor([1 + 2j, 3 - 4j, 5j])
    assert z[[2, 0]].tolist() == [5j, 1 + 2j]
    with pytest.raises(NotImplementedError, match="ComplexDouble"):
        z.to(torch.complex128)[[2, 0]]


def test_a_real_tensor_and_a_complex_number_compute_in_complex_not_truncated():
    assert (torch.zeros(2) + 1j).tolist() == [1j, 1j]
    with pytest.raises(NotImplementedError, match="ComplexFloat"):
        torch.zeros(2).fmod(1j)


def test_every_op_refuses_complex_or_moves_its_parts_exactly():
    """No op of the operator database turns complex inputs into a silently wrong result: each
    refuses them, or its result is the op applied to the real and imaginary parts apart (the ops
    that move elements), or, for the linear algebra NumPy computes (einsum), NumPy's product."""
    failures = []
    # checked against NumPy's complex arithmetic there, and the products in test_complex_autograd.py
    computing = {op.name for op in complex_ops.OPS} | {"_C._nn.linear", "prod",
                                                        "linalg.multi_dot", "cov"}
    for op in [op for op in all_ops() if torch.float32 in op.dtypes and op.name not in _NOT_LINEAR | computing]:
        for sample in op.sample_inputs(torch.float32, np.random.default_rng(3)):
            if not _has_float_array((sample.args, sample.kwargs)):
                continue       # factories: nothing complex goes in
            try:
                got = op.function()(*to_torch(_complex(sample.args)), **to_torch(_complex(sample.kwargs)))
            except (RuntimeError, TypeError, ValueError, IndexError):
                continue        # NotImplementedError is a RuntimeError
            parts = [op.function()(*to_torch(_complex(sample.args, p)), **to_torch(_complex(sample.kwargs, p)))
                     for p in ("real", "imag")]
            for g, re, im in zip(*(v if isinstance(v, (tuple, list)) else [v] for v in (got, *parts))):
                if not isinstance(g, torch.Tensor):
                    continue
                if not g.dtype.is_complex and not _is_numpys(g, op, sample):
                    failures.append(f"{op.id} {sample.name}: a {g.dtype} result")
                elif not np.allclose(g.numpy(), (re.numpy() + 1j * im.numpy()).astype(g.numpy().dtype), rtol=1e-6,
                                     atol=1e-6, equal_nan=True) \
                        and not _is_numpys(g, op, sample):
                    failures.append(f"{op.id} {sample.name}: wrong values")
    assert not failures, failures


# Ops whose result is not their real and imaginary parts' results put together: products (einsum,
# which NumPy computes correctly, checked below), fills with a real value, conversions to a real dtype
# asked for, random draws.
_NOT_LINEAR = {"einsum", "linalg.matrix_power", "ones_like", "full_like", "zeros_like", "constant_pad_nd", "_C._nn.pad",
               "Tensor.type_as", "softmax", "log_softmax", "bernoulli", "multinomial", "normal", "rand_like", "randn_like",
               "randint_like", "dropout", "native_dropout", "randperm"}


def _is_numpys(got, op, sample):
    """Whether an op that computes in complex gave NumPy's complex result: the entry's own reference
    called with the complex arrays, or NumPy's function of the same name (the aliases: arccos)."""
    refs = [op.ref] + ([getattr(np, op.name)] if hasattr(np, op.name) else [])
    for ref in refs:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("error", np.exceptions.ComplexWarning)   # a reference that drops the imaginary part
            try:
                expected = np.asarray(ref(*_complex(sample.args), **_complex(sample.kwargs)))
            except (np.exceptions.ComplexWarning, TypeError, ValueError):
                continue
        if expected.shape == tuple(got.shape) and np.allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5,
                                                              equal_nan=True):
            return True
    return False


def _has_float_array(value):
    if isinstance(value, np.ndarray):
        return value.dtype == np.float32
    if isinstance(value, dict):
        return any(_has_float_array(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_has_float_array(v) for v in value)
    return False


def _complex(value, part=None):
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        z = np.asarray(value + 1j * (value * 0.5 + 0.25), dtype=np.complex64)
        return z if part is None else np.array(getattr(z, part), copy=True)
    if isinstance(value, dict):
        return {k: _complex(v, part) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_complex(v, part) for v in value)
    return value


def test_einsum_computes_complex_products_through_numpy():
    a = np.array([[1 + 2j, 3 - 1j], [0.5j, 2]], np.complex64)
    b = np.array([[2 - 1j, 1], [1j, -1]], np.complex64)
    np.testing.assert_allclose(torch.einsum("ij,jk->ik", torch.from_numpy(a), torch.from_numpy(b)).numpy(), a @ b,
                               rtol=1e-6)

