"""__torch_function__ and torch.overrides against PyTorch 2.13's answers for the same cases (recorded by
tools/record_overrides_reference.py): subclasses keep their type, objects and modes intercept calls."""
import json
from pathlib import Path

import pytest

import torch
from torch.overrides import BaseTorchFunctionMode, TorchFunctionMode
from tools.record_overrides_reference import run_cases

REFERENCE = json.loads((Path(__file__).resolve().parent.parent / "data" / "overrides" / "overrides.json").read_text())


@pytest.fixture(scope="module")
def ember_answers():
    return run_cases(torch)


@pytest.mark.parametrize("case", sorted(REFERENCE["cases"]))
def test_torch_function_case_answers_as_pytorch(ember_answers, case):
    assert ember_answers[case] == REFERENCE["cases"][case]


def test_modes_nest_and_each_sees_the_call_once():
    seen = []

    class Tag(BaseTorchFunctionMode):
        def __init__(self, tag):
            super().__init__()
            self.tag = tag

        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((self.tag, func.__name__))
            return super().__torch_function__(func, types, args, kwargs)

    with Tag("outer"), Tag("inner"):
        torch.ones(1).neg()
    assert seen == [("inner", "ones"), ("outer", "ones"), ("inner", "neg"), ("outer", "neg")]
    assert not torch._C._is_torch_function_mode_enabled()


def test_a_mode_sees_only_its_own_threads_calls():
    import threading
    seen = []

    class Log(BaseTorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs)

    worker = threading.Thread(target=lambda: torch.ones(2).add(1))
    with Log():
        worker.start()
        worker.join()
        torch.zeros(1)
    assert seen == ["zeros"]


def test_disable_torch_function_turns_modes_off():
    class Refuse(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            raise AssertionError("a mode ran inside DisableTorchFunction")

    with Refuse(), torch._C.DisableTorchFunction():
        assert torch.ones(2).sum().item() == 2.0


def test_transform_getitem_to_index_runs_tensor_indexing_as_aten_index():
    from torch._dynamo._trace_wrapped_higher_order_op import TransformGetItemToIndex
    x = torch.arange(12.0).view(3, 4)
    rows, cols = torch.tensor([0, 2]), torch.tensor([1, 3])
    with TransformGetItemToIndex():
        picked = x[rows, cols]
        row = x[1]
    assert picked.tolist() == [1.0, 11.0] and row.tolist() == [4.0, 5.0, 6.0, 7.0]


def test_subclass_gradients_flow_through_the_alias():
    class Sub(torch.Tensor):
        pass

    leaf = torch.ones(3, requires_grad=True)
    (leaf.as_subclass(Sub) * torch.arange(3.0)).sum().backward()
    assert leaf.grad.tolist() == [0.0, 1.0, 2.0]
