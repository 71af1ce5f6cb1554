"""Namespaces programs touch at setup before Ember has the machinery behind them, answering as
PyTorch does outside it: torch.onnx (importable, export refused), DTensor (named, refused), torch.jit
(PyTorch's behaviour with TorchScript disabled). torch.compile has its own tests (test/compile)."""
import pytest

import torch


def test_names_libraries_check_against_exist_and_refuse_to_be_made():
    from torch.distributed.tensor import DTensor
    assert issubclass(DTensor, torch.Tensor) and not isinstance(torch.ones(1), DTensor)
    with pytest.raises(RuntimeError, match="^torch.distributed.tensor.DTensor: Ember has no DTensor"):
        DTensor()
    assert isinstance(torch.Tensor, torch._C._TensorMeta)


def test_profiler_names_answer_for_this_build():
    assert torch.profiler.kineto_available() is False
    with torch.autograd.profiler.emit_nvtx(enabled=False):
        pass
    with pytest.raises(RuntimeError, match="^emit_nvtx needs NVTX ranges, which Ember's profiler does not emit$"):
        with torch.autograd.profiler.emit_nvtx():
            pass
    assert not isinstance(torch.nn.Linear(1, 1), torch.ScriptModule) and torch.ScriptModule.__module__ == "torch"


def test_onnx_imports_and_refuses_to_export():
    import torch.onnx as onnx
    assert onnx.is_in_onnx_export() is False
    with pytest.raises(NotImplementedError, match="torch.onnx.export is not supported by Ember yet"):
        onnx.export(torch.nn.Linear(2, 2), (torch.ones(1, 2),), "model.onnx")


def test_jit_runs_eagerly_as_pytorch_with_torchscript_disabled():
    def f(x):
        return x + 1

    m = torch.nn.Linear(2, 2)
    assert torch.jit.script(f) is f and torch.jit.script(m) is m
    assert torch.jit.trace(f, (torch.ones(1),)) is f and torch.jit.trace(m, (torch.ones(1, 2),)) is m
    assert torch.jit.is_scripting() is False and torch.jit.is_tracing() is False
    assert torch.jit.ignore(f) is f and torch.jit.unused(f) is f and torch.jit.export(f) is f
    assert f._torchscript_modifier == "export (compile this function even if nothing calls it)"
    with pytest.warns(FutureWarning, match="ignore\\(True\\) has been deprecated"):
        assert torch.jit.ignore(drop=True)(f) is f
    assert torch.jit.Attribute(3, int) == 3 and torch.jit.annotate(int, 3) == 3
    assert torch.jit.wait(torch.jit.fork(f, torch.ones(1))).item() == 2.0
    assert torch.jit.script_if_tracing(f)(torch.ones(1)).item() == 2.0
    assert not isinstance(m, torch.jit.ScriptModule) and not isinstance(f, torch.jit.ScriptFunction)


def test_jit_refuses_torchscript_archives_saying_why():
    with pytest.raises(RuntimeError, match="TorchScript archives are not supported by Ember"):
        torch.jit.save(torch.nn.Linear(2, 2), "model.pt")
    with pytest.raises(RuntimeError, match="torch.jit.load: TorchScript archives are not supported"):
        torch.jit.load("model.pt")
