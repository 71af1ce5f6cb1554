"""One dtype table (c10/dtype_table.py): c10 builds torch's dtypes from it and torchgen reads it as
data, so the two cannot disagree; these tests hold the parts written elsewhere to it."""
import re
from pathlib import Path

import numpy as np
import pytest

import torch
from c10 import dtype_table
from c10.scalar_type import CPP_TYPE_NAMES, DTYPE_NAMES
from torchgen.dtypes import DTYPE_CLASSES, DTYPES, read_table

REPO = Path(__file__).resolve().parents[2]


def test_torchgen_reads_c10s_table_as_data():
    assert read_table() == {"DTYPES": dtype_table.DTYPES, "PROMOTION": dtype_table.PROMOTION}
    assert sorted(d.name for d in DTYPES) == sorted(row["name"] for row in dtype_table.DTYPES)


def test_c10s_dtypes_carry_the_tables_facts():
    for row in dtype_table.DTYPES:
        d = DTYPE_NAMES[row["name"]]
        assert (d.scalar_type, d.type_name, d.itemsize) == (row["scalar_type"], row["type_name"], row["itemsize"])
        assert d.is_floating_point == (row["kind"] == "f") and d.is_signed == (row["kind"] in "ifc")
        assert d.is_complex == (row["kind"] == "c")
        assert CPP_TYPE_NAMES[d.name] == row["cpp_name"]
        assert (d.numpy_dtype is None) if row["numpy"] is None else np.dtype(d.numpy_dtype).itemsize == row["itemsize"]
        assert all(DTYPE_NAMES[alias] is d for alias in row["aliases"])


def test_the_scalar_type_enum_of_the_pxd_numbers_each_dtype_as_the_table():
    enum = dict(re.findall(r"^\s+(\w+) = (-?\d+)", (REPO / "c10/scalar_type.pxd").read_text(), re.M))
    for row in dtype_table.DTYPES:
        assert int(enum["ST_" + row["name"].upper()]) == row["scalar_type"]
    assert int(enum["NUM_SCALAR_TYPES"]) > max(row["scalar_type"] for row in dtype_table.DTYPES)


def test_the_promotion_table_covers_every_pair_symmetrically():
    names = [row["name"] for row in dtype_table.DTYPES]
    for a in names:
        for b in names:
            result = dtype_table.PROMOTION[a][b]
            assert result == dtype_table.PROMOTION[b][a]
            if result is None:      # PyTorch refuses the pair (float8 with another dtype)
                with pytest.raises(RuntimeError, match="Promotion for .* is not supported"):
                    torch.promote_types(DTYPE_NAMES[a], DTYPE_NAMES[b])
            else:
                assert torch.promote_types(DTYPE_NAMES[a], DTYPE_NAMES[b]) is DTYPE_NAMES[result]


def test_dtype_classes_follow_pytorchs_dispatch_groups():
    assert [d.name for d in DTYPE_CLASSES["Floating"]] == ["float16", "float32", "float64", "bfloat16"]
    assert "bool" not in [d.name for d in DTYPE_CLASSES["All"]]
    assert len(DTYPE_CLASSES["AllAndBool"]) == len(DTYPE_CLASSES["All"]) + 1
    assert [d.name for d in DTYPE_CLASSES["Integral"]] == ["uint8", "int8", "int16", "int32", "int64"]


def test_reduced_float_loops_compute_in_float32_as_pytorchs_opmath():
    by_name = {d.name: d for d in DTYPES}
    assert by_name["float16"].compute is by_name["float32"] and by_name["bfloat16"].compute is by_name["float32"]
    assert all(d.compute is d for d in DTYPES if d.name not in ("float16", "bfloat16"))
