"""The padding modules against np.pad (reflect, edge, wrap, constant), with PyTorch's reprs and errors."""
import numpy as np
import pytest

import torch
from torch import nn

RNG = np.random.default_rng(0)
_NP = {"Reflection": "reflect", "Replication": "edge", "Circular": "wrap"}


def _np_pad(x, padding, mode, value=0.0):
    dims = len(padding) // 2
    widths = [(0, 0)] * (x.ndim - dims) + [(padding[2 * i], padding[2 * i + 1]) for i in reversed(range(dims))]
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=value)
    return np.pad(x, widths, mode=mode)


@pytest.mark.parametrize("kind", ["Reflection", "Replication", "Circular"])
@pytest.mark.parametrize("dims, padding", [(1, (2, 1)), (2, (1, 0, 2, 1)), (3, 1)])
def test_padding_modules_match_numpy(kind, dims, padding):
    module = getattr(nn, f"{kind}Pad{dims}d")(padding)
    x = RNG.standard_normal((2, 3) + (4,) * dims)
    got = module(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(got, _np_pad(x, module.padding, _NP[kind]))
    unbatched = module(torch.tensor(x[0])).numpy()
    np.testing.assert_array_equal(unbatched, got[0])


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_constant_and_zero_padding_match_numpy(dims):
    x = RNG.standard_normal((2,) + (3,) * dims)
    pad = tuple(range(1, 2 * dims + 1))
    np.testing.assert_array_equal(getattr(nn, f"ConstantPad{dims}d")(pad, -1.5)(torch.tensor(x)).numpy(),
                                  _np_pad(x, pad, "constant", -1.5))
    np.testing.assert_array_equal(getattr(nn, f"ZeroPad{dims}d")(1)(torch.tensor(x)).numpy(),
                                  _np_pad(x, (1,) * (2 * dims), "constant"))


def test_padding_module_reprs_and_errors_are_pytorchs():
    assert [repr(m) for m in (nn.ZeroPad2d(2), nn.ZeroPad1d((1, 2)), nn.ConstantPad3d(1, 3.5),
                              nn.ReflectionPad2d((1, 0, 2, 1)), nn.ReplicationPad1d(3), nn.CircularPad2d(1))] == [
        "ZeroPad2d((2, 2, 2, 2))", "ZeroPad1d((1, 2))", "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=3.5)",
        "ReflectionPad2d((1, 0, 2, 1))", "ReplicationPad1d((3, 3))", "CircularPad2d((1, 1, 1, 1))"]
    assert nn.ZeroPad1d(np.array([1, 2])).padding == (1, 2)     # any iterable, as PyTorch's _ntuple
    with pytest.raises(ValueError, match=r"^expected 3D or 4D input \(got 2D input\)$"):
        nn.CircularPad2d(1)(torch.ones(4, 4))
    x = torch.ones(1, 1, 3, requires_grad=True)
    nn.ReflectionPad1d(2)(x).sum().backward()
    used = np.bincount(np.pad(np.arange(3), 2, mode="reflect"), minlength=3)     # how often each entry is read
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], used)
