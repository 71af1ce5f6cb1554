"""A dataclass argument (a batch, a new object at each step) is opened into its fields: a new object of the same
type and fields replays the graph, as Dynamo's attribute guards let it; a changed field value, type or layout
captures again; writes into it stay graph breaks; one carrying attributes beside its fields is guarded whole."""
import dataclasses

import torch
from torch._dynamo.eval_frame import stats


@dataclasses.dataclass
class Batch:
    x: torch.Tensor
    y: torch.Tensor
    k: int = 1


@dataclasses.dataclass(frozen=True)
class Wrapped:
    batch: Batch
    scale: float


def loss(b):
    return ((b.x * b.k).sum(-1) - b.y).pow(2).mean()


def test_a_new_batch_object_each_step_replays_the_graph():
    compiled = torch.compile(loss)
    for i in range(6):
        b = Batch(torch.full((3, 4), float(i)), torch.ones(3))
        torch.testing.assert_close(compiled(b), loss(b))
    assert (stats["captures"], stats["replays"]) == (1, 5)


def test_a_changed_field_value_or_shape_captures_again():
    compiled = torch.compile(loss)
    cases = [Batch(torch.ones(3, 4), torch.ones(3), 1), Batch(torch.ones(3, 4), torch.ones(3), 2),
             Batch(torch.ones(5, 4), torch.ones(5), 2), Batch(torch.ones(3, 4), torch.ones(3), 1)]
    for b in cases:
        torch.testing.assert_close(compiled(b), loss(b))
    assert stats["captures"] == 3 and stats["replays"] == 1


def test_nested_frozen_dataclasses_and_gradients_through_their_fields():
    def scaled(w, weight):
        return (w.batch.x * weight).sum() * w.scale

    compiled = torch.compile(scaled)
    weight = torch.ones(4, requires_grad=True)
    for i in range(3):
        compiled(Wrapped(Batch(torch.full((2, 4), float(i + 1)), torch.ones(2)), 0.5), weight).backward()
    torch.testing.assert_close(weight.grad, torch.full((4,), 0.5 * 2 * (1 + 2 + 3)))
    assert (stats["captures"], stats["replays"]) == (1, 2)


def test_writes_into_the_batch_still_happen_and_extra_attributes_are_guarded():
    def doubles(b):
        b.x = b.x * 2
        return b.x.sum()

    compiled = torch.compile(doubles)
    for i in range(3):
        ours, theirs = (Batch(torch.full((2,), float(i)), torch.ones(1)) for _ in range(2))
        assert compiled(ours).item() == doubles(theirs).item() and torch.equal(ours.x, theirs.x)

    def uses_extra(b):
        return b.x * b.extra

    compiled = torch.compile(uses_extra)
    for value in (1.0, 2.0, 3.0):
        b = Batch(torch.ones(2), torch.ones(1))
        b.extra = value
        assert torch.equal(compiled(b), torch.full((2,), value))
