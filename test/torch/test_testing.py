"""torch.testing: assert_close's rules, tolerances and failure reports, and make_tensor's ranges.

How the expected strings were verified: every literal message below was produced by PyTorch 2.13
(/work/ref-torch/bin/python, run from /tmp) calling torch.testing.assert_close / make_tensor on the
same inputs and printing repr(str(error)); the strings were pasted unchanged. The tolerance
boundaries (which float just passes, which next float fails) were found the same way, by a
bisection over ulps against the reference, and Ember gave the same answers. Ember's assert_close
was also compared with the reference on 3000 random tensor pairs (every dtype, NaN/inf, mixed
dtypes, explicit tolerances): the reports were identical.
"""
from __future__ import annotations

import re
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import torch
from torch.testing import assert_close, make_tensor

NOT_CLOSE_F32 = ("Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\n"
                 "Greatest absolute difference: 0.20000004768371582 at index (1,) (up to 1e-05 allowed)\n"
                 "Greatest relative difference: 0.09090910851955414 at index (0,) (up to 1.3e-06 allowed)")


def message(actual, expected, error=AssertionError, **kwargs) -> str:
    with pytest.raises(error) as info:
        assert_close(actual, expected, **kwargs)
    assert type(info.value) is error
    return str(info.value)


# ------------------------------------------------------------------------------------ reports
def test_float32_report_lists_counts_and_greatest_differences_in_float32_arithmetic():
    assert message(torch.tensor([1., 2.]), torch.tensor([1.1, 2.2])) == NOT_CLOSE_F32


def test_float64_report_uses_float64_tolerances():
    actual = torch.tensor([1., 2.], dtype=torch.float64)
    expected = torch.tensor([1.1, 2.2], dtype=torch.float64)
    assert message(actual, expected) == (
        "Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\n"
        "Greatest absolute difference: 0.20000000000000018 at index (1,) (up to 1e-07 allowed)\n"
        "Greatest relative difference: 0.09090909090909098 at index (0,) (up to 1e-07 allowed)")


def test_float16_report_computes_differences_in_float16():
    actual = torch.tensor([1., 2.], dtype=torch.float16)
    expected = torch.tensor([1.1, 2.2], dtype=torch.float16)
    assert message(actual, expected) == (
        "Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\n"
        "Greatest absolute difference: 0.19921875 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.090576171875 at index (0,) (up to 0.001 allowed)")


def test_integer_report_says_equal_and_divides_in_the_default_dtype():
    assert message(torch.tensor([1, 2, 3]), torch.tensor([1, 5, 4])) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 2 / 3 (66.7%)\n"
        "Greatest absolute difference: 3 at index (1,)\n"
        "Greatest relative difference: 0.6000000238418579 at index (1,)")


def test_integer_differences_are_taken_in_int64_so_they_do_not_wrap():
    actual = torch.tensor([-128], dtype=torch.int8)
    expected = torch.tensor([127], dtype=torch.int8)
    assert message(actual, expected) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 1 (100.0%)\n"
        "Greatest absolute difference: 255 at index (0,)\n"
        "Greatest relative difference: 2.007874011993408 at index (0,)")
    uint8 = message(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([3, 0], dtype=torch.uint8))
    assert uint8 == ("Tensor-likes are not equal!\n\nMismatched elements: 2 / 2 (100.0%)\n"
                     "Greatest absolute difference: 2 at index (0,)\n"
                     "Greatest relative difference: inf at index (1,)")


def test_bool_tensors_compare_exactly():
    assert message(torch.tensor([True, False]), torch.tensor([True, True])) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 1 at index (1,)\nGreatest relative difference: 1.0 at index (1,)")


def test_report_indexes_are_multidimensional_and_zero_expected_gives_inf():
    actual = torch.tensor([[1., 2.], [3., 4.]])
    expected = torch.tensor([[1., 2.], [3., 0.]])
    assert message(actual, expected) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\n"
        "Greatest absolute difference: 4.0 at index (1, 1) (up to 1e-05 allowed)\n"
        "Greatest relative difference: inf at index (1, 1) (up to 1.3e-06 allowed)")
    assert message(torch.ones(2, 3, 4), torch.zeros(2, 3, 4)) == (
        "Tensor-likes are not close!\n\nMismatched elements: 24 / 24 (100.0%)\n"
        "Greatest absolute difference: 1.0 at index (0, 0, 0) (up to 1e-05 allowed)\n"
        "Greatest relative difference: inf at index (0, 0, 0) (up to 1.3e-06 allowed)")


def test_zero_dim_tensors_report_as_scalars():
    assert message(torch.tensor(1.), torch.tensor(1.5)) == (
        "Scalars are not close!\n\nExpected 1.5 but got 1.0.\nAbsolute difference: 0.5 (up to 1e-05 allowed)\n"
        "Relative difference: 0.3333333333333333 (up to 1.3e-06 allowed)")
    assert message(torch.tensor(1.0), torch.tensor(1.1)) == (
        "Scalars are not close!\n\nExpected 1.100000023841858 but got 1.0.\n"
        "Absolute difference: 0.10000002384185791 (up to 1e-05 allowed)\n"
        "Relative difference: 0.09090911061310529 (up to 1.3e-06 allowed)")
    assert message(torch.tensor(1), torch.tensor(3)) == (
        "Scalars are not equal!\n\nExpected 3 but got 1.\nAbsolute difference: 2\n"
        "Relative difference: 0.6666666666666666")


def test_explicit_zero_tolerances_make_a_float_report_say_equal():
    assert message(torch.tensor([1., 2.]), torch.tensor([1., 2.5]), rtol=0, atol=0) == (
        "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 0.5 at index (1,)\n"
        "Greatest relative difference: 0.20000000298023224 at index (1,)")


def test_explicit_tolerances_are_printed_as_given():
    assert message(torch.tensor([1e-30]), torch.tensor([2e-30]), rtol=0, atol=1e-40) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
        "Greatest absolute difference: 1.0000000031710769e-30 at index (0,) (up to 1e-40 allowed)\n"
        "Greatest relative difference: 0.5 at index (0,) (up to 0 allowed)")
    assert message(torch.tensor([1]), torch.tensor([2]), rtol=0.1, atol=0.1) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
        "Greatest absolute difference: 1 at index (0,) (up to 0.1 allowed)\n"
        "Greatest relative difference: 0.5 at index (0,) (up to 0.1 allowed)")


# ------------------------------------------------------------------------------ tolerances
@pytest.mark.parametrize("dtype, inside, outside", [
    (torch.float16, 1.0013580322265625e-05, 1.0073184967041016e-05),
    (torch.float32, 9.999999747378752e-06, 1.0000000656873453e-05),
    (torch.float64, 1e-07, 1.0000000000000001e-07),
])
def test_default_atol_boundary(dtype, inside, outside):
    """Against an expected 0 only atol counts: atol (rounded to the dtype) passes, the next float fails."""
    zero = torch.zeros(1, dtype=dtype)
    assert_close(torch.tensor([inside], dtype=dtype), zero)
    message(torch.tensor([outside], dtype=dtype), zero)


@pytest.mark.parametrize("dtype, np_dtype, ulps", [
    (torch.float16, np.float16, 1), (torch.float32, np.float32, 10), (torch.float64, np.float64, 450799767)])
def test_default_rtol_boundary(dtype, np_dtype, ulps):
    """At 1024, `ulps` steps above still pass and one more fails (counts found against the reference)."""
    expected = np_dtype(1024.0)
    step = np.spacing(expected)
    just_inside = float(expected + np_dtype(ulps) * step)
    just_outside = float(expected + np_dtype(ulps + 1) * step)
    assert_close(torch.tensor([just_inside], dtype=dtype), torch.tensor([1024.0], dtype=dtype))
    text = message(torch.tensor([just_outside], dtype=dtype), torch.tensor([1024.0], dtype=dtype))
    rtol = {torch.float16: 0.001, torch.float32: 1.3e-06, torch.float64: 1e-07}[dtype]
    assert text.endswith(f"(up to {rtol} allowed)")


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64])
def test_integers_have_zero_tolerance(dtype):
    assert_close(torch.tensor([3, 7], dtype=dtype), torch.tensor([3, 7], dtype=dtype))
    assert "are not equal!" in message(torch.tensor([3, 7], dtype=dtype), torch.tensor([3, 8], dtype=dtype))


def test_mixed_dtypes_need_check_dtype_false_and_take_the_looser_tolerances():
    float32, float64 = torch.tensor([1.0]), torch.tensor([1.000005], dtype=torch.float64)
    assert message(float32, float64) == (
        "The values for attribute 'dtype' do not match: torch.float32 != torch.float64.")
    assert_close(float32, float64, check_dtype=False)     # within float32's atol 1e-5
    assert message(torch.tensor([1, 2]), torch.tensor([1.5, 2.]), check_dtype=False) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 0.5 at index (0,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.3333333432674408 at index (0,) (up to 1.3e-06 allowed)")
    assert_close(torch.zeros(1, dtype=torch.int8), torch.zeros(1, dtype=torch.uint8), check_dtype=False)


def test_integer_tolerances_measure_the_error_without_wrapping():
    assert_close(torch.tensor([1, 2], dtype=torch.uint8), torch.tensor([3, 2], dtype=torch.uint8), atol=5, rtol=0)


def test_only_one_tolerance_is_a_value_error():
    assert message(torch.zeros(2), torch.zeros(2), ValueError, rtol=1e-3) == (
        "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.")
    assert message(torch.zeros(2), torch.zeros(2), ValueError, atol=1e-3) == (
        "Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol.")
    assert message(1.0, 1.0, ValueError, rtol=None, atol=1.0) == (
        "Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol.")


def test_explicit_tolerances_apply():
    assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]), rtol=0.1, atol=0.1)
    assert "up to 0.1 allowed" in message(torch.tensor([1., 2.]), torch.tensor([1., 3.]), rtol=0.1, atol=0.1)


# ---------------------------------------------------------------------------------- nan, inf
def test_nan_is_unequal_unless_equal_nan():
    nan = torch.tensor([float("nan")])
    assert message(nan, nan.clone()) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
        "Greatest absolute difference: nan at index (0,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)")
    assert_close(nan, nan.clone(), equal_nan=True)
    assert message(float("nan"), float("nan")) == (
        "Scalars are not close!\n\nExpected nan but got nan.\nAbsolute difference: nan (up to 1e-07 allowed)\n"
        "Relative difference: nan (up to 1e-07 allowed)")
    assert_close(float("nan"), float("nan"), equal_nan=True)


def test_nan_against_a_number_fails_even_with_equal_nan_and_is_reported_first():
    expected = "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)"
    assert expected in message(torch.ones(3), torch.tensor([1., float("nan"), 2.]), equal_nan=True)
    assert expected in message(torch.tensor([1., float("nan"), 2.]), torch.ones(3))


def test_infinities_are_close_only_when_equal():
    inf = float("inf")
    assert_close(torch.tensor([inf, -inf]), torch.tensor([inf, -inf]))
    assert message(torch.tensor([inf]), torch.tensor([-inf])) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
        "Greatest absolute difference: inf at index (0,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)")
    assert "Greatest absolute difference: inf" in message(torch.tensor([inf]), torch.tensor([1.]))


# ------------------------------------------------------------------------------- attributes
def test_shape_mismatch():
    assert message(torch.zeros(2), torch.zeros(3)) == (
        "The values for attribute 'shape' do not match: torch.Size([2]) != torch.Size([3]).")


def test_dtype_mismatch():
    assert message(torch.zeros(2), torch.zeros(2, dtype=torch.float64)) == (
        "The values for attribute 'dtype' do not match: torch.float32 != torch.float64.")


def test_stride_is_checked_only_when_asked():
    strided = torch.zeros(4, 2)[::2]
    assert_close(torch.zeros(2, 2), strided)
    assert message(torch.zeros(2, 2), strided, check_stride=True) == (
        "The values for attribute 'stride()' do not match: (2, 1) != (4, 1).")
    assert message(torch.zeros(2, 2), torch.zeros(2, 2).t(), check_stride=True) == (
        "The values for attribute 'stride()' do not match: (2, 1) != (1, 2).")


def test_shape_is_checked_before_dtype():
    assert "'shape'" in message(torch.zeros(2), torch.zeros(3, dtype=torch.int64))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_device_mismatch():
    cpu = torch.ones(2)
    cuda = cpu.to("cuda")
    assert message(cpu, cuda) == "The values for attribute 'device' do not match: cpu != cuda:0."
    assert_close(cpu, cuda, check_device=False)


def test_non_contiguous_values_are_compared_elementwise():
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    assert_close(base.t(), torch.tensor(base.numpy().T.copy()))
    text = message(base[:, ::2], torch.tensor([[0., 2.], [4., 7.], [8., 10.]]))
    assert "at index (1, 1)" in text


# ------------------------------------------------------------------------ numbers and types
def test_python_scalars():
    assert message(1.0, 1.5) == (
        "Scalars are not close!\n\nExpected 1.5 but got 1.0.\nAbsolute difference: 0.5 (up to 1e-07 allowed)\n"
        "Relative difference: 0.3333333333333333 (up to 1e-07 allowed)")
    assert message(1, 2) == (
        "Scalars are not equal!\n\nExpected 2 but got 1.\nAbsolute difference: 1\nRelative difference: 0.5")
    assert message(1j, 2j) == (
        "Scalars are not close!\n\nExpected 2j but got 1j.\nAbsolute difference: 1.0 (up to 1e-07 allowed)\n"
        "Relative difference: 0.5 (up to 1e-07 allowed)")
    assert_close(1.0, 1.0 + 1e-8)


def test_python_number_types_must_match_unless_check_dtype_false():
    assert message(1, 1.0) == "The (d)types do not match: <class 'int'> != <class 'float'>."
    assert_close(1, 1.0, check_dtype=False)


def test_booleans_and_none():
    assert message(True, False) == "Booleans mismatch: True is not False"
    assert message(np.bool_(True), np.bool_(False)) == "Booleans mismatch: True is not False"
    assert message(None, 1) == "None mismatch: None is not 1"
    assert_close(None, None)
    assert_close(True, True)


def test_a_bool_against_an_int_fails_like_pytorch():
    text = message(True, 1, RuntimeError)
    assert text.startswith("Originating a NumberPair() at item  with\n\nbool(): True\n\nand\n\nint(): 1\n\n")


def test_numpy_scalars_and_arrays():
    assert message(np.float32(1), 2.0, check_dtype=False) == (
        "Scalars are not close!\n\nExpected 2.0 but got 1.0.\nAbsolute difference: 1.0 (up to 1e-07 allowed)\n"
        "Relative difference: 0.5 (up to 1e-07 allowed)")
    assert message(np.int64(1), 2) == (
        "Scalars are not equal!\n\nExpected 2 but got 1.\nAbsolute difference: 1\nRelative difference: 0.5")
    assert message(np.array([1., 2.]), np.array([1., 2.5])) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 0.5 at index (1,) (up to 1e-07 allowed)\n"
        "Greatest relative difference: 0.2 at index (1,) (up to 1e-07 allowed)")
    assert message(np.array(1.), np.array(2.)) == (
        "Scalars are not close!\n\nExpected 2.0 but got 1.0.\nAbsolute difference: 1.0 (up to 1e-07 allowed)\n"
        "Relative difference: 0.5 (up to 1e-07 allowed)")


@pytest.mark.parametrize("actual, expected, names", [
    (np.array([1., 2.]), torch.tensor([1., 2.]), ("numpy.ndarray", "torch.Tensor")),
    (torch.tensor(2), 2, ("torch.Tensor", "int")),
    (torch.tensor([1, 2]), [1, 2], ("torch.Tensor", "list")),
    ("a", "b", ("str", "str")),
    (object(), object(), ("object", "object")),
])
def test_unsupported_inputs_are_a_type_error(actual, expected, names):
    text = message(actual, expected, TypeError)
    first, second = (f"<class '{name}'>" for name in names)
    assert text == f"No comparison pair was able to handle inputs of type {first} and {second}."


def test_allow_subclasses_false_requires_the_same_type():
    class Sub(np.ndarray):
        pass

    sub = np.array([1., 2.]).view(Sub)
    assert_close(sub, np.array([1., 2.]))
    text = message(sub, np.array([1., 2.]), TypeError, allow_subclasses=False)
    assert text.startswith("No comparison pair was able to handle inputs of type <class")


# -------------------------------------------------------------------------------- containers
def test_sequence_failure_names_the_item():
    assert message([torch.zeros(2), torch.ones(2)], [torch.zeros(2), torch.zeros(2)]) == (
        "Tensor-likes are not close!\n\nMismatched elements: 2 / 2 (100.0%)\n"
        "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: inf at index (0,) (up to 1.3e-06 allowed)\n\n"
        "The failure occurred for item [1]")
    assert message([[1, 2], [3, 4]], [[1, 2], [3, 5]]) == (
        "Scalars are not equal!\n\nExpected 5 but got 4.\nAbsolute difference: 1\nRelative difference: 0.2\n\n"
        "The failure occurred for item [1][1]")
    assert message([1, None], [1, 2]) == "None mismatch: None is not 2\n\nThe failure occurred for item [1]"


def test_sequences_of_different_kinds_and_lengths():
    assert_close((1, 2), [1, 2])
    assert message([1, 2], [1]) == "The length of the sequences mismatch: 2 != 1"


def test_mapping_failure_names_the_key():
    assert message({"a": 1, "b": torch.ones(2)}, {"a": 1, "b": torch.zeros(2)}).endswith(
        "\n\nThe failure occurred for item ['b']")
    assert message({"a": 1}, {"b": 1}) == (
        "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['b']\n"
        "Additional keys in the actual mapping: ['a']")


def test_mapping_keys_are_visited_sorted_or_in_order_when_unsortable():
    assert message({"b": 1, "a": 2}, {"b": 2, "a": 3}).endswith("The failure occurred for item ['a']")
    assert message(OrderedDict([(1, 1), ("a", 2)]), {1: 2, "a": 2}).endswith("The failure occurred for item [1]")


def test_structure_errors_come_before_value_errors():
    text = message([1, "a"], [2, "a"], TypeError)
    assert text == ("No comparison pair was able to handle inputs of type <class 'str'> and <class 'str'>.\n\n"
                    "The failure occurred for item [1]")


def test_empty_tensors_are_close():
    assert_close(torch.empty(0), torch.empty(0))
    assert_close([], [])


# -------------------------------------------------------------------------------------- msg
def test_msg_string_replaces_the_report_entirely():
    assert message(torch.tensor([1., 2.]), torch.tensor([1.1, 2.2]), msg="custom") == "custom"
    assert message([torch.tensor([1., 2.])], [torch.tensor([1.1, 2.2])], msg="x") == "x"


def test_msg_callable_receives_the_report_with_the_item():
    wrap = lambda m: "H\n" + m + "\nF"  # noqa: E731
    assert message(torch.tensor([1., 2.]), torch.tensor([1.1, 2.2]), msg=wrap) == "H\n" + NOT_CLOSE_F32 + "\nF"
    assert message([torch.tensor([1., 2.])], [torch.tensor([1.1, 2.2])], msg=wrap) == (
        "H\n" + NOT_CLOSE_F32 + "\n\nThe failure occurred for item [0]\nF")
    assert message(1, 2, msg=lambda m: m.upper()) == (
        "SCALARS ARE NOT EQUAL!\n\nEXPECTED 2 BUT GOT 1.\nABSOLUTE DIFFERENCE: 1\nRELATIVE DIFFERENCE: 0.5")


def test_msg_does_not_replace_structural_errors():
    assert message([1, 2], [1], msg="custom") == "The length of the sequences mismatch: 2 != 1"


def test_inputs_are_not_modified():
    actual, expected = torch.tensor([1., 5.]), torch.tensor([1., 2.])
    message(actual, expected)
    np.testing.assert_array_equal(actual.numpy(), [1., 5.])
    np.testing.assert_array_equal(expected.numpy(), [1., 2.])


# ---------------------------------------------------------------------------- assert_allclose
def test_assert_allclose_is_deprecated_but_works_with_its_looser_defaults():
    with pytest.warns(FutureWarning, match=re.escape("`torch.testing.assert_allclose()` is deprecated since 1.12")):
        torch.testing.assert_allclose([1., 2.], [1., 2.00001])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with pytest.raises(AssertionError) as info:
            torch.testing.assert_allclose([1., 2.], [1., 2.1])
    assert str(info.value) == (
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
        "Greatest absolute difference: 0.09999990463256836 at index (1,) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.04761900380253792 at index (1,) (up to 0.0001 allowed)")


# -------------------------------------------------------------------------------- make_tensor
DEFAULT_RANGES = [
    (torch.bool, 0, 1), (torch.uint8, 0, 9), (torch.int8, -9, 9), (torch.int16, -9, 9), (torch.int32, -9, 9),
    (torch.int64, -9, 9), (torch.float16, -9, 9), (torch.float32, -9, 9), (torch.float64, -9, 9)]


@pytest.mark.parametrize("dtype, low, high", DEFAULT_RANGES)
def test_make_tensor_default_ranges(dtype, low, high):
    values = make_tensor(4000, dtype=dtype, device="cpu").numpy().astype(np.float64)
    assert values.min() >= low and values.max() <= high
    if dtype in (torch.float16, torch.float32, torch.float64):
        assert values.min() < -8 and values.max() > 8
        assert values.max() < high
    else:
        assert values.min() == low and values.max() == high   # randint's exclusive bound, rounded up


@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bool])
def test_make_tensor_shape_forms(dtype):
    for shape in [(2, 3), ((2, 3),), ([2, 3],), (torch.Size([2, 3]),)]:
        tensor = make_tensor(*shape, dtype=dtype, device="cpu")
        assert tensor.shape == torch.Size([2, 3]) and tensor.dtype == dtype and tensor.stride() == (3, 1)
    assert make_tensor((), dtype=dtype, device="cpu").shape == torch.Size([])
    assert make_tensor(dtype=dtype, device="cpu").shape == torch.Size([])
    assert make_tensor(0, 3, dtype=dtype, device="cpu").shape == torch.Size([0, 3])


def test_make_tensor_noncontiguous_doubles_the_last_dim_and_offsets_by_one():
    tensor = make_tensor(2, 3, dtype=torch.float32, device="cpu", noncontiguous=True)
    assert tensor.shape == torch.Size([2, 3])
    assert tensor.stride() == (6, 2) and tensor.storage_offset() == 1 and not tensor.is_contiguous()
    vector = make_tensor(3, dtype=torch.int64, device="cpu", noncontiguous=True)
    assert vector.stride() == (2,) and vector.storage_offset() == 1
    # One element or none: noncontiguous is ignored.
    assert make_tensor(1, dtype=torch.float32, device="cpu", noncontiguous=True).is_contiguous()
    assert make_tensor(0, 3, dtype=torch.float32, device="cpu", noncontiguous=True).stride() == (3, 1)


def test_make_tensor_memory_format():
    tensor = make_tensor(2, 3, 4, 5, dtype=torch.float32, device="cpu", memory_format=torch.channels_last)
    assert tensor.stride() == (60, 1, 15, 3)
    with pytest.raises(ValueError) as info:
        make_tensor(2, 3, dtype=torch.float32, device="cpu", noncontiguous=True, memory_format=torch.channels_last)
    assert str(info.value) == ("The parameters `noncontiguous` and `memory_format` are mutually exclusive, "
                               "but got noncontiguous=True and memory_format=torch.channels_last")


def test_make_tensor_requires_grad():
    assert make_tensor(2, dtype=torch.float32, device="cpu", requires_grad=True).requires_grad
    assert not make_tensor(2, dtype=torch.float32, device="cpu").requires_grad
    for dtype, name in [(torch.int64, "torch.int64"), (torch.bool, "torch.bool")]:
        with pytest.raises(ValueError) as info:
            make_tensor(2, 3, dtype=dtype, device="cpu", requires_grad=True)
        assert str(info.value) == ("`requires_grad=True` is not supported for boolean and integral dtypes, "
                                   f"but got dtype={name}")


@pytest.mark.parametrize("kwargs, text", [
    (dict(dtype=torch.float32, low=2, high=1), "`low` must be less than `high`, but got 2 >= 1"),
    (dict(dtype=torch.int32, low=2, high=2), "`low` must be less than `high`, but got 2 >= 2"),
    (dict(dtype=torch.float32, low=float("nan")), "`low` and `high` cannot be NaN, but got low=nan and high=9"),
    (dict(dtype=torch.uint8, low=-10, high=-5),
     "The value interval specified by `low` and `high` is [-10, -5), but torch.uint8 only supports [0, 256)"),
    (dict(dtype=torch.uint8, low=300, high=400),
     "The value interval specified by `low` and `high` is [300, 400), but torch.uint8 only supports [0, 256)"),
    (dict(dtype=torch.bool, low=3, high=10),
     "The value interval specified by `low` and `high` is [3, 10), but torch.bool only supports [0, 2)"),
    (dict(dtype=torch.float32, low=1e40, high=1e41),
     "The value interval specified by `low` and `high` is [1e+40, 1e+41), but torch.float32 only supports "
     "[-3.4028234663852886e+38, 3.4028234663852886e+38)"),
])
def test_make_tensor_range_errors(kwargs, text):
    with pytest.raises(ValueError) as info:
        make_tensor(2, 3, device="cpu", **kwargs)
    assert str(info.value) == text


def test_make_tensor_unsupported_dtype_is_a_type_error():
    with pytest.raises(TypeError) as info:
        make_tensor(2, 3, dtype="float", device="cpu")
    assert str(info.value) == ("The requested dtype 'float' is not supported by torch.testing.make_tensor(). "
                               "To request support, file an issue at: https://github.com/pytorch/pytorch/issues")


def test_make_tensor_clamps_to_the_dtype_and_rounds_integer_bounds_up():
    int8 = make_tensor(2000, dtype=torch.int8, device="cpu", low=-1000, high=1000).numpy()
    assert int8.min() >= -128 and int8.max() <= 127 and int8.min() < -100 and int8.max() > 100
    ints = make_tensor(1000, dtype=torch.int64, device="cpu", low=0.5, high=2.5).numpy()
    assert set(ints.tolist()) == {1, 2}
    assert make_tensor(3, dtype=torch.int64, device="cpu", low=5, high=6).numpy().tolist() == [5, 5, 5]
    bools = make_tensor(200, dtype=torch.bool, device="cpu", low=-5, high=10).numpy()
    assert set(bools.tolist()) == {False, True}
    for dtype, np_dtype in [(torch.float32, np.float32), (torch.float16, np.float16)]:
        wide = make_tensor(1000, dtype=dtype, device="cpu", low=-1e40, high=1e40).numpy()
        assert np.isfinite(wide).all() and np.abs(wide).max() > np.finfo(np_dtype).max / 4


def test_make_tensor_float_bounds_are_kept():
    values = make_tensor(2000, dtype=torch.float64, device="cpu", low=0.5, high=1.5).numpy()
    assert values.min() >= 0.5 and values.max() < 1.5


def test_make_tensor_low_equal_high_for_floats_warns_and_fills():
    with pytest.warns(FutureWarning, match=re.escape("Passing `low==high` to `torch.testing.make_tensor`")):
        tensor = make_tensor(3, dtype=torch.float32, device="cpu", low=5, high=5)
    assert tensor.numpy().tolist() == [5.0, 5.0, 5.0]


@pytest.mark.parametrize("dtype, replacement", [
    (torch.int64, 1), (torch.bool, True), (torch.float32, float(np.finfo(np.float32).tiny)),
    (torch.float64, float(np.finfo(np.float64).tiny))])
def test_make_tensor_exclude_zero(dtype, replacement):
    tensor = make_tensor(50, dtype=dtype, device="cpu", low=0, high=1, exclude_zero=True)
    values = tensor.numpy()
    assert (values != 0).all()
    if dtype in (torch.int64, torch.bool):
        assert (values == replacement).all()


def test_make_tensor_missing_keywords():
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'device'"):
        make_tensor(4, dtype=torch.float32)
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'dtype'"):
        make_tensor(4, device="cpu")


@pytest.mark.parametrize("dtype", [dtype for dtype, _, _ in DEFAULT_RANGES])
def test_a_made_tensor_is_close_to_its_copy_and_not_to_a_shifted_one(dtype):
    tensor = make_tensor(3, 4, dtype=dtype, device="cpu", noncontiguous=True)
    copy = torch.tensor(tensor.numpy().tolist(), dtype=dtype)
    assert_close(tensor, copy)
    if dtype is not torch.bool:
        shifted = torch.tensor((tensor.numpy().astype(np.float64) + 3).tolist(), dtype=dtype)
        message(tensor, shifted)


def test_torch_testing_is_reached_as_an_attribute():
    assert torch.testing.assert_close is assert_close and torch.testing.make_tensor is make_tensor
