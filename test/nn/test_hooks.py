"""Module hooks: order, replacement of values, removal, always_call and full backward hooks.
The expected logs were printed once by PyTorch 2.13 running the same code."""
from __future__ import annotations

import pytest

import torch
from torch import nn
from torch.utils.hooks import RemovableHandle


def _register_all(m, log):
    m.register_forward_pre_hook(lambda mod, args: log.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)
    m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(("prekw", sorted(kwargs))), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append(("fwd", tuple(out.shape))))
    handle = m.register_forward_hook(lambda mod, args, kwargs, out: log.append("fwdkw"), with_kwargs=True)
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", [tuple(g.shape) for g in go])))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(
        ("bwd", [None if g is None else tuple(g.shape) for g in gi], [tuple(g.shape) for g in go])))
    return handle


def test_hooks_run_in_pytorchs_order_with_gradient_shapes():
    log = []
    m = nn.Linear(3, 2)
    handle = _register_all(m, log)
    assert isinstance(handle, RemovableHandle)
    m(torch.randn(4, 3, requires_grad=True)).sum().backward()
    assert log == ["pre0", "pre1", ("prekw", []), ("fwd", (4, 2)), "fwdkw", ("bpre", [(4, 2)]),
                   ("bwd", [(4, 3)], [(4, 2)])]


def test_removed_hook_stops_and_backward_hook_without_input_grads_gets_none_and_warns():
    log = []
    m = nn.Linear(3, 2)
    _register_all(m, log).remove()
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are computed with respect to "
                                         "module outputs since no inputs require gradients"):
        m(torch.randn(4, 3)).sum().backward()
    assert log == ["pre0", "pre1", ("prekw", []), ("fwd", (4, 2)), ("bpre", [(4, 2)]), ("bwd", [None], [(4, 2)])]


def test_hooks_can_replace_inputs_outputs_and_gradients():
    m = nn.Linear(3, 2)
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    m.register_forward_hook(lambda mod, args, out: out + 1)
    assert torch.allclose(m(torch.ones(1, 3)), m.bias + 1)

    m = nn.Linear(3, 2)
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 2,))
    x = torch.randn(4, 3, requires_grad=True)
    m(x).sum().backward()
    assert torch.allclose(x.grad, 2 * m.weight.sum(0).expand(4, 3))

    m = nn.Linear(3, 2)
    m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 3,))
    x = torch.randn(4, 3, requires_grad=True)
    m(x).sum().backward()
    assert torch.allclose(x.grad, 3 * m.weight.sum(0).expand(4, 3))
    assert torch.allclose(m.bias.grad, torch.full((2,), 12.0))


def test_forward_pre_hook_with_kwargs_can_replace_args_and_kwargs():
    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": 5.0}), with_kwargs=True)
    assert m(torch.ones(2), factor=2.0).tolist() == [5.0, 5.0]


def test_always_call_forward_hook_runs_when_forward_raises():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    log = []
    b = Boom()
    b.register_forward_hook(lambda mod, args, out: log.append(("always", out)), always_call=True)
    b.register_forward_hook(lambda mod, args, out: log.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        b(1)
    assert log == [("always", None)]


def test_regular_and_full_backward_hooks_do_not_mix():
    m = nn.Linear(1, 1)
    m.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks on a single "
                                           "Module. Please use only one of them."):
        m.register_full_backward_hook(lambda *a: None)


def test_removable_handle_works_as_context_manager():
    m = nn.Identity()
    log = []
    with m.register_forward_hook(lambda mod, args, out: log.append(1)):
        m(torch.ones(1))
    m(torch.ones(1))
    assert log == [1] and not m._forward_hooks


def test_global_module_hooks_run_around_every_module_before_its_own():
    from torch.nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
    calls = []
    model = nn.Sequential(nn.Linear(2, 2))
    model[0].register_forward_pre_hook(lambda m, a: calls.append("pre"))
    model[0].register_forward_hook(lambda m, a, o: calls.append("post"))
    pre = register_module_forward_pre_hook(lambda m, a: calls.append(("global pre", type(m).__name__)))
    post = register_module_forward_hook(lambda m, a, k, o: calls.append(("global post", type(m).__name__, k)),
                                        with_kwargs=True)
    model(torch.ones(1, 2))
    assert calls == [("global pre", "Sequential"), ("global pre", "Linear"), "pre", ("global post", "Linear", {}),
                     "post", ("global post", "Sequential", {})]
    pre.remove()
    post.remove()
    calls.clear()
    model(torch.ones(1, 2))
    assert calls == ["pre", "post"]
    doubled = register_module_forward_hook(lambda m, a, o: o * 2)
    try:
        assert torch.equal(nn.Identity()(torch.ones(2)), torch.full((2,), 2.0))
    finally:
        doubled.remove()


def test_a_forward_hook_registered_by_a_pre_hook_runs_in_the_same_call():
    m = torch.nn.Identity()
    seen = []

    def pre(module, args):
        module.register_forward_hook(lambda mod, a, out: seen.append("post"))
    m.register_forward_pre_hook(pre)
    m(torch.ones(1))
    assert seen == ["post"]
