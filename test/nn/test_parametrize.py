"""torch.nn.utils.parametrize, parametrizations and the legacy weight_norm/spectral_norm against
PyTorch 2.13's results (tools/record_parametrize_reference.py): names and state_dict keys,
originals, forward outputs and gradients, spectral_norm's u/v after training and eval steps,
warnings and errors."""
import copy
import json
import pickle
from pathlib import Path

import pytest

import torch
from recorded import assert_matches
from torch import nn
from torch.nn.utils import parametrizations, parametrize
from tools import record_parametrize_reference as record

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "parametrize" / "parametrize.json")
                       .read_text())["cases"]



@pytest.mark.parametrize("case", record.CASES)
def test_parametrizations_do_what_they_do_on_pytorch(case):
    mine, ref = record.run_case(torch, case), REFERENCE[case]
    if "error" in ref:
        assert mine == ref
    else:
        assert_matches(mine, ref, case, 1e-5, 1e-5, tuples=True)


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3)])
def test_orthogonal_weights_stay_orthogonal_through_training(orthogonal_map, shape):
    module = nn.Module()
    module.weight = nn.Parameter(torch.randn(*shape, dtype=torch.float64))
    parametrizations.orthogonal(module, orthogonal_map=orthogonal_map)
    opt = torch.optim.SGD(module.parameters(), lr=0.5)
    for _ in range(3):
        opt.zero_grad()
        (module.weight.sin() * torch.arange(module.weight.numel()).reshape(shape)).sum().backward()
        opt.step()
    w = module.weight.detach()
    small = min(shape[-2:])
    gram = w @ w.mT if shape[-2] <= shape[-1] else w.mT @ w
    torch.testing.assert_close(gram, torch.eye(small, dtype=torch.float64).expand_as(gram), atol=1e-12, rtol=0)


def test_the_parametrized_class_is_per_instance_and_restored_on_removal():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    parametrizations.weight_norm(a)
    assert type(a).__name__ == "ParametrizedLinear" and type(b) is nn.Linear
    assert isinstance(a, nn.Linear) and not hasattr(nn.Linear, "weight")
    parametrize.remove_parametrizations(a, "weight")
    assert type(a) is nn.Linear and not hasattr(a, "parametrizations")


def test_optimizer_keeps_the_original_parameter_through_registration_and_removal():
    torch.manual_seed(0)
    m = nn.Linear(3, 2)
    w = m.weight
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    parametrizations.spectral_norm(m)
    assert m.parametrizations.weight.original is w
    m(torch.ones(1, 3)).sum().backward()
    opt.step()
    parametrize.remove_parametrizations(m, "weight")
    assert m.weight is w


def test_deepcopy_of_a_parametrized_module_is_independent():
    torch.manual_seed(0)
    m = parametrizations.weight_norm(nn.Linear(3, 2))
    c = copy.deepcopy(m)
    assert type(c) is type(m)
    with torch.no_grad():
        c.parametrizations.weight.original0.mul_(2)
    assert torch.allclose(c.weight, 2 * m.weight)
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules"):
        pickle.dumps(m)


def test_spectral_norm_in_eval_mode_leaves_u_and_v_alone():
    torch.manual_seed(0)
    m = parametrizations.spectral_norm(nn.Linear(4, 4)).eval()
    u = m.parametrizations.weight[0]._u.clone()
    m(torch.ones(1, 4))
    assert torch.equal(m.parametrizations.weight[0]._u, u)


def test_weight_norm_of_a_vector_and_along_a_negative_dim_keeps_pytorchs_shapes():
    import torch.nn.utils.parametrizations as parametrizations
    m = torch.nn.Linear(2, 3)
    with torch.no_grad():
        m.bias.copy_(torch.tensor([1.0, -2.0, 3.0]))
    parametrizations.weight_norm(m, "bias")
    assert m.parametrizations.bias.original0.tolist() == [1.0, 2.0, 3.0]     # each entry its own norm
    conv = parametrizations.weight_norm(torch.nn.Conv2d(2, 3, 3), dim=-2)
    assert conv.parametrizations.weight.original0.shape == (1, 1, 3, 1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        parametrizations.weight_norm(torch.nn.Linear(2, 3), dim=5)
