"""Optimizer trajectories against NumPy float64 implementations of the update rules PyTorch
documents for each optimizer (written here from the documented algorithms, independently of the
implementation): several steps with changing gradients, every option combination that changes the
arithmetic, float32 parameters compared to float rounding."""
import itertools

import numpy as np
import pytest
import torch

STEPS = 8
SHAPE = (3, 4)


def _gradients(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((STEPS, *SHAPE)).astype(np.float32), rng.standard_normal(SHAPE).astype(np.float32)


def _run_ember(cls, kwargs, grads, theta0):
    p = torch.tensor(theta0.copy(), requires_grad=True)
    opt = cls([p], **kwargs)
    out = []
    for g in grads:
        p.grad = torch.tensor(g)
        opt.step()
        out.append(p.detach().numpy().astype(np.float64).copy())
    return np.stack(out)


def _check(cls, kwargs, reference):
    grads, theta0 = _gradients()
    got = _run_ember(cls, kwargs, grads, theta0)
    want = reference(grads.astype(np.float64), theta0.astype(np.float64), **kwargs)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)


# ---- SGD ------------------------------------------------------------------------------------------
def sgd_reference(grads, theta, lr=1e-3, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
                  maximize=False):
    out, buf = [], None
    for g in grads:
        g = -g if maximize else g
        g = g + weight_decay * theta
        if momentum != 0:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        theta = theta - lr * g
        out.append(theta)
    return np.stack(out)


SGD_CASES = [dict(lr=0.1)] + [
    dict(lr=0.05, momentum=m, dampening=d, weight_decay=wd, nesterov=n, maximize=mx)
    for m, d, wd, n, mx in itertools.product([0.0, 0.9], [0.0, 0.3], [0.0, 0.1], [False, True], [False, True])
    if not (n and (m == 0 or d != 0))]


@pytest.mark.parametrize("kwargs", SGD_CASES, ids=str)
def test_sgd_trajectory(kwargs):
    _check(torch.optim.SGD, kwargs, sgd_reference)


# ---- Adam / AdamW ---------------------------------------------------------------------------------
def adam_reference(grads, theta, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
                   maximize=False, decoupled=False):
    beta1, beta2 = betas
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    v_max = np.zeros_like(theta)
    out = []
    for t, g in enumerate(grads, start=1):
        g = -g if maximize else g
        if weight_decay:
            if decoupled:
                theta = theta * (1 - lr * weight_decay)
            else:
                g = g + weight_decay * theta
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        m_hat = m / (1 - beta1 ** t)
        if amsgrad:
            v_max = np.maximum(v_max, v)
            v_hat = v_max / (1 - beta2 ** t)
        else:
            v_hat = v / (1 - beta2 ** t)
        theta = theta - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(theta)
    return np.stack(out)


ADAM_CASES = [dict(lr=0.01, betas=b, weight_decay=wd, amsgrad=a, maximize=mx, eps=e)
              for b, wd, a, mx, e in itertools.product([(0.9, 0.999), (0.5, 0.8)], [0.0, 0.2], [False, True],
                                                       [False, True], [1e-8, 0.1])]


@pytest.mark.parametrize("kwargs", ADAM_CASES, ids=str)
def test_adam_trajectory(kwargs):
    _check(torch.optim.Adam, kwargs, adam_reference)


@pytest.mark.parametrize("kwargs", [dict(lr=0.01), *ADAM_CASES[::3]], ids=str)
def test_adamw_trajectory_decouples_weight_decay(kwargs):
    def reference(grads, theta, weight_decay=1e-2, **kw):
        return adam_reference(grads, theta, weight_decay=weight_decay, decoupled=True, **kw)
    _check(torch.optim.AdamW, kwargs, reference)


def test_adam_with_decoupled_weight_decay_is_adamw():
    grads, theta0 = _gradients(3)
    kw = dict(lr=0.01, weight_decay=0.3, amsgrad=True)
    adamw = _run_ember(torch.optim.AdamW, kw, grads, theta0)
    adam = _run_ember(torch.optim.Adam, dict(kw, decoupled_weight_decay=True), grads, theta0)
    np.testing.assert_array_equal(adam, adamw)


# ---- RMSprop --------------------------------------------------------------------------------------
def rmsprop_reference(grads, theta, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0, centered=False,
                      maximize=False):
    v = np.zeros_like(theta)
    g_avg = np.zeros_like(theta)
    buf = np.zeros_like(theta)
    out = []
    for g in grads:
        g = -g if maximize else g
        g = g + weight_decay * theta
        v = alpha * v + (1 - alpha) * g * g
        v_tilde = v
        if centered:
            g_avg = alpha * g_avg + (1 - alpha) * g
            v_tilde = v - g_avg * g_avg
        if momentum > 0:
            buf = momentum * buf + g / (np.sqrt(v_tilde) + eps)
            theta = theta - lr * buf
        else:
            theta = theta - lr * g / (np.sqrt(v_tilde) + eps)
        out.append(theta)
    return np.stack(out)


RMSPROP_CASES = [dict(lr=0.01, alpha=a, weight_decay=wd, momentum=m, centered=c, maximize=mx)
                 for a, wd, m, c, mx in itertools.product([0.99, 0.7], [0.0, 0.1], [0.0, 0.5], [False, True],
                                                          [False, True])]


@pytest.mark.parametrize("kwargs", RMSPROP_CASES, ids=str)
def test_rmsprop_trajectory(kwargs):
    _check(torch.optim.RMSprop, kwargs, rmsprop_reference)


# ---- Adagrad --------------------------------------------------------------------------------------
def adagrad_reference(grads, theta, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0,
                      eps=1e-10, maximize=False):
    state_sum = np.full_like(theta, initial_accumulator_value)
    out = []
    for t, g in enumerate(grads, start=1):
        g = -g if maximize else g
        clr = lr / (1 + (t - 1) * lr_decay)
        g = g + weight_decay * theta
        state_sum = state_sum + g * g
        theta = theta - clr * g / (np.sqrt(state_sum) + eps)
        out.append(theta)
    return np.stack(out)


ADAGRAD_CASES = [dict(lr=0.1, lr_decay=d, weight_decay=wd, initial_accumulator_value=iv, maximize=mx)
                 for d, wd, iv, mx in itertools.product([0.0, 0.2], [0.0, 0.1], [0.0, 0.5], [False, True])]


@pytest.mark.parametrize("kwargs", ADAGRAD_CASES, ids=str)
def test_adagrad_trajectory(kwargs):
    _check(torch.optim.Adagrad, kwargs, adagrad_reference)


# ---- gradients from autograd, several groups --------------------------------------------------------
def test_training_on_a_loss_follows_the_reference_per_group():
    """((w * x).sum() - y) ** 2 through autograd, two groups with their own lr and momentum."""
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((STEPS, 2, 3))
    ys = rng.standard_normal((STEPS, 2))
    w0 = rng.standard_normal((2, 3))
    params = [torch.tensor(w0[i], dtype=torch.float64, requires_grad=True) for i in range(2)]
    opt = torch.optim.SGD([{"params": [params[0]]}, {"params": [params[1]], "lr": 0.02, "momentum": 0.5}],
                          lr=0.05, momentum=0.9, nesterov=False)
    theta = [w0[0].copy(), w0[1].copy()]
    bufs = [None, None]
    settings = [(0.05, 0.9), (0.02, 0.5)]
    for t in range(STEPS):
        opt.zero_grad()
        loss = sum(((p * torch.tensor(xs[t, i])).sum() - float(ys[t, i])) ** 2 for i, p in enumerate(params))
        loss.backward()
        opt.step()
        for i, (lr, mom) in enumerate(settings):
            g = 2 * ((theta[i] * xs[t, i]).sum() - ys[t, i]) * xs[t, i]
            bufs[i] = g.copy() if bufs[i] is None else mom * bufs[i] + g
            theta[i] = theta[i] - lr * bufs[i]
    for p, want in zip(params, theta):
        np.testing.assert_allclose(p.detach().numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adagrad"])
def test_float64_parameters_keep_float32_step_and_float64_state(name):
    p = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    p.grad = torch.ones(3, dtype=torch.float64)
    opt = getattr(torch.optim, name)([p])
    opt.step()
    state = opt.state[p]
    assert state["step"].dtype == torch.float32 and state["step"].dim() == 0
    assert all(v.dtype == torch.float64 for k, v in state.items() if k != "step")
