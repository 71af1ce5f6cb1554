"""TorchDispatchMode, the dispatcher's Python key: a mode sees every operator call as its aten overload,
below autograd (so a backward's operators too), composite operators decomposed, calls made inside the
mode's own code not seen again, nested modes innermost first; and the torch-function side: torch._assert
and torch.nn.functional's Python-level functions reach __torch_function__ handlers as themselves."""
from __future__ import annotations

import numpy as np
import pytest

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten


class Recorder(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append(str(func))
        return func(*args, **(kwargs or {}))


def test_a_mode_sees_each_operator_once_as_its_aten_overload_and_gets_the_real_result():
    x, y = torch.randn(3, 4), torch.randn(4, 2)
    with Recorder() as rec:
        out = torch.relu(x @ y)
    assert rec.calls == ["aten.mm.default", "aten.relu.default"]      # matmul decomposes above the mode
    np.testing.assert_allclose(out.numpy(), np.maximum(x.numpy() @ y.numpy(), 0), rtol=1e-6)
    torch.relu(x)                                                    # after the block: not seen
    assert rec.calls == ["aten.mm.default", "aten.relu.default"]


def test_a_mode_sits_below_autograd_and_sees_the_backward_too():
    w = torch.randn(3, requires_grad=True)
    with Recorder() as rec:
        (w * w).sum().backward()
    assert rec.calls[:2] == ["aten.mul.Tensor", "aten.sum.default"]
    assert "aten.mul.Tensor" in rec.calls[2:]                         # d(w*w)/dw = grad * w, twice
    np.testing.assert_allclose(w.grad.numpy(), 2 * w.detach().numpy(), rtol=1e-6)


def test_nested_modes_see_calls_inner_first_and_the_outer_one_sees_what_the_inner_runs():
    class Doubling(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is aten.add.Tensor:
                return aten.mul.Tensor(func(*args, **(kwargs or {})), 2)
            return func(*args, **(kwargs or {}))

    x = torch.ones(2)
    with Recorder() as outer, Doubling():
        out = x + x
    assert outer.calls == ["aten.add.Tensor", "aten.mul.Tensor"]
    assert out.tolist() == [4.0, 4.0]


def test_a_torch_function_mode_sees_a_functional_call_as_the_functional_function():
    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((func, args[1:], dict(kwargs or {})))
            return func(*args, **(kwargs or {}))

    x = torch.randn(3)
    with Log():
        F.softmax(x, 0)
    # PyTorch's F.softmax hands itself over with its required argument by position, the rest by name
    assert seen[0] == (F.softmax, (), {"dim": 0, "_stacklevel": 3, "dtype": None})


def test_torch_assert_raises_assertion_error_with_its_message():
    torch._assert(True, "unused")
    torch._assert(torch.tensor(True), "unused")
    with pytest.raises(AssertionError, match="^the message$"):
        torch._assert(torch.tensor(False), "the message")


class PassThrough(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def test_a_mode_is_per_thread_and_a_raising_mode_leaves_nothing_behind():
    import threading
    seen_elsewhere = []

    def other_thread():
        seen_elsewhere.append(torch.ones(2).add(1).tolist())

    class Raising(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            raise ValueError("refused")

    with Recorder() as rec:
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        torch.ones(1)
    assert rec.calls == ["aten.ones.default"] and seen_elsewhere == [[2.0, 2.0]]
    with pytest.raises(ValueError, match="refused"), Raising():
        torch.ones(1)
    assert torch.ones(1).add(1).item() == 2.0          # no mode left on


GETITEM = [0, -1, slice(1, 3), slice(None, None, 2), None, Ellipsis, (Ellipsis, 1), (None, 0, slice(1, None)),
           True, False, [0, 2], (slice(None), [1, 0]), [(0, 1), (1, 2)], np.array([1, 0]), (np.array([0, 1]),),
           [np.array([0, 1]), np.array([1, 2])]]


@pytest.mark.parametrize("index", range(len(GETITEM)))
def test_indexing_under_a_mode_gives_what_it_gives_without_one(index):
    x = torch.arange(24.0).reshape(3, 4, 2)
    key = GETITEM[index]
    expected = x[key]
    with PassThrough():
        got = x[key]
    assert torch.equal(got, expected) and got is not x
    assert (got._base is not None) == (expected._base is not None)      # a view where it is one


def test_a_zero_dim_integer_tensor_index_selects_a_view_under_a_mode():
    x = torch.zeros(2, 3)
    with PassThrough():
        x[torch.tensor(1)].add_(1)
    assert x.tolist() == [[0, 0, 0], [1, 1, 1]]


def test_assignment_under_a_mode_writes_what_it_writes_without_one():
    def writes(t):
        t[0] = torch.ones(1, 1, 4)                 # leading size-1 dims dropped
        t[True] = torch.tensor([1, 2, 3, 4])        # converted to t's dtype
        t[torch.tensor(2)] = torch.arange(4)
        t[:, [1, 3]] = 7.0
        t[t > 6] = -1.0
        return t

    assert torch.equal(_under_mode(writes), writes(torch.zeros(3, 4)))
    with PassThrough(), pytest.raises(TypeError, match="can't assign a list to a torch.FloatTensor"):
        torch.zeros(2)[[0]] = [1.0]
    with PassThrough(), pytest.raises(ValueError, match="step must be greater than zero"):
        torch.zeros(4)[::-1]
    with PassThrough(), pytest.raises(IndexError, match="got float"):
        torch.zeros(4)[1.5]


def _under_mode(fn):
    t = torch.zeros(3, 4)
    with PassThrough():
        return fn(t)


def test_a_functional_functions_warning_points_at_its_caller():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax") as record:
        F.softmax(torch.randn(2, 3))
    assert record[0].filename == __file__


def test_functional_functions_pickle_and_copy_as_themselves():
    import copy
    import pickle
    assert pickle.loads(pickle.dumps(F.relu)) is F.relu
    assert copy.deepcopy(F.layer_norm) is F.layer_norm
    holder = torch.nn.Module()
    holder.activation = F.gelu                   # a module keeping a functional, saved whole
    assert pickle.loads(pickle.dumps(holder)).activation is F.gelu
