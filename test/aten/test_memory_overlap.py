"""Writes into tensors whose elements share memory: PyTorch's error (or its deprecation warning) on
every in-place and out= write, checked once by the dispatcher for every operator and device.

The cases and what PyTorch 2.13 does with each come from tools/record_error_reference.py
(test/data/errors/overlap.json)."""
from __future__ import annotations

import functools
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import torch
from aten.dispatcher import CheckedWrite, find_operator, operator_names
from aten.native.meta.memory_overlap import internal_overlap
from c10.dispatch_key import DispatchKey
from tools import record_error_reference as ref

REFERENCE = json.loads((Path(__file__).resolve().parent.parent / "data" / "errors" / "overlap.json").read_text())
CASES = REFERENCE["cases"]
# Where PyTorch's kernel skips the check and writes each shared element several times (tril_ of
# [[0, 1, 2]] * 3 gives zeros; a sum into an expanded out= accumulates 9 into each), Ember refuses.
REFUSED_WHERE_PYTORCH_IS_SILENTLY_WRONG = {"tril_expanded", "sum_out_expanded"}


def test_the_reference_covers_every_recorded_case():
    assert set(CASES) == set(ref.OVERLAP_CASES)


@pytest.mark.parametrize("name", sorted(ref.OVERLAP_CASES))
def test_overlapping_write_behaves_as_pytorch(name):
    expected = CASES[name]
    got = ref.run_case(torch, ref.OVERLAP_CASES[name])
    if name in REFUSED_WHERE_PYTORCH_IS_SILENTLY_WRONG:
        assert expected["outcome"] == "ok"
        assert got["outcome"] == "error" and got["message"].startswith("unsupported operation: more than one element")
        return
    assert got["outcome"] == expected["outcome"], got
    assert got["message"] == expected["message"]
    if expected["values"] is not None:
        np.testing.assert_array_equal(np.array(got["values"]), np.array(expected["values"]))


def _written_ops():
    for name in operator_names():
        handle = find_operator(name)
        if "::" not in name and "(a!)" in handle.schema.split(" -> ")[0].replace("(b!)", "(a!)"):
            yield name, handle


def test_every_aten_write_is_checked_unless_it_only_changes_geometry_or_fills():
    """The one place: each writing operator's CPU and CUDA kernels sit behind the check."""
    exempt = {"fill_.Scalar", "zero_"}
    unchecked = []
    for name, handle in _written_ops():
        if name in exempt or "inplace_view" in _tags(name):
            continue
        for key in (DispatchKey.CPU, DispatchKey.CUDA):
            if handle.has_kernel(key) or handle.has_kernel(DispatchKey.CompositeExplicitAutograd) \
                    or handle.has_kernel(DispatchKey.CompositeImplicitAutograd):
                kernel = handle.kernel_for(1 << int(key))
                if not isinstance(kernel, CheckedWrite):
                    unchecked.append((name, key.name))
    assert unchecked == []
    assert len(list(_written_ops())) > 300


def _tags(name):
    return _schema_tags().get(name, [])


@functools.lru_cache(maxsize=None)
def _schema_tags():
    """Each operator's tags in aten/native/native_functions.yaml."""
    import yaml
    entries = yaml.safe_load((Path(torch.__file__).resolve().parent.parent / "aten" / "native"
                              / "native_functions.yaml").read_text())
    found = {}
    for e in entries:
        tags = e.get("tags") or []
        found[e["func"].split("(", 1)[0]] = [tags] if isinstance(tags, str) else tags
    return found


def test_in_place_view_ops_change_only_geometry_of_an_expanded_tensor():
    x = torch.zeros(1, 3).expand(2, 3)
    assert x.t_().shape == (3, 2)
    y = torch.zeros(1).expand(4)
    y.resize_(2)
    assert y.shape == (2,)


def test_a_write_to_a_dense_permuted_or_sliced_tensor_is_allowed():
    x = torch.arange(6.0).reshape(2, 3).t()
    x.add_(1)
    np.testing.assert_array_equal(x.numpy(), np.arange(1.0, 7.0).reshape(2, 3).T)
    y = torch.arange(10.0)[::2]
    y.mul_(2)
    np.testing.assert_array_equal(y.numpy(), np.arange(0.0, 20.0, 4.0))


def test_overlap_too_hard_to_decide_is_let_through_as_pytorch():
    base = torch.arange(6.0)
    window = base.as_strided((2, 3), (1, 1))        # overlapping rows, no zero stride
    assert internal_overlap(window) == "too_hard"
    assert internal_overlap(torch.zeros(1).expand(3)) == "yes"
    assert internal_overlap(torch.zeros(2, 3).t()) == "no"
    window.zero_()


def test_the_check_runs_under_autograd_and_for_keyword_out():
    history = torch.ones(1, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        history.expand(3).add_(1)
    target = torch.zeros(1).expand(3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        torch.ops.aten.add.out(torch.ones(3), torch.ones(3), out=target)


def test_a_refused_write_leaves_the_target_unchanged():
    base = torch.arange(3.0)
    target = base[:1].expand(3)
    with pytest.raises(RuntimeError):
        target.add_(torch.tensor([10.0, 20.0, 30.0]))
    assert base.tolist() == [0.0, 1.0, 2.0]
    assert base._version == 0


def test_warned_writes_name_the_op_once_per_call():
    x = torch.zeros(1).expand(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x.masked_fill_(torch.tensor([True, False, False]), 2.0)
    assert [str(w.message).split(".")[0] for w in caught] == ["Use of masked_fill_ on expanded tensors is deprecated"]
    assert x.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA (or the emulator)")
@pytest.mark.parametrize("write", [
    lambda x: x.add_(1), lambda x: x.mul_(torch.ones(3, device="cuda")), lambda x: x.copy_(torch.ones(3)),
    lambda x: torch.add(torch.ones(3, device="cuda"), 1, out=x), lambda x: x.normal_(),
    lambda x: x.index_add_(0, torch.tensor([0], device="cuda"), torch.ones(1, device="cuda")),
    lambda x: x.scatter_(0, torch.tensor([1], device="cuda"), torch.ones(1, device="cuda")),
], ids=["add_", "mul_", "copy_", "add_out", "normal_", "index_add_", "scatter_"])
def test_cuda_writes_into_expanded_tensors_are_refused_as_on_the_cpu(write):
    base = torch.zeros(1, device="cuda")
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        write(base.expand(3))
    assert base.cpu().tolist() == [0.0]
    x = torch.arange(6.0, device="cuda")
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        torch.clamp(x[:3], 0, 1, out=x[1:4])
