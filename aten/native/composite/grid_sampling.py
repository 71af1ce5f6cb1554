"""grid_sampler (F.grid_sample) and affine_grid_generator (F.affine_grid), composed of gathers and
pointwise ops: PyTorch's GridSampler.h coordinate rules (unnormalize with or without align_corners,
border clipping, reflection), bilinear/trilinear, nearest (half to even) and bicubic (A = -0.75)
interpolation, zeros outside the input for padding_mode="zeros", and its checks and messages.
Gradients reach the input through the gathers and the grid through the weights, as PyTorch's."""
from __future__ import annotations

import itertools
from typing import Any

from aten.dispatcher import find_operator

_linspace = find_operator("linspace")
_stack = find_operator("stack")
_ones = find_operator("ones")
_where = find_operator("where.self")
_zeros_like = find_operator("zeros_like")
_full_like = find_operator("full_like")

_BILINEAR, _NEAREST, _BICUBIC = 0, 1, 2
_ZEROS, _BORDER, _REFLECTION = 0, 1, 2


def _unnormalize(coord: Any, size: int, align_corners: bool) -> Any:
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Any, twice_low: int, twice_high: int) -> Any:
    if twice_low == twice_high:
        return _zeros_like(coord)
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    coord = (coord - low).abs()
    extra = coord.fmod(span)
    flips = (coord / span).floor()
    return _where(flips.remainder(2) == 0, extra + low, span - extra + low)


def _apply_padding(coord: Any, size: int, padding_mode: int, align_corners: bool) -> Any:
    if padding_mode == _BORDER:
        coord = coord.clamp(0, size - 1)
    elif padding_mode == _REFLECTION:
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else _reflect(coord, -1, 2 * size - 1)
        coord = coord.clamp(0, size - 1)
    # PyTorch's safe_downgrade_to_int_range: non-finite coordinates sample nothing
    return _where(coord.isfinite(), coord, _full_like(coord, -100.0))


def _gather(flat: Any, indices: list[Any], sizes: list[int], out_shape: tuple[int, ...]) -> Any:
    """flat (N, C, prod(sizes)) read at integer coordinates (one tensor per axis, innermost last,
    each (N, *grid)); zero where any coordinate is outside the input."""
    inside: Any = None
    linear: Any = None
    for idx, size in zip(indices, sizes):
        ok = (idx >= 0) & (idx <= size - 1)
        inside = ok if inside is None else inside & ok
        clamped = idx.clamp(0, size - 1)
        linear = clamped if linear is None else linear * size + clamped
    n, c = flat.shape[0], flat.shape[1]
    points = 1
    for s in out_shape:
        points *= s
    gathered = flat.gather(2, linear.reshape(n, 1, points).expand(n, c, points))
    values = gathered.reshape((n, c) + out_shape)
    return values * inside.unsqueeze(1).to(values.dtype)


def _cubic_coefficients(t: Any) -> list[Any]:
    A = -0.75

    def near(x: Any) -> Any:
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def far(x: Any) -> Any:
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _check(input: Any, grid: Any, interpolation_mode: int) -> None:
    if input.dim() not in (4, 5) or grid.dim() != input.dim():
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if input.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    spatial = input.dim() - 2
    if grid.shape[-1] != spatial:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {spatial} in last dimension, but got grid "
                           f"with sizes {list(grid.shape)}")
    for i in range(2, input.dim()):
        if input.shape[i] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(input.shape)} with dimension {i} being empty")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.type_name} but found {grid.dtype.type_name}")
    if interpolation_mode == _BICUBIC and input.dim() != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sampler(input: Any, grid: Any, interpolation_mode: int, padding_mode: int, align_corners: bool) -> Any:
    _check(input, grid, interpolation_mode)
    sizes = [int(s) for s in input.shape[2:]]                # (D,) H, W
    n, c = input.shape[0], input.shape[1]
    flat = input.reshape(n, c, -1)
    out_shape = tuple(int(s) for s in grid.shape[1:-1])
    # grid's last dim lists x (W), y (H)[, z (D)]: reversed, it follows the input's axes
    coords = [grid[..., len(sizes) - 1 - axis] for axis in range(len(sizes))]
    if interpolation_mode == _BICUBIC:
        return _bicubic(flat, coords, sizes, out_shape, padding_mode, align_corners)
    coords = [_apply_padding(_unnormalize(x, size, align_corners), size, padding_mode, align_corners)
              for x, size in zip(coords, sizes)]
    if interpolation_mode == _NEAREST:
        values = _gather(flat, [x.round().long() for x in coords], sizes, out_shape)
        # the grid's gradient is zero here, as PyTorch's backward gives it (not absent): a factor of
        # exactly 1 that depends on the (finite, padded) coordinates with derivative 0
        for x in coords:
            values = values * (1 + 0 * (x - x.detach())).unsqueeze(1)
        return values
    floors = [x.floor() for x in coords]
    fractions = [x - f for x, f in zip(coords, floors)]
    out = None
    for corner in itertools.product((0, 1), repeat=len(sizes)):
        weight: Any = None
        for offset, frac in zip(corner, fractions):
            w = frac if offset else 1 - frac
            weight = w if weight is None else weight * w
        values = _gather(flat, [(f + o).long() for f, o in zip(floors, corner)], sizes, out_shape)
        term = values * weight.unsqueeze(1)
        out = term if out is None else out + term
    return out


def _bicubic(flat: Any, coords: list[Any], sizes: list[int], out_shape: tuple[int, ...], padding_mode: int,
             align_corners: bool) -> Any:
    iy, ix = (_unnormalize(x, size, align_corners) for x, size in zip(coords, sizes))
    iy0, ix0 = iy.floor(), ix.floor()
    cy, cx = _cubic_coefficients(iy - iy0), _cubic_coefficients(ix - ix0)
    out = None
    for i in range(4):
        row = None
        y = _apply_padding(iy0 - 1 + i, sizes[0], padding_mode, align_corners)
        for j in range(4):
            x = _apply_padding(ix0 - 1 + j, sizes[1], padding_mode, align_corners)
            term = _gather(flat, [y.long(), x.long()], sizes, out_shape) * cx[j].unsqueeze(1)
            row = term if row is None else row + term
        term = row * cy[i].unsqueeze(1)
        out = term if out is None else out + term
    return out


def _line(steps: int, align_corners: bool, like: Any) -> Any:
    """linspace(-1, 1, steps), pulled in to pixel centres without align_corners (0 for one step)."""
    if steps <= 1:
        return _linspace(0, 0, 1, dtype=like.dtype, device=like.device)
    line = _linspace(-1, 1, steps, dtype=like.dtype, device=like.device)
    return line if align_corners else line * ((steps - 1) / steps)


def affine_grid_generator(theta: Any, size: Any, align_corners: bool) -> Any:
    size = [int(s) for s in size]
    n = size[0]
    spatial = size[2:]
    axes = [_line(s, align_corners, theta) for s in reversed(spatial)]      # x, y[, z]
    shape = list(spatial)
    columns = []
    for k, line in enumerate(axes):
        view = [1] * len(spatial)
        view[len(spatial) - 1 - k] = -1
        columns.append(line.reshape(view).expand(shape))
    columns.append(_ones(shape, dtype=theta.dtype, device=theta.device))
    base = _stack(columns, -1).reshape(1, -1, len(spatial) + 1).expand(n, -1, -1)
    return base.bmm(theta.transpose(1, 2)).reshape([n] + shape + [len(spatial)])
