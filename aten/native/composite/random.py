"""Random factories and dropout, written over the random in-place operators (as PyTorch's).

rand, randn, randint, randperm and normal.float_float make an empty tensor and fill it with
uniform_, normal_ or random_ (TensorFactories.cpp); dropout is PyTorch's CPU _dropout: a
bernoulli(1 - p) mask like the input, divided by 1 - p, times the input (Dropout.cpp).
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.pointwise_meta import output_cast_error
from c10 import scalar_type

_empty = find_operator("empty.memory_format")
_uniform_ = find_operator("uniform_")
_normal_ = find_operator("normal_")
_random_from = find_operator("random_.from")
_randperm_generator = find_operator("randperm.generator")
_bernoulli_ = find_operator("bernoulli_.float")
_mul = find_operator("mul.Tensor")
_div = find_operator("div.Tensor")
_zeros = find_operator("zeros")

_INT64 = scalar_type.dtype_from_name("int64")


def _new(size: Any, dtype: Any, layout: Any, device: Any, pin_memory: Any) -> Any:
    return _empty(size, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def rand(size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return rand_generator(size, None, dtype, layout, device, pin_memory)


def rand_generator(size: Any, generator: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                   pin_memory: Any = None) -> Any:
    return _uniform_(_new(size, dtype, layout, device, pin_memory), 0.0, 1.0, generator=generator)


def randn(size: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return randn_generator(size, None, dtype, layout, device, pin_memory)


def randn_generator(size: Any, generator: Any, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None) -> Any:
    return _normal_(_new(size, dtype, layout, device, pin_memory), 0.0, 1.0, generator=generator)


def normal_float_float(mean: float, std: float, size: Any, generator: Any = None, dtype: Any = None,
                       layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _normal_(_new(size, dtype, layout, device, pin_memory), mean, std, generator=generator)


def randint(high: int, size: Any, dtype: Any = _INT64, layout: Any = None, device: Any = None,
            pin_memory: Any = None) -> Any:
    return randint_low_generator(0, high, size, None, dtype, layout, device, pin_memory)


def randint_generator(high: int, size: Any, generator: Any, dtype: Any = _INT64, layout: Any = None,
                      device: Any = None, pin_memory: Any = None) -> Any:
    return randint_low_generator(0, high, size, generator, dtype, layout, device, pin_memory)


def randint_low(low: int, high: int, size: Any, dtype: Any = _INT64, layout: Any = None, device: Any = None,
                pin_memory: Any = None) -> Any:
    return randint_low_generator(low, high, size, None, dtype, layout, device, pin_memory)


def randint_low_generator(low: int, high: int, size: Any, generator: Any, dtype: Any = _INT64, layout: Any = None,
                          device: Any = None, pin_memory: Any = None) -> Any:
    out = _new(size, _INT64 if dtype is None else dtype, layout, device, pin_memory)
    return _random_from(out, low, high, generator=generator)


def randperm(n: int, dtype: Any = _INT64, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _randperm_generator(n, generator=None, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)


def dropout(input: Any, p: float, train: bool) -> Any:
    """PyTorch's CPU dropout: input itself when p == 0, not training or empty."""
    if not (0 <= p <= 1):
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        return _mul(input, _zeros((), dtype=input.dtype, device=input.device))
    # noise = empty_like(input): its layout, so bernoulli_ fills it in the input's memory order
    if input.device.type == "cpu":
        from aten.native.cpu.random import empty_like_preserving
        noise = empty_like_preserving(input)
    else:
        noise = _empty(input.shape, dtype=input.dtype, device=input.device)
    noise = _bernoulli_(noise, 1 - p)
    if not input.dtype.is_floating_point:     # noise.div_(1 - p) cannot write a float into it
        raise output_cast_error("Float", input.dtype.type_name)
    return _mul(input, _div(noise, 1 - p))
