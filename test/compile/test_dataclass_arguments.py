"""A dataclass argument the compiled function reads only through its fields (a batch: batch.x, batch.y, a plain
setting) replays for a new object of its kind: its tensor fields are graph inputs read at each call, its plain
fields and its type are guarded. Any other use of it (passed on, returned, a method called, a field's own
attributes) keeps it guarded by identity, as before."""
from dataclasses import dataclass, field, fields, make_dataclass
from typing import Optional

import pytest

import torch
import torch.nn.functional as F
from torch._dynamo.eval_frame import stats


@dataclass
class Batch:
    x: torch.Tensor
    y: torch.Tensor
    scale: float = 1.0
    mask: Optional[torch.Tensor] = None
    notes: list = field(default_factory=list)


# Batch's fields, held in slots
SlotsBatch = make_dataclass("SlotsBatch", [(f.name, f.type, field(default=f.default, default_factory=f.default_factory))
                                           for f in fields(Batch)], slots=True)


KINDS = pytest.mark.parametrize("kind", [Batch, SlotsBatch], ids=["dataclass", "slots=True"])


def _model():
    torch.manual_seed(0)
    return torch.nn.Linear(4, 2)


def step(model, batch):
    out = model(batch.x)
    loss = F.mse_loss(out, batch.y) * batch.scale
    if batch.mask is not None:
        loss = loss + (out * batch.mask).sum()
    loss.backward()
    return loss


@KINDS
@pytest.mark.parametrize("input_grad", [False, True], ids=["inputs", "inputs requiring grad"])
def test_a_new_batch_each_step_replays_with_eagers_losses_and_gradients(input_grad, kind):
    model, reference = _model(), _model()
    compiled = torch.compile(step)
    captures = stats["captures"]
    gen = torch.Generator().manual_seed(1)
    for _ in range(5):
        x, y = torch.randn(8, 4, generator=gen), torch.randn(8, 2, generator=gen)
        # (each its own batch: the input gradient reaches each new batch's field)
        ours, theirs = kind(x.clone().requires_grad_(input_grad), y), kind(x.clone().requires_grad_(input_grad), y)
        model.zero_grad()
        reference.zero_grad()
        torch.testing.assert_close(compiled(model, ours), step(reference, theirs))
        for p, q in zip(model.parameters(), reference.parameters()):
            torch.testing.assert_close(p.grad, q.grad)
        if input_grad:
            torch.testing.assert_close(ours.x.grad, theirs.x.grad)
    assert stats["captures"] - captures == 1


def test_a_changed_plain_field_a_new_size_or_a_tensor_where_none_was_captures_again():
    model, reference = _model(), _model()
    compiled = torch.compile(step)
    kinds = [Batch(torch.ones(8, 4), torch.zeros(8, 2)), Batch(torch.ones(8, 4), torch.zeros(8, 2), scale=3.0),
             Batch(torch.ones(5, 4), torch.zeros(5, 2)), Batch(torch.ones(8, 4), torch.zeros(8, 2), mask=torch.ones(2))]

    def both(batch):
        model.zero_grad()
        reference.zero_grad()
        torch.testing.assert_close(compiled(model, batch), step(reference, batch))

    for batch in kinds:
        both(batch)
    before = stats["recompiles"]
    for batch in kinds:             # each kind replays its own capture
        both(batch)
    assert stats["recompiles"] == before


def test_a_field_that_is_also_a_tensor_argument_or_a_second_batch_is_read_from_each():
    def combine(a, b, t):
        return a.x * 2 + b.x + t

    compiled = torch.compile(combine)
    shared = Batch(torch.ones(3), torch.zeros(3))
    compiled(shared, shared, shared.x)
    gen = torch.Generator().manual_seed(2)
    for _ in range(3):
        a, b = Batch(torch.randn(3, generator=gen), None), Batch(torch.randn(3, generator=gen), None)
        t = torch.randn(3, generator=gen)
        torch.testing.assert_close(compiled(a, b, t), combine(a, b, t))
        torch.testing.assert_close(compiled(a, a, a.x), combine(a, a, a.x))


@KINDS
def test_a_batch_used_otherwise_is_guarded_by_identity_and_stays_right(kind):
    kept = []

    def keep(batch):
        kept.append(batch)
        return batch.x * 2

    def method(batch):
        return batch.x * len(batch.notes.copy())

    def field_attribute(batch):
        return batch.x * batch.x.scale

    for fn in (keep, method, field_attribute):
        compiled = torch.compile(fn)
        for k in range(3):
            batch = kind(torch.full((2,), float(k)), torch.zeros(2), notes=[1] * k)
            batch.x.scale = k + 1.0
            torch.testing.assert_close(compiled(batch), fn(batch))
    assert [b.x[0].item() for b in kept] == [0.0, 0.0, 1.0, 1.0, 2.0, 2.0]


def test_a_batch_in_slots_sharing_a_tensor_argument_sees_each_change_to_its_fields():
    def shifted(batch, t):
        return batch.x * batch.scale + t

    compiled = torch.compile(shifted)
    t = torch.ones(2)
    batch = SlotsBatch(t, torch.zeros(2))
    for k in range(3):
        batch.scale = float(k)
        torch.testing.assert_close(compiled(batch, t), shifted(batch, t))
        batch.x = torch.full((2,), float(k))
        torch.testing.assert_close(compiled(batch, t), shifted(batch, t))


def test_a_batch_the_call_changes_is_changed_at_every_call():
    def normalise(batch):
        batch.x = batch.x / batch.x.sum()
        batch.x.add_(1)
        return batch.x

    compiled = torch.compile(normalise)
    for k in range(1, 4):
        batch = Batch(torch.full((2,), float(k)), torch.zeros(2))
        result = compiled(batch)
        assert batch.x is result and result.tolist() == [1.5, 1.5]


def test_a_subclass_or_another_dataclass_of_the_same_fields_captures_again():
    @dataclass
    class Other:
        x: torch.Tensor
        y: torch.Tensor

    class Derived(Batch):
        pass

    def read(batch):
        return batch.x + batch.y

    compiled = torch.compile(read)
    for kind in (Batch, Derived, Other, Batch):
        value = kind(torch.ones(2), torch.full((2,), float(len(kind.__name__))))
        torch.testing.assert_close(compiled(value), read(value))


def test_a_batch_missing_a_field_the_capture_read_captures_again_instead_of_failing():
    def read(batch):
        return batch.x * 2

    compiled = torch.compile(read)
    compiled(Batch(torch.ones(2), torch.zeros(2)))
    partial = Batch(torch.ones(2), torch.zeros(2))
    del partial.x
    try:
        compiled(partial)
    except AttributeError as error:         # eager's error, from the call run again
        assert "x" in str(error)
    else:
        raise AssertionError("no AttributeError")


class _Doubled:
    """A descriptor: each read makes a new tensor from the stored one."""

    def __set_name__(self, owner, name):
        self.name = "_" + name

    def __get__(self, obj, owner=None):
        return self if obj is None else getattr(obj, self.name) * 2

    def __set__(self, obj, value):
        setattr(obj, self.name, value)


@dataclass
class _Described:
    x: torch.Tensor = _Doubled()


def test_a_field_read_through_a_descriptor_or_property_is_read_at_each_call():
    class Derived(Batch):
        @property
        def y(self):
            return self._y + 1

        @y.setter
        def y(self, value):
            self._y = value

    def read(batch):
        return batch.x * 3

    def read_y(batch):
        return batch.y * 3

    for fn, make in ((read, lambda k: _Described(torch.full((2,), k))),
                     (read_y, lambda k: Derived(torch.full((2,), k), torch.full((2,), k)))):
        compiled = torch.compile(fn)
        for k in (1.0, 2.0, 3.0):
            torch.testing.assert_close(compiled(make(k)), fn(make(k)))


def test_gradients_reach_each_new_batchs_tensor_and_a_field_read_elsewhere_too_runs_eagerly():
    def step(batch):
        loss = (batch.x * 2).sum()
        loss.backward()
        return loss

    compiled = torch.compile(step)
    captures = stats["captures"]
    for k in range(4):
        x = torch.ones(3, requires_grad=True)
        x.grad = torch.full((3,), float(k))
        compiled(Batch(x, None))
        assert x.grad.tolist() == [k + 2.0] * 3
    assert stats["captures"] - captures == 1
    shared = torch.ones(3)
    globals()["_SHARED"] = shared

    def with_global(batch):
        return batch.x + _SHARED * 10

    compiled = torch.compile(with_global)
    compiled(Batch(shared, None))
    for k in range(3):
        batch = Batch(torch.full((3,), float(k)), None)
        torch.testing.assert_close(compiled(batch), with_global(batch))


def test_an_argument_in_slots_of_a_class_not_the_programs_is_guarded_on_its_slots():
    holder_type = type("Holder", (), {"__slots__": ("scale",), "__module__": "a_library"})
    holder = holder_type()
    compiled = torch.compile(lambda x, h: x * h.scale)
    for value in (2.0, 2.0, 5.0):
        holder.scale = value
        assert compiled(torch.ones(1), holder).item() == value
