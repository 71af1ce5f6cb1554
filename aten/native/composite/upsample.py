"""The upsampling ops' .vec overloads (what F.interpolate calls): an output size, given or computed
from scale factors as PyTorch's upsample::compute_output_size does, then the op with one scale per
spatial dim."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

# upstream's TORCH_CHECK without a message, verbatim
_UPSTREAM_CHECK = ("Expected static_cast<int64_t>({}->size()) == spatial_dimensions to be true, but got false.  "
                   "(Could this error message be improved?  If so, please report an enhancement request to PyTorch.)")


def _output_size(input: Any, output_size: Any, scale_factors: Any) -> tuple[Any, ...]:
    spatial = input.dim() - 2
    if output_size is not None:
        if scale_factors is not None:
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        if len(output_size) != spatial:
            raise RuntimeError(_UPSTREAM_CHECK.format("output_size"))
        return tuple(output_size)
    if scale_factors is not None:
        if len(scale_factors) != spatial:
            raise RuntimeError(_UPSTREAM_CHECK.format("scale_factors"))
        sizes = input._sizes()
        return tuple(int(float(sizes[i + 2]) * scale_factors[i]) for i in range(spatial))
    raise RuntimeError("Must specify exactly one of output_size and scale_factors")


def _scales(scale_factors: Any, spatial: int) -> tuple[Any, ...]:
    return (None,) * spatial if scale_factors is None else tuple(scale_factors)


def _nearest(name: str, input: Any, output_size: Any, scale_factors: Any) -> Any:
    osize = _output_size(input, output_size, scale_factors)
    return _ops[name](input, osize, *_scales(scale_factors, len(osize)))


def _interpolating(name: str, input: Any, output_size: Any, align_corners: bool, scale_factors: Any) -> Any:
    osize = _output_size(input, output_size, scale_factors)
    return _ops[name](input, osize, align_corners, *_scales(scale_factors, len(osize)))


_ops = {name: find_operator(name) for name in (
    "upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d", "_upsample_nearest_exact1d",
    "_upsample_nearest_exact2d", "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d",
    "upsample_trilinear3d", "upsample_bicubic2d")}


def upsample_nearest1d_vec(input: Any, output_size: Any, scale_factors: Any) -> Any:
    return _nearest("upsample_nearest1d", input, output_size, scale_factors)


def upsample_nearest2d_vec(input: Any, output_size: Any, scale_factors: Any) -> Any:
    return _nearest("upsample_nearest2d", input, output_size, scale_factors)


def upsample_nearest3d_vec(input: Any, output_size: Any, scale_factors: Any) -> Any:
    return _nearest("upsample_nearest3d", input, output_size, scale_factors)


def upsample_nearest_exact1d_vec(input: Any, output_size: Any, scale_factors: Any) -> Any:
    return _nearest("_upsample_nearest_exact1d", input, output_size, scale_factors)


def upsample_nearest_exact2d_vec(input: Any, output_size: Any, scale_factors: Any) -> Any:
    return _nearest("_upsample_nearest_exact2d", input, output_size, scale_factors)


def upsample_nearest_exact3d_vec(input: Any, output_size: Any, scale_factors: Any) -> Any:
    return _nearest("_upsample_nearest_exact3d", input, output_size, scale_factors)


def upsample_linear1d_vec(input: Any, output_size: Any, align_corners: bool, scale_factors: Any) -> Any:
    return _interpolating("upsample_linear1d", input, output_size, align_corners, scale_factors)


def upsample_bilinear2d_vec(input: Any, output_size: Any, align_corners: bool, scale_factors: Any) -> Any:
    return _interpolating("upsample_bilinear2d", input, output_size, align_corners, scale_factors)


def upsample_trilinear3d_vec(input: Any, output_size: Any, align_corners: bool, scale_factors: Any) -> Any:
    return _interpolating("upsample_trilinear3d", input, output_size, align_corners, scale_factors)


def upsample_bicubic2d_vec(input: Any, output_size: Any, align_corners: bool, scale_factors: Any) -> Any:
    return _interpolating("upsample_bicubic2d", input, output_size, align_corners, scale_factors)
