"""Autocast against PyTorch 2.13's recorded behaviour (tools/record_autocast_reference.py wrote
test/data/autocast/autocast.json): which operators each device's Autocast key covers, and for every
one Ember defines, the output dtypes for low-precision, float32, mixed and float64 inputs; CUDA's
run under `-m cuda`. Then the context manager's own rules: nesting, enabled=False, the decorator,
the per-thread state, the weight-cast cache and the old spellings."""
import json
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import torch
from aten import autocast_mode
from aten.dispatcher import find_operator, has_operator, operator_names
from c10.dispatch_key import DispatchKey
import tools.record_autocast_reference as record
from tools.record_autocast_reference import entry_points

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "autocast" / "autocast.json").read_text())
CUDA = [pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")]


def run_case(case, variant):
    """The recorded case on Ember, under autocast on its device: output dtypes, or the error type."""
    device = case["device"]
    return record.run_case(torch, case["op"], case["args"], case["kwargs"], device, variant,
                           lambda: torch.autocast(device))


def cases(device):
    marks = CUDA if device == "cuda" else []
    return [pytest.param(c, id=c["op"], marks=marks) for c in REFERENCE["cases"] if c["device"] == device
            and has_operator(c["op"].split("#")[0])]


def _ops_with_autocast_kernel(key):
    return {n for n in operator_names() if "::" not in n and find_operator(n).has_kernel(DispatchKey[key])}


@pytest.mark.parametrize("key", ["AutocastCPU", "AutocastCUDA"])
def test_each_device_casts_exactly_the_operators_pytorch_lists(key):
    listed = {name for name in REFERENCE["lists"][key] if has_operator(name)}
    ours = _ops_with_autocast_kernel(key)
    assert ours == listed, sorted(ours ^ listed)


def test_every_listed_operator_ember_defines_has_a_recorded_case():
    covered = {(c["op"].split("#")[0], c["device"]) for c in REFERENCE["cases"]}
    for key, device in (("AutocastCPU", "cpu"), ("AutocastCUDA", "cuda")):
        missing = {n for n in REFERENCE["lists"][key] if has_operator(n)} - {op for op, d in covered if d == device}
        assert not missing, f"{device}: no case records {sorted(missing)}"


@pytest.mark.parametrize("case", cases("cpu"))
def test_cpu_output_dtypes_match_pytorch(case):
    for variant, expected in case["results"].items():
        assert run_case(case, variant) == expected, variant


def _has_kernel(op, device):
    try:
        find_operator(op).kernel_for(1 << int(DispatchKey.CUDA if device == "cuda" else DispatchKey.CPU))
    except NotImplementedError:
        return False
    return True


@pytest.mark.parametrize("case", cases("cuda"))
def test_cuda_output_dtypes_match_pytorch(case):
    if not _has_kernel(case["op"].split("#")[0], "cuda"):
        pytest.skip(f"Ember has no CUDA kernel for {case['op']} yet")
    recorded = {variant: expected for variant, expected in case["results"].items() if "unrecorded" not in expected}
    if not recorded:
        pytest.skip(f"a CPU build of PyTorch could not record {case['op']} on fake CUDA tensors")
    for variant, expected in recorded.items():
        assert run_case(case, variant) == expected, variant


# Where Ember knowingly differs: its CPU einsum is one kernel, not upstream's composite whose bmm
# autocast computes in bfloat16.
KNOWN_ENTRY_POINTS = {"torch.einsum"}


def test_public_entry_points_reach_the_listed_operators_as_pytorchs_do():
    with torch.autocast("cpu"):
        got = {name: {"dtypes": [str(fn().dtype).removeprefix("torch.")]} for name, fn in entry_points(torch).items()}
    differing = {name for name, expected in REFERENCE["entry_points"].items() if got[name] != expected}
    assert differing == KNOWN_ENTRY_POINTS, {name: got[name] for name in differing}


def test_ops_outside_the_lists_run_in_their_inputs_dtype():
    a = torch.randn(4, 4)
    with torch.autocast("cpu"):
        assert torch.relu(a).dtype == torch.float32
        assert torch.exp(a.bfloat16()).dtype == torch.bfloat16      # fp32 on CUDA only
        assert (a + a.bfloat16()).dtype == torch.float32              # ordinary promotion


def test_autocast_casts_before_autograd_so_gradients_reach_float32_leaves():
    w = torch.randn(5, 4, requires_grad=True)
    x = torch.randn(3, 4)
    with torch.autocast("cpu"):
        y = torch.nn.functional.linear(x, w)
    assert y.dtype == torch.bfloat16
    y.float().sum().backward()
    assert w.grad.dtype == torch.float32
    expected = np.ones((3, 5), np.float32).T @ x.bfloat16().float().numpy()
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-2)


def test_disabled_region_inside_an_enabled_one_runs_in_float32_and_restores_the_state():
    a = torch.randn(3, 3)
    with torch.autocast("cpu"):
        with torch.autocast("cpu", enabled=False):
            assert torch.mm(a, a).dtype == torch.float32
            assert not torch.is_autocast_enabled("cpu")
        assert torch.mm(a, a).dtype == torch.bfloat16
        assert torch.is_autocast_enabled("cpu")
    assert not torch.is_autocast_enabled("cpu")


def test_dtype_argument_and_nesting_restore_the_outer_dtype():
    a = torch.randn(3, 3)
    with torch.autocast("cpu", dtype=torch.float16):
        assert torch.mm(a, a).dtype == torch.float16
        with torch.autocast("cpu"):
            assert torch.get_autocast_dtype("cpu") == torch.float16    # None keeps the current dtype
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert torch.mm(a, a).dtype == torch.bfloat16
        assert torch.get_autocast_dtype("cpu") == torch.float16
    assert torch.get_autocast_dtype("cpu") == torch.bfloat16


def test_autocast_works_as_a_decorator():
    @torch.autocast("cpu")
    def product(a):
        return torch.mm(a, a)

    assert product(torch.randn(2, 2)).dtype == torch.bfloat16
    assert not torch.is_autocast_enabled("cpu")
    with pytest.raises(TypeError, match="requires a callable"):
        torch.autocast("cpu")(3)


def test_an_exception_inside_the_region_still_restores_the_state():
    with pytest.raises(ValueError):
        with torch.autocast("cpu"):
            raise ValueError("inside")
    assert not torch.is_autocast_enabled("cpu")


def test_the_state_is_per_thread():
    seen = []
    with torch.autocast("cpu"):
        worker = threading.Thread(target=lambda: seen.append(torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype))
        worker.start()
        worker.join()
    assert seen == [torch.float32]


def test_weight_casts_are_cached_until_the_outermost_region_exits():
    w = torch.randn(4, 4, requires_grad=True)
    x = torch.randn(2, 4)
    with torch.autocast("cpu"):
        with torch.autocast("cpu"):
            first = torch.mm(x, w)
            second = torch.mm(x, w)
            assert autocast_mode.cached_cast_count() == 1
            assert first.grad_fn.next_functions[1][0] is second.grad_fn.next_functions[1][0]
        assert autocast_mode.cached_cast_count() == 1
    assert autocast_mode.cached_cast_count() == 0
    with torch.autocast("cpu", cache_enabled=False):
        torch.mm(x, w)
        assert autocast_mode.cached_cast_count() == 0


def test_a_weight_cast_first_made_under_no_grad_still_carries_gradients():
    w = torch.randn(4, 4, requires_grad=True)
    x = torch.randn(2, 4)
    with torch.autocast("cpu"):
        with torch.no_grad():
            torch.mm(x, w)
        y = torch.mm(x, w)
    assert y.requires_grad
    y.float().sum().backward()
    assert w.grad is not None


def test_inference_mode_casts_are_not_cached():
    w = torch.randn(4, 4, requires_grad=True)
    with torch.autocast("cpu"):
        with torch.inference_mode():
            torch.mm(torch.randn(2, 4), w)
        assert autocast_mode.cached_cast_count() == 0
        y = torch.mm(torch.randn(2, 4), w)
    y.float().sum().backward()
    assert w.grad is not None


def _cpu_kernel(op_name, policy, redispatch=None, defaults=()):
    """An Autocast kernel for the CPU built as register_autocast builds CUDA's (the CUDA-only
    policies run here without a GPU)."""
    from aten.autocast_mode import AutocastKernel
    from aten.dispatcher import parameters_of
    names, kinds = parameters_of(op_name)
    return AutocastKernel(find_operator(op_name), policy, 0, find_operator("_to_copy"), names, kinds,
                          find_operator(redispatch) if redispatch else None, defaults)


def test_the_cuda_only_policies_cast_as_pytorchs():
    low = torch.randn(3, 4).bfloat16()
    with torch.autocast("cpu"):
        assert _cpu_kernel("sum", "fp32_set_opt_dtype")(low).dtype == torch.float32
        assert _cpu_kernel("sum", "fp32_set_opt_dtype")(low, dtype=torch.float64).dtype == torch.float64
        assert _cpu_kernel("sum", "fp32_set_opt_dtype")(torch.arange(3)).dtype == torch.int64
        norm = _cpu_kernel("norm.ScalarOpt_dim", "fp32_append_dtype", "norm.ScalarOpt_dim_dtype", (None, None, None, False))
        assert norm(low, 2, [1]).dtype == torch.float32 and norm(low, 2, [1]).shape == (3,)
        assert _cpu_kernel("addcmul", "promote")(low, low, torch.randn(3, 4)).dtype == torch.float32
        assert _cpu_kernel("addcmul", "promote")(low, low, low).dtype == torch.bfloat16
        assert _cpu_kernel("exp", "fp32")(low).dtype == torch.float32


def test_binary_cross_entropy_is_banned_under_cuda_autocast_with_pytorchs_advice():
    from aten.autocast_mode import AutocastKernel, BANNED_MESSAGES
    kernel = AutocastKernel(find_operator("binary_cross_entropy"), "banned", 1, None, (), (), None, (),
                            BANNED_MESSAGES["binary_cross_entropy"])
    with pytest.raises(RuntimeError, match="unsafe to autocast"):
        kernel(torch.rand(3), torch.rand(3))


def test_unsupported_dtypes_and_devices_are_refused_as_pytorch_does():
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported"):
        region = torch.autocast("cpu", dtype=torch.float32)
    with region:
        assert not torch.is_autocast_enabled("cpu")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        torch.autocast(torch.device("cpu"))
    with pytest.raises(RuntimeError, match="unsupported scalarType"):
        torch.autocast("meta")
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'xla'"):
        torch.autocast("xla")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        torch.is_autocast_enabled("nonsense")
    with pytest.raises(TypeError, match="must be str, not device"):
        torch.is_autocast_enabled(torch.device("cpu"))


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the machine without CUDA")
def test_cuda_autocast_without_cuda_warns_and_disables_itself():
    with pytest.warns(UserWarning, match="CUDA is not available"):
        region = torch.autocast("cuda")
    with region:
        assert not torch.is_autocast_enabled("cuda")


def test_state_functions_and_old_spellings():
    assert torch.amp.is_autocast_available("cpu") and not torch.amp.is_autocast_available("meta")
    assert torch.get_autocast_dtype("cuda") == torch.float16
    assert torch.autocast_increment_nesting() == 1 and torch.autocast_decrement_nesting() == 0
    with pytest.warns(DeprecationWarning, match=r"torch.get_autocast_cpu_dtype\(\) is deprecated"):
        assert torch.get_autocast_cpu_dtype() == torch.bfloat16
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.autocast\(args...\)` is deprecated"):
        region = torch.cpu.amp.autocast()
    with region:
        assert torch.mm(torch.ones(2, 2), torch.ones(2, 2)).dtype == torch.bfloat16
    assert isinstance(region, torch.amp.autocast)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.cuda.amp.autocast.__module__ == "torch.cuda.amp"
    assert torch.autocast is torch.amp.autocast


def test_custom_fwd_casts_inputs_and_custom_bwd_replays_the_forward_state():
    class Square(torch.autograd.Function):
        @staticmethod
        @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.enabled_inside = torch.is_autocast_enabled("cpu")
            return x * x

        @staticmethod
        @torch.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = torch.randn(3).bfloat16().requires_grad_()
    with torch.autocast("cpu"):
        y = Square.apply(x)
    assert y.dtype == torch.float32
    y.sum().backward()
    assert x.grad.dtype == torch.bfloat16
