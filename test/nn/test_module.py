"""nn.Module's contract: registration, names and order, state_dict, load_state_dict errors,
conversion, reprs and error messages. The literals were printed once by PyTorch 2.13 (the
reference torch) running the same constructions."""
from __future__ import annotations

import copy
from collections import OrderedDict

import pytest

import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU(inplace=True)
        self.seq = nn.Sequential(nn.Linear(8, 8), nn.GELU(approximate="tanh"), nn.Dropout(0.1))
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(2)] + [nn.LeakyReLU()])
        self.heads = nn.ModuleDict({"a": nn.Linear(8, 3, bias=False), "b": nn.Bilinear(8, 8, 2)})
        self.flat = nn.Flatten()
        self.unflat = nn.Unflatten(1, (2, 4))
        self.register_buffer("running", torch.zeros(3))
        self.register_buffer("tmp", torch.zeros(3), persistent=False)
        self.scale = nn.Parameter(torch.ones(1))


NET_REPR = """Net(
  (fc1): Linear(in_features=4, out_features=8, bias=True)
  (act): ReLU(inplace=True)
  (seq): Sequential(
    (0): Linear(in_features=8, out_features=8, bias=True)
    (1): GELU(approximate='tanh')
    (2): Dropout(p=0.1, inplace=False)
  )
  (blocks): ModuleList(
    (0-1): 2 x Linear(in_features=8, out_features=8, bias=True)
    (2): LeakyReLU(negative_slope=0.01)
  )
  (heads): ModuleDict(
    (a): Linear(in_features=8, out_features=3, bias=False)
    (b): Bilinear(in1_features=8, in2_features=8, out_features=2, bias=True)
  )
  (flat): Flatten(start_dim=1, end_dim=-1)
  (unflat): Unflatten(dim=1, unflattened_size=(2, 4))
)"""
NET_PARAMETERS = ["scale", "fc1.weight", "fc1.bias", "seq.0.weight", "seq.0.bias", "blocks.0.weight",
                  "blocks.0.bias", "blocks.1.weight", "blocks.1.bias", "heads.a.weight", "heads.b.weight",
                  "heads.b.bias"]
NET_MODULES = ["", "fc1", "act", "seq", "seq.0", "seq.1", "seq.2", "blocks", "blocks.0", "blocks.1", "blocks.2",
               "heads", "heads.a", "heads.b", "flat", "unflat"]
NET_STATE_DICT_KEYS = ["scale", "running", "fc1.weight", "fc1.bias", "seq.0.weight", "seq.0.bias", "blocks.0.weight",
                       "blocks.0.bias", "blocks.1.weight", "blocks.1.bias", "heads.a.weight", "heads.b.weight",
                       "heads.b.bias"]


def test_repr_of_nested_modules_is_pytorchs():
    assert repr(Net()) == NET_REPR


def test_named_parameters_buffers_and_modules_follow_registration_order():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == NET_PARAMETERS
    assert [n for n, _ in net.named_buffers()] == ["running", "tmp"]
    assert [n for n, _ in net.named_modules()] == NET_MODULES
    assert [n for n, _ in net.named_parameters(prefix="model", recurse=False)] == ["model.scale"]
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "seq", "blocks", "heads", "flat", "unflat"]
    assert len(list(net.parameters())) == len(NET_PARAMETERS)
    assert len(list(net.modules())) == len(NET_MODULES)


def test_shared_modules_and_parameters_are_listed_once_unless_remove_duplicate_is_false():
    shared = nn.Linear(2, 2)
    s = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in s.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in s.named_parameters(remove_duplicate=False)] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert [n for n, _ in s.named_modules()] == ["", "0", "1"]
    assert [n for n, _ in s.named_modules(remove_duplicate=False)] == ["", "0", "1", "2"]


def test_state_dict_has_pytorchs_keys_metadata_and_detached_tensors():
    net = Net()
    sd = net.state_dict()
    assert isinstance(sd, OrderedDict)
    assert list(sd) == NET_STATE_DICT_KEYS          # the non-persistent buffer "tmp" is left out
    assert list(sd._metadata.items()) == [(name, {"version": 1}) for name in NET_MODULES]
    assert not sd["fc1.weight"].requires_grad and type(sd["fc1.weight"]) is torch.Tensor
    assert sd["fc1.weight"].data_ptr() == net.fc1.weight.data_ptr()
    kept = net.state_dict(keep_vars=True)
    assert kept["fc1.weight"] is net.fc1.weight
    assert list(net.state_dict(prefix="m.")) == ["m." + k for k in NET_STATE_DICT_KEYS]


def test_load_state_dict_reports_missing_unexpected_and_size_mismatch_like_pytorch():
    net = Net()
    sd = net.state_dict()
    del sd["fc1.bias"]
    sd["foo.bar"] = torch.ones(1)
    sd["heads.a.weight"] = torch.ones(2, 2)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: "fc1.bias". \n\tUnexpected '
        'key(s) in state_dict: "foo.bar". \n\tsize mismatch for heads.a.weight: copying a param with shape '
        "torch.Size([2, 2]) from checkpoint, the shape in current model is torch.Size([3, 8]).")


def test_load_state_dict_returns_incompatible_keys():
    net = Net()
    assert repr(net.load_state_dict(net.state_dict())) == "<All keys matched successfully>"
    sd = net.state_dict()
    del sd["fc1.bias"]
    sd["extra"] = torch.ones(1)
    result = net.load_state_dict(sd, strict=False)
    assert repr(result) == "_IncompatibleKeys(missing_keys=['fc1.bias'], unexpected_keys=['extra'])"
    assert result.missing_keys == ["fc1.bias"] and result.unexpected_keys == ["extra"]


def test_load_state_dict_copies_in_place_or_assigns():
    a, b = nn.Linear(3, 2), nn.Linear(3, 2)
    weight = b.weight
    b.load_state_dict(a.state_dict())
    assert b.weight is weight and torch.equal(b.weight, a.weight)
    source = {"weight": torch.ones(2, 3, dtype=torch.float64), "bias": torch.zeros(2, dtype=torch.float64)}
    b.load_state_dict(source, assign=True)
    assert isinstance(b.weight, nn.Parameter) and b.weight.requires_grad and b.weight.dtype == torch.float64


def test_attribute_assignment_registers_parameters_buffers_and_modules():
    m = nn.Module()
    m.p = nn.Parameter(torch.ones(2))
    m.b = nn.Buffer(torch.zeros(2), persistent=False)
    m.child = nn.Linear(1, 1)
    m.plain = torch.ones(1)
    assert list(m._parameters) == ["p"] and list(m._buffers) == ["b"] and list(m._modules) == ["child"]
    assert "b" in m._non_persistent_buffers_set and list(m.state_dict()) == ["p", "child.weight", "child.bias"]
    m.b = torch.ones(2)                       # reassigning a buffer keeps it a (non-persistent) buffer
    assert "b" in m._buffers and "b" in m._non_persistent_buffers_set
    m.p = None
    assert m.p is None and list(m.parameters()) == list(m.child.parameters())
    m.child = nn.ReLU()
    assert isinstance(m.child, nn.ReLU)
    del m.child, m.b
    assert not m._modules and not m._buffers
    assert "plain" in m.__dict__ and "p" in dir(m)


ERRORS = [
    (lambda: setattr(nn.Linear(2, 2), "weight", torch.ones(2)), TypeError,
     "cannot assign 'torch.FloatTensor' as parameter 'weight' (torch.nn.Parameter or None expected)"),
    (lambda: nn.Module().register_parameter("a.b", None), KeyError, '\'parameter name can\\\'t contain "."\''),
    (lambda: nn.Module().register_buffer("", None), KeyError, '\'buffer name can\\\'t be empty string ""\''),
    (lambda: nn.Module().register_parameter("x", torch.ones(1)), TypeError,
     "cannot assign 'torch.FloatTensor' object to parameter 'x' (torch.nn.Parameter or None required)"),
    (lambda: nn.Module().add_module("m", 3), TypeError, "int is not a Module subclass"),
    (lambda: nn.Linear(2, 2).foo, AttributeError, "'Linear' object has no attribute 'foo'"),
    (lambda: nn.Sequential(nn.ReLU()).get_submodule("0.x"), AttributeError, "ReLU has no attribute `x`"),
    (lambda: nn.Sequential(nn.Linear(1, 1)).get_parameter("0.bias.x"), AttributeError, "`bias` is not an nn.Module"),
    (lambda: nn.Sequential(nn.Linear(1, 1)).get_parameter("0.in_features"), AttributeError,
     "`in_features` is not an nn.Parameter"),
    (lambda: nn.Sequential(nn.ReLU())[3], IndexError, "index 3 is out of range"),
    (lambda: nn.Sequential(nn.ReLU()) + 3, ValueError,
     "add operator supports only objects of Sequential class, but <class 'int'> is given."),
    (lambda: nn.Linear(2, 2).to(torch.int64), TypeError,
     "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.int64"),
    (lambda: nn.Dropout(1.5), ValueError, "dropout probability has to be between 0 and 1, but got 1.5"),
    (lambda: nn.Linear(2, 2).train("x"), ValueError, "training mode is expected to be boolean"),
    (lambda: nn.Module()(1), NotImplementedError, 'Module [Module] is missing the required "forward" function'),
    (lambda: nn.ModuleList([nn.ReLU()])[2], IndexError, "index 2 is out of range"),
    (lambda: nn.Linear(2, 2).register_buffer("weight", torch.ones(1)), KeyError, "\"attribute 'weight' already exists\""),
    (lambda: setattr(nn.Sequential(nn.ReLU()), "0", torch.ones(1)), TypeError,
     "cannot assign 'torch.FloatTensor' as child module '0' (torch.nn.Module or None expected)"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_bad_use_raises_pytorchs_error(index):
    call, kind, message = ERRORS[index]
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == message


def test_get_submodule_parameter_and_buffer_by_dotted_path():
    net = Net()
    assert net.get_submodule("seq.0") is net.seq[0]
    assert net.get_submodule("") is net
    assert net.get_parameter("heads.b.bias") is net.heads.b.bias
    assert net.get_buffer("running") is net.running
    with pytest.raises(AttributeError, match="`weight` is not a buffer"):
        net.get_buffer("fc1.weight")


def test_train_eval_requires_grad_and_zero_grad():
    net = Net()
    net.eval()
    assert all(not m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    net.requires_grad_()
    net.fc1(torch.randn(2, 4)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert torch.equal(net.fc1.weight.grad, torch.zeros(8, 4))
    net.zero_grad()
    assert net.fc1.weight.grad is None


def test_conversions_keep_parameter_identity_and_cast_only_floating_tensors():
    m = nn.Linear(2, 2)
    m.register_buffer("steps", torch.tensor(3))
    weight = m.weight
    assert m.double() is m and m.weight is weight and m.weight.dtype == torch.float64
    assert m.steps.dtype == torch.int64
    m.half()
    assert m.weight.dtype == torch.float16 and m.steps.dtype == torch.int64
    assert m.bfloat16() is m and m.weight.dtype == torch.bfloat16 and m.steps.dtype == torch.int64
    m.float()
    assert m.weight.dtype == torch.float32 and isinstance(m.weight, nn.Parameter) and m.weight.requires_grad
    m.to(torch.float64)
    assert m.weight.dtype == torch.float64
    m.to("cpu", torch.float32)
    assert m.weight.dtype == torch.float32
    m.to(torch.ones(1, dtype=torch.float64))
    assert m.bias.dtype == torch.float64
    assert m.cpu() is m


def test_cuda_without_a_gpu_raises_embers_cuda_error():
    try:
        torch.ones(1).cuda()
    except Exception as expected:
        with pytest.raises(type(expected)):
            nn.Linear(1, 1).cuda()
    else:
        pytest.skip("a GPU is present")


def test_apply_visits_children_before_self():
    seen = []
    Net().apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and seen[0] == "Linear" and seen.index("Sequential") > seen.index("Dropout")


def test_deepcopy_copies_parameters_and_buffers():
    net = Net()
    twin = copy.deepcopy(net)
    assert twin.fc1.weight is not net.fc1.weight and isinstance(twin.fc1.weight, nn.Parameter)
    assert torch.equal(twin.fc1.weight, net.fc1.weight) and twin.fc1.weight.requires_grad
    assert list(twin.state_dict()) == NET_STATE_DICT_KEYS


def test_module_without_super_init_cannot_take_parameters():
    class Broken(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(torch.ones(1))

    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Broken()
