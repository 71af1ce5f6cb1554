"""torch.finfo, torch.iinfo and the dtype attributes, against PyTorch's recorded values
(tools/record_dtype_reference.py -> test/data/dtypes/dtypes.json) for every dtype Ember has."""
import json
from pathlib import Path

import pytest

import torch

RECORDED = json.loads((Path(__file__).resolve().parents[1] / "data" / "dtypes" / "dtypes.json").read_text())
FACTS = RECORDED["dtypes"]
EMBER = [name for name in FACTS if isinstance(getattr(torch, name, None), torch.dtype)]


def _outcome(call):
    try:
        return {"value": str(call())}
    except Exception as exc:
        return {"error": type(exc).__name__, "message": str(exc)}


def test_the_recording_covers_every_ember_dtype():
    assert sorted(EMBER) == sorted(name for name in torch.__dict__ if isinstance(getattr(torch, name), torch.dtype)
                                   and getattr(torch, name).name == name)


@pytest.mark.parametrize("name", EMBER)
def test_dtype_attributes_are_pytorchs(name):
    d, facts = getattr(torch, name), FACTS[name]
    assert (d.is_floating_point, d.is_signed, d.itemsize, d.is_complex, repr(d)) == \
        (facts["is_floating_point"], facts["is_signed"], facts["itemsize"], facts["is_complex"], facts["repr"])
    assert _outcome(d.to_real) == facts["to_real"]
    assert _outcome(d.to_complex) == facts["to_complex"]


@pytest.mark.parametrize("name", ["complex32"])
def test_complex_half_is_named_but_holds_no_tensors_yet(name):
    with pytest.raises(RuntimeError, match=f"Ember has no torch.{name} tensors yet"):
        torch.zeros(2, dtype=getattr(torch, name))
    with pytest.raises(RuntimeError, match=f"Ember has no torch.{name} tensors yet"):
        torch.ones(2).to(getattr(torch, name))


@pytest.mark.parametrize("name", [n for n in EMBER if "error" not in FACTS[n]["finfo"]])
def test_finfo_has_pytorchs_fields_values_and_repr(name):
    info, expected = torch.finfo(getattr(torch, name)), FACTS[name]["finfo"]
    got = {field: getattr(info, field) for field in expected if field != "repr"}
    assert got == {field: value for field, value in expected.items() if field != "repr"}
    assert all(type(getattr(info, f)) is float for f in ("eps", "max", "min", "tiny", "smallest_normal", "resolution"))
    assert repr(info) == expected["repr"]


@pytest.mark.parametrize("name", [n for n in EMBER if "error" not in FACTS[n]["iinfo"]])
def test_iinfo_has_pytorchs_fields_values_and_repr(name):
    info, expected = torch.iinfo(getattr(torch, name)), FACTS[name]["iinfo"]
    assert {field: getattr(info, field) for field in expected if field != "repr"} == \
        {field: value for field, value in expected.items() if field != "repr"}
    assert type(info.max) is int and repr(info) == expected["repr"]


@pytest.mark.parametrize("name", EMBER)
@pytest.mark.parametrize("which", ["finfo", "iinfo"])
def test_the_wrong_info_for_a_dtype_is_pytorchs_type_error(name, which):
    expected = FACTS[name][which]
    if "error" in expected:
        assert _outcome(lambda: getattr(torch, which)(getattr(torch, name))) == expected


def test_finfo_of_nothing_is_the_default_dtypes_and_follows_it():
    assert repr(torch.finfo()) == RECORDED["default_finfo"]
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.finfo() == torch.finfo(torch.float64) != torch.finfo(torch.float32)
    finally:
        torch.set_default_dtype(torch.float32)


def test_info_objects_compare_by_value_and_are_unhashable_as_pytorchs():
    assert torch.finfo(torch.float16) == torch.finfo(torch.float16)
    assert torch.iinfo(torch.int8) == torch.iinfo(torch.int8)
    with pytest.raises(TypeError):
        hash(torch.finfo(torch.float32))
    with pytest.raises(TypeError, match="must be torch.dtype, not str"):
        torch.finfo("float32")


@pytest.mark.parametrize("a", EMBER)
@pytest.mark.parametrize("b", EMBER)
def test_promote_types_is_pytorchs_for_every_pair(a, b):
    promoted = _outcome(lambda: torch.promote_types(getattr(torch, a), getattr(torch, b)))
    assert promoted == RECORDED["promote_types"][a][b]
