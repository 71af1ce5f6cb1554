"""Adadelta, Adamax, NAdam, RAdam, Rprop and ASGD against PyTorch 2.13's trajectories
(tools/record_optimizer_reference.py): seeded parameters and gradients, default and non-default
options (weight decay, maximize, decoupled weight decay), the state they keep, and PyTorch's argument
errors."""
import copy
import json
from pathlib import Path

import numpy as np
import pytest

import torch
from tools import record_optimizer_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "optim" / "optimizers.json")
                       .read_text())["cases"]


def _options(raw):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}


@pytest.mark.parametrize("entry", REFERENCE, ids=[f"{c['optimizer']}-{i}" for i, c in enumerate(REFERENCE)])
def test_optimizer_follows_pytorchs_trajectory(entry):
    got, want = record.run_case(torch, entry["optimizer"], _options(entry["options"])), entry["result"]
    if "error" in want:
        assert got == want
        return
    assert got["state"] == want["state"] and got["scalars"] == pytest.approx(want["scalars"], rel=1e-6)
    for step, (mine, theirs) in enumerate(zip(got["params"], want["params"])):
        for a, b in zip(mine, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7, err_msg=f"step {step}")


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"])
def test_optimizer_state_round_trips_through_state_dict(name):
    torch.manual_seed(1)
    w = torch.randn(4, requires_grad=True)
    opt = getattr(torch.optim, name)([w])
    w.grad = torch.randn(4)
    opt.step()
    clone_w = w.detach().clone().requires_grad_()
    clone = getattr(torch.optim, name)([clone_w])
    clone.load_state_dict(copy.deepcopy(opt.state_dict()))     # state_dict() holds the state's own tensors
    g = torch.randn(4)
    w.grad, clone_w.grad = g, g.clone()
    opt.step()
    clone.step()
    assert torch.equal(w, clone_w)


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")     # as PyTorch warns
@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "Rprop", "ASGD"])
def test_differentiable_step_is_the_same_step_and_carries_gradients(name):
    torch.manual_seed(2)
    start = torch.randn(5, requires_grad=True)
    grad = torch.randn(5)
    plain = start.detach().clone().requires_grad_()
    plain.grad = grad.clone()
    getattr(torch.optim, name)([plain], lr=0.1).step()
    p = start.clone()        # not a leaf: the update is recorded
    p.grad = grad.clone()
    getattr(torch.optim, name)([p], lr=0.1, differentiable=True).step()
    np.testing.assert_allclose(p.detach().numpy(), plain.detach().numpy(), rtol=1e-6, atol=1e-7)
    (derivative,) = torch.autograd.grad(p.sum(), start)
    assert derivative.shape == (5,) and torch.isfinite(derivative).all()


@pytest.mark.parametrize("name, keys", [("NAdam", ("mu_product",)), ("ASGD", ("eta", "mu"))])
def test_states_with_float_entries_from_older_releases_load(name, keys):
    w = torch.zeros(3, requires_grad=True)
    opt = getattr(torch.optim, name)([w])
    w.grad = torch.ones(3)
    opt.step()
    state = copy.deepcopy(opt.state_dict())
    for key in keys:
        state["state"][0][key] = float(state["state"][0][key])
    fresh = getattr(torch.optim, name)([w])
    fresh.load_state_dict(state)
    assert all(torch.is_tensor(fresh.state[w][key]) for key in keys)
    fresh.step()
