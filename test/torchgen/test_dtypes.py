"""torchgen's dtype table mirrors c10's (torchgen may not import c10, so a test keeps them equal)."""
from c10.scalar_type import DTYPE_NAMES
from torchgen.dtypes import DTYPE_CLASSES, DTYPES


def test_torchgen_dtypes_have_c10s_scalar_type_numbers_and_sizes():
    import numpy as np
    ctype_sizes = {"uint8_t": 1, "int8_t": 1, "int16_t": 2, "int32_t": 4, "int64_t": 8, "half": 2, "float": 4, "double": 8}
    for d in DTYPES:
        c10 = DTYPE_NAMES[d.name]
        assert c10.scalar_type == d.scalar_type
        assert c10.itemsize == ctype_sizes[d.ctype] == np.dtype(c10.numpy_dtype).itemsize
        assert c10.is_floating_point == d.is_floating


def test_dtype_classes_follow_pytorchs_dispatch_groups():
    assert [d.name for d in DTYPE_CLASSES["Floating"]] == ["float16", "float32", "float64"]
    assert "bool" not in [d.name for d in DTYPE_CLASSES["All"]]
    assert len(DTYPE_CLASSES["AllAndBool"]) == len(DTYPE_CLASSES["All"]) + 1


def test_float16_loops_compute_in_float32_as_pytorchs_opmath():
    by_name = {d.name: d for d in DTYPES}
    assert by_name["float16"].compute is by_name["float32"]
    assert all(d.compute is d for d in DTYPES if d.name != "float16")

