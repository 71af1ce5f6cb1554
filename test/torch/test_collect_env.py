"""torch.utils.collect_env: runs as a module, prints PyTorch's report layout, and stays quick.

The expected pretty_str texts were produced by PyTorch 2.13's own pretty_str
(/work/ref-torch/bin/python, run from /tmp) on the same SystemEnv values and pasted unchanged.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import numpy as np

import torch
from torch.utils import collect_env

ROOT = Path(__file__).resolve().parents[2]

PYTORCH_FIELDS = [
    "torch_version", "is_debug_build", "cuda_compiled_version", "gcc_version", "clang_version", "cmake_version",
    "os", "libc_version", "python_version", "python_platform", "is_cuda_available", "cuda_runtime_version",
    "cuda_module_loading", "nvidia_driver_version", "nvidia_gpu_models", "cudnn_version", "is_xpu_available",
    "pip_version", "pip_packages", "conda_packages", "hip_compiled_version", "hip_runtime_version",
    "miopen_runtime_version", "caching_allocator_config", "is_xnnpack_available", "cpu_info"]

BASE = dict(
    torch_version="0.1.0", is_debug_build="False", cuda_compiled_version=None, gcc_version="(GCC) 12",
    clang_version=None, cmake_version="version 3.1", os="Linux (x86_64)", libc_version="glibc-2.36",
    python_version="3.11.7 (64-bit runtime)", python_platform="Linux-x", is_cuda_available="False",
    cuda_runtime_version=None, cuda_module_loading="N/A", nvidia_driver_version=None, nvidia_gpu_models=None,
    cudnn_version=None, is_xpu_available="False", pip_version="pip3", pip_packages="numpy==2.0\ntorch==1.0",
    conda_packages=None, hip_compiled_version="N/A", hip_runtime_version="N/A", miopen_runtime_version="N/A",
    caching_allocator_config={}, is_xnnpack_available="False", cpu_info="Model name: X")


def test_runs_as_a_module_and_prints_the_key_lines():
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "torch.utils.collect_env"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""     # (PyTorch's own run warns from runpy; Ember's lazy torch.utils does not)
    lines = done.stdout.splitlines()
    assert lines[0] == "Collecting environment information..."
    assert lines[1] == f"PyTorch version: {torch.__version__}"
    assert lines[2] == "Is debug build: False"
    assert lines[3].startswith("CUDA used to build PyTorch: ")
    assert lines[4] == "ROCM used to build PyTorch: N/A"
    for prefix in ("OS: ", "GCC version: ", "Clang version: ", "CMake version: ", "Libc version: ",
                   "Python platform: ", "Is CUDA available: ", "CUDA runtime version: ", "cuDNN version: ",
                   "Is XPU available: False", "Is XNNPACK available: False", "Caching allocator config: "):
        assert sum(line.startswith(prefix) for line in lines) == 1, prefix
    python = sys.version.replace("\n", " ")
    assert f"Python version: {python} (64-bit runtime)" in lines
    assert "CPU:" in lines and "Versions of relevant libraries:" in lines
    assert f"[pip3] numpy=={np.__version__}" in lines
    assert any(line.startswith("[conda] ") for line in lines)
    assert elapsed < 30     # a couple of seconds on an idle machine; generous for a loaded one


def test_get_env_info_has_pytorchs_fields_and_ember_facts():
    started = time.perf_counter()
    info = collect_env.get_env_info()
    assert time.perf_counter() - started < 20
    assert isinstance(info, collect_env.SystemEnv)
    assert list(info._fields) == PYTORCH_FIELDS
    assert info.torch_version == torch.__version__
    assert info.is_debug_build == "False"
    assert info.is_cuda_available == str(torch.cuda.is_available())
    assert info.hip_compiled_version == info.hip_runtime_version == info.miopen_runtime_version == "N/A"
    assert info.python_platform and info.libc_version
    assert info.pip_version == "pip3"
    assert f"numpy=={np.__version__}" in info.pip_packages.splitlines()


def test_pretty_str_matches_pytorchs_layout_without_cuda():
    text = collect_env.pretty_str(collect_env.SystemEnv(**BASE))
    assert text == (
        'PyTorch version: 0.1.0\nIs debug build: False\nCUDA used to build PyTorch: None\n'
        'ROCM used to build PyTorch: N/A\n\nOS: Linux (x86_64)\nGCC version: (GCC) 12\n'
        'Clang version: Could not collect\nCMake version: version 3.1\nLibc version: glibc-2.36\n\n'
        'Python version: 3.11.7 (64-bit runtime)\nPython platform: Linux-x\nIs CUDA available: False\n'
        'CUDA runtime version: No CUDA\nCUDA_MODULE_LOADING set to: N/A\nGPU models and configuration: No CUDA\n'
        'Nvidia driver version: No CUDA\ncuDNN version: No CUDA\nIs XPU available: False\n'
        'HIP runtime version: N/A\nMIOpen runtime version: N/A\nIs XNNPACK available: False\n'
        'Caching allocator config: N/A\n\nCPU:\nModel name: X\n\nVersions of relevant libraries:\n'
        '[pip3] numpy==2.0\n[pip3] torch==1.0\n[conda] Could not collect')


def test_pretty_str_with_cuda_tools_multiline_gpus_and_empty_package_lists():
    env = collect_env.SystemEnv(**dict(
        BASE, cuda_runtime_version="13.0.88", nvidia_gpu_models="GPU 0: H100\nGPU 1: H100", pip_packages="",
        conda_packages="", caching_allocator_config={"PYTORCH_CUDA_ALLOC_CONF": "x"}, is_debug_build=True))
    assert collect_env.pretty_str(env) == (
        "PyTorch version: 0.1.0\nIs debug build: Yes\nCUDA used to build PyTorch: Could not collect\n"
        "ROCM used to build PyTorch: N/A\n\nOS: Linux (x86_64)\nGCC version: (GCC) 12\n"
        "Clang version: Could not collect\nCMake version: version 3.1\nLibc version: glibc-2.36\n\n"
        "Python version: 3.11.7 (64-bit runtime)\nPython platform: Linux-x\nIs CUDA available: False\n"
        "CUDA runtime version: 13.0.88\nCUDA_MODULE_LOADING set to: N/A\nGPU models and configuration: \n"
        "GPU 0: H100\nGPU 1: H100\n\nNvidia driver version: Could not collect\ncuDNN version: Could not collect\n"
        "Is XPU available: False\nHIP runtime version: N/A\nMIOpen runtime version: N/A\n"
        "Is XNNPACK available: False\nCaching allocator config: {'PYTORCH_CUDA_ALLOC_CONF': 'x'}\n\n"
        "CPU:\nModel name: X\n\nVersions of relevant libraries:\n[pip3] No relevant packages\n"
        "[conda] No relevant packages")


def test_get_pretty_env_info_and_main(capsys):
    collect_env.main()
    out = capsys.readouterr().out
    assert out.startswith("Collecting environment information...\nPyTorch version: ")
    assert "\nVersions of relevant libraries:\n" in out
    assert collect_env.get_pretty_env_info().startswith(f"PyTorch version: {torch.__version__}\n")


def test_probes_time_out_and_missing_programs_are_not_collected(monkeypatch):
    assert collect_env.run(["ember-no-such-program-xyz", "--version"])[0] == 127
    monkeypatch.setattr(collect_env, "TIMEOUT_S", 0.2)
    started = time.perf_counter()
    rc, _, err = collect_env.run([sys.executable, "-c", "import time; time.sleep(5)"])
    assert rc == 124 and "timed out" in err
    assert time.perf_counter() - started < 3
    rc, out, _ = collect_env.run([sys.executable, "-c", "print('gcc (Debian 12.2.0) 12.2.0')"])
    assert rc == 0 and collect_env._first_match((rc, out, ""), r"gcc (.*)") == "(Debian 12.2.0) 12.2.0"


def test_pip_packages_are_pip_freeze_lines_filtered_by_pattern():
    version, lines = collect_env.get_pip_packages(["numpy"])
    assert version == "pip3"
    assert f"numpy=={np.__version__}" in lines.splitlines()
    assert all("numpy" in line for line in lines.splitlines())
    assert collect_env.get_pip_packages(["ember-no-such-package-xyz"]) == ("pip3", "")


def test_torch_version_is_the_distribution_version():
    with open(ROOT / "pyproject.toml", "rb") as f:
        assert torch.__version__ == tomllib.load(f)["project"]["version"]
    assert isinstance(torch.__version__, str)
    assert torch.version.__version__ == torch.__version__
    assert torch.version.debug is False and torch.version.cuda is None and torch.version.hip is None


def test_importing_torch_does_not_load_collect_env():
    code = "import sys, torch; print('torch.utils.collect_env' in sys.modules, 'subprocess' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "False"
