"""torch.backends, torch.accelerator, nn.parallel and the process-wide switches: deterministic
algorithms (with the empty ops' fill), float32 matmul precision, the default device, asarray."""
import warnings

import numpy as np
import pytest

import torch


def test_backends_answer_for_this_build():
    b = torch.backends
    assert (b.cudnn.is_available(), b.cudnn.version(), b.mps.is_available(), b.mps.is_built()) == (False, None,
                                                                                                False, False)
    assert (b.mkldnn.is_available(), b.mkl.is_available(), b.openmp.is_available()) == (False, False, True)
    assert b.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    assert b.cuda.flash_sdp_enabled() and b.cuda.math_sdp_enabled() and not b.cuda.is_flash_attention_available()


def test_cudnn_flags_are_kept_checked_and_restored():
    cudnn = torch.backends.cudnn
    assert (cudnn.enabled, cudnn.benchmark, cudnn.deterministic) == (True, False, False)
    with cudnn.flags(enabled=False, deterministic=True):
        assert (cudnn.enabled, cudnn.deterministic) == (False, True)
    assert (cudnn.enabled, cudnn.deterministic) == (True, False)
    with pytest.raises(RuntimeError, match="set_enabled_cudnn expects a bool, but got int"):
        cudnn.enabled = 1
    cudnn.benchmark = True
    assert cudnn.benchmark
    cudnn.benchmark = False


def test_matmul_precision_and_allow_tf32_are_one_state():
    matmul = torch.backends.cuda.matmul
    assert torch.get_float32_matmul_precision() == "highest" and not matmul.allow_tf32
    try:
        torch.set_float32_matmul_precision("high")
        assert matmul.allow_tf32 and matmul.fp32_precision == "tf32"
        matmul.allow_tf32 = False
        assert torch.get_float32_matmul_precision() == "highest" and matmul.fp32_precision == "ieee"
        with pytest.warns(UserWarning, match="has no effect"):
            torch.set_float32_matmul_precision("fastest")
    finally:
        torch.set_float32_matmul_precision("highest")


@pytest.fixture
def deterministic():
    def set_mode(mode, warn_only=False):
        torch.use_deterministic_algorithms(mode, warn_only=warn_only)
    yield set_mode
    torch.use_deterministic_algorithms(False)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int8, torch.int32,
                                   torch.int64, torch.uint8, torch.bool])
def test_deterministic_mode_fills_what_empty_ops_allocate(deterministic, dtype):
    deterministic(True)
    for t in (torch.empty(5, dtype=dtype), torch.empty_strided((2, 2), (1, 2), dtype=dtype),
              torch.empty_like(torch.zeros(3, dtype=dtype)), torch.zeros(1, dtype=dtype).new_empty(4)):
        if dtype.is_floating_point:
            assert t.isnan().all()
        elif dtype == torch.bool:
            assert t.all()
        else:
            assert (t == int(np.iinfo(str(dtype).split(".")[1]).max)).all()
        assert t._version == 0


def test_fill_uninitialized_memory_switch(deterministic):
    import torch.utils.deterministic as d
    deterministic(True)
    d.fill_uninitialized_memory = False
    try:
        assert not torch.empty(2000).isnan().all()
    finally:
        d.fill_uninitialized_memory = True


def test_nondeterministic_kernels_raise_or_warn(deterministic):
    x = torch.zeros(5)
    index, values = torch.tensor([0, 0]), torch.tensor([1.0, 2.0])
    deterministic(True)
    with pytest.raises(RuntimeError, match=r"put_ does not have a deterministic implementation, but you set "
                                           r"'torch.use_deterministic_algorithms\(True\)'"):
        x.put_(index, values)
    x.put_(index, values, accumulate=True)        # sequential accumulation: deterministic
    deterministic(True, warn_only=True)
    with pytest.warns(UserWarning, match=r"put_ does not have a deterministic implementation.*warn_only=True"):
        x.put_(index, values)


def test_deterministic_debug_mode(deterministic):
    torch.set_deterministic_debug_mode("warn")
    assert torch.are_deterministic_algorithms_enabled() and torch.is_deterministic_algorithms_warn_only_enabled()
    assert torch.get_deterministic_debug_mode() == 1
    torch.set_deterministic_debug_mode(2)
    assert torch.get_deterministic_debug_mode() == 2
    torch.set_deterministic_debug_mode("default")
    assert not torch.are_deterministic_algorithms_enabled()
    with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 3"):
        torch.set_deterministic_debug_mode(3)
    with pytest.raises(TypeError, match="must be bool, not int"):
        torch.use_deterministic_algorithms(1)


@pytest.mark.skipif(torch.cuda.is_available(), reason="tells factories apart by CUDA's absence")
def test_default_device_reaches_factories_only():
    assert torch.get_default_device() == torch.device("cpu")
    x = torch.ones(2)
    torch.set_default_device("cuda")        # allowed without a GPU; what is made there fails
    try:
        assert torch.get_default_device().type == "cuda"
        for factory in (lambda: torch.zeros(2), lambda: torch.arange(3), lambda: torch.tensor([1.0]),
                        lambda: torch.full((2,), 1.0), lambda: torch.randn(2)):
            with pytest.raises((RuntimeError, AssertionError), match="CUDA|cuda"):
                factory()
        # tensors made from others, and explicit devices, keep theirs
        assert torch.zeros_like(x).device.type == "cpu" and x.new_zeros(3).device.type == "cpu"
        assert torch.zeros(2, device="cpu").device.type == "cpu"
    finally:
        torch.set_default_device(None)
    assert torch.zeros(2).device.type == "cpu"
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available."):
        torch.set_default_device(0)


def test_asarray_shares_memory_unless_asked_to_copy():
    array = np.ones(3)
    shared = torch.asarray(array)
    shared[0] = 7
    assert array[0] == 7 and shared.dtype == torch.float64
    t = torch.ones(3)
    assert torch.asarray(t) is t
    assert torch.asarray(t, copy=True).data_ptr() != t.data_ptr()
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Float' into dtype 'Double'."):
        torch.asarray(t, dtype=torch.float64, copy=False)
    with pytest.raises(ValueError, match="can't alias arbitrary sequence into a tensor."):
        torch.asarray([1, 2], copy=False)
    assert torch.asarray([1, 2]).dtype == torch.int64
    assert torch.asarray([1.0], requires_grad=True).requires_grad
    buffer = np.arange(2, dtype=np.float32).tobytes()
    assert torch.asarray(bytearray(buffer)).tolist() == [0.0, 1.0]


@pytest.mark.skipif(torch.cuda.is_available(), reason="the answers without an accelerator")
def test_accelerator_without_a_gpu():
    acc = torch.accelerator
    assert (acc.is_available(), acc.device_count(), acc.current_accelerator(check_available=True)) == (False, 0, None)
    for call in (acc.current_device_index, acc.synchronize, acc.memory_allocated, acc.empty_cache):
        with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available."):
            call()
    with acc.device_index(None):
        pass


def test_data_parallel_without_gpus_runs_the_module():
    module = torch.nn.Linear(2, 3)
    wrapped = torch.nn.DataParallel(module)
    x = torch.randn(4, 2)
    assert torch.equal(wrapped(x), module(x)) and list(wrapped.state_dict()) == ["module.weight", "module.bias"]


def test_distributed_data_parallel_needs_a_process_group():
    with pytest.raises(ValueError, match="Default process group has not been initialized, please make sure to call "
                                         "init_process_group."):
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))


def test_sdp_kernel_is_deprecated_and_scoped():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.backends.cuda.sdp_kernel(enable_flash=False):
            assert not torch.backends.cuda.flash_sdp_enabled()
    assert caught[0].category is FutureWarning and torch.backends.cuda.flash_sdp_enabled()
