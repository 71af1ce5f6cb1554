"""Containers and Parameter/Buffer. Reprs and orders are literal PyTorch 2.13 output."""
from __future__ import annotations

import copy
from collections import OrderedDict

import pytest

import torch
from torch import nn


def test_parameter_is_a_tensor_that_requires_grad_with_pytorchs_repr():
    p = nn.Parameter(torch.tensor([1.0, 2.0]))
    assert isinstance(p, torch.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert repr(nn.Parameter(torch.tensor([1.0]), requires_grad=False)) == "Parameter containing:\ntensor([1.])"
    assert nn.Parameter().shape == (0,)


def test_parameter_shares_memory_survives_data_assignment_and_deepcopies():
    t = torch.zeros(3)
    p = nn.Parameter(t)
    p.data.add_(1)
    assert t.tolist() == [1.0, 1.0, 1.0]
    p.data = torch.ones(2, dtype=torch.float64)
    assert type(p) is nn.Parameter and p.dtype == torch.float64 and p.requires_grad
    q = copy.deepcopy(p)
    assert type(q) is nn.Parameter and q is not p and torch.equal(q, p) and q.requires_grad


def test_buffer_marks_a_tensor_with_its_persistence():
    b = nn.Buffer(torch.ones(2), persistent=False)
    assert isinstance(b, nn.Buffer) and not b.persistent
    assert not isinstance(torch.ones(2), nn.Buffer)


def test_sequential_indexing_slicing_and_editing():
    a, b, c = nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1)
    s = nn.Sequential(a, b, c)
    assert s[0] is a and s[-1] is c and len(s) == 3 and list(s) == [a, b, c]
    assert isinstance(s[1:], nn.Sequential) and list(s[1:]) == [b, c] and list(s[1:]._modules) == ["1", "2"]
    del s[0]
    assert list(s._modules) == ["0", "1"] and s[0] is b
    s.insert(0, a)
    s.append(nn.Tanh())
    s.extend([nn.Identity()])
    assert [type(m).__name__ for m in s] == ["Linear", "ReLU", "Linear", "Tanh", "Identity"]
    assert len(s + nn.Sequential(nn.ReLU())) == 6
    assert s(torch.ones(3, 1)).shape == (3, 1)
    assert s.pop(4).__class__ is nn.Identity and len(s) == 4
    named = nn.Sequential(OrderedDict([("conv", nn.Linear(1, 2)), ("act", nn.ReLU())]))
    assert repr(named) == ("Sequential(\n  (conv): Linear(in_features=1, out_features=2, bias=True)\n"
                           "  (act): ReLU()\n)")
    assert list(named.state_dict()) == ["conv.weight", "conv.bias"]


def test_module_list_and_dict():
    ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Sequential(nn.Linear(1, 1)), nn.Sequential(nn.Linear(1, 1)),
                        nn.Tanh()])
    assert repr(ml) == ("ModuleList(\n  (0-1): 2 x ReLU()\n  (2-3): 2 x Sequential(\n"
                        "    (0): Linear(in_features=1, out_features=1, bias=True)\n  )\n  (4): Tanh()\n)")
    assert repr(nn.ModuleList()) == "ModuleList()"
    del ml[0]
    assert list(ml._modules) == ["0", "1", "2", "3"] and len(ml[1:3]) == 2
    ml.insert(1, nn.GELU())
    assert isinstance(ml[1], nn.GELU) and isinstance(ml[-1], nn.Tanh)
    md = nn.ModuleDict({"b": nn.ReLU(), "a": nn.Tanh()})
    assert list(md.keys()) == ["b", "a"] and "a" in md and len(md) == 2
    md.update([("c", nn.Identity())])
    assert list(md) == ["b", "a", "c"] and isinstance(md.pop("a"), nn.Tanh)
    with pytest.raises(ValueError, match="ModuleDict update sequence element #0 has length 1; 2 is required"):
        md.update([("x",)])


def test_parameter_list_and_dict_wrap_tensors_and_have_pytorchs_reprs():
    pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.ones(1, dtype=torch.float64), "x"])
    assert repr(pl) == ("ParameterList(\n    (0): Parameter containing: [torch.float32 of size 2x3]\n"
                        "    (1): Parameter containing: [torch.float64 of size 1]\n    (2): Object of type: str\n)")
    assert isinstance(pl[1], nn.Parameter) and len(pl) == 3 and [n for n, _ in pl.named_parameters()] == ["0", "1"]
    pd = nn.ParameterDict({"b": nn.Parameter(torch.ones(2, 3)), "a": torch.ones(1, dtype=torch.float64)})
    assert repr(pd) == ("ParameterDict(\n    (a): Parameter containing: [torch.DoubleTensor of size 1]\n"
                        "    (b): Parameter containing: [torch.FloatTensor of size 2x3]\n)")
    assert list(pd.keys()) == ["a", "b"] and isinstance(pd["a"], nn.Parameter)
    assert list(nn.ParameterDict(OrderedDict([("z", torch.ones(1)), ("y", torch.ones(1))]))) == ["z", "y"]
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        pl()


ACTIVATION_REPRS = [
    (nn.Threshold(0.1, 20), "Threshold(threshold=0.1, value=20)"), (nn.ReLU(), "ReLU()"),
    (nn.ReLU(True), "ReLU(inplace=True)"), (nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)"),
    (nn.ReLU6(True), "ReLU6(inplace=True)"), (nn.Sigmoid(), "Sigmoid()"), (nn.Tanh(), "Tanh()"),
    (nn.SiLU(True), "SiLU(inplace=True)"), (nn.Mish(), "Mish()"), (nn.Hardsigmoid(), "Hardsigmoid()"),
    (nn.Hardswish(), "Hardswish()"), (nn.ELU(inplace=True), "ELU(alpha=1.0, inplace=True)"),
    (nn.CELU(0.5), "CELU(alpha=0.5)"), (nn.SELU(), "SELU()"), (nn.GLU(), "GLU(dim=-1)"),
    (nn.GELU(), "GELU(approximate='none')"), (nn.Hardshrink(), "Hardshrink(0.5)"),
    (nn.LeakyReLU(0.2, True), "LeakyReLU(negative_slope=0.2, inplace=True)"), (nn.LogSigmoid(), "LogSigmoid()"),
    (nn.Softplus(2, 10), "Softplus(beta=2, threshold=10)"), (nn.Softshrink(0.3), "Softshrink(0.3)"),
    (nn.PReLU(3), "PReLU(num_parameters=3)"), (nn.Softsign(), "Softsign()"), (nn.Tanhshrink(), "Tanhshrink()"),
    (nn.Softmin(1), "Softmin(dim=1)"), (nn.Softmax(dim=-1), "Softmax(dim=-1)"), (nn.LogSoftmax(), "LogSoftmax(dim=None)"),
    (nn.Dropout(), "Dropout(p=0.5, inplace=False)"), (nn.Identity(), "Identity()"),
    (nn.Flatten(0, 2), "Flatten(start_dim=0, end_dim=2)"), (nn.Unflatten(-1, [2, 2]), "Unflatten(dim=-1, unflattened_size=[2, 2])"),
    (nn.MSELoss(), "MSELoss()"), (nn.CrossEntropyLoss(weight=torch.ones(3), label_smoothing=0.1), "CrossEntropyLoss()"),
    (nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)), "BCEWithLogitsLoss()"), (nn.KLDivLoss(), "KLDivLoss()"),
]


@pytest.mark.parametrize("index", range(len(ACTIVATION_REPRS)))
def test_layer_repr_is_pytorchs(index):
    module, text = ACTIVATION_REPRS[index]
    assert repr(module) == text


def test_loss_modules_keep_weights_as_buffers_and_map_deprecated_arguments():
    assert list(nn.CrossEntropyLoss(weight=torch.ones(3)).state_dict()) == ["weight"]
    assert list(nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)).state_dict()) == ["pos_weight"]
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use "
                                         "reduction='sum' instead."):
        assert nn.MSELoss(size_average=False).reduction == "sum"
    assert nn.KLDivLoss(reduction="batchmean").reduction == "batchmean"


def test_flatten_unflatten_identity_and_dropout_modes():
    x = torch.randn(2, 3, 4)
    assert nn.Flatten()(x).shape == (2, 12) and nn.Unflatten(1, (3, 2, 2))(nn.Flatten()(x)).shape == (2, 3, 2, 2)
    assert nn.Identity(5, k=1)(x) is x
    d = nn.Dropout(0.5)
    d.eval()
    assert d(x) is x or torch.equal(d(x), x)
    d.train()
    y = d(torch.ones(1000))
    kept = y[y != 0]
    assert torch.allclose(kept, torch.full_like(kept, 2.0)) and 350 < kept.numel() < 650
