"""The Optimizer base: construction from tensors or param-group dicts, PyTorch's errors,
add_param_group, zero_grad, step hooks and closures, the state_dict structure and load_state_dict
(validation, casting, index remapping). The param_groups literals, reprs and error messages are
PyTorch 2.13's output, generated once with the reference torch and pasted here."""
import copy
import warnings

import numpy as np
import pytest
import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

# Generated once with PyTorch 2.13: state_dict()["param_groups"] after one step of
# cls([{"params": [w]}, {"params": [b], "lr": 0.5}], **kwargs).
PYTORCH_PARAM_GROUPS = {
    'SGD': [{'lr': 0.1, 'momentum': 0.9, 'dampening': 0, 'weight_decay': 0, 'nesterov': False, 'maximize': False, 'foreach': None, 'differentiable': False, 'fused': None, 'params': [0]}, {'lr': 0.5, 'momentum': 0.9, 'dampening': 0, 'weight_decay': 0, 'nesterov': False, 'maximize': False, 'foreach': None, 'differentiable': False, 'fused': None, 'params': [1]}],
    'Adam': [{'lr': 0.001, 'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0, 'amsgrad': True, 'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False, 'fused': None, 'decoupled_weight_decay': False, 'params': [0]}, {'lr': 0.5, 'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0, 'amsgrad': True, 'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False, 'fused': None, 'decoupled_weight_decay': False, 'params': [1]}],
    'AdamW': [{'lr': 0.001, 'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0.01, 'amsgrad': False, 'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False, 'fused': None, 'decoupled_weight_decay': True, 'params': [0]}, {'lr': 0.5, 'betas': (0.9, 0.999), 'eps': 1e-08, 'weight_decay': 0.01, 'amsgrad': False, 'maximize': False, 'foreach': None, 'capturable': False, 'differentiable': False, 'fused': None, 'decoupled_weight_decay': True, 'params': [1]}],
    'RMSprop': [{'lr': 0.01, 'momentum': 0.5, 'alpha': 0.99, 'eps': 1e-08, 'centered': True, 'weight_decay': 0, 'capturable': False, 'foreach': None, 'maximize': False, 'differentiable': False, 'params': [0]}, {'lr': 0.5, 'momentum': 0.5, 'alpha': 0.99, 'eps': 1e-08, 'centered': True, 'weight_decay': 0, 'capturable': False, 'foreach': None, 'maximize': False, 'differentiable': False, 'params': [1]}],
    'Adagrad': [{'lr': 0.01, 'lr_decay': 0, 'eps': 1e-10, 'weight_decay': 0, 'initial_accumulator_value': 0, 'foreach': None, 'maximize': False, 'differentiable': False, 'fused': None, 'params': [0]}, {'lr': 0.5, 'lr_decay': 0, 'eps': 1e-10, 'weight_decay': 0, 'initial_accumulator_value': 0, 'foreach': None, 'maximize': False, 'differentiable': False, 'fused': None, 'params': [1]}],
}
OPTIMIZER_KWARGS = {"SGD": {"lr": 0.1, "momentum": 0.9}, "Adam": {"amsgrad": True}, "AdamW": {},
                    "RMSprop": {"momentum": 0.5, "centered": True}, "Adagrad": {}}
# Generated once with PyTorch 2.13: the state keys per parameter (all float32; 'step' 0-dim).
PYTORCH_STATE_KEYS = {
    "SGD": ["momentum_buffer"],
    "Adam": ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"],
    "AdamW": ["step", "exp_avg", "exp_avg_sq"],
    "RMSprop": ["step", "square_avg", "momentum_buffer", "grad_avg"],
    "Adagrad": ["step", "sum"],
}
# Generated once with PyTorch 2.13: repr(torch.optim.AdamW([{"params": [w]}, {"params": [b], "lr": 1.0}])).
ADAMW_REPR = """AdamW (
Parameter Group 0
    amsgrad: False
    betas: (0.9, 0.999)
    capturable: False
    decoupled_weight_decay: True
    differentiable: False
    eps: 1e-08
    foreach: None
    fused: None
    lr: 0.001
    maximize: False
    weight_decay: 0.01

Parameter Group 1
    amsgrad: False
    betas: (0.9, 0.999)
    capturable: False
    decoupled_weight_decay: True
    differentiable: False
    eps: 1e-08
    foreach: None
    fused: None
    lr: 1.0
    maximize: False
    weight_decay: 0.01
)"""
SGD_REPR = """SGD (
Parameter Group 0
    dampening: 0
    differentiable: False
    foreach: None
    fused: None
    lr: 0.1
    maximize: False
    momentum: 0
    nesterov: False
    weight_decay: 0
)"""

ERRORS = [  # Generated once with PyTorch 2.13: (constructor call, exception type, message).
    (lambda w: torch.optim.SGD(w), TypeError,
     "params argument given to the optimizer should be an iterable of Tensors or dicts, but got torch.FloatTensor"),
    (lambda w: torch.optim.SGD([]), ValueError, "optimizer got an empty parameter list"),
    (lambda w: torch.optim.SGD([w * 2]), ValueError, "can't optimize a non-leaf Tensor"),
    (lambda w: torch.optim.SGD([w, 3]), TypeError, "optimizer can only optimize Tensors, but one of the params is int"),
    (lambda w: torch.optim.SGD([{"params": [w]}, {"params": [w]}]), ValueError,
     "some parameters appear in more than one parameter group"),
    (lambda w: torch.optim.SGD([{"params": {w}}]), TypeError,
     "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets will "
     "change between runs. Please use a list instead."),
    (lambda w: torch.optim.SGD([w], lr=0.1, nesterov=True), ValueError,
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda w: torch.optim.SGD([w], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True), ValueError,
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda w: torch.optim.SGD([w], lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda w: torch.optim.SGD([w], momentum=-0.5), ValueError, "Invalid momentum value: -0.5"),
    (lambda w: torch.optim.SGD([w], weight_decay=-0.5), ValueError, "Invalid weight_decay value: -0.5"),
    (lambda w: torch.optim.Adam([w], betas=(1.0, 0.9)), ValueError, "Invalid beta parameter at index 0: 1.0"),
    (lambda w: torch.optim.AdamW([w], betas=(0.9, -0.1)), ValueError, "Invalid beta parameter at index 1: -0.1"),
    (lambda w: torch.optim.Adam([w], betas=(0, 0.9)), ValueError, "betas must be either both floats or both Tensors"),
    (lambda w: torch.optim.Adam([w], eps=-1), ValueError, "Invalid epsilon value: -1"),
    (lambda w: torch.optim.RMSprop([w], alpha=-1), ValueError, "Invalid alpha value: -1"),
    (lambda w: torch.optim.Adagrad([w], lr_decay=-1), ValueError, "Invalid lr_decay value: -1"),
    (lambda w: torch.optim.Adagrad([w], initial_accumulator_value=-1), ValueError,
     "Invalid initial_accumulator_value value: -1"),
    (lambda w: torch.optim.SGD([w]).add_param_group([w]), TypeError, "param_group must be a dict, but got <class 'list'>"),
    (lambda w: torch.optim.SGD([w]).load_state_dict({"state": {}, "param_groups": []}), ValueError,
     "loaded state dict has a different number of parameter groups"),
    (lambda w: torch.optim.SGD([w]).load_state_dict({"state": {}, "param_groups": [{"params": [0, 1]}]}), ValueError,
     "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"),
]


def _two_params():
    return torch.zeros(2, requires_grad=True), torch.zeros(1, requires_grad=True)


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_bad_arguments_raise_pytorchs_errors(case):
    make, exc, message = ERRORS[case]
    with pytest.raises(exc) as info:
        make(torch.zeros(2, requires_grad=True))
    assert str(info.value) == message


@pytest.mark.parametrize("name", sorted(OPTIMIZER_KWARGS))
def test_state_dict_structure_is_pytorchs(name):
    w, b = _two_params()
    opt = getattr(torch.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.5}], **OPTIMIZER_KWARGS[name])
    w.grad, b.grad = torch.ones(2), torch.ones(1)
    opt.step()
    sd = opt.state_dict()
    assert list(sd) == ["state", "param_groups"]
    assert sd["param_groups"] == PYTORCH_PARAM_GROUPS[name]
    assert list(sd["state"]) == [0, 1]
    for index, param in enumerate((w, b)):
        entry = sd["state"][index]
        assert list(entry) == PYTORCH_STATE_KEYS[name]
        for key, value in entry.items():
            assert value.dtype == torch.float32
            assert value.shape == (() if key == "step" else param.shape)
            assert value is opt.state[param][key]  # not copied, as PyTorch's
        if "step" in entry:
            assert entry["step"].item() == 1.0


def test_repr_is_pytorchs():
    w, b = _two_params()
    assert repr(torch.optim.SGD([w], lr=0.1)) == SGD_REPR
    assert repr(torch.optim.AdamW([{"params": [w]}, {"params": [b], "lr": 1.0}])) == ADAMW_REPR


def test_groups_take_defaults_and_add_param_group():
    w, b = _two_params()
    c = torch.zeros(3, requires_grad=True)
    opt = torch.optim.SGD((p for p in [w]), lr=0.1, momentum=0.9)
    assert opt.defaults == {"lr": 0.1, "momentum": 0.9, "dampening": 0, "weight_decay": 0, "nesterov": False,
                            "maximize": False, "foreach": None, "differentiable": False, "fused": None}
    opt.add_param_group({"params": b, "lr": 0.01})
    opt.add_param_group({"params": [c], "momentum": 0.5})
    assert [g["params"] for g in opt.param_groups] == [[w], [b], [c]]
    assert [(g["lr"], g["momentum"]) for g in opt.param_groups] == [(0.1, 0.9), (0.01, 0.9), (0.1, 0.5)]
    assert [g["params"] for g in opt.state_dict()["param_groups"]] == [[0], [1], [2]]
    with pytest.raises(ValueError, match="^some parameters appear in more than one parameter group$"):
        opt.add_param_group({"params": [w]})


def test_named_parameters_and_duplicate_warning():
    w, b = _two_params()
    opt = torch.optim.Adam([("w", w), ("b", b)])
    assert opt.param_groups[0]["param_names"] == ["w", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]
    with pytest.raises(ValueError, match="^all optimizer param groups should be with/without names. cannot add "
                                         "param group without names to the optimizer$"):
        opt.add_param_group({"params": [torch.zeros(1, requires_grad=True)]})
    with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate parameters"):
        torch.optim.SGD([w, w])


def test_zero_grad_sets_none_or_zeroes():
    w, b = _two_params()
    opt = torch.optim.SGD([w, b], lr=0.1)
    w.grad, b.grad = torch.ones(2), torch.ones(1)
    opt.zero_grad(set_to_none=False)
    assert w.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0]
    opt.zero_grad()
    assert w.grad is None and b.grad is None


def test_step_runs_closure_with_grad_and_returns_its_loss():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    x = torch.tensor([3.0, -1.0])
    opt = torch.optim.SGD([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = ((w * x).sum() - 2.0) ** 2
        loss.backward()
        return loss

    with torch.no_grad():
        loss = opt.step(closure)
    assert loss.item() == pytest.approx(1.0)
    # w.x = 1, so d/dw ((w.x - 2)^2) = 2 (w.x - 2) x = -2x = [-6, 2]
    assert w.detach().tolist() == pytest.approx([1.0 + 0.1 * 6.0, 2.0 - 0.1 * 2.0])
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    assert opt.step() is None


def test_params_without_grad_are_skipped_and_get_no_state():
    w, b = _two_params()
    opt = torch.optim.Adam([w, b])
    w.grad = torch.ones(2)
    opt.step()
    assert b not in opt.state and b.tolist() == [0.0]
    assert list(opt.state_dict()["state"]) == [0]
    # Adagrad is the exception: its state exists from construction (as PyTorch's).
    ada = torch.optim.Adagrad([w, b], initial_accumulator_value=0.5)
    assert ada.state[b]["sum"].tolist() == [0.5] and ada.state[b]["step"].item() == 0.0


def test_step_hooks():
    w = torch.zeros(2, requires_grad=True)
    w.grad = torch.ones(2)
    opt = torch.optim.SGD([w], lr=0.1)
    calls = []
    pre = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append(("pre", o is opt, len(args))))
    post = opt.register_step_post_hook(lambda o, args, kwargs: calls.append(("post", o is opt)))
    glob = register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global"))
    opt.step()
    assert calls == ["global", ("pre", True, 1), ("post", True)]
    pre.remove(), post.remove(), glob.remove()
    opt.step()
    assert len(calls) == 3
    opt.register_step_pre_hook(lambda o, a, k: 5)
    with pytest.raises(RuntimeError, match="must return None or a tuple of \\(new_args, new_kwargs\\), but got 5."):
        opt.step()


def test_a_wrapper_that_skips_optimizer_init_keeps_its_bare_step():
    """PyTorch patches step with the hooks when an optimizer is made; a wrapper subclass that never
    runs Optimizer.__init__ (accelerate's AcceleratedOptimizer) steps its inner optimizer, whose
    hooks run once."""
    class Wrapper(torch.optim.Optimizer):
        def __init__(self, inner):
            self.inner = inner

        def step(self, closure=None):
            return self.inner.step(closure)

    w = torch.zeros(2, requires_grad=True)
    w.grad = torch.ones(2)
    calls = []
    glob = register_optimizer_step_pre_hook(lambda o, a, k: calls.append(type(o).__name__))
    Wrapper(torch.optim.SGD([w], lr=0.5)).step()
    glob.remove()
    assert calls == ["SGD"] and w.tolist() == [-0.5, -0.5]


def _train(opt_factory, w, steps, start=0):
    rng = np.random.default_rng(7)
    grads = rng.standard_normal((start + steps, 2, 3)).astype(np.float32)
    opt = opt_factory(w)
    for i in range(start, start + steps):
        w.grad = torch.tensor(grads[i])
        opt.step()
    return opt


@pytest.mark.parametrize("name", sorted(OPTIMIZER_KWARGS))
def test_load_state_dict_resumes_training_exactly(name):
    def factory(w, opt=None):
        return getattr(torch.optim, name)([w], **OPTIMIZER_KWARGS[name])

    w_full = torch.zeros(2, 3, requires_grad=True)
    rng = np.random.default_rng(7)
    grads = rng.standard_normal((6, 2, 3)).astype(np.float32)
    full = factory(w_full)
    for g in grads:
        w_full.grad = torch.tensor(g)
        full.step()

    w_a = torch.zeros(2, 3, requires_grad=True)
    first = factory(w_a)
    for g in grads[:3]:
        w_a.grad = torch.tensor(g)
        first.step()
    saved = copy.deepcopy(first.state_dict())
    w_b = w_a.detach().clone().requires_grad_(True)
    second = factory(w_b)
    second.load_state_dict(saved)
    for g in grads[3:]:
        w_b.grad = torch.tensor(g)
        second.step()
    assert w_b.detach().tolist() == w_full.detach().tolist()


def test_load_state_dict_casts_state_and_remaps_ids():
    w64 = torch.zeros(2, dtype=torch.float64, requires_grad=True)
    w64.grad = torch.ones(2, dtype=torch.float64)
    saved = {"state": {10: {"step": torch.tensor(3.0), "exp_avg": torch.ones(2), "exp_avg_sq": torch.ones(2)},
                       "extra": {"note": 1}},
             "param_groups": [{"lr": 0.5, "betas": (0.8, 0.9), "eps": 1e-08, "weight_decay": 0, "amsgrad": False,
                               "maximize": False, "foreach": None, "capturable": False, "differentiable": False,
                               "fused": None, "decoupled_weight_decay": False, "params": [10]}]}
    opt = torch.optim.Adam([w64])
    opt.load_state_dict(saved)
    state = opt.state[w64]
    assert state["exp_avg"].dtype == torch.float64 and state["exp_avg_sq"].dtype == torch.float64
    assert state["step"].dtype == torch.float32 and state["step"].item() == 3.0  # 'step' is kept as saved
    assert opt.state["extra"] == {"note": 1}
    group = opt.param_groups[0]
    assert group["lr"] == 0.5 and group["betas"] == (0.8, 0.9) and group["params"][0] is w64
    assert group is not saved["param_groups"][0] and saved["param_groups"][0]["params"] == [10]
    assert opt.state_dict()["state"][0] is state
    opt.step()
    assert state["step"].item() == 4.0


def test_state_dict_hooks():
    w = torch.zeros(2, requires_grad=True)
    opt = torch.optim.SGD([w], lr=0.1)
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    assert opt.state_dict()["extra"] == 1
    seen = []
    opt.register_load_state_dict_pre_hook(lambda o, sd: seen.append("pre"))
    opt.register_load_state_dict_post_hook(lambda o: seen.append("post"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.load_state_dict(opt.state_dict())
    assert seen == ["pre", "post"]
