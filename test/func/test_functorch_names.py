"""The top-level functorch module: torch.func's transforms by their old names, make_functional and
combine_state_for_ensemble, used as functorch's tutorials used them."""
from __future__ import annotations

import pytest

import torch
import torch.nn as nn


def test_functorch_names_are_torch_funcs():
    import functorch
    import torch.func
    for name in ("grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call"):
        assert getattr(functorch, name) is getattr(torch.func, name)


def test_make_functional_runs_the_model_on_given_parameters():
    from functorch import make_functional
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    fmodel, params = make_functional(model)
    x = torch.randn(4, 3)
    assert torch.equal(fmodel(params, x), model(x))
    doubled = tuple(p * 2 for p in params)
    assert torch.allclose(fmodel(doubled, x), x @ (2 * model.weight).t() + 2 * model.bias)
    with pytest.raises(RuntimeError, match="has buffers"):
        make_functional(nn.BatchNorm1d(3))


def test_combine_state_for_ensemble_with_vmap_equals_each_model():
    from functorch import combine_state_for_ensemble, vmap
    torch.manual_seed(0)
    models = [nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2)) for _ in range(3)]
    fmodel, params, buffers = combine_state_for_ensemble(models)
    x = torch.randn(5, 3)
    out = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, x)
    assert torch.allclose(out, torch.stack([m(x) for m in models]), atol=1e-6)
