"""GradScaler and its two operators: a small training loop under autocast("cpu") with an injected inf
gradient follows PyTorch 2.13's recorded loss, scale and growth-tracker trajectory
(tools/record_autocast_reference.py); the operators against NumPy on the CPU and, under `-m cuda`, on
CUDA; the scaler's stage rules, state_dict and pass-through when disabled."""
import json
import pickle
import warnings
from pathlib import Path

import numpy as np
import pytest

import torch
from tools.record_autocast_reference import training

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "autocast" / "autocast.json").read_text())
DEVICES = ["cpu", pytest.param("cuda", marks=[
    pytest.mark.cuda, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")])]


def test_training_under_autocast_and_grad_scaler_follows_pytorch():
    *record, final = training(torch)
    expected, weights = REFERENCE["training"][:-1], REFERENCE["training"][-1]
    for step, (ours, theirs) in enumerate(zip(record, expected)):
        assert (ours["scale"], ours["growth_tracker"], ours["loss_dtype"]) == \
            (theirs["scale"], theirs["growth_tracker"], theirs["loss_dtype"]), step
        assert ours["loss"] == pytest.approx(theirs["loss"], rel=1e-6), step
    assert record[3]["loss"] == record[4]["loss"]       # the step with the inf gradient was skipped
    np.testing.assert_allclose(final["w1"], weights["w1"], rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(final["w2"], weights["w2"], rtol=1e-6, atol=1e-8)


@pytest.mark.cuda
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU and PyCUDA")
def test_the_same_loop_on_cuda_in_float16_keeps_pytorchs_scale_trajectory_and_close_losses():
    *record, final = training(torch, "cuda")
    expected = REFERENCE["training"][:-1]
    assert [(r["scale"], r["growth_tracker"]) for r in record] == [(e["scale"], e["growth_tracker"]) for e in expected]
    np.testing.assert_allclose([r["loss"] for r in record], [e["loss"] for e in expected], rtol=2e-2)
    np.testing.assert_allclose(final["w1"], REFERENCE["training"][-1]["w1"], rtol=2e-2, atol=2e-3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64])
def test_unscale_multiplies_in_place_and_flags_non_finite_values(device, dtype):
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(n).astype(np.float32) * 100 for n in (5, 17)]
    grads = [torch.from_numpy(v.copy()).to(device=device, dtype=dtype) for v in values]
    found_inf = torch.zeros((), device=device)
    inv_scale = torch.full((), 2.0 ** -7, device=device)
    torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale)
    for g, v in zip(grads, values):
        expected = torch.from_numpy(v).to(dtype).double().numpy() * 2.0 ** -7
        np.testing.assert_array_equal(g.double().cpu().numpy(), torch.from_numpy(expected).to(dtype).double().numpy())
    assert found_inf.item() == 0.0
    grads[1][3] = float("nan")
    torch._amp_foreach_non_finite_check_and_unscale_(grads, found_inf, inv_scale)
    assert found_inf.item() == 1.0


@pytest.mark.parametrize("device", DEVICES)
def test_update_scale_backs_off_grows_and_never_overflows(device):
    scale = torch.full((), 1024.0, device=device)
    tracker = torch.zeros((), dtype=torch.int32, device=device)
    clean, found = torch.zeros((), device=device), torch.ones((), device=device)
    steps = [(clean, 1024.0, 1), (clean, 2048.0, 0), (found, 1024.0, 0), (torch.full((), float("nan"), device=device),
             512.0, 0), (clean, 512.0, 1), (clean, 1024.0, 0)]
    for found_inf, expected_scale, expected_tracker in steps:
        torch._amp_update_scale_(scale, tracker, found_inf, 2.0, 0.5, 2)
        assert (scale.item(), tracker.item()) == (expected_scale, expected_tracker)
    big = torch.full((), float(np.finfo(np.float32).max) / 1.5, device=device)
    tracker.fill_(1)
    torch._amp_update_scale_(big, tracker, clean, 2.0, 0.5, 2)
    assert big.item() == pytest.approx(float(np.finfo(np.float32).max) / 1.5) and tracker.item() == 0


def test_operators_check_their_arguments_as_pytorch():
    g = [torch.ones(3)]
    with pytest.raises(RuntimeError, match="found_inf must be a float tensor."):
        torch._amp_foreach_non_finite_check_and_unscale_(g, torch.zeros((), dtype=torch.float64), torch.ones(()))
    with pytest.raises(RuntimeError, match="inv_scale must be a 1-element tensor."):
        torch._amp_foreach_non_finite_check_and_unscale_(g, torch.zeros(()), torch.ones(2))
    with pytest.raises(RuntimeError, match="growth_tracker must be an int tensor."):
        torch._amp_update_scale_(torch.ones(()), torch.zeros(()), torch.zeros(()), 2.0, 0.5, 2)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        torch._amp_foreach_non_finite_check_and_unscale_([torch.ones(2, dtype=torch.int64)], torch.zeros(()),
                                                         torch.ones(()))


def _model_and_optimizer():
    model = torch.nn.Linear(3, 2)
    return model, torch.optim.SGD(model.parameters(), lr=0.1)


def test_step_skips_the_optimizer_on_inf_and_stages_are_enforced():
    model, opt = _model_and_optimizer()
    scaler = torch.amp.GradScaler("cpu")
    before = model.weight.detach().clone()
    scaler.scale(model(torch.ones(1, 3)).sum()).backward()
    model.weight.grad[0, 0] = float("inf")
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    assert scaler.step(opt) is None
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update()
    assert torch.equal(model.weight.detach(), before)
    assert scaler.get_scale() == 2.0 ** 15
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: 0)


def test_unscaled_gradients_are_the_true_gradients():
    model, opt = _model_and_optimizer()
    x = torch.randn(4, 3)
    model(x).sum().backward()
    true_grad = model.weight.grad.clone()
    opt.zero_grad()
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8)
    scaler.scale(model(x).sum()).backward()
    scaler.unscale_(opt)
    np.testing.assert_allclose(model.weight.grad.numpy(), true_grad.numpy(), rtol=1e-6)


def test_scale_handles_nested_outputs_and_a_disabled_scaler_passes_through():
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
    a, b = torch.ones(2), torch.full((2,), 3.0)
    scaled = scaler.scale([a, (b,)])
    assert scaled[0].tolist() == [4.0, 4.0] and scaled[1][0].tolist() == [12.0, 12.0]
    off = torch.amp.GradScaler("cpu", enabled=False)
    assert off.scale(a) is a and off.get_scale() == 1.0 and off.state_dict() == {}
    model, opt = _model_and_optimizer()
    model(torch.ones(1, 3)).sum().backward()
    off.step(opt)
    off.update()


def test_state_dict_round_trips_and_pickles_between_iterations():
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 5, growth_interval=7)
    scaler.scale(torch.ones(()))
    state = scaler.state_dict()
    assert state == {"scale": 32.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 7,
                     "_growth_tracker": 0}
    other = torch.amp.GradScaler("cpu")
    other.load_state_dict(state)
    assert other.get_scale() == 32.0 and other.get_growth_interval() == 7
    assert pickle.loads(pickle.dumps(scaler)).get_scale() == 32.0
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        other.load_state_dict({})


def test_old_spellings_warn_and_factors_are_checked():
    with pytest.warns(FutureWarning, match=r"`torch.cpu.amp.GradScaler\(args...\)` is deprecated"):
        scaler = torch.cpu.amp.GradScaler(init_scale=8.0)
    assert isinstance(scaler, torch.amp.GradScaler) and scaler.get_scale() == 8.0
    with pytest.raises(AssertionError, match="The growth factor must be > 1.0."):
        torch.amp.GradScaler("cpu", growth_factor=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.cuda.amp.GradScaler.__module__ == "torch.cuda.amp"
    assert torch.GradScaler is torch.amp.GradScaler
