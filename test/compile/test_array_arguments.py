"""NumPy array arguments: one the compiled function only converts whole (torch.from_numpy, torch.as_tensor,
torch.asarray) is a graph input made from each call's array, so a new array each call replays with its own
values; any other use keeps the array guarded on its values, each call's result still eager's."""
import numpy as np
import pytest

import torch
import torch as T
import torch.nn.functional as F
from torch import from_numpy


def entries(compiled):
    return len(compiled._ember_compiled.entries)


def arrays(count, shape=(5, 4), dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for _ in range(count)]


def by_attribute(a, w):
    return (torch.from_numpy(a) @ w).relu()


def by_name(a, w):
    return from_numpy(a) * w[0, 0]


def by_alias(a, w):
    return T.as_tensor(a) + T.asarray(a).sum() * w[1, 1]


@pytest.mark.parametrize("fn", [by_attribute, by_name, by_alias])
def test_a_new_array_each_call_replays_one_capture_with_its_own_values(fn):
    w = torch.randn(4, 3)
    compiled = torch.compile(fn)
    for a in arrays(5):
        assert torch.equal(compiled(a, w), fn(a, w))
    assert entries(compiled) == 1


def test_a_training_step_on_numpy_batches_replays_with_eagers_gradients():
    torch.manual_seed(0)
    model, twin = torch.nn.Linear(4, 2), torch.nn.Linear(4, 2)
    twin.load_state_dict(model.state_dict())

    def step(model, xb, yb):
        loss = F.cross_entropy(model(torch.from_numpy(xb)), torch.from_numpy(yb))
        loss.backward()
        return loss

    compiled = torch.compile(step)
    rng = np.random.default_rng(1)
    for _ in range(4):
        xb, yb = rng.standard_normal((8, 4)).astype(np.float32), rng.integers(0, 2, 8)
        model.zero_grad(), twin.zero_grad()     # (no gradient to accumulate onto: one set of guards)
        torch.testing.assert_close(compiled(model, xb, yb), step(twin, xb, yb), rtol=1e-6, atol=1e-7)
        for p, q in zip(model.parameters(), twin.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-6, atol=1e-7)
    assert entries(compiled) == 1


@pytest.mark.parametrize("use", ["python_read", "returned", "keyword", "stored"])
def test_an_array_used_otherwise_is_guarded_on_its_values_and_each_result_is_eagers(use):
    def python_read(a):
        return torch.from_numpy(a) * float(a[0, 0])

    def returned(a):
        return torch.from_numpy(a)

    def keyword(a):
        return torch.as_tensor(a, dtype=torch.float64) * 2

    def stored(a):
        b = a
        return torch.from_numpy(b) * 2

    fn = {"python_read": python_read, "returned": returned, "keyword": keyword, "stored": stored}[use]
    compiled = torch.compile(fn)
    values = arrays(3)
    for a in values:
        got, want = compiled(a), fn(a)
        assert torch.equal(got, want)
    assert entries(compiled) == 3
    if use == "returned":           # eager's tensor: the call's array's memory
        assert np.shares_memory(got.numpy(), values[-1])


def test_an_array_of_another_dtype_shape_or_type_captures_again_without_raising():
    compiled = torch.compile(lambda a: torch.from_numpy(a) * 2)
    first, = arrays(1)
    compiled(first)
    for other in [first.astype(np.float64), arrays(1, shape=(3,))[0], np.ones((5, 4), np.float32)[:, ::2],
                  np.zeros((5, 4), dtype=object)]:
        if other.dtype == object:
            with pytest.raises(TypeError):
                compiled(other)
            continue
        assert torch.equal(compiled(other), torch.from_numpy(other) * 2)
    assert torch.equal(compiled(first), torch.from_numpy(first) * 2)


def test_an_array_sharing_memory_with_a_tensor_argument_stays_guarded_on_its_values():
    def f(a, t):
        return torch.from_numpy(a) + t

    compiled = torch.compile(f)
    for a in arrays(3):
        t = torch.from_numpy(a)
        assert torch.equal(compiled(a, t), torch.from_numpy(a * 2))
    assert entries(compiled) == 3


def test_a_write_through_the_converted_tensor_reaches_the_calls_array():
    def f(a):
        torch.from_numpy(a).mul_(2)
        return torch.from_numpy(a).sum()

    compiled = torch.compile(f)
    for a in arrays(3):
        expected = a * 2
        got = compiled(a)
        np.testing.assert_array_equal(a, expected)
        assert float(got) == pytest.approx(float(expected.sum()), rel=1e-6)


def test_arrays_apart_at_the_capture_and_overlapping_at_a_call_capture_again():
    def f(a, b):
        return torch.from_numpy(a) * 2 + torch.from_numpy(b)

    compiled = torch.compile(f)
    a, b = arrays(2)
    assert torch.equal(compiled(a, b), f(a, b))
    whole = arrays(1, shape=(10, 4))[0]
    top, bottom = whole[:5], whole[3:8]         # rows 3 and 4 in both
    assert torch.equal(compiled(top, bottom), f(top, bottom))
    assert entries(compiled) == 2


def test_tensor_inputs_that_share_a_storage_do_not_stop_the_replays():
    def f(a, x, y):
        return torch.from_numpy(a) + x * y

    compiled = torch.compile(f)
    base = torch.randn(10, 4)
    for a in arrays(3):
        assert torch.equal(compiled(a, base[:5], base[5:]), f(a, base[:5], base[5:]))
    assert entries(compiled) == 1


_HELD = torch.ones(3, 4)


def test_a_tensor_the_function_holds_over_the_first_arrays_memory_stays_that_tensor():
    def f(a):
        return torch.from_numpy(a) * 2 + _HELD

    compiled = torch.compile(f)
    assert torch.equal(compiled(_HELD.numpy()), _HELD * 3)       # the first batch is the held tensor's memory
    for a in arrays(3, shape=(3, 4)):
        assert torch.equal(compiled(a), f(a))


def test_another_arrays_conversion_over_the_same_memory_stays_that_arrays():
    def f(a, b):
        return torch.from_numpy(a) + torch.from_numpy(b) * float(b[0, 0])

    reference = np.full((3, 4), 2.0, np.float32)
    compiled = torch.compile(f)
    assert torch.equal(compiled(reference[:], reference), f(reference[:], reference))
    for a in arrays(3, shape=(3, 4)):
        assert torch.equal(compiled(a, reference), f(a, reference))


@pytest.mark.parametrize("reads", ["locals", "eval", "dlpack"])
def test_values_read_through_the_frame_or_dlpack_are_seen(reads):
    def by_locals(a):
        return torch.from_numpy(a) + float(locals()["a"].sum())

    def by_eval(a):
        return torch.from_numpy(a) + eval("float(a.sum())")

    def by_dlpack(a):
        return torch.from_numpy(a) * float(np.from_dlpack(torch.from_numpy(a)).sum())

    fn = {"locals": by_locals, "eval": by_eval, "dlpack": by_dlpack}[reads]
    compiled = torch.compile(fn)
    for a in arrays(3):
        assert torch.equal(compiled(a), fn(a))


def test_batches_of_other_sizes_are_captured_as_one_family_of_sizes_as_tensor_arguments_are():
    def f(a, w):
        return (torch.from_numpy(a) @ w).relu()

    compiled, w = torch.compile(f), torch.randn(4, 3)
    for rows in (5, 6, 7, 6, 5):
        a = arrays(1, shape=(rows, 4), seed=rows)[0]
        torch.testing.assert_close(compiled(a, w), f(a, w))
    families = [entry.family for entry in compiled._ember_compiled.entries]
    assert len(families) == 3 and len(set(families) - {None}) == 1      # the first size, then its family
