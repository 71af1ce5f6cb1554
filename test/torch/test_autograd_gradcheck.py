"""gradcheck and gradgradcheck for every differentiable op of the operator test database.

Each OpInfo entry with float64 samples that differentiates (every one not listed as known missing
or not differentiable in test_autograd_coverage.py) is checked in float64 against finite
differences, with respect to every floating tensor argument PyTorch differentiates (NONDIFF_ARGS
lists the others: running statistics, class weights...):
  - gradcheck on its first usable samples, plus its first broadcasting one when those do not
    broadcast, contiguous and as non-contiguous copies (to_torch(..., noncontiguous=True));
  - gradcheck of its in-place variant (on a clone) when the entry declares one, also with a
    self that does not require grad;
  - gradgradcheck on its smallest chosen sample;
  - for several outputs, one backward from all of them against one per output.
A usable sample runs, gives a float64 (or complex128: the FFTs) result that requires grad, and has finite inputs of at
most MAX_NUMEL elements each (finite differences cost two calls per element). Samples sitting on
a kink, a tie or outside a domain are moved off it per op (SANITIZE), never by loosening
tolerances. Ops whose results never require grad in PyTorch (comparisons, argmax, random
integers...) are checked for exactly that instead."""
from __future__ import annotations

import importlib.util
import os
import pathlib
from typing import Any, Callable, Iterator

import numpy as np
import pytest

import torch
from opinfo import all_ops
from opinfo.core import OpInfo, SampleInput, to_torch
from torch.autograd import gradcheck, gradgradcheck

Path = tuple[Any, ...]


def _coverage_lists() -> tuple[set[str], set[str]]:
    """KNOWN_MISSING and NOT_DIFFERENTIABLE of test_autograd_coverage.py (kept in one place; test
    modules are not importable by name under pytest's importlib mode)."""
    spec = importlib.util.spec_from_file_location(
        "_autograd_coverage_lists", pathlib.Path(__file__).with_name("test_autograd_coverage.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.KNOWN_MISSING, module.NOT_DIFFERENTIABLE


KNOWN_MISSING, NOT_DIFFERENTIABLE = _coverage_lists()

# Floating arguments (positions in args) left constant, as PyTorch does not differentiate them: it
# raises "not differentiable with respect to argument ..." or the result does not depend on them.
NONDIFF_ARGS: dict[str, set[int]] = {
    "native_batch_norm": {3, 4}, "batch_norm": {3, 4},             # running_mean, running_var
    "nll_loss": {2}, "nll_loss_nd": {2}, "nll_loss2d": {2},         # class weights
    "cross_entropy_loss": {2},
    "binary_cross_entropy": {2},                                    # weight
    "binary_cross_entropy_with_logits": {2, 3},                     # weight, pos_weight
    "view_as": {1}, "reshape_as": {1}, "expand_as": {1}, "type_as": {1},   # only its shape/dtype is read
    # PyTorch has no heaviside formula at all; Ember's composite differentiates `values`
    # (an indicator of input == 0); w.r.t. input it is a step: zero derivative, none at 0.
    "heaviside": {0},
}

# Outputs (indices) checked where PyTorch's formula reads only some output gradients: the
# others' gradients are dropped there too (native_layer_norm's mean and rstd...).
CHECKED_OUTPUTS: dict[str, tuple[int, ...]] = {
    "native_layer_norm": (0,),       # upstream formula: native_layer_norm_backward(grad, ...)
    "native_batch_norm": (0,),       # upstream formula: native_batch_norm_backward(grad, ...)
}

# Ops whose results never require grad in PyTorch (checked against the reference torch).
NO_GRAD_OPS = {
    "not_equal", "greater_equal", "less_equal", "greater", "less", "greater_scalar", "less_equal_scalar",
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not",
    "signbit", "isnan", "isinf", "isfinite", "isposinf", "isneginf",
    "zeros_like", "ones_like", "full_like", "arange", "linspace", "logspace", "eye", "scalar_tensor",
    "fft.fftfreq", "fft.rfftfreq",
    "nonzero", "argwhere", "argmax", "argmin", "argsort", "all", "any", "count_nonzero",
    "searchsorted", "bucketize", "histc", "multinomial", "randint", "randperm", "normal_float_float",
}

# Random draws whose gradient PyTorch defines as zero (upstream's formula: zeros), not the
# derivative of the sample drawn: checked to be exactly zero instead of by finite differences.
ZERO_GRAD_OPS = {"normal_Tensor_float", "normal_float_Tensor", "normal_Tensor_Tensor"}

# Expected failures (strict: an op that passes must leave the list), with the reason.
XFAIL: dict[str, str] = {}
XFAIL_GRADGRAD: dict[str, str] = {}

# Ops whose samples are all about NaN and inf (their gradient there is zero, finite differences agree).
NAN_OPS = {"nansum", "nanmean", "nan_to_num"}

# Ops that read one triangle of a symmetric input (Cholesky, eigh): their gradient is the symmetric one,
# so the check runs them on A + A^T, as PyTorch's gradcheck_wrapper_hermitian_input does.
SYMMETRIC_INPUT_OPS = {"linalg.cholesky", "linalg.eigvalsh"}

# Random ops: each call is seeded alike.
RANDOM_OPS = {"bernoulli", "dropout", "native_dropout"}

# Budget (the module runs in CI: ~20 s on one core). EMBER_GRADCHECK_SAMPLES/_NUMEL raise it and
# EMBER_GRADGRADCHECK_ALL=1 gradgradchecks every chosen sample, for a thorough run by hand.
MAX_SAMPLES = int(os.environ.get("EMBER_GRADCHECK_SAMPLES", 8))             # usable samples per op
MAX_NUMEL = int(os.environ.get("EMBER_GRADCHECK_NUMEL", 256))              # per differentiable input


# --- moving samples off kinks, ties and domain edges (numpy level) --------------------------

def _floats(sample: SampleInput, fn: Callable[[np.ndarray, int], np.ndarray], positions: tuple[int, ...] | None = None
            ) -> SampleInput:
    args = tuple(fn(a, i) if isinstance(a, np.ndarray) and a.dtype.kind == "f" and (positions is None or i in positions)
                 else a for i, a in enumerate(sample.args))
    return SampleInput(args, dict(sample.kwargs), sample.name)


def _clip_args(low: float, high: float, positions: tuple[int, ...] = (0,)) -> Callable[[SampleInput], SampleInput]:
    return lambda s: _floats(s, lambda a, i: np.clip(a, low, high), positions)


def _positive(positions: tuple[int, ...] = (0,)) -> Callable[[SampleInput], SampleInput]:
    return lambda s: _floats(s, lambda a, i: np.abs(a) + 0.5, positions)


def _unique_scatter_index(s: SampleInput) -> SampleInput | None:
    """scatter without reduce: duplicate targets along dim keep one src value (which one is
    unspecified), so only distinct targets have a derivative; each slice gets distinct ones."""
    a, dim, index = s.args[0], s.args[1], s.args[2]
    if not index.size or index.ndim == 0:
        return s
    dim = dim % index.ndim
    if index.shape[dim] > a.shape[dim]:
        return None                # more sources than targets in a slice: duplicates for sure
    keys = np.random.default_rng(1).random(index.shape[:dim] + (a.shape[dim],) + index.shape[dim + 1:])
    unique = np.argsort(keys, axis=dim).take(range(index.shape[dim]), axis=dim)
    return SampleInput(s.args[:2] + (unique.astype(index.dtype),) + s.args[3:], dict(s.kwargs), s.name)


def _unique_put_index(s: SampleInput) -> SampleInput:
    """put without accumulate: distinct flat targets (the database's [0, 11, -1] on 12 elements
    writes one element twice)."""
    if s.kwargs.get("accumulate"):
        return s
    a, index = s.args[0], s.args[1]
    unique = np.random.default_rng(1).permutation(max(a.size, 1))[:index.size].reshape(index.shape)
    return SampleInput((a, unique.astype(index.dtype)) + s.args[2:], dict(s.kwargs), s.name)


def _untie(s: SampleInput) -> SampleInput:
    """Distinct values: max.dim and min.dim send a tie's gradient to the one index they return
    (PyTorch's rule), where finite differences see half a step on each tied value."""
    return _floats(s, lambda a, i: a + np.random.default_rng(i).permutation(a.size).reshape(a.shape) * 1e-3)


def _mse_same_shape_for_mean(s: SampleInput) -> SampleInput | None:
    """PyTorch's mse_loss gradient w.r.t. a broadcast target under reduction='mean' is scaled by
    the broadcast factor (it fails gradcheck in PyTorch too): Ember matches PyTorch, so those
    samples are not finite-difference checked."""
    return None if s.args[0].shape != s.args[1].shape and s.args[2] == 1 else s


def _q_inside(s: SampleInput) -> SampleInput:
    """quantile's q off 0 and 1: a finite-difference step past them is a range error, not a value."""
    q = s.args[1]
    if isinstance(q, np.ndarray):
        return SampleInput((s.args[0], np.clip(q, 0.05, 0.95)) + s.args[2:], dict(s.kwargs), s.name)
    return s


SANITIZE: dict[str, Callable[[SampleInput], SampleInput | None]] = {
    "quantile": _q_inside,
    "quantile_nan": _q_inside,
    "nanquantile": _q_inside,
    "nanquantile_no_nan": _q_inside,
    "max_dim": _untie,
    "min_dim": _untie,
    "mse_loss": _mse_same_shape_for_mean,
    "scatter": _unique_scatter_index,
    "put": _unique_put_index,
    "binary_cross_entropy": _clip_args(0.05, 0.95),     # log(input), log(1 - input): keep off 0 and 1
    "pow": _positive(),                                 # a negative base with a fractional exponent is NaN
    "bernoulli": _clip_args(0.05, 0.95),                # probabilities: finite differences stay in [0, 1]
}


# --- calling an op on differentiable leaves ---------------------------------------------------

def _leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    if isinstance(value, torch.Tensor):
        yield path, value
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, path + (i,))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, path + (k,))


def _replace(value: Any, path: Path, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: _replace(v, rest, new) if k == head else v for k, v in value.items()}
    items = [_replace(v, rest, new) if i == head else v for i, v in enumerate(value)]
    return tuple(items) if isinstance(value, tuple) else items


def _select(result: Any, op: OpInfo) -> Any:
    outputs = [t for _, t in _leaves(result)]
    if op.id in CHECKED_OUTPUTS:
        return tuple(outputs[i] for i in CHECKED_OUTPUTS[op.id])
    return tuple(outputs)


def _call(op: OpInfo, sample: SampleInput, noncontiguous: bool = False, inplace: bool = False
          ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """(fn, inputs) for gradcheck: fn(*inputs) calls the op with the sample's differentiable
    tensors replaced by inputs (on a clone of the first one for in-place calls)."""
    call = {"args": to_torch(sample.args, noncontiguous),
            "kwargs": {k: to_torch(v, noncontiguous) for k, v in sample.kwargs.items()}}
    skip = NONDIFF_ARGS.get(op.id, set())
    paths = [p for p, t in _leaves(call)
             if t.dtype.is_floating_point and not (p[0] == "args" and p[1] in skip)]
    leaves = dict(_leaves(call))
    inputs = tuple(leaves[p].requires_grad_() for p in paths)
    function: Callable[..., Any] = op.function()
    if inplace:
        name = op.inplace
        assert name is not None
        variant = (lambda self, *a, **k: getattr(self, name)(*a, **k)) if hasattr(torch.Tensor, name) \
            else getattr(torch, name)                # torch.selu_: no Tensor method in PyTorch either
        function = lambda self, *args, **kwargs: variant(self.clone(), *args, **kwargs)  # noqa: E731
    elif op.name.endswith("_"):                      # an in-place op of its own (zero_)
        base = function
        function = lambda self, *args, **kwargs: base(self.clone(), *args, **kwargs)  # noqa: E731

    def fn(*tensors: Any) -> Any:
        if op.name in RANDOM_OPS:
            torch.manual_seed(0)       # the same draw at every call, for finite differences
        c = call
        for p, t in zip(paths, tensors):
            c = _replace(c, p, t + t.mT if op.id in SYMMETRIC_INPUT_OPS else t)
        return _select(function(*c["args"], **c["kwargs"]), op)
    return fn, inputs


def _usable(op: OpInfo, sample: SampleInput, max_numel: int = MAX_NUMEL) -> bool:
    fn, inputs = _call(op, sample)
    if not inputs or any(t.numel() > max_numel for t in inputs) or all(t.numel() == 0 for t in inputs):
        return False
    if op.id not in NAN_OPS and not all(bool(torch.isfinite(t).all()) for t in inputs):
        return False               # NaN and inf samples: no derivative to compare
    try:
        result = fn(*inputs)
    except Exception:
        return False               # samples that check errors
    outputs = [t for _, t in _leaves(result) if t.dtype.is_floating_point or t.dtype.is_complex]
    return (bool(outputs) and any(t.requires_grad for t in outputs)
            and all(t.dtype in (torch.float64, torch.complex128) for t in outputs)
            and all(bool(torch.isfinite(t).all()) for t in outputs))   # NaN results (nanmean of all-NaN)


def _broadcasts(sample: SampleInput) -> bool:
    shapes = {a.shape for a in sample.args if isinstance(a, np.ndarray) and a.dtype.kind == "f"}
    return len(shapes) > 1


def _samples(op: OpInfo) -> list[SampleInput]:
    """The op's first usable float64 samples, plus its first usable broadcasting one."""
    sanitize = SANITIZE.get(op.id, lambda s: s)
    samples = [s for s in map(sanitize, op.sample_inputs(torch.float64, np.random.default_rng(0))) if s is not None]
    chosen: list[SampleInput] = []
    for sample in samples:
        if len(chosen) >= MAX_SAMPLES and (any(_broadcasts(s) for s in chosen) or not _broadcasts(sample)):
            continue
        if _usable(op, sample):
            chosen.append(sample)
    if not chosen:                 # every sample is large (pooling, upsampling): the smallest one
        usable = [s for s in samples if _usable(op, s, max_numel=10**9)]
        chosen = sorted(usable, key=_numel)[:1]
    return chosen


def _numel(sample: SampleInput) -> int:
    return sum(a.size for a in sample.args if isinstance(a, np.ndarray))


def _params(ops: list[OpInfo], xfail: dict[str, str]) -> list[Any]:
    return [pytest.param(op, id=op.id, marks=[pytest.mark.xfail(strict=True, reason=xfail[op.id])]
                         if op.id in xfail else []) for op in ops]


OPS = [op for op in all_ops() if torch.float64 in op.dtypes]
CHECKED = [op for op in OPS if op.id not in KNOWN_MISSING | NOT_DIFFERENTIABLE | NO_GRAD_OPS | ZERO_GRAD_OPS]
_SAMPLE_CACHE: dict[str, list[SampleInput]] = {}


def _cached_samples(op: OpInfo) -> list[SampleInput]:
    if op.id not in _SAMPLE_CACHE:
        _SAMPLE_CACHE[op.id] = _samples(op)
    return _SAMPLE_CACHE[op.id]


def _joint_vjp_matches(fn: Callable[..., Any], inputs: tuple[Any, ...]) -> bool:
    """One backward from all outputs at once equals the sum of one backward per output
    (gradcheck differentiates outputs one by one; several roots on one node once got None)."""
    outputs = [t for t in fn(*inputs) if t.dtype.is_floating_point and t.requires_grad]
    if len(outputs) < 2:
        return True
    rng = np.random.default_rng(2)
    seeds = [torch.from_numpy(rng.standard_normal(tuple(t.shape))) for t in outputs]

    def dense(grads: Any) -> list[np.ndarray]:
        return [np.zeros(tuple(x.shape)) if g is None else g.numpy() for x, g in zip(inputs, grads)]
    joint = dense(torch.autograd.grad(outputs, inputs, seeds, retain_graph=True, allow_unused=True))
    separate = [dense(torch.autograd.grad(o, inputs, s, retain_graph=True, allow_unused=True))
                for o, s in zip(outputs, seeds)]
    return all(np.allclose(j, sum(parts), rtol=1e-10, atol=1e-12) for j, *parts in zip(joint, *separate))


@pytest.mark.parametrize("op", _params(CHECKED, XFAIL))
def test_gradcheck(op: OpInfo) -> None:
    samples = _cached_samples(op)
    assert samples, f"{op.id}: no usable float64 sample (one whose result requires grad)"
    for noncontiguous in (False, True):
        for sample in samples:
            fn, inputs = _call(op, sample, noncontiguous)
            assert gradcheck(fn, inputs), f"{op.id} {sample.name!r} noncontiguous={noncontiguous}"
    fn, inputs = _call(op, samples[0])
    assert _joint_vjp_matches(fn, inputs), f"{op.id} {samples[0].name!r}: backward from all outputs at once"
    if op.inplace:
        for sample in samples:
            expected = _call(op, sample)[0](*_call(op, sample)[1])
            first = sample.args[0]
            if (isinstance(first, np.ndarray) and len(expected) == 1
                    and tuple(expected[0].shape) == first.shape and expected[0].dtype == torch.float64):
                fn, inputs = _call(op, sample, inplace=True)
                assert gradcheck(fn, inputs), f"{op.inplace} {sample.name!r}"
                if len(inputs) > 1:    # self constant, the other inputs differentiable
                    constant = inputs[0].detach()
                    assert gradcheck(lambda *rest: fn(constant, *rest), inputs[1:]), f"{op.inplace} {sample.name!r}"
                break


@pytest.mark.parametrize("op", _params(CHECKED, XFAIL_GRADGRAD))
def test_gradgradcheck(op: OpInfo) -> None:
    samples = _cached_samples(op)
    assert samples, f"{op.id}: no usable float64 sample (one whose result requires grad)"
    for sample in (samples if os.environ.get("EMBER_GRADGRADCHECK_ALL") else [min(samples, key=_numel)]):
        fn, inputs = _call(op, sample)
        assert gradgradcheck(fn, inputs), f"{op.id} {sample.name!r}"


NO_GRAD = [op for op in OPS if op.id in NO_GRAD_OPS]


@pytest.mark.parametrize("op", NO_GRAD, ids=[op.id for op in NO_GRAD])
def test_result_does_not_require_grad(op: OpInfo) -> None:
    for sample in op.sample_inputs(torch.float64, np.random.default_rng(0)):
        call = {"args": to_torch(sample.args), "kwargs": {k: to_torch(v) for k, v in sample.kwargs.items()}}
        for _, t in _leaves(call):
            if t.dtype.is_floating_point:
                t.requires_grad_()
        try:
            result = op.function()(*call["args"], **call["kwargs"])
        except Exception:
            continue
        assert not [t for _, t in _leaves(result) if t.requires_grad], f"{op.id} {sample.name!r}"


ZERO_GRAD = [op for op in OPS if op.id in ZERO_GRAD_OPS]


@pytest.mark.parametrize("op", ZERO_GRAD, ids=[op.id for op in ZERO_GRAD])
def test_random_draw_gradient_is_zero_as_pytorch(op: OpInfo) -> None:
    checked = 0
    for sample in op.sample_inputs(torch.float64, np.random.default_rng(0)):
        call = {"args": to_torch(sample.args), "kwargs": {k: to_torch(v) for k, v in sample.kwargs.items()}}
        leaves = [t for _, t in _leaves(call) if t.dtype.is_floating_point]
        for t in leaves:
            t.requires_grad_()
        try:
            result = op.function()(*call["args"], **call["kwargs"])
        except Exception:
            continue
        grads = torch.autograd.grad(result.sum(), leaves, allow_unused=True, materialize_grads=True)
        assert all(not g.any() for g in grads), f"{op.id} {sample.name!r}"
        checked += 1
    assert checked


def test_edges_follow_pytorch() -> None:
    """Gradients where finite differences say nothing (NaN inputs), as PyTorch 2.13 gives them."""
    nan = float("nan")
    a = torch.tensor([nan, 2.0, 1.0, 3.0, 2.0], dtype=torch.float64, requires_grad=True)
    b = torch.tensor([2.0, nan, 2.0, 1.0, 2.0], dtype=torch.float64, requires_grad=True)
    torch.maximum(a, b).sum().backward()      # a NaN sends the gradient to both sides
    assert a.grad.tolist() == [1.0, 1.0, 0.0, 1.0, 0.5] and b.grad.tolist() == [1.0, 1.0, 1.0, 0.0, 0.5]
    x = torch.tensor([[nan, nan], [nan, 1.0]], dtype=torch.float64, requires_grad=True)
    torch.nanmean(x, 1).sum().backward()      # an all-NaN row: 0/0
    assert np.isnan(x.grad[0].numpy()).all() and x.grad[1].tolist() == [0.0, 1.0]
