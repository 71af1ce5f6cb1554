"""Every op of the operator test database either differentiates or is known not to yet.

Each OpInfo entry with float64 samples is called with its floating tensor inputs requiring
grad; when the result requires grad, backward must run. An op whose backward raises "derivative
for aten::X is not implemented" must be listed in KNOWN_MISSING below, and an op listed there
that now differentiates fails the test too, so the list stays the truth. Gradient values are
checked by gradcheck in test_autograd_{formulas,pointwise,shapes,nn}.py."""
from __future__ import annotations

import re

import numpy as np
import pytest

import torch
from opinfo import all_ops
from opinfo.core import OpInfo, to_torch

# Differentiable in PyTorch, no formula in Ember yet (empty: every op of the database has one).
KNOWN_MISSING: set[str] = set()
# Not differentiable in PyTorch either: backward raises there too.
NOT_DIFFERENTIABLE = {"floor_divide", "_unique2", "unique_consecutive", "unique_dim",
                      "scatter_reduce_arg",   # scatter.reduce
                      "bernoulli_p"}          # bernoulli.p

OPS = [op for op in all_ops() if torch.float64 in op.dtypes]


def _leaves(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _leaves(v)]
    return []


def _missing_derivative(op: OpInfo) -> str | None:
    """The op's name from the first "not implemented" backward among its samples, else None."""
    for sample in op.sample_inputs(torch.float64, np.random.default_rng(0)):
        args = to_torch(sample.args)
        kwargs = {k: to_torch(v) for k, v in sample.kwargs.items()}
        # The input (the first argument) requires grad: other floating arguments (class weights,
        # running statistics) are not differentiable for every op, in PyTorch either.
        for t in _leaves(args[:1]):
            if t.dtype.is_floating_point:
                t.requires_grad_()
        try:
            result = op.function()(*args, **kwargs)
        except Exception:
            continue                  # samples that check errors
        outputs = [t for t in _leaves(result) if t.requires_grad]
        if not outputs:
            continue
        try:
            torch.autograd.backward(outputs, [torch.ones_like(t) for t in outputs])
        except RuntimeError as e:
            found = re.search(r"derivative for aten::(\S+) is not implemented", str(e))
            if found:
                return found.group(1)
            if "Ember differentiates" in str(e):        # a formula that covers part of the op's forms
                return str(e)
            raise
    return None


@pytest.mark.parametrize("op", OPS, ids=[op.id for op in OPS])
def test_op_differentiates_or_is_known_missing(op: OpInfo) -> None:
    missing = _missing_derivative(op)
    if op.id in KNOWN_MISSING or op.id in NOT_DIFFERENTIABLE:
        assert missing is not None, f"{op.id} differentiates now: remove it from KNOWN_MISSING"
    else:
        assert missing is None, f"{op.id}: derivative for aten::{missing} is not implemented (add a formula)"
