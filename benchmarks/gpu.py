"""`python -m benchmarks.gpu [--compare-python PATH]`: Ember's GPU backend against its targets.

- Pointwise bandwidth: torch.add on 2^26 float32 elements (12 bytes per element read and
  written) as a fraction of the device's own copy bandwidth (a device-to-device memcpy of the
  same size, 8 bytes per element). Target: at least 80%.
- GEMM: float32 4096^3 TFLOP/s, beside what the PyTorch at --compare-python gets from cuBLAS with
  TF32 off (run in a subprocess from an empty directory so that it imports that PyTorch).
  Target: at least 50% of it.
- Training: examples/train_digits.py's MLP epoch on the GPU, seconds, and the time of one small
  op (torch.add of two 1000-element tensors, launch and Python overhead), each beside the same
  code run by the PyTorch at --compare-python.
- Launch floor: the host time of launching an empty kernel through PyCUDA's prepared call (what
  every Ember launch pays) and through the driver's cuLaunchKernel called from ctypes (about what
  a launcher in C would pay, plus one ctypes call), to size what PyCUDA costs per op.
- Small ops: the host time of everyday ops on tiny CUDA tensors (what launching them costs: the
  dispatch, the launch arguments, allocations, any host synchronisation), each beside the same code
  run by the PyTorch at --compare-python. Target: within 1.5x of PyTorch's.

Times are CUDA events around repeated calls after a warm-up; each figure is the best of 5.
Without a GPU (or without PyCUDA) it says so and exits 0: nothing to measure.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Callable

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_TORCH_GEMM = """
import json, torch
torch.backends.cuda.matmul.allow_tf32 = False
a = torch.randn(4096, 4096, device="cuda"); b = torch.randn(4096, 4096, device="cuda")
for _ in range(3): a @ b
best = float("inf")
for _ in range(5):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); [a @ b for _ in range(5)]; end.record(); end.synchronize()
    best = min(best, start.elapsed_time(end) / 5)
print(json.dumps({"torch": torch.__version__, "ms": best, "device": torch.cuda.get_device_name()}))
"""


def _best_ms(torch: Any, fn: Callable[[], Any], calls: int = 5, repeats: int = 5) -> float:
    for _ in range(2):
        fn()
    best = float("inf")
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(calls):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / calls)
    return best


def _bandwidth(torch: Any) -> dict[str, float]:
    from c10 import cuda as c10_cuda
    n = 1 << 26
    a, b = torch.ones(n, device="cuda"), torch.ones(n, device="cuda")
    dst = torch.empty(n, device="cuda")
    drv = c10_cuda.lazy_init().drv
    copy_ms = _best_ms(torch, lambda: drv.memcpy_dtod(dst.data_ptr(), a.data_ptr(), n * 4))
    add_ms = _best_ms(torch, lambda: torch.add(a, b))
    copy_gbs = 2 * n * 4 / copy_ms / 1e6
    add_gbs = 3 * n * 4 / add_ms / 1e6
    return {"copy_GBps": copy_gbs, "add_GBps": add_gbs, "fraction": add_gbs / copy_gbs}


def _gemm(torch: Any) -> float:
    a, b = torch.randn(4096, 4096, device="cuda"), torch.randn(4096, 4096, device="cuda")
    ms = _best_ms(torch, lambda: a @ b, calls=3)
    return 2 * 4096 ** 3 / ms / 1e9


def _run_script(python: str, code: str, cwd: str, *args: str) -> dict[str, Any]:
    """The JSON object a script prints last, run by another interpreter (PYTHONPATH dropped, so
    that it imports its own torch), or {"error": its last line of stderr}."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([python, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        return {"error": run.stderr.strip().splitlines()[-1] if run.stderr.strip() else f"exit {run.returncode}"}
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def _reference_gemm(python: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as empty:
        result = _run_script(python, _TORCH_GEMM, empty)
    if "error" not in result:
        result["TFLOPs"] = 2 * 4096 ** 3 / result["ms"] / 1e9
    return result


# Run as a script by both Ember and the reference PyTorch (whichever `torch` its interpreter
# imports), so the two figures come from the same code.
_TRAINING = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import torch
import train_digits as ex
torch.manual_seed(0)
train_set, _ = ex.load_digits()
loader = torch.utils.data.DataLoader(train_set, batch_size=64, shuffle=True,
                                     generator=torch.Generator().manual_seed(0))
model = ex.MLP().to("cuda")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss()
ex.train_epoch(model, loader, loss_fn, optimizer, "cuda")
epoch = float("inf")
for _ in range(3):
    start = time.perf_counter()
    ex.train_epoch(model, loader, loss_fn, optimizer, "cuda")
    torch.cuda.synchronize()
    epoch = min(epoch, time.perf_counter() - start)
a, b = torch.ones(1000, device="cuda"), torch.ones(1000, device="cuda")
small = float("inf")
for _ in range(5):
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(1000):
        torch.add(a, b)
    torch.cuda.synchronize()
    small = min(small, (time.perf_counter() - start) / 1000)
print(json.dumps({"torch": torch.__version__, "epoch_s": epoch, "small_op_us": small * 1e6}))
"""


# Host microseconds per call of small ops on the GPU (the device finishes each long before the next
# is queued), run by both interpreters like _TRAINING.
_SMALL_OPS = """
import json, time
import torch
import torch.nn.functional as F
torch.manual_seed(0)
d = "cuda"
a, b = torch.randn(1000, device=d), torch.randn(1000, device=d)
m, w = torch.randn(32, 64, device=d), torch.randn(64, 64, device=d)
bias, t = torch.randn(64, device=d), torch.randint(0, 64, (32,), device=d)
idx = torch.randint(0, 1000, (100,), device=d)
ln = torch.nn.LayerNorm(64).to(d)
p = torch.randn(64, 64, device=d, requires_grad=True)
ops = {
    "torch.add(a, b)": lambda: torch.add(a, b),
    "a * 2.0": lambda: a * 2.0,
    "a.mul_(1.0)": lambda: a.mul_(1.0),
    "torch.relu(a)": lambda: torch.relu(a),
    "a.sum()": lambda: a.sum(),
    "m.sum(0)": lambda: m.sum(0),
    "m @ w": lambda: m @ w,
    "F.linear(m, w, bias)": lambda: F.linear(m, w, bias),
    "m.softmax(-1)": lambda: m.softmax(-1),
    "layer_norm(m)": lambda: ln(m),
    "cross_entropy(m, t)": lambda: F.cross_entropy(m, t),
    "a[idx]": lambda: a[idx],
    "torch.cat([a, b])": lambda: torch.cat([a, b]),
    "a.clone()": lambda: a.clone(),
    "m.t().contiguous()": lambda: m.t().contiguous(),
    "torch.zeros(1000)": lambda: torch.zeros(1000, device=d),
    "a.to(float16)": lambda: a.to(torch.float16),
    "(p * p).sum().backward()": lambda: (p * p).sum().backward(),
}
result = {"torch": torch.__version__}
for name, fn in ops.items():
    for _ in range(20):
        fn()
    best = float("inf")
    for _ in range(5):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(200):
            fn()
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter() - start) / 200)
    result[name] = best * 1e6
print(json.dumps(result))
"""


_EMPTY_KERNEL = 'extern "C" __global__ void ember_empty(long long n, float* out) { if (n < 0) out[0] = 0; }'


def _launch_floor() -> dict[str, float]:
    import ctypes
    import time

    from pycuda.compiler import SourceModule
    from pycuda.compiler import compile as nvcc_compile

    from c10 import cuda as c10_cuda
    drv = c10_cuda.lazy_init().drv
    buffer = drv.mem_alloc(256)
    function = SourceModule(_EMPTY_KERNEL, no_extern_c=True).get_function("ember_empty")
    function.prepare("qP")
    lib = ctypes.CDLL("libcuda.so.1")
    module, handle = ctypes.c_void_p(), ctypes.c_void_p()
    if lib.cuModuleLoadData(ctypes.byref(module), nvcc_compile(_EMPTY_KERNEL, no_extern_c=True)) or \
            lib.cuModuleGetFunction(ctypes.byref(handle), module, b"ember_empty"):
        raise RuntimeError("cuModuleLoadData/cuModuleGetFunction failed")
    n, out = ctypes.c_longlong(1), ctypes.c_void_p(int(buffer))
    params = (ctypes.c_void_p * 2)(ctypes.addressof(n), ctypes.addressof(out))
    launch = lib.cuLaunchKernel
    launch.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    ways = {"pycuda_prepared_call_us": lambda: function.prepared_call((1, 1, 1), (32, 1, 1), 1, int(buffer)),
            "driver_via_ctypes_us": lambda: launch(handle, 1, 1, 1, 32, 1, 1, 0, None, params, None)}
    result = {}
    for name, fn in ways.items():
        best = float("inf")
        for _ in range(5):
            drv.Context.synchronize()
            start = time.perf_counter()
            for _ in range(2000):
                fn()
            drv.Context.synchronize()
            best = min(best, (time.perf_counter() - start) / 2000)
        result[name] = best * 1e6
    lib.cuModuleUnload(module)
    return result


def _small_ops(python: str, compare_python: str | None) -> dict[str, Any]:
    results: dict[str, Any] = {"ember": _run_script(python, _SMALL_OPS, _ROOT)}
    if compare_python:
        with tempfile.TemporaryDirectory() as empty:
            results["reference"] = _run_script(compare_python, _SMALL_OPS, empty)
    ember, ref = results["ember"], results.get("reference", {})
    if "error" in ember:
        print(f"small ops on the GPU failed: {ember['error']}")
        return results
    print(f"{'small op on the GPU, host us per call':<36} {'Ember':>8} {'PyTorch':>8} {'ratio':>6}")
    for name, us in ember.items():
        if name == "torch":
            continue
        theirs = ref.get(name)
        tail = f"{theirs:8.1f} {us / theirs:6.2f}" if isinstance(theirs, float) else ""
        print(f"{name:<36} {us:8.1f} {tail}")
    if "error" in ref:
        print(f"reference failed: {ref['error']}")
    return results


def _training(python: str, cwd: str) -> dict[str, Any]:
    return _run_script(python, _TRAINING, cwd, os.path.join(_ROOT, "examples"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu", description=__doc__.splitlines()[0])
    parser.add_argument("--compare-python", help="an interpreter whose PyTorch (with CUDA) gives the cuBLAS figure")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        print("No CUDA device here (or PyCUDA is not installed): nothing to measure.")
        return 0
    results: dict[str, Any] = {"device": torch.cuda.get_device_name()}
    results["bandwidth"] = _bandwidth(torch)
    print(f"{results['device']}: device copy {results['bandwidth']['copy_GBps']:.0f} GB/s, torch.add "
          f"{results['bandwidth']['add_GBps']:.0f} GB/s = {results['bandwidth']['fraction']:.0%} (target >= 80%)")
    results["gemm_TFLOPs"] = _gemm(torch)
    line = f"float32 GEMM 4096^3: {results['gemm_TFLOPs']:.1f} TFLOP/s"
    if args.compare_python:
        ref = results["reference_gemm"] = _reference_gemm(args.compare_python)
        if "error" in ref:
            line += f"; reference failed: {ref['error']}"
        else:
            line += (f", PyTorch {ref['torch']} cuBLAS (TF32 off) {ref['TFLOPs']:.1f} = "
                     f"{results['gemm_TFLOPs'] / ref['TFLOPs']:.0%} (target >= 50%)")
    print(line)
    ember = results["training"] = _training(sys.executable, _ROOT)
    if "error" in ember:
        print(f"train_digits.py on the GPU failed: {ember['error']}")
    else:
        line = (f"train_digits.py MLP epoch on the GPU: {ember['epoch_s'] * 1000:.1f} ms; "
                f"one small torch.add: {ember['small_op_us']:.1f} us")
        if args.compare_python:
            with tempfile.TemporaryDirectory() as empty:
                ref = results["reference_training"] = _training(args.compare_python, empty)
            line += (f" (PyTorch: {ref['epoch_s'] * 1000:.1f} ms; {ref['small_op_us']:.1f} us)" if "error" not in ref
                     else f"; reference failed: {ref['error']}")
        print(line)
    from c10 import cuda as c10_cuda
    if not c10_cuda.emulated():
        try:
            floor = results["launch_floor"] = _launch_floor()
            print(f"launch floor, empty kernel: PyCUDA prepared call {floor['pycuda_prepared_call_us']:.1f} us, "
                  f"cuLaunchKernel through ctypes {floor['driver_via_ctypes_us']:.1f} us")
        except Exception as e:     # a measurement only: the rest of the report still stands
            print(f"launch floor not measured: {type(e).__name__}: {e}")
    results["small_ops"] = _small_ops(sys.executable, args.compare_python)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
