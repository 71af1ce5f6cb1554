"""c10.cuda.host_driver: CUDA kernels compiled by g++ and run on the CPU, PyCUDA's calling
conventions included, so the CUDA paths are tested where there is no GPU (EMBER_CUDA_EMULATOR=1)."""
import threading

import numpy as np
import pytest

from c10.cuda import host_driver as drv

REVERSE = r"""
extern "C" __global__ void reverse_blocks(int n, float* data) {
  __shared__ float tile[256];
  const int t = threadIdx.y * blockDim.x + threadIdx.x, count = blockDim.x * blockDim.y;
  const int i = blockIdx.x * count + t;
  if (i < n) tile[t] = data[i];
  __syncthreads();
  const int j = blockIdx.x * count + (count - 1 - t);
  if (j < n && i < n) data[i] = tile[count - 1 - t];
}
"""


@pytest.fixture
def cache(tmp_path):
    return str(tmp_path)


@pytest.fixture(autouse=True)
def context():
    """Device 0's context current on this thread for the test, as c10.cuda makes it."""
    current = drv.Device(0).retain_primary_context()
    current.push()
    yield current
    current.pop()


def test_work_on_a_thread_without_a_current_context_is_the_drivers_error():
    allocation = drv.mem_alloc(16)
    errors = []

    def work():                          # a new thread: nothing pushed on its context stack
        for call in (lambda: drv.memcpy_htod(allocation, np.zeros(4, dtype=np.float32)), lambda: drv.mem_alloc(16)):
            try:
                call()
            except drv.LogicError as exc:
                errors.append(str(exc))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == ["cuMemcpyHtoD failed: invalid device context - no currently active context?",
                      "cuMemAlloc failed: invalid device context - no currently active context?"]


def test_a_thread_that_ends_with_a_context_pushed_is_recorded_as_pycuda_would_abort():
    before = list(drv.ended_threads())
    thread = threading.Thread(target=lambda: drv.Device(0).retain_primary_context().push(), name="leaks-a-context")
    thread.start()
    thread.join()
    assert drv.ended_threads() == before + ["leaks-a-context"]
    del drv.context_errors[len(before):]
    balanced = threading.Thread(target=lambda: [c.push() or c.pop() for c in [drv.Device(0).retain_primary_context()]])
    balanced.start()
    balanced.join()
    assert drv.ended_threads() == before


def _upload(array):
    return drv.to_device(np.ascontiguousarray(array))


def _download(allocation, like):
    out = np.empty_like(like)
    drv.memcpy_dtoh(out, allocation)
    return out


def test_threads_of_a_block_meet_at_barriers_and_share_memory(cache):
    data = np.arange(512, dtype=np.float32)
    device = _upload(data)
    kernel = drv.SourceModule(REVERSE, no_extern_c=True, cache_dir=cache).get_function("reverse_blocks")
    kernel(np.int32(512), device, grid=(2, 1), block=(16, 16, 1))
    expected = np.concatenate([data[:256][::-1], data[256:][::-1]])
    np.testing.assert_array_equal(_download(device, data), expected)


def test_atomic_adds_from_every_thread_all_land(cache):
    source = r"""extern "C" __global__ void histogram(long long n, const int* bins, double* counts) {
      for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
        atomicAdd(&counts[bins[i]], 1.0);
    }"""
    bins = np.random.default_rng(0).integers(0, 7, 10_000).astype(np.int32)
    counts = _upload(np.zeros(7))
    drv.SourceModule(source, no_extern_c=True, cache_dir=cache).get_function("histogram")(
        np.int64(bins.size), _upload(bins), counts, grid=(5, 1, 1), block=(128, 1, 1))
    np.testing.assert_array_equal(_download(counts, np.zeros(7)), np.bincount(bins, minlength=7))


def test_half_conversions_round_to_nearest_even(cache):
    source = r"""#include <cuda_fp16.h>
    extern "C" __global__ void to_half(int n, const float* in, __half* out) {
      const int i = threadIdx.x; if (i < n) out[i] = __float2half_rn(in[i]);
    }"""
    values = np.array([1.0, 1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 65504.0, 1e-8, -2.5], dtype=np.float32)
    out = drv.mem_alloc(values.size * 2)
    drv.SourceModule(source, no_extern_c=True, cache_dir=cache).get_function("to_half")(
        np.int32(values.size), _upload(values), out, block=(32, 1, 1))
    np.testing.assert_array_equal(_download(out, np.zeros(values.size, np.float16)), values.astype(np.float16))


def test_barriers_at_different_calls_in_one_block_are_an_error(cache):
    source = r"""extern "C" __global__ void split(int* x) {
      if (threadIdx.x < 16) { __syncthreads(); x[threadIdx.x] = 1; } else { __syncthreads(); x[threadIdx.x] = 2; }
    }"""
    kernel = drv.SourceModule(source, no_extern_c=True, cache_dir=cache).get_function("split")
    with pytest.raises(drv.LaunchError, match="divergent barrier"):
        kernel(drv.mem_alloc(128), block=(32, 1, 1))


def test_arguments_must_be_typed_as_pycuda_wants(cache):
    kernel = drv.SourceModule(REVERSE, no_extern_c=True, cache_dir=cache).get_function("reverse_blocks")
    with pytest.raises(TypeError, match=r"invalid type on parameter #0 \(0-based\)"):
        kernel(512, drv.mem_alloc(4), block=(1, 1, 1))


def test_launch_shapes_beyond_the_hardware_limits_are_refused(cache):
    kernel = drv.SourceModule(REVERSE, no_extern_c=True, cache_dir=cache).get_function("reverse_blocks")
    with pytest.raises(drv.LaunchError, match="invalid argument"):
        kernel(np.int32(0), drv.mem_alloc(4), block=(2048, 1, 1))
    with pytest.raises(drv.LaunchError, match="65535"):
        kernel(np.int32(0), drv.mem_alloc(4), grid=(1, 70000, 1), block=(1, 1, 1))


def test_an_unknown_kernel_name_is_the_drivers_error(cache):
    with pytest.raises(drv.LogicError, match="named symbol not found"):
        drv.SourceModule(REVERSE, no_extern_c=True, cache_dir=cache).get_function("reverse")


def test_kernels_made_by_macros_are_found(cache):
    source = r"""#define FILL(T, NAME) extern "C" __global__ void fill_##NAME(T* out, T v) { out[threadIdx.x] = v; }
    FILL(float, float32)
    FILL(long long, int64)"""
    module = drv.SourceModule(source, no_extern_c=True, cache_dir=cache)
    out = drv.mem_alloc(32)
    module.get_function("fill_int64")(out, np.int64(-3), block=(4, 1, 1))
    assert _download(out, np.zeros(4, np.int64)).tolist() == [-3] * 4


def test_a_compiled_source_is_loaded_from_the_disk_cache(cache, monkeypatch):
    drv.SourceModule(REVERSE, no_extern_c=True, cache_dir=cache)

    def no_compiler(*args, **kwargs):
        raise AssertionError("compiled again despite the cache")
    monkeypatch.setattr(drv.SourceModule, "_build", staticmethod(no_compiler))
    drv.SourceModule(REVERSE, no_extern_c=True, cache_dir=cache).get_function("reverse_blocks")
    with pytest.raises(AssertionError, match="compiled again"):
        drv.SourceModule(REVERSE.replace("256", "512"), no_extern_c=True, cache_dir=cache)


def test_a_compile_error_names_the_line(cache):
    with pytest.raises(drv.CompileError, match="undeclared_name"):
        drv.SourceModule('extern "C" __global__ void k(float* x) { x[0] = undeclared_name; }', no_extern_c=True,
                         cache_dir=cache)


def test_host_memory_given_as_device_memory_is_the_gpus_error(cache):
    """On a GPU a host address in a copy is "invalid argument" and in a kernel an illegal memory
    access; host memory standing in for device memory must not hide that."""
    host = np.zeros(4, dtype=np.float32)
    device = _upload(host)
    with pytest.raises(drv.LogicError, match="cuMemcpyDtoD failed: invalid argument"):
        drv.memcpy_dtod(host.ctypes.data, int(device), 16)
    with pytest.raises(drv.LogicError, match="cuMemcpyDtoH failed"):
        drv.memcpy_dtoh(host, host.ctypes.data)
    with pytest.raises(drv.LogicError, match="past the end|not device memory"):
        drv.memcpy_htod(int(device) + 8, host)           # 16 bytes from 8 bytes in: past the end
    kernel = drv.SourceModule(REVERSE, no_extern_c=True, cache_dir=cache).get_function("reverse_blocks")
    with pytest.raises(drv.LaunchError, match="argument #1 .* is not device memory"):
        kernel(np.int32(4), np.uintp(host.ctypes.data), grid=(1, 1), block=(4, 1, 1))
    kernel(np.int32(4), np.uintp(int(device)), grid=(1, 1), block=(4, 1, 1))    # an address, not the object


def test_prepared_calls_pack_their_arguments_as_pycuda(cache):
    data = np.arange(8, dtype=np.float32)
    device = _upload(data)
    kernel = drv.SourceModule(REVERSE, no_extern_c=True, cache_dir=cache).get_function("reverse_blocks")
    kernel.prepare([np.int32, np.uintp])
    assert kernel.arg_format == "iL"
    kernel.prepared_call((1, 1), (8, 1, 1), 8, int(device))
    assert np.array_equal(_download(device, data), data[::-1])
    with pytest.raises(Exception, match="integer"):
        kernel.prepared_call((1, 1), (8, 1, 1), 8.0, int(device))


def test_an_allocation_a_finalizer_keeps_during_collection_stays_device_memory():
    """The caching allocator's Block hands its allocation back to the cache from its finalizer,
    which the collector may run on a Block that only cyclic garbage reaches: the allocation lives
    on in the cache, and must stay device memory (PyCUDA frees only on real deallocation)."""
    import gc
    kept = []

    class Block:
        def __init__(self, allocation):
            self.allocation = allocation
            self.cycle = self

        def __del__(self):
            kept.append(self.allocation)

    allocation = drv.mem_alloc(64)
    address = int(allocation)
    Block(allocation)
    del allocation
    gc.collect()
    assert kept and int(kept[0]) == address
    drv.memcpy_htod(address, np.arange(16, dtype=np.float32))
    out = np.empty(16, dtype=np.float32)
    drv.memcpy_dtoh(out, address)
    assert out.tolist() == list(range(16))


def test_an_allocation_is_not_device_memory_once_it_is_gone():
    allocation = drv.mem_alloc(64)
    address = int(allocation)
    del allocation
    with pytest.raises(drv.LogicError, match="is not device memory"):
        drv.memcpy_htod(address, np.zeros(4, dtype=np.float32))
