"""The operator test database (test/opinfo) through torch.compile: each op's first samples compiled alone by the
inductor backend, and chained into pointwise operations with gradients through AOT autograd (aot_eager), give
eager's results and eager's gradients. Random ops are seeded alike for both."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import torch
from opinfo import all_ops
from opinfo.core import OpInfo, to_torch
from torch.utils._pytree import tree_flatten, tree_map

OPS = all_ops()
SAMPLES = 2


def _dtype(op: OpInfo) -> torch.dtype:
    return torch.float32 if torch.float32 in op.dtypes else op.dtypes[0]


def _call(op: OpInfo, sample: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Fresh tensors for a sample (an in-place op writes into its own)."""
    return to_torch(sample.args), {k: to_torch(v) for k, v in sample.kwargs.items()}


def _close(got: Any, want: Any, op: OpInfo) -> None:
    got_leaves, got_spec = tree_flatten(got)
    want_leaves, want_spec = tree_flatten(want)
    assert got_spec == want_spec, f"{op.id}: {got_spec} != {want_spec}"
    for g, w in zip(got_leaves, want_leaves):
        if isinstance(w, torch.Tensor):
            assert isinstance(g, torch.Tensor) and (g.dtype, g.shape) == (w.dtype, w.shape), f"{op.id}: {g} != {w}"
            rtol, atol = op.tolerance(np.dtype(np.float32))
            wide = (torch.float16, torch.bfloat16)
            np.testing.assert_allclose((g.float() if g.dtype in wide else g).detach().numpy(),
                                       (w.float() if w.dtype in wide else w).detach().numpy(),
                                       rtol=max(rtol, 2e-6), atol=max(atol, 1e-6), equal_nan=True, err_msg=op.id)
        else:
            assert g == w or (g != g and w != w), f"{op.id}: {g!r} != {w!r}"


def _samples(op: OpInfo) -> list[Any]:
    return list(op.sample_inputs(_dtype(op), np.random.default_rng(0)))[:SAMPLES]


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.id)
def test_each_op_compiled_alone_matches_eager(op: OpInfo) -> None:
    fn = op.function()
    for sample in _samples(op):
        args, kwargs = _call(op, sample)
        torch.manual_seed(0)
        try:
            want = fn(*args, **kwargs)
        except Exception:           # a sample of the op's errors: test_opinfo checks those
            continue
        compiled = torch.compile(lambda *a, **k: fn(*a, **k))
        for _ in range(2):          # the capture, then the replay
            args, kwargs = _call(op, sample)
            torch.manual_seed(0)
            got = compiled(*args, **kwargs)
        _close(got, want, op)


def _floating(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.dtype.is_floating_point


@pytest.mark.parametrize("op", [op for op in OPS if torch.float32 in op.dtypes], ids=lambda op: op.id)
def test_each_op_in_a_chain_gives_eagers_values_and_gradients_through_aot_autograd(op: OpInfo) -> None:
    fn = op.function()

    def chain(*args: Any, **kwargs: Any) -> Any:
        return tree_map(lambda t: t * 1.5 + 0.25 if _floating(t) else t, fn(*args, **kwargs))

    def run(f: Any, sample: Any) -> tuple[Any, list[Any]]:
        args, kwargs = _call(op, sample)
        inputs = [t.requires_grad_() for t in tree_flatten((args, kwargs))[0] if _floating(t) and t.is_leaf]
        torch.manual_seed(0)
        out = f(*args, **kwargs)
        roots = [t.sum() for t in tree_flatten(out)[0] if _floating(t) and t.requires_grad]
        grads = list(torch.autograd.grad(sum(roots), inputs, allow_unused=True)) if roots and inputs else []
        return out, grads

    compiled = torch.compile(chain, backend="aot_eager")
    for sample in _samples(op):
        try:
            want, want_grads = run(chain, sample)
        except Exception:
            continue
        run(compiled, sample)
        got, got_grads = run(compiled, sample)
        _close(got, want, op)
        _close(got_grads, want_grads, op)
