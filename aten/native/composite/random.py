"""Random factories and dropout, written over the random in-place operators (as PyTorch's).

rand, randn, randint, randperm and normal.float_float make an empty tensor and fill it with
uniform_, normal_ or random_ (TensorFactories.cpp); dropout is PyTorch's CPU _dropout: a
bernoulli(1 - p) mask like the input, divided by 1 - p, times the input (Dropout.cpp); rrelu
draws a slope for each non-positive element, in order, as PyTorch's CPU rrelu_with_noise.
"""
from __future__ import annotations

import struct
from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.errors import output_cast_error
from aten.native.meta.tensor_options import empty_like_on
from c10.layout import contiguous_format
from c10 import scalar_type

_empty = find_operator("empty.memory_format")
_empty_like = find_operator("empty_like")
_uniform_ = find_operator("uniform_")
_normal_ = find_operator("normal_")
_random_from = find_operator("random_.from")
_randperm_generator = find_operator("randperm.generator")
_bernoulli_ = find_operator("bernoulli_.float")
_mul = find_operator("mul.Tensor")
_div = find_operator("div.Tensor")
_zeros = find_operator("zeros")
_ones = find_operator("ones")
_le = find_operator("le.Tensor")
_count_nonzero = find_operator("count_nonzero")
_index_put_ = find_operator("index_put_")
_leaky_relu = find_operator("leaky_relu")
_leaky_relu_ = find_operator("leaky_relu_")
_to_dtype = find_operator("to.dtype")
_copy_ = find_operator("copy_")
_FLOAT64 = scalar_type.dtype_from_name("float64")
_FLOAT32 = scalar_type.dtype_from_name("float32")

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


_SELU_ALPHA = 1.7580993408473766      # alpha_dropout's: -scale * alpha of SELU


def _dropout(input: Any, p: float, train: bool, feature: bool, alpha: bool) -> Any:
    """PyTorch's dropout family (_dropout_impl): input itself when p == 0, not training or empty;
    the noise drawn per element, or per (sample, channel) for the feature variants; alpha dropout
    keeps the mean and variance of SELU activations (dropped entries go to its negative saturation)."""
    if not (0 <= p <= 1):
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    if p == 0 or not train or input.numel() == 0:
        return input
    if p == 1:
        zero = _zeros((), dtype=input.dtype, device=input.device)
        return _mul(input, zero)
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
        if input._is_batched():       # vmap's: a noise per example, one value per (sample, channel)
            noise = _empty_like(input)
            for d in range(2, input.dim()):
                noise = noise.narrow(d, 0, 1)
        else:
            noise = _empty(shape, dtype=input.dtype, device=input.device)
    elif input._is_batched():       # vmap's (a composite's parts under forward AD): a noise per example
        noise = _empty_like(input)
    elif input.device.type == "cpu":
        # empty_like(input): its layout, so bernoulli_ fills it in the input's memory order
        noise = empty_like_on(input, memory_format=contiguous_format if input.is_contiguous() else None)
    else:
        noise = _empty(input.shape, dtype=input.dtype, device=input.device)
    noise = _bernoulli_(noise, 1 - p)
    if not input.dtype.is_floating_point:     # noise.div_(1 - p) cannot write a float into it
        raise output_cast_error("Float", input.dtype.type_name)
    if not alpha:
        noise = noise.div_(1 - p)
        return _mul(input, noise)
    a = 1.0 / ((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p)) ** 0.5
    shift = noise.add(-1).mul_(_SELU_ALPHA * a).add_(_SELU_ALPHA * a * p)
    noise = noise.mul_(a)
    return _mul(input, noise).add_(shift)


def dropout(input: Any, p: float, train: bool) -> Any:
    return _dropout(input, p, train, False, False)


def feature_dropout(input: Any, p: float, train: bool) -> Any:
    return _dropout(input, p, train, True, False)


def alpha_dropout(input: Any, p: float, train: bool) -> Any:
    return _dropout(input, p, train, False, True)


def feature_alpha_dropout(input: Any, p: float, train: bool) -> Any:
    return _dropout(input, p, train, True, True)


def _rrelu_check(lower: Any, upper: Any) -> None:
    if float(lower) > float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")


def _rrelu_train(self: Any, lower: Any, upper: Any, generator: Any) -> Any:
    """x * r with r ~ U(lower, upper) for each element <= 0, in order, and 1 elsewhere, as
    PyTorch's CPU kernel: bounds and slope in the op's math type (float below float64), each
    slope drawn as a double."""
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f'"rrelu_with_noise_out_cpu" not implemented for \'{self.dtype.type_name}\'')
    math_type = _FLOAT64 if self.dtype == _FLOAT64 else _FLOAT32
    if math_type == _FLOAT32:
        lower, upper = (struct.unpack("f", struct.pack("f", float(b)))[0] for b in (lower, upper))
    nonpositive = _le(self, _zeros((), dtype=self.dtype, device=self.device))
    draws = _uniform_(_empty((int(_count_nonzero(nonpositive).item()),), dtype=_FLOAT64, device=self.device),
                      float(lower), float(upper), generator=generator)
    noise = _index_put_(_ones(self.shape, dtype=math_type, device=self.device), (nonpositive,),
                        _to_dtype(draws, math_type))
    return _to_dtype(_mul(_to_dtype(self, math_type), noise), self.dtype)


def rrelu(self: Any, lower: Any = 0.125, upper: Any = 0.3333333333333333, training: bool = False,
          generator: Any = None) -> Any:
    """Randomized leaky ReLU: a random slope per non-positive element in training, the mean slope
    (lower + upper) / 2 otherwise."""
    _rrelu_check(lower, upper)
    if not training:
        return _leaky_relu(self, (float(lower) + float(upper)) / 2)
    return _rrelu_train(self, lower, upper, generator)


def rrelu_(self: Any, lower: Any = 0.125, upper: Any = 0.3333333333333333, training: bool = False,
           generator: Any = None) -> Any:
    _rrelu_check(lower, upper)
    if not training:
        return _leaky_relu_(self, (float(lower) + float(upper)) / 2)
    return _copy_(self, _rrelu_train(self, lower, upper, generator))
