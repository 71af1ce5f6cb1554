"""The ops PyTorch 2.13 computes on its float8 storage types and barebones unsigned types (uint16,
uint32, uint64), and the ones it refuses, replayed bit for bit from its recorded results
(tools/record_storage_dtype_reference.py wrote test/data/dtypes/storage_ops.json); on the CPU and,
under `-m cuda`, on CUDA. Ember serves them through generated loops (`barebones_unsigned`, `float8`
in the schema's ember_pointwise) and through the dispatcher's copies and views (`ember_storage_dtypes`)."""
import json
from pathlib import Path

import numpy as np
import pytest

import torch
from tools.record_storage_dtype_reference import CREATION_VALUES, cases, creations, make_input, outputs, run_creation

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "dtypes" / "storage_ops.json").read_text())
DEVICES = ["cpu", pytest.param("cuda", marks=[
    pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")])]
FLOAT8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz")
# Where Ember knowingly differs, and why:
KNOWN = {
    # PyTorch refuses flip for these dtypes; Ember's CPU flip moves elements by width, for every dtype
    # (its CUDA flip refuses the unsigned ones, as PyTorch).
    **{(dt, "flip"): "computes" for dt in ("uint16", "uint32", "uint64", *FLOAT8)},
    # PyTorch's float8 `mul` saturates where its own conversions give NaN; Ember computes no float8
    # arithmetic and refuses it.
    **{(dt, "mul"): "refuses" for dt in FLOAT8},
    # PyTorch gives isinf/isfinite to float8_e5m2 only (the one format with infinities); Ember refuses
    # them for every float8 format.
    ("float8_e5m2", "isinf"): "refuses", ("float8_e5m2", "isfinite"): "refuses",
    # Accumulating index_put computes in float32 and converts the whole tensor back: the NaN
    # payloads float8_e5m2 can hold (0x7D, 0x7E) become the canonical NaN.
    ("float8_e5m2", "index_put_accumulate"): "canonical NaN",
}


def _has_kernel(case, device):
    """Whether Ember has the op on device at all (masked_select has no CUDA kernel yet)."""
    return not (device == "cuda" and case == "masked_select")


def replay(dtype, case, device):
    try:
        return outputs(torch, cases(torch, device)[case](make_input(torch, dtype).to(device)))
    except Exception as e:  # noqa: BLE001 (compared with the recorded error)
        return {"error": type(e).__name__}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", list(REFERENCE["results"]))
def test_storage_dtype_ops_match_pytorch_bit_for_bit(dtype, device):
    differing = {}
    for case, expected in REFERENCE["results"][dtype].items():
        if not _has_kernel(case, device):
            continue
        got = replay(dtype, case, device)
        if got != expected:
            differing[case] = got
    known = {case for dt, case in KNOWN if dt == dtype and not (device == "cuda" and dt.startswith("uint"))}
    assert set(differing) == known, differing


def test_the_known_differences_are_the_ones_described():
    for (dtype, case), how in KNOWN.items():
        got, expected = replay(dtype, case, "cpu"), REFERENCE["results"][dtype][case]
        if how == "computes":
            assert "error" in expected and "outputs" in got
        elif how == "refuses":
            assert "outputs" in expected and got == {"error": "NotImplementedError"}
        else:
            assert got["outputs"][0]["bits"] != expected["outputs"][0]["bits"]


def test_uint64_sorts_and_sums_as_pytorch_beyond_int64s_range():
    values = np.array([2 ** 64 - 1, 5, 2 ** 63, 0], dtype=np.uint64)
    t = torch.from_numpy(values)
    assert t.sort().values.tolist() == [0, 5, 2 ** 63, 2 ** 64 - 1]
    assert t.sort(descending=True).indices.tolist() == [0, 2, 1, 3]
    assert torch.unique(t).tolist() == [0, 5, 2 ** 63, 2 ** 64 - 1]
    # as PyTorch: each element converted to int64 (wrapping), then summed in int64
    assert t.sum().dtype == torch.int64 and t.sum().item() == values.astype(np.int64).sum()


@pytest.mark.parametrize("dtype", ["uint8", "uint16", "uint32", "uint64"])
@pytest.mark.parametrize("how", ["tensor", "full"])
def test_unsigned_creation_from_python_numbers_matches_pytorch(dtype, how):
    for value, expected in zip(CREATION_VALUES, REFERENCE["creation"][dtype][how]):
        assert run_creation(torch, creations(torch)[how], value, dtype) == expected, value


def test_float8_index_put_refuses_other_dtypes_and_returns_self_in_place():
    f = torch.zeros(4).to(torch.float8_e4m3fn)
    idx = torch.tensor([0, 1])
    for target, values in ((f.clone(), torch.ones(2, dtype=torch.uint8)), (torch.zeros(4, dtype=torch.uint8), f[:2]),
                           (f.clone(), torch.ones(2).to(torch.float8_e5m2))):
        with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match"):
            target.index_put_((idx,), values)
    g = f.clone()
    assert g.index_put_((idx,), torch.ones(2).to(torch.float8_e4m3fn)) is g
    assert g.float().tolist() == [1.0, 1.0, 0.0, 0.0]
