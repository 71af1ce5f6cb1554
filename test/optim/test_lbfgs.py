"""torch.optim.LBFGS: PyTorch 2.13's trajectories (tools/record_lbfgs_reference.py) on the Rosenbrock
function and a small network, with and without the strong-Wolfe line search, and convergence to
NumPy's solution of a quadratic."""
import json
from pathlib import Path

import numpy as np
import pytest

import torch
from tools import record_lbfgs_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "optim" / "lbfgs.json").read_text())


@pytest.mark.parametrize("entry", REFERENCE["cases"], ids=[str(i) for i in range(len(REFERENCE["cases"]))])
def test_lbfgs_follows_pytorchs_trajectory(entry):
    # the same iterations and evaluations; the values agree to float64 rounding that the Rosenbrock
    # valley amplifies over dozens of iterations (dot products summed in another order than BLAS's)
    got, want = record.run_case(torch, entry["case"]), entry["result"]
    assert (got["func_evals"], got["n_iter"]) == (want["func_evals"], want["n_iter"])
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5, atol=1e-12)
    for step, (mine, theirs) in enumerate(zip(got["params"], want["params"])):
        for a, b in zip(mine, theirs):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-9, err_msg=f"step {step}")


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_solves_a_quadratic(line_search_fn):
    rng = np.random.default_rng(0)
    m = rng.standard_normal((6, 6))
    a = m @ m.T + 6 * np.eye(6)
    b = rng.standard_normal(6)
    x = torch.zeros(6, dtype=torch.float64, requires_grad=True)
    A, B = torch.tensor(a), torch.tensor(b)
    opt = torch.optim.LBFGS([x], lr=1, max_iter=50, line_search_fn=line_search_fn, tolerance_grad=1e-12,
                            tolerance_change=1e-15)

    def closure():
        opt.zero_grad()
        loss = 0.5 * x @ A @ x - B @ x
        loss.backward()
        return loss
    for _ in range(3):
        opt.step(closure)
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(a, b), rtol=1e-6, atol=1e-8)


def test_lbfgs_arguments_are_checked_as_pytorch():
    p = torch.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="^Invalid learning rate: -1$"):
        torch.optim.LBFGS([p], lr=-1)
    with pytest.raises(ValueError, match=r"^LBFGS doesn't support per-parameter options \(parameter groups\)$"):
        torch.optim.LBFGS([{"params": [p]}, {"params": [torch.zeros(1, requires_grad=True)]}])
    opt = torch.optim.LBFGS([p], line_search_fn="backtracking")
    p.grad = None

    def closure():
        opt.zero_grad()
        loss = ((p - 1) ** 2).sum()
        loss.backward()
        return loss
    with pytest.raises(RuntimeError, match="^only 'strong_wolfe' is supported$"):
        opt.step(closure)
    assert torch.optim.LBFGS([p], max_iter=8).defaults["max_eval"] == 10
