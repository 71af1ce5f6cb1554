# Type stub for the Cython module aten/native/meta/conv_geometry.pyx (mypy cannot read .pyx): keep in step with it.
from typing import Any

def expand_param(value: Any, n: int, name: str) -> tuple[Any, ...]: ...

def convolution_params(input: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any,
                       transposed: bool, output_padding: Any, groups: int) -> tuple[Any, Any, Any, Any]: ...

def transposed_output_sizes(sizes: tuple[int, ...], kernel: tuple[int, ...], stride: tuple[int, ...],
                            padding: tuple[int, ...], dilation: tuple[int, ...],
                            output_padding: tuple[int, ...]) -> tuple[int, ...]: ...
