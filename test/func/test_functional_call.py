"""torch.func.functional_call and stack_module_state: a module run as a function of given parameters and
buffers (the module itself untouched afterwards), tied weights, strict checking, stacking for ensembles,
and per-example gradients through grad(functional_call) equal to autograd's, example by example."""
from __future__ import annotations

import numpy as np
import pytest

import torch
from torch.func import functional_call, grad, stack_module_state

RNG = np.random.default_rng(1)


def t(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.array(a, dtype=np.float32))


def test_the_call_uses_the_given_tensors_and_the_module_keeps_its_own():
    linear = torch.nn.Linear(3, 2)
    weight, bias, x = RNG.standard_normal((2, 3)), RNG.standard_normal(2), RNG.standard_normal((4, 3))
    before = {k: v.detach().clone() for k, v in linear.state_dict().items()}
    got = functional_call(linear, {"weight": t(weight), "bias": t(bias)}, t(x))
    np.testing.assert_allclose(got.detach().numpy(), x @ weight.T + bias, rtol=1e-5)
    assert type(linear.weight) is torch.nn.Parameter
    for k, v in linear.state_dict().items():
        assert torch.equal(v, before[k])


def test_names_not_given_keep_the_modules_values_and_dicts_may_be_split():
    linear = torch.nn.Linear(3, 2)
    x = RNG.standard_normal((4, 3))
    only_weight = functional_call(linear, {"weight": t(np.zeros((2, 3)))}, (t(x),))
    np.testing.assert_allclose(only_weight.detach().numpy(), np.broadcast_to(linear.bias.detach().numpy(), (4, 2)))
    split = functional_call(linear, ({"weight": t(np.ones((2, 3)))}, {"bias": t(np.zeros(2))}), (t(x),))
    np.testing.assert_allclose(split.detach().numpy(), np.repeat(x.sum(1, keepdims=True), 2, 1), rtol=1e-5)


def test_the_module_is_restored_when_the_call_raises():
    linear = torch.nn.Linear(3, 2)
    weight = linear.weight
    with pytest.raises(RuntimeError):
        functional_call(linear, {"weight": t(np.zeros((5, 5)))}, t(np.ones((1, 3))))
    assert linear.weight is weight


def test_buffers_are_swapped_too():
    norm = torch.nn.BatchNorm1d(3).eval()
    mean, var = RNG.standard_normal(3), RNG.random(3) + 0.5
    x = RNG.standard_normal((5, 3))
    got = functional_call(norm, {"running_mean": t(mean), "running_var": t(var)}, t(x))
    np.testing.assert_allclose(got.detach().numpy(), (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-6)
    assert torch.equal(norm.running_mean, torch.zeros(3))


class Tied(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(2, 2, bias=False)
        self.b = torch.nn.Linear(2, 2, bias=False)
        self.b.weight = self.a.weight

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(self.a(x))


def test_a_tied_weight_given_once_replaces_every_use_unless_tie_weights_is_false():
    model, x = Tied(), t(np.ones((1, 2)))
    doubled = t(2 * np.eye(2))
    np.testing.assert_allclose(functional_call(model, {"a.weight": doubled}, x).detach().numpy(), [[4.0, 4.0]])
    untied = functional_call(model, {"a.weight": doubled}, x, tie_weights=False).detach().numpy()
    np.testing.assert_allclose(untied, 2 * x.numpy() @ model.a.weight.detach().numpy().T, rtol=1e-6)
    with pytest.raises(ValueError, match=r"functional_call got multiple values for keys \['a.weight', 'b.weight'\], "
                                         "which are tied. Consider using tie_weights=False"):
        functional_call(model, {"a.weight": doubled, "b.weight": t(np.eye(2))}, x)


def test_strict_names_unexpected_and_missing_keys_and_bad_arguments_raise():
    linear = torch.nn.Linear(3, 2)
    with pytest.raises(RuntimeError) as info:
        functional_call(linear, {"weight": t(np.zeros((2, 3))), "foo": t(np.zeros(1))}, (t(np.ones((1, 3))),),
                        strict=True)
    assert str(info.value) == ("Error(s) in reparametrizing for Linear:\n\tUnexpected key(s): 'foo'.\n"
                               "\tMissing key(s): 'bias'.")
    with pytest.raises(ValueError, match=r"\['weight'\] appeared in multiple dictionaries; behavior of functional "
                                         "call is ambiguous"):
        functional_call(linear, [{"weight": t(np.zeros((2, 3)))}, {"weight": t(np.ones((2, 3)))}], t(np.ones((1, 3))))
    with pytest.raises(ValueError, match="Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of "
                                         "dicts, but got <class 'int'>"):
        functional_call(linear, 5, t(np.ones((1, 3))))


def test_stack_module_state_stacks_each_parameter_as_a_new_leaf():
    models = [torch.nn.Linear(3, 2) for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert buffers == {}
    for name in ("weight", "bias"):
        expected = np.stack([dict(m.named_parameters())[name].detach().numpy() for m in models])
        assert np.array_equal(params[name].detach().numpy(), expected)
        assert params[name].is_leaf and params[name].requires_grad
    with pytest.raises(RuntimeError, match="stack_module_state: Expected at least one model, got 0."):
        stack_module_state([])
    models[1].eval()
    with pytest.raises(RuntimeError, match="stack_module_state: Expected all models to have the same "
                                           "training/eval mode."):
        stack_module_state(models)


def test_per_example_gradients_through_grad_of_functional_call_equal_autograds():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    data, targets = torch.randn(6, 5), torch.randint(0, 3, (6,))
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, x, y):
        logits = functional_call(model, p, (x.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(logits, y.unsqueeze(0))

    for x, y in zip(data, targets):
        got = grad(loss)(params, x, y)
        model.zero_grad()
        torch.nn.functional.cross_entropy(model(x.unsqueeze(0)), y.unsqueeze(0)).backward()
        for name, p in model.named_parameters():
            assert torch.allclose(got[name], p.grad, rtol=1e-6, atol=1e-7)
