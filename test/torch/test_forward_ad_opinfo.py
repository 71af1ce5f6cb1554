"""Forward-mode AD over the operator test database (test/opinfo).

- Support: every entry with float64 samples, called on its first sample with every floating tensor argument dual,
  gives PyTorch 2.13's outcome (a tangent, no tangent, or the same error type), recorded by
  tools/record_forward_ad_reference.py in test/data/forward_ad/support.json.
- Correctness: every differentiable entry PyTorch differentiates forward (the gradcheck suite's choice of samples
  and arguments, test_autograd_gradcheck.py) passes gradcheck with check_forward_ad=True and check_backward_ad=False
  (the forward-mode Jacobian against finite differences), contiguous and not, and its in-place variant too;
  and the forward and reverse modes are each other's transpose: <J u, v> = <u, J^T v> for random u and v.
"""
from __future__ import annotations

import importlib.util
import json
import pathlib
from typing import Any

import numpy as np
import pytest

import torch
import torch.autograd.forward_ad as fwAD
from opinfo import all_ops
from opinfo.core import OpInfo
from tools import record_forward_ad_reference as record
from torch.autograd import gradcheck

_RECORDED = json.loads((pathlib.Path(__file__).parents[1] / "data" / "forward_ad" / "support.json").read_text())
OUTCOMES: dict[str, str] = _RECORDED["outcomes"]
OPS = {op.id: op for op in all_ops()}


def _gradcheck_suite() -> Any:
    """test_autograd_gradcheck.py's sample choice and calls (test modules are not importable by name)."""
    spec = importlib.util.spec_from_file_location("_gradcheck_suite",
                                                  pathlib.Path(__file__).with_name("test_autograd_gradcheck.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SUITE = _gradcheck_suite()
# Entries Ember does not have under PyTorch's name, so the recorded outcome is PyTorch's missing attribute.
NOT_IN_PYTORCH = {op_id for op_id, outcome in OUTCOMES.items() if outcome.startswith("AttributeError")}
# Where Ember differentiates and PyTorch raises: Ember's op is a composite of differentiable ops.
EMBER_DIFFERENTIATES = {
    "cdist": "PyTorch's _cdist_forward kernel has no forward formula; Ember's cdist is composed of differentiable ops",
    "heaviside": "PyTorch has no heaviside derivative at all; Ember's composite differentiates `values`",
    "normal_Tensor_Tensor": "PyTorch's formula gives the draw the broadcast mean's tangent shape and refuses it",
}


def _kind(outcome: str) -> str:
    """"ok", "no tangent", or the error's type (messages differ between ops in PyTorch's own wording)."""
    return outcome.split(":")[0]


@pytest.mark.parametrize("op_id", sorted(set(OUTCOMES) - NOT_IN_PYTORCH))
def test_forward_ad_support_matches_pytorch(op_id: str) -> None:
    op = OPS[op_id]
    sample = list(op.sample_inputs(torch.float64, np.random.default_rng(0)))[0]
    ember = record.outcome(torch, op, sample)
    if op_id in EMBER_DIFFERENTIATES:
        assert ember == "ok", f"{op_id}: {ember!r}"
        return
    assert _kind(ember) == _kind(OUTCOMES[op_id]), f"{op_id}: Ember {ember!r}, PyTorch {OUTCOMES[op_id]!r}"
    if "Trying to use forward AD with" in OUTCOMES[op_id]:
        assert "Trying to use forward AD with" in ember


FORWARD = [op for op in SUITE.CHECKED if OUTCOMES.get(op.id) == "ok"]


@pytest.mark.parametrize("op", FORWARD, ids=[op.id for op in FORWARD])
def test_forward_mode_gradcheck(op: OpInfo) -> None:
    samples = SUITE._cached_samples(op)
    assert samples, f"{op.id}: no usable float64 sample"
    for noncontiguous in (False, True):
        for sample in samples:
            fn, inputs = SUITE._call(op, sample, noncontiguous)
            assert gradcheck(fn, inputs, check_forward_ad=True, check_backward_ad=False), \
                f"{op.id} {sample.name!r} noncontiguous={noncontiguous}"
    if op.inplace:
        for sample in samples:
            fn, inputs = SUITE._call(op, sample)
            expected = fn(*inputs)
            first = sample.args[0]
            if (isinstance(first, np.ndarray) and len(expected) == 1
                    and tuple(expected[0].shape) == first.shape and expected[0].dtype == torch.float64):
                fn, inputs = SUITE._call(op, sample, inplace=True)
                assert gradcheck(fn, inputs, check_forward_ad=True, check_backward_ad=False), \
                    f"{op.inplace} {sample.name!r}"
                break


@pytest.mark.parametrize("op", FORWARD, ids=[op.id for op in FORWARD])
def test_forward_and_reverse_modes_are_transposes(op: OpInfo) -> None:
    sample = min(SUITE._cached_samples(op), key=SUITE._numel)
    fn, inputs = SUITE._call(op, sample)
    rng = np.random.default_rng(3)
    u = [torch.from_numpy(np.asarray(rng.standard_normal(tuple(x.shape)))) for x in inputs]
    with fwAD.dual_level(), torch.no_grad():
        outputs = fn(*[fwAD.make_dual(x.detach(), t) for x, t in zip(inputs, u)])
        jvps = [fwAD.unpack_dual(o).tangent for o in outputs]
    outputs = [o for o in fn(*inputs)]
    v = [torch.from_numpy(np.asarray(rng.standard_normal(tuple(o.shape))
                                     + (1j * rng.standard_normal(tuple(o.shape)) if o.is_complex() else 0)))
         for o in outputs]
    pairs = [(o, w) for o, w in zip(outputs, v) if o.requires_grad]
    vjps = torch.autograd.grad([o for o, _ in pairs], inputs, [w for _, w in pairs], allow_unused=True)
    # complex outputs: reverse mode differentiates Re<v, y> (PyTorch's convention), so the pairing is Re<v, J u>
    forward = sum(float(np.real(np.sum(np.conj(w.numpy()) * j.numpy())))
                  for j, w, o in zip(jvps, v, outputs) if j is not None and o.requires_grad)
    reverse = sum(float((g * t).sum()) for g, t in zip(vjps, u) if g is not None)
    assert np.isclose(forward, reverse, rtol=1e-9, atol=1e-9), f"{op.id}: <Ju, v> = {forward}, <u, J^T v> = {reverse}"
