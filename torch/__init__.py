"""Ember: PyTorch's API over Cython CPU kernels and PyCUDA GPU kernels.

Kept small and lazy: `torch.<op>` functions are imported from their generated binding module
on first use (PEP 562), and so are the `cuda` and `ops` submodules.
"""
from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING
from typing import Any as _Any

from torch.torch_version import __version__   # "2.13.0+ember", comparing as a version (TorchVersion)

from c10.device import device
from c10.layout import channels_last, contiguous_format, layout, memory_format, preserve_format, strided
from c10.scalar_type import DTYPE_NAMES as _DTYPE_NAMES
from c10.scalar_type import dtype, get_default_dtype, promote_types, set_default_dtype
import aten._gen_registrations  # noqa: F401  (defines every operator; kernels load on first call)
import torch.csrc.autograd._gen_registrations  # noqa: F401  (autograd kernels, loaded on first call too)
from torch._C import _gen_index
from torch._creation import as_tensor, from_numpy, is_tensor, tensor
from torch._size import Size
from torch._tensor import Tensor

globals().update(_DTYPE_NAMES)   # torch.float32, torch.float, torch.int64, torch.long, torch.bool ...

_AUTOCAST_STATE = ("is_autocast_enabled", "set_autocast_enabled", "get_autocast_dtype", "set_autocast_dtype",
                   "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
                   "autocast_increment_nesting", "autocast_decrement_nesting", "is_autocast_cpu_enabled",
                   "set_autocast_cpu_enabled", "get_autocast_cpu_dtype", "set_autocast_cpu_dtype",
                   "get_autocast_gpu_dtype", "set_autocast_gpu_dtype")
_CONTEXT = ("use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
            "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
            "get_deterministic_debug_mode", "set_float32_matmul_precision", "get_float32_matmul_precision",
            "set_default_device", "get_default_device")
_LEGACY_TYPES = ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
                 "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor")

# Python-level functions that take the place of the generated binding of the same name.
PYTHON_FUNCTIONS = dict.fromkeys(("atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes",
                                  "broadcast_tensors", "cartesian_prod", "cdist", "einsum", "meshgrid", "nonzero",
                                  "norm", "numel", "split", "tensordot", "unique", "unique_consecutive", "_assert"),
                                 "torch.functional")

if TYPE_CHECKING:
    # Types only (mypy, IDEs): what __getattr__ and DTYPE_NAMES give at run time. The generated
    # functions' stubs are build output (torchgen/templates/stubs_functions.pyi.j2). The dtype
    # names below shadow builtins here: annotations in this file must not use int, float or bool.
    from torch._C._gen_variable_functions import *  # noqa: F403
    from torch.functional import (broadcast_shapes, broadcast_tensors, einsum, nonzero, norm, numel, split, unique,
                                  unique_consecutive)
    from torch.random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed,
                              set_rng_state)
    from torch._creation import asarray, frombuffer, result_type
    from torch._context import (are_deterministic_algorithms_enabled, get_default_device,
                                get_deterministic_debug_mode, get_float32_matmul_precision,
                                is_deterministic_algorithms_warn_only_enabled, set_default_device,
                                set_deterministic_debug_mode, set_float32_matmul_precision,
                                use_deterministic_algorithms)
    from torch._legacy import tensortype as _tensortype
    from torch._tensor_str import set_printoptions
    from torch.storage import UntypedStorage
    from torch.serialization import load, save
    from torch.utils.dlpack import from_dlpack
    from torch.autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                          is_inference_mode_enabled, no_grad, set_grad_enabled)
    from torch.autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
    from c10.scalar_type import can_cast
    from torch._type_info import finfo, iinfo
    from torch.amp import GradScaler, autocast
    from aten.autocast_mode import (autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache,
                                    get_autocast_cpu_dtype, get_autocast_dtype, get_autocast_gpu_dtype,
                                    is_autocast_cache_enabled, is_autocast_cpu_enabled, is_autocast_enabled,
                                    set_autocast_cache_enabled, set_autocast_cpu_dtype, set_autocast_cpu_enabled,
                                    set_autocast_dtype, set_autocast_enabled, set_autocast_gpu_dtype)
    from aten.native.cpu.loops import (get_num_interop_threads, get_num_threads, set_num_interop_threads,
                                       set_num_threads)
    # not cuda nor accelerator (torch._C and torch.cuda stay apart), nor optim (torch.optim and
    # torch.utils.data must not know each other, and import-linter follows torch's imports)
    from torch import (amp, autograd, backends, compiler, cpu, distributed, fft, futures, hub, jit, library,
                       linalg, multiprocessing, nn, onnx, profiler, random, return_types, serialization, special,
                       testing, utils, version)
    from torch._ops import ops

    uint8: dtype
    int8: dtype
    int16: dtype
    short: dtype
    int32: dtype
    int: dtype
    int64: dtype
    long: dtype
    float16: dtype
    half: dtype
    float32: dtype
    float: dtype
    float64: dtype
    double: dtype
    bfloat16: dtype
    float8_e5m2: dtype
    float8_e4m3fn: dtype
    float8_e5m2fnuz: dtype
    float8_e4m3fnuz: dtype
    complex32: dtype
    chalf: dtype
    complex64: dtype
    cfloat: dtype
    complex128: dtype
    cdouble: dtype
    uint16: dtype
    uint32: dtype
    uint64: dtype
    bool: dtype
    FloatTensor: _tensortype
    DoubleTensor: _tensortype
    HalfTensor: _tensortype
    BFloat16Tensor: _tensortype
    LongTensor: _tensortype
    IntTensor: _tensortype
    ShortTensor: _tensortype
    CharTensor: _tensortype
    ByteTensor: _tensortype
    BoolTensor: _tensortype

# The public names (PyTorch's rule: what __all__ lists); submodules are reached as attributes.
__all__ = sorted({
    "Size", "Tensor", "UntypedStorage", "as_tensor", "channels_last", "contiguous_format", "device", "dtype",
    "from_dlpack", "from_numpy", "get_default_dtype", "get_num_threads", "is_tensor", "layout", "memory_format",
    "preserve_format", "promote_types", "result_type", "can_cast", "set_default_dtype", "set_num_threads",
    "set_printoptions", "strided", "tensor", "Generator", "default_generator", "get_rng_state", "initial_seed",
    "manual_seed", "seed", "set_rng_state", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
    "is_grad_enabled", "is_inference_mode_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "save", "load", "OutOfMemoryError", "get_num_interop_threads", "set_num_interop_threads", "finfo", "iinfo",
    "autocast", "GradScaler", "asarray", "frombuffer", "compile", "PyTorchFileReader", "ScriptModule",
    *_AUTOCAST_STATE, *_CONTEXT,
    *_LEGACY_TYPES, *_DTYPE_NAMES, *_gen_index.FUNCTIONS, *PYTHON_FUNCTIONS})

_SUBMODULES = {"cuda": "torch.cuda", "ops": "torch._ops", "linalg": "torch.linalg", "special": "torch.special",
               "fft": "torch.fft",
               "return_types": "torch.return_types", "random": "torch.random", "testing": "torch.testing",
               "utils": "torch.utils", "library": "torch.library", "version": "torch.version",
               "autograd": "torch.autograd", "nn": "torch.nn", "optim": "torch.optim",
               "serialization": "torch.serialization", "amp": "torch.amp", "cpu": "torch.cpu",
               "torch_version": "torch.torch_version", "__config__": "torch.__config__",
               "compiler": "torch.compiler", "onnx": "torch.onnx", "distributed": "torch.distributed",
               "futures": "torch.futures",
               "jit": "torch.jit", "backends": "torch.backends", "accelerator": "torch.accelerator",
               "profiler": "torch.profiler", "multiprocessing": "torch.multiprocessing", "hub": "torch.hub",
               "distributions": "torch.distributions", "_dynamo": "torch._dynamo",
               "_inductor": "torch._inductor", "_logging": "torch._logging", "func": "torch.func", "fx": "torch.fx"}
_HELPERS = {**dict.fromkeys(("get_num_threads", "set_num_threads", "get_num_interop_threads",
                             "set_num_interop_threads"), "aten.native.cpu.loops"),
            "result_type": "torch._creation", "asarray": "torch._creation", "frombuffer": "torch._creation", "can_cast": "c10.scalar_type",
            **dict.fromkeys(_CONTEXT, "torch._context"),
            "finfo": "torch._type_info", "iinfo": "torch._type_info",
            **dict.fromkeys(("Generator", "default_generator", "get_rng_state", "initial_seed", "manual_seed",
                             "seed", "set_rng_state"), "torch.random"),
            "from_dlpack": "torch.utils.dlpack", "set_printoptions": "torch._tensor_str",
            "UntypedStorage": "torch.storage", "OutOfMemoryError": "c10.cuda.caching_allocator",
            "save": "torch.serialization", "load": "torch.serialization",
            "PyTorchFileReader": "torch.serialization",
            "compile": "torch.compiler", "vmap": "torch.func",
            "ScriptModule": "torch._C",
            **dict.fromkeys(("no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
                             "is_inference_mode_enabled"), "torch.autograd.grad_mode"),
            **dict.fromkeys(("is_anomaly_enabled", "is_anomaly_check_nan_enabled"), "torch.autograd.anomaly_mode"),
            "autocast": "torch.amp.autocast_mode", "GradScaler": "torch.amp.grad_scaler",
            **dict.fromkeys(_AUTOCAST_STATE, "aten.autocast_mode")}

def __getattr__(name: str) -> _Any:
    module = PYTHON_FUNCTIONS.get(name) or _gen_index.FUNCTIONS.get(name)
    if module is not None:
        value = getattr(_importlib.import_module(module), name)
    elif name in _SUBMODULES:
        value = _importlib.import_module(_SUBMODULES[name])
        if name == "ops":
            value = value.ops
    elif name in _LEGACY_TYPES:
        from torch._legacy import TYPED_CONSTRUCTORS
        value = TYPED_CONSTRUCTORS[name]
    elif name in _HELPERS:
        value = getattr(_importlib.import_module(_HELPERS[name]), name)
    else:
        raise AttributeError(f"module 'torch' has no attribute '{name}'")
    globals()[name] = value
    return value


def _vmap_rows(fn: _Any, *rows: _Any) -> _Any:
    """torch.autograd.grad(is_grads_batched=True)'s vmap (torch.autograd sits below torch.func)."""
    return __getattr__("func").vmap(fn)(*rows)


def _install_transform_hooks() -> None:
    """What the layers below torch.func and torch._indexing_dispatched reach them through."""
    from torch.autograd import _backward     # (loaded already: tensors' indexing records through it)
    from torch.csrc.autograd import forward_grad
    _backward.install_vmap(_vmap_rows)
    # indexing a dual tensor reaches its tangent formulas as operator calls
    forward_grad.install_before_first_level(_load_dispatched_indexing)


def _load_dispatched_indexing() -> None:
    _importlib.import_module("torch._indexing_dispatched")


_install_transform_hooks()


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_gen_index.FUNCTIONS) | set(PYTHON_FUNCTIONS) | set(_SUBMODULES)
                  | set(_HELPERS) | set(_LEGACY_TYPES))
