"""3-d max and average pooling, adaptive pooling (max in 1-3 d, average in 3 d) and max unpooling,
composed of the 2-d pooling kernels and other operators, with PyTorch's checks and messages.

A box over (D, H, W) is a depth window of (H, W) windows: the 2-d kernel pools every depth slice,
then a 1-d window along D finishes, which for a maximum keeps PyTorch's choice among ties (the first
in (d, h, w) order) and its flat index d * H * W + h * W + w; for an average, the divisors multiply
(the kernel's over (H, W), the counted depths along D). Adaptive pools go one axis at a time over
PyTorch's bins [floor(i * in / out), ceil((i + 1) * in / out)). Gradients flow through the parts."""
from __future__ import annotations

import math
from typing import Any

from aten.dispatcher import find_operator
from c10.scalar_type import dtype_from_name

_max_pool2d_with_indices = find_operator("max_pool2d_with_indices")
_avg_pool2d = find_operator("avg_pool2d")
_constant_pad_nd = find_operator("constant_pad_nd")
_stack = find_operator("stack")
_zeros = find_operator("zeros")
_arange = find_operator("arange")
_nonzero = find_operator("nonzero")
_INT64 = dtype_from_name("int64")


def _triple(value: Any, name: str, arg: str, allow_empty: bool = False) -> tuple[int, ...]:
    values = (value,) if isinstance(value, int) else tuple(value)
    if allow_empty and not values:
        return ()
    if len(values) == 1:
        values = values * 3
    if len(values) != 3:
        raise RuntimeError(f"{name}: {arg} must either be a single int, or a tuple of three ints")
    return tuple(int(v) for v in values)


def _output_size(size: int, k: int, p: int, s: int, d: int, ceil_mode: bool) -> int:
    """PyTorch's pooling_output_shape: the last window must start inside the input or left padding."""
    span = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)
    out = span // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_volumetric(self: Any) -> bool:
    """True for a batched (N, C, D, H, W) input; PyTorch's error for anything but 4-D or 5-D."""
    if self.dim() not in (4, 5) or any(s == 0 for s in self.shape[1 if self.dim() == 5 else 0:]):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    return self.dim() == 5


def _geometry(self: Any, name: str, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              ceil_mode: bool, check_input_size: bool = False) -> tuple[Any, ...]:
    k = _triple(kernel_size, name, "kernel_size")
    s = _triple(stride, name, "stride", allow_empty=True) or k
    p = _triple(padding, name, "padding")
    d = _triple(dilation, name, "dilation")
    if 0 in s:
        raise RuntimeError("stride should not be zero")
    if min(k) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kT: {k[0]} kH: {k[1]} kW: {k[2]}")
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dT: {s[0]} dH: {s[1]} dW: {s[2]}")
    if min(d) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationT: {d[0]} dilationH: {d[1]} "
                           f"dilationW: {d[2]}")
    batched = _check_volumetric(self)
    if check_input_size:        # average pooling asks for a whole kernel inside the input, padding or not
        depth, height, width = self.shape[-3:]
        if depth < k[0] or height < k[1] or width < k[2]:
            raise RuntimeError(f"input image (T: {depth} H: {height} W: {width}) smaller than kernel size (kT: {k[0]} "
                               f"kH: {k[1]} kW: {k[2]})")
    for ki, pi, di in zip(k, p, d):
        if pi > (di * (ki - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pi}, "
                               f"kernel_size={ki} and dilation={di}")
    spatial = tuple(self.shape[-3:])
    out = tuple(_output_size(n, ki, pi, si, di, ceil_mode) for n, ki, pi, si, di in zip(spatial, k, p, s, d))
    if any(o < 1 for o in out):
        c = self.shape[-4]
        raise RuntimeError(f"Given input size: ({c}x{spatial[0]}x{spatial[1]}x{spatial[2]}). Calculated output "
                           f"size: ({c}x{out[0]}x{out[1]}x{out[2]}). Output size is too small")
    return k, s, p, d, batched, out


def _depth_windows(y: Any, k: int, s: int, p: int, d: int, out: int, fill: float) -> Any:
    """y (N, C, D, ...) padded along D with fill and cut into out windows: (N, C, out, ..., k)."""
    depth = y.shape[2]
    right = (out - 1) * s + d * (k - 1) + 1 - depth - p
    pad = [0, 0] * (y.dim() - 3) + [p, max(right, 0)]
    padded = _constant_pad_nd(y, pad, fill)
    windows = padded.unfold(2, d * (k - 1) + 1, s)
    return windows[..., ::d]


def _lowest(dtype: Any) -> Any:
    """A padding no element beats: -inf, or the integer type's minimum."""
    if dtype.is_floating_point:
        return -math.inf
    return -(1 << (dtype.itemsize * 8 - 1)) if dtype.is_signed else 0


def max_pool3d_with_indices(self: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False) -> Any:
    (kd, kh, kw), (sd, sh, sw), (pd, ph, pw), (dd, dh, dw), batched, (do, ho, wo) = _geometry(
        self, "max_pool3d", kernel_size, stride, padding, dilation, ceil_mode)
    x = self if batched else self.unsqueeze(0)
    n, c, depth, height, width = x.shape
    planes, plane_idx = _max_pool2d_with_indices(x.reshape(n, c * depth, height, width), [kh, kw], [sh, sw],
                                                 [ph, pw], [dh, dw], ceil_mode)
    planes = planes.reshape(n, c, depth, ho, wo)
    plane_idx = plane_idx.reshape(n, c, depth, ho, wo)
    values, which = _depth_windows(planes, kd, sd, pd, dd, do, _lowest(x.dtype)).max(-1)
    # the depth each window's maximum came from, then that depth's (h, w) index
    starts = _arange(do, dtype=_INT64, device=x.device) * sd - pd
    depth_of = (starts.reshape(1, 1, do, 1, 1) + which * dd).clamp(0, depth - 1)
    hw = plane_idx.gather(2, depth_of)
    indices = depth_of * (height * width) + hw
    if not batched:
        values, indices = values.squeeze(0), indices.squeeze(0)
    return values, indices


def max_pool3d(self: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,
               ceil_mode: bool = False) -> Any:
    return max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)[0]


def avg_pool3d(self: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: Any = None) -> Any:
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    (kd, kh, kw), (sd, sh, sw), (pd, ph, pw), _, batched, (do, ho, wo) = _geometry(
        self, "avg_pool3d", kernel_size, stride, padding, 1, ceil_mode, check_input_size=True)
    x = self if batched else self.unsqueeze(0)
    n, c, depth, height, width = x.shape
    flat = x.reshape(n, c * depth, height, width)
    # the (H, W) part: its own divisor, or a plain sum when an override divides the whole box
    planes = _avg_pool2d(flat, [kh, kw], [sh, sw], [ph, pw], ceil_mode, count_include_pad,
                         1 if divisor_override is not None else None).reshape(n, c, depth, ho, wo)
    summed = _depth_windows(planes, kd, sd, pd, 1, do, 0.0).sum(-1)
    if divisor_override is not None:
        result = summed / divisor_override
    else:
        starts = [i * sd - pd for i in range(do)]
        if count_include_pad:      # windows count the padding, not what lies past it
            counts = [min(st + kd, depth + pd) - st for st in starts]
        else:
            counts = [min(st + kd, depth) - max(st, 0) for st in starts]
        divisor = _stack([_zeros((), dtype=x.dtype, device=x.device) + float(cnt) for cnt in counts])
        result = summed / divisor.reshape(1, 1, do, 1, 1)
    return result if batched else result.squeeze(0)


# ---- adaptive pooling ---------------------------------------------------------------------------------------

def _bins(size: int, out: int) -> list[tuple[int, int]]:
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


def _adaptive_axis(x: Any, axis: int, out: int, reduce: str) -> tuple[Any, Any]:
    """Pool x along axis into out bins: (values, the index along axis of each maximum) for "max", or
    (means, None) for "mean"."""
    size = x.shape[axis]
    if out == 0:                    # nothing to pool into: an empty result, as PyTorch's
        empty = x.narrow(axis, 0, 0)
        return (empty, None) if reduce == "mean" else (empty, empty.long())
    if size % out == 0:            # equal bins: one strided window view
        k = size // out
        windows = x.unfold(axis, k, k)
        if reduce == "mean":
            return windows.mean(-1), None
        values, which = windows.max(-1)
        offsets = _arange(out, dtype=_INT64, device=x.device) * k
        shape = [1] * x.dim()
        shape[axis] = out
        return values, which + offsets.reshape(shape)
    parts, indices = [], []
    for start, end in _bins(size, out):
        window = x.narrow(axis, start, end - start)
        if reduce == "mean":
            parts.append(window.mean(axis))
        else:
            value, which = window.max(axis)
            parts.append(value)
            indices.append(which + start)
    if reduce == "mean":
        return _stack(parts, axis), None
    return _stack(parts, axis), _stack(indices, axis)


def _adaptive_max(self: Any, output_size: Any, spatial: int) -> Any:
    x = self if self.dim() == spatial + 2 else self.unsqueeze(0)
    sizes = list(x.shape[2:])
    values: Any = x
    flat: Any = None
    stride = 1
    # innermost axis first; each later axis picks which row's running index to keep
    for axis in range(x.dim() - 1, 1, -1):
        values, which = _adaptive_axis(values, axis, int(output_size[axis - 2]), "max")
        if flat is None:
            flat = which
        else:
            flat = flat.gather(axis, which) + which * stride
        stride *= sizes[axis - 2]
    if self.dim() != spatial + 2:
        values, flat = values.squeeze(0), flat.squeeze(0)
    return values, flat


def _check_adaptive(self: Any, name: str, output_size: Any, spatial: int) -> None:
    if self.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}(): Expected {spatial + 1}D or {spatial + 2}D tensor, but got: {list(self.shape)}")
    if len(output_size) != spatial:
        raise RuntimeError(f"{name}(): internal error: output_size.size() must be {spatial}")
    for i in range(1, self.dim()):
        if self.shape[i] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(self.shape)} with dimension {i} being empty")


def adaptive_max_pool2d(self: Any, output_size: Any) -> Any:
    _check_adaptive(self, "adaptive_max_pool2d", output_size, 2)
    return _adaptive_max(self, output_size, 2)


def adaptive_max_pool3d(self: Any, output_size: Any) -> Any:
    _check_adaptive(self, "adaptive_max_pool3d", output_size, 3)
    return _adaptive_max(self, output_size, 3)


def adaptive_max_pool1d(self: Any, output_size: Any) -> Any:
    if self.dim() not in (2, 3):
        raise RuntimeError(f"adaptive_max_pool1d(): Expected 2D or 3D tensor, but got: {list(self.shape)}")
    if len(output_size) != 1:
        raise RuntimeError("adaptive_max_pool1d: 'output_size' should contain one int")
    values, indices = adaptive_max_pool2d(self.unsqueeze(-2), [1, int(output_size[0])])
    return values.squeeze(-2), indices.squeeze(-2)


def _adaptive_avg_pool3d(self: Any, output_size: Any) -> Any:
    if self.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(self.shape)}")
    for i in range(1, self.dim()):
        if self.shape[i] == 0:
            raise RuntimeError(f"adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(self.shape)} with dimension {i} being empty")
    x = self
    for axis in range(x.dim() - 1, x.dim() - 4, -1):
        x = _adaptive_axis(x, axis, int(output_size[axis - x.dim() + 3]), "mean")[0]
    return x


def adaptive_avg_pool3d(self: Any, output_size: Any) -> Any:
    return _adaptive_avg_pool3d(self, output_size)


# ---- max unpooling ----------------------------------------------------------------------------------------------

def _max_unpool(self: Any, indices: Any, output_size: Any, spatial: int, name: str) -> Any:
    if indices.dtype != _INT64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype.type_name}")
    if self.shape != indices.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(indices.shape)}) "
                           f"to be same as that of the input tensor ({list(self.shape)})")
    if self.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Input to {name} should be a {spatial + 1}d or {spatial + 2}d Tensor, but got a tensor "
                           f"with {self.dim()} dimensions.")
    batched = self.dim() == spatial + 2
    x, idx = (self, indices) if batched else (self.unsqueeze(0), indices.unsqueeze(0))
    volume = 1
    for s in output_size:
        volume *= int(s)
    flat_idx = idx.flatten(2)
    invalid = ((flat_idx < 0) | (flat_idx >= volume)).flatten()
    if bool(invalid.any()):         # PyTorch's loop keeps the last one it meets, in memory order
        bad = int(flat_idx.flatten()[_nonzero(invalid)[-1, 0]])
        shown = "x".join(str(int(s)) for s in output_size)
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size {shown})")
    out = _zeros((x.shape[0], x.shape[1], volume), dtype=x.dtype, device=x.device)
    out = out.scatter(2, flat_idx, x.flatten(2))
    out = out.reshape(tuple(x.shape[:2]) + tuple(int(s) for s in output_size))
    return out if batched else out.squeeze(0)


def max_unpool2d(self: Any, indices: Any, output_size: Any) -> Any:
    if len(output_size) != 2:
        raise RuntimeError(f"There should be exactly two elements (height, width) in output_size, but got "
                           f"{len(output_size)} elements.")
    return _max_unpool(self, indices, output_size, 2, "max_unpool2d")


def max_unpool3d(self: Any, indices: Any, output_size: Any, stride: Any, padding: Any) -> Any:
    if len(output_size) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in output_size, but got: "
                           f"{len(output_size)} elements.")
    return _max_unpool(self, indices, output_size, 3, "max_unpool3d")
