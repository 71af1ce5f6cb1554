"""torch.nn.functional.interpolate and its deprecated aliases (upsample, upsample_nearest,
upsample_bilinear): PyTorch's argument handling, checks and messages in front of the upsampling
operators (their .vec overloads) and, for mode="area", the adaptive average pools."""
from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import torch
from torch import Tensor
from torch._C import _nn

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _is_integer(x: Any) -> bool:
    if isinstance(x, Tensor):
        return not x.is_floating_point() and not x.is_complex()
    return isinstance(x, numbers.Integral)


def _sizes_and_scales(input: Tensor, size: Any, scale_factor: Any, dim: int) -> tuple[Any, Any]:
    """Exactly one of (output size, scale factors), each a list of dim entries."""
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError("Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 "(o1, o2, ...,oK) format.")
            if not all(_is_integer(x) for x in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or Tuple[int, int, "
                                f"int], but got size with types {[type(x) for x in size]}")
            return list(size), None
        return [size for _ in range(dim)], None
    if scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                                 f"{scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                                 "scale_factor in (s1, s2, ...,sK) format.")
            return None, list(scale_factor)
        return None, [scale_factor for _ in range(dim)]
    raise ValueError("either size or scale_factor should be defined")


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resample the spatial dims of (N, C, [D, H,] W) input to size, or by scale_factor."""
    from torch.overrides import handle_torch_function, has_torch_function_unary
    if has_torch_function_unary(input):
        return handle_torch_function(
            interpolate, (input,), input, size=size, scale_factor=scale_factor, mode=mode,
            align_corners=align_corners, recompute_scale_factor=recompute_scale_factor, antialias=antialias)
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear "
                             "| bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    output_size, scale_factors = _sizes_and_scales(input, size, scale_factor, dim)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:      # area always works from an output size
        recompute_scale_factor = True
    if recompute_scale_factor:
        # the size from the scale factors; the kernels then derive their scales from the sizes
        output_size = [math.floor(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if antialias:
        raise NotImplementedError(f"interpolate(mode={mode!r}, antialias=True): Ember has no anti-aliased "
                                  "upsampling kernels (_upsample_bilinear2d_aa, _upsample_bicubic2d_aa) yet")
    if mode == "lanczos" and input.dim() == 4:
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        raise ValueError("Lanczos mode requires antialias=True")
    kernel = _KERNELS.get((input.dim(), mode))
    if kernel is not None:
        if mode in ("nearest", "nearest-exact"):
            return kernel(input, output_size, scale_factors)
        if mode == "area":
            return kernel(input, output_size)
        return kernel(input, output_size, align_corners, scale_factors)
    wanted = {"linear": 3, "bilinear": 4, "trilinear": 5}.get(mode)
    if wanted is not None and input.dim() in (3, 4, 5):
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {wanted}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for the "
                              f"modes: {_MODES} (got {mode})")


def _adaptive_avg_pool(name: str) -> Any:
    def pool(input: Tensor, output_size: Any) -> Tensor:
        from torch.nn import _layer_functional, _pooling_functional
        kernel = getattr(_layer_functional, name, None) or getattr(_pooling_functional, name)
        return kernel(input, output_size)
    return pool


_KERNELS: dict[tuple[int, str], Any] = {
    (3, "nearest"): _nn.upsample_nearest1d, (4, "nearest"): _nn.upsample_nearest2d,
    (5, "nearest"): _nn.upsample_nearest3d, (3, "nearest-exact"): _nn._upsample_nearest_exact1d,
    (4, "nearest-exact"): _nn._upsample_nearest_exact2d, (5, "nearest-exact"): _nn._upsample_nearest_exact3d,
    (3, "area"): _adaptive_avg_pool("adaptive_avg_pool1d"), (4, "area"): _adaptive_avg_pool("adaptive_avg_pool2d"),
    (5, "area"): _adaptive_avg_pool("adaptive_avg_pool3d"), (3, "linear"): _nn.upsample_linear1d,
    (4, "bilinear"): _nn.upsample_bilinear2d, (5, "trilinear"): _nn.upsample_trilinear3d,
    (4, "bicubic"): _nn.upsample_bicubic2d,
}


def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated: interpolate."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: interpolate(mode="nearest")."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated: interpolate(mode="bilinear", align_corners=True)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
