"""float16 on CUDA kernels that have no half code of their own: they run on float32 copies and
round once, as PyTorch's CUDA kernels compute half in float (opmath)."""
from __future__ import annotations

from typing import Any, Callable

from aten.native.cuda.runtime.transfer import to_device
from c10 import scalar_type

_HALF = scalar_type.dtype_from_name("float16")
_FLOAT = scalar_type.dtype_from_name("float32")


def float16_via_float32(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator for a CUDA kernel without float16 code (GEMM, reductions, softmax, norms, pools,
    convolution): a call whose floating tensors are all float16 runs on float32 copies, and its
    float32 results round to float16, as PyTorch's CUDA kernels compute half in float (opmath).
    A dtype argument of float16 becomes float32 for the call (whatever the inputs), the results
    rounding to float16; one naming another dtype keeps the results as they come. Only for
    functional kernels: nothing is written back."""
    def floating(v: Any) -> list[Any]:
        if isinstance(v, (tuple, list)):
            return [t for item in v for t in floating(item)]
        return [v] if hasattr(v, "is_cuda") and v.dtype.is_floating_point else []

    def widen(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return type(v)(widen(item) for item in v)
        if v is _HALF:
            return _FLOAT
        # CPU operands stay as they are, for the kernel's own device check
        return to_device(v, _FLOAT) if hasattr(v, "is_cuda") and v.is_cuda and v.dtype is _HALF else v

    def narrow(v: Any) -> Any:
        if isinstance(v, (tuple, list)):
            return type(v)(narrow(item) for item in v)
        return to_device(v, _HALF) if hasattr(v, "is_cuda") and v.dtype is _FLOAT else v

    def run(*args: Any, **kwargs: Any) -> Any:
        values = list(args) + list(kwargs.values())
        tensors = floating(values)
        asks_half = any(v is _HALF for v in values)
        if not asks_half and (not tensors or any(t.dtype is not _HALF for t in tensors)):
            return kernel(*args, **kwargs)
        keep = any(isinstance(v, scalar_type.dtype) and v is not _HALF for v in values)
        result = kernel(*widen(args), **{k: widen(v) for k, v in kwargs.items()})
        return result if keep else narrow(result)

    run.__name__ = getattr(kernel, "__name__", "kernel")
    run.__doc__ = kernel.__doc__
    run.__wrapped__ = kernel        # type: ignore[attr-defined]
    return run
