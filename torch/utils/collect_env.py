"""Environment report for bug reports, in PyTorch's layout: `python -m torch.utils.collect_env`.

The fields are PyTorch's (`SystemEnv`); the ones Ember cannot know (ROCm, XPU, MIOpen) read
"N/A", and a probe that fails reads "Could not collect". Every outside program runs with a short
timeout and all of them run at once, so the report takes about as long as the slowest probe.
Installed packages come from the package metadata (importlib.metadata) rather than a `pip list`
subprocess, which alone would take a second or more; the lines are pip's `name==version`.
"""
from __future__ import annotations

import os
import re
import sys
from collections import namedtuple
from typing import Any

SystemEnv = namedtuple("SystemEnv", [
    "torch_version", "is_debug_build", "cuda_compiled_version", "gcc_version", "clang_version", "cmake_version",
    "os", "libc_version", "python_version", "python_platform", "is_cuda_available", "cuda_runtime_version",
    "cuda_module_loading", "nvidia_driver_version", "nvidia_gpu_models", "cudnn_version", "is_xpu_available",
    "pip_version", "pip_packages", "conda_packages", "hip_compiled_version", "hip_runtime_version",
    "miopen_runtime_version", "caching_allocator_config", "is_xnnpack_available", "cpu_info",
])

# Substrings that select the packages worth reporting (PyTorch's lists, plus what Ember builds and runs with).
PIP_PATTERNS = ["mypy", "flake8", "onnx", "torch", "numpy", "triton", "optree", "Cython", "pycuda",
                "cuda-cudart", "cuda-runtime", "cublas", "cudnn", "cufft", "curand", "cusolver", "cusparse",
                "nccl", "nvjitlink", "nvtx", "mkl", "intel-openmp", "tbb"]
CONDA_PATTERNS = ["cudatoolkit", "soumith", "mkl", "magma", "torch", "numpy", "triton", "optree", "pycuda"]

TIMEOUT_S = 3.0


def run(command: list[str]) -> tuple[int, str, str]:
    """(return code, stdout, stderr) of a program; a missing program or a timeout is return code 127 / 124."""
    import shutil
    import subprocess

    if shutil.which(command[0]) is None:
        return 127, "", f"{command[0]}: command not found"
    try:
        done = subprocess.run(command, capture_output=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return 124, "", f"{command[0]} timed out after {TIMEOUT_S} s"
    except OSError as error:
        return 126, "", str(error)
    return (done.returncode, done.stdout.decode(errors="replace").strip(),
            done.stderr.decode(errors="replace").strip())


def _first_match(result: tuple[int, str, str], regex: str) -> str | None:
    rc, out, _ = result
    if rc != 0:
        return None
    match = re.search(regex, out)
    return match.group(1) if match else None


def get_platform() -> str:
    for name in ("linux", "win32", "cygwin", "darwin"):
        if sys.platform.startswith(name):
            return name
    return sys.platform


def get_python_platform() -> str:
    import platform
    return platform.platform()


def get_libc_version() -> str:
    import platform
    if get_platform() != "linux":
        return "N/A"
    return "-".join(platform.libc_ver())


def _os_name(lsb: tuple[int, str, str]) -> str | None:
    from platform import machine

    platform = get_platform()
    if platform == "darwin":
        import platform as _platform
        version = _platform.mac_ver()[0]
        return f"macOS {version} ({machine()})" if version else None
    if platform in ("win32", "cygwin"):
        import platform as _platform
        return f"{_platform.system()} {_platform.release()} ({_platform.version()} {machine()})"
    if platform == "linux":
        description = _first_match(lsb, r"Description:\t(.*)")
        if description is None:
            description = _release_file_name()
        return f"{description or platform} ({machine()})"
    return platform


def _release_file_name() -> str | None:
    import glob
    for path in sorted(glob.glob("/etc/*-release")):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                match = re.search(r'PRETTY_NAME="(.*)"', f.read())
        except OSError:
            continue
        if match:
            return match.group(1)
    return None


def _cudnn_version(ldconfig: tuple[int, str, str]) -> str | None:
    rc, out, _ = ldconfig
    files = set()
    if rc == 0:
        for line in out.splitlines():
            if "libcudnn" in line:
                path = os.path.realpath(line.rsplit(" ", 1)[-1])
                if os.path.isfile(path):
                    files.add(path)
    if not files:
        library = os.environ.get("CUDNN_LIBRARY")
        return os.path.realpath(library) if library and os.path.isfile(library) else None
    if len(files) == 1:
        return files.pop()
    return "Probably one of the following:\n" + "\n".join(sorted(files))


def _gpu_models(smi_list: tuple[int, str, str]) -> str | None:
    rc, out, _ = smi_list
    if rc != 0:
        return None
    return re.sub(r" \(UUID: .+?\)", "", out)   # anonymised, as PyTorch does


def get_pip_packages(patterns: list[str] | None = None) -> tuple[str, str | None]:
    """("pip3", the installed distributions matching `patterns` as `name==version` lines, sorted like pip)."""
    import importlib.metadata

    patterns = PIP_PATTERNS if patterns is None else patterns
    try:
        found = {}
        for dist in importlib.metadata.distributions():
            name = dist.metadata["Name"]
            if name and name.lower() not in found:
                found[name.lower()] = f"{name}=={dist.version}"
    except Exception:
        return "pip3", None
    lines = [found[key] for key in sorted(found) if any(pattern in found[key] for pattern in patterns)]
    return "pip3", "\n".join(lines)


def _conda_packages(conda_list: tuple[int, str, str] | None) -> str | None:
    if conda_list is None or conda_list[0] != 0:
        return None
    return "\n".join(line for line in conda_list[1].splitlines()
                     if not line.startswith("#") and any(name in line for name in CONDA_PATTERNS))


def _caching_allocator_config() -> dict[str, str]:
    names = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF")
    return {name: os.environ[name] for name in names if os.environ.get(name)}


def _torch_facts() -> tuple[str, str, str, Any]:
    """(version, debug build, CUDA available, CUDA compiled version) of the torch being reported."""
    try:
        import torch
        import torch.version
    except Exception:   # the report must still come out when torch itself is broken
        return "N/A", "N/A", "N/A", "N/A"
    try:
        cuda_available = str(torch.cuda.is_available())
    except Exception:
        cuda_available = "False"
    return torch.__version__, str(torch.version.debug), cuda_available, torch.version.cuda


def get_env_info() -> SystemEnv:
    """Collects the environment: versions of torch, compilers, OS, Python, CUDA, CPU and packages."""
    from concurrent.futures import ThreadPoolExecutor

    probes: dict[str, list[str]] = {
        "gcc": ["gcc", "--version"], "clang": ["clang", "--version"], "cmake": ["cmake", "--version"],
        "nvcc": ["nvcc", "--version"], "smi": ["nvidia-smi"], "smi_list": ["nvidia-smi", "-L"],
        "lsb": ["lsb_release", "-a"], "ldconfig": ["ldconfig", "-p"],
    }
    if get_platform() == "linux":
        probes["cpu"] = ["lscpu"]
    elif get_platform() == "darwin":
        probes["cpu"] = ["sysctl", "-n", "machdep.cpu.brand_string"]
    conda = os.environ.get("CONDA_EXE", "conda")
    probes["conda"] = [conda, "list"]

    with ThreadPoolExecutor(max_workers=len(probes) + 1) as pool:
        futures = {name: pool.submit(run, command) for name, command in probes.items()}
        torch_future = pool.submit(_torch_facts)
        results = {name: future.result() for name, future in futures.items()}
        version, debug, cuda_available, cuda_compiled = torch_future.result()

    rc, out, err = results.get("cpu", (0, "None", ""))
    cpu_info = out if rc == 0 else err
    pip_version, pip_packages = get_pip_packages()
    loading = os.environ.get("CUDA_MODULE_LOADING", "") if cuda_available == "True" else "N/A"
    return SystemEnv(
        torch_version=version,
        is_debug_build=debug,
        cuda_compiled_version=cuda_compiled,
        gcc_version=_first_match(results["gcc"], r"gcc (.*)"),
        clang_version=_first_match(results["clang"], r"clang version (.*)"),
        cmake_version=_first_match(results["cmake"], r"cmake (.*)"),
        os=_os_name(results["lsb"]),
        libc_version=get_libc_version(),
        python_version="{} ({}-bit runtime)".format(sys.version.replace("\n", " "), sys.maxsize.bit_length() + 1),
        python_platform=get_python_platform(),
        is_cuda_available=cuda_available,
        cuda_runtime_version=_first_match(results["nvcc"], r"release .+ V(.*)"),
        cuda_module_loading=loading,
        nvidia_driver_version=_first_match(results["smi"], r"Driver Version: (.*?) "),
        nvidia_gpu_models=_gpu_models(results["smi_list"]),
        cudnn_version=_cudnn_version(results["ldconfig"]),
        is_xpu_available="False",
        pip_version=pip_version,
        pip_packages=pip_packages,
        conda_packages=_conda_packages(results["conda"] if results["conda"][0] != 127 else None),
        hip_compiled_version="N/A",
        hip_runtime_version="N/A",
        miopen_runtime_version="N/A",
        caching_allocator_config=_caching_allocator_config(),
        is_xnnpack_available="False",
        cpu_info=cpu_info,
    )


env_info_fmt = """
PyTorch version: {torch_version}
Is debug build: {is_debug_build}
CUDA used to build PyTorch: {cuda_compiled_version}
ROCM used to build PyTorch: {hip_compiled_version}

OS: {os}
GCC version: {gcc_version}
Clang version: {clang_version}
CMake version: {cmake_version}
Libc version: {libc_version}

Python version: {python_version}
Python platform: {python_platform}
Is CUDA available: {is_cuda_available}
CUDA runtime version: {cuda_runtime_version}
CUDA_MODULE_LOADING set to: {cuda_module_loading}
GPU models and configuration: {nvidia_gpu_models}
Nvidia driver version: {nvidia_driver_version}
cuDNN version: {cudnn_version}
Is XPU available: {is_xpu_available}
HIP runtime version: {hip_runtime_version}
MIOpen runtime version: {miopen_runtime_version}
Is XNNPACK available: {is_xnnpack_available}
Caching allocator config: {caching_allocator_config}

CPU:
{cpu_info}

Versions of relevant libraries:
{pip_packages}
{conda_packages}
""".strip()


def pretty_str(envinfo: SystemEnv) -> str:
    """The report text: None reads "Could not collect", booleans Yes/No, package lines tagged [pip3]/[conda]."""
    fields = envinfo._asdict()
    models = envinfo.nvidia_gpu_models
    if models is not None and "\n" in models:
        fields["nvidia_gpu_models"] = f"\n{models}\n"
    dynamic = ("cuda_runtime_version", "nvidia_gpu_models", "nvidia_driver_version")
    if envinfo.is_cuda_available == "False" and all(fields[name] is None for name in dynamic):
        for name in (*dynamic, "cudnn_version"):
            fields[name] = "No CUDA"
        if envinfo.cuda_compiled_version is None:
            fields["cuda_compiled_version"] = "None"
    for name, value in fields.items():
        if value is True or value is False:
            fields[name] = "Yes" if value else "No"
        elif value is None:
            fields[name] = "Could not collect"
    for name, tag in (("pip_packages", f"[{envinfo.pip_version}] "), ("conda_packages", "[conda] ")):
        text = fields[name]
        if text == "":
            text = "No relevant packages"
        fields[name] = "\n".join(tag + line for line in text.split("\n"))
    fields["cpu_info"] = envinfo.cpu_info
    fields["caching_allocator_config"] = envinfo.caching_allocator_config or "N/A"
    return env_info_fmt.format(**fields)


def get_pretty_env_info() -> str:
    """The environment report as text (what `python -m torch.utils.collect_env` prints)."""
    return pretty_str(get_env_info())


def main() -> None:
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
