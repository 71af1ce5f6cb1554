"""Namespaces programs touch at setup before Ember has the machinery behind them, answering as
PyTorch does outside it: torch.compiler (nothing is ever being compiled), torch.onnx (importable,
export refused), torch.distributed (importable, unavailable)."""
import pytest

import torch


def test_compiler_queries_answer_false_and_disable_passes_the_function_through():
    assert (torch.compiler.is_compiling(), torch.compiler.is_dynamo_compiling(), torch.compiler.is_exporting()) == \
        (False, False, False)

    def f(x):
        return x + 1

    assert torch.compiler.disable(f) is f
    assert torch.compiler.disable(recursive=False)(f) is f
    assert torch.compiler.disable(f, reason="not traced")(torch.ones(1)).item() == 2.0


def test_onnx_imports_and_refuses_to_export():
    import torch.onnx as onnx
    assert onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="torch.onnx.export is not supported by Ember yet"):
        onnx.export(torch.nn.Linear(2, 2), (torch.ones(1, 2),), "model.onnx")


def test_distributed_imports_and_is_unavailable():
    import torch.distributed as dist
    assert dist.is_available() is False and not hasattr(dist, "init_process_group")
