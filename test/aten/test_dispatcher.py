"""The dispatcher: kernel tables, alias keys, lazy kernels, errors, the dispatch trace."""
import subprocess
import sys

import pytest

import torch  # noqa: F401  (defines the operators)
from aten import dispatcher
from c10.dispatch_key import DispatchKey as K, DispatchKeySet

CPU = DispatchKeySet(K.CPU).repr
CUDA = DispatchKeySet(K.CUDA).repr
AUTOGRAD_CPU = DispatchKeySet([K.CPU, K.AutogradCPU]).repr


def handle(schema):
    return dispatcher.OperatorHandle(schema.split("(")[0], schema)


def test_direct_backend_kernel_is_picked_for_its_key():
    op = handle("t1(Tensor self) -> Tensor")
    op.register(K.CPU, lambda x: "cpu")
    op.register(K.CUDA, lambda x: "cuda")
    assert op.kernel_for(CPU)(None) == "cpu"
    assert op.kernel_for(CPU | CUDA)(None) == "cuda"


def test_composite_explicit_kernel_fills_backends_but_not_autograd():
    op = handle("t2(Tensor self) -> Tensor")
    op.register(K.CompositeExplicitAutograd, lambda x: "cea")
    assert op.kernel_for(CUDA)(None) == "cea"
    # AutogradCPU has no kernel: it falls through to CPU.
    assert op.kernel_for(AUTOGRAD_CPU)(None) == "cea"


def test_composite_implicit_kernel_serves_autograd_only_without_a_backend_kernel():
    op = handle("t3(Tensor self) -> Tensor")
    op.register(K.CompositeImplicitAutograd, lambda x: "cia")
    assert op.kernel_for(AUTOGRAD_CPU)(None) == "cia"
    op2 = handle("t4(Tensor self) -> Tensor")
    op2.register(K.CompositeImplicitAutograd, lambda x: "cia")
    op2.register(K.CPU, lambda x: "cpu")
    assert op2.kernel_for(AUTOGRAD_CPU)(None) == "cpu"


def test_direct_kernel_beats_alias_kernel():
    op = handle("t5(Tensor self) -> Tensor")
    op.register(K.CompositeExplicitAutograd, lambda x: "cea")
    op.register(K.CPU, lambda x: "cpu")
    assert op.kernel_for(CPU)(None) == "cpu" and op.kernel_for(CUDA)(None) == "cea"


def test_missing_backend_kernel_raises_not_implemented_naming_op_and_backend():
    op = handle("t6(Tensor self) -> Tensor")
    op.register(K.CPU, lambda x: x)
    with pytest.raises(NotImplementedError, match=r"Could not run 'aten::t6' with arguments from the 'CUDA' backend.*\[CPU\]"):
        op.kernel_for(CUDA)


def test_registering_twice_for_one_key_is_an_error():
    op = handle("t7(Tensor self) -> Tensor")
    op.register(K.CPU, lambda x: x)
    with pytest.raises(RuntimeError, match="already has a kernel for dispatch key CPU"):
        op.register(K.CPU, lambda x: x)


def test_lazy_kernel_is_imported_on_first_call_and_then_cached():
    op = handle("t8(Tensor self) -> Tensor")
    op.register(K.CPU, dispatcher.LazyKernel("math", "sqrt"))
    import math
    assert op.kernel_for(CPU) is math.sqrt
    assert op.kernel_for(CPU) is math.sqrt


def test_every_schema_operator_is_defined_with_its_kernels():
    names = dispatcher.operator_names()
    for name in ("add.Tensor", "add.Scalar", "sub.Tensor", "mul.Tensor", "div.Tensor", "neg", "exp", "sum",
                 "sum.dim_IntList", "empty.memory_format", "zeros", "ones", "full", "fill_.Scalar", "copy_"):
        assert name in names
    assert K.CUDA in dispatcher.find_operator("add.Tensor").registered_keys()


def test_unknown_operator_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="No such operator aten::nope"):
        dispatcher.find_operator("nope")


def test_dispatch_trace_prints_the_op_and_key_of_each_call():
    # arange is a composite: its inner call to arange.start_step (whose CPU kernel computes the
    # range) goes through the dispatcher too.
    code = "import torch; torch.add(torch.arange(2.0), 1)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"TORCH_SHOW_DISPATCH_TRACE": "1", "PATH": ""}, cwd=str(__import__("pathlib").Path(__file__).parents[2]))
    assert run.returncode == 0, run.stderr
    assert "[call] op=[aten::add.Tensor], key=[CPU]" in run.stderr
    assert "[call] op=[aten::arange], key=[CPU]" in run.stderr
    assert "[call] op=[aten::arange.start_step], key=[CPU]" in run.stderr
