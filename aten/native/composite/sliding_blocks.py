"""im2col and col2im (F.unfold and F.fold): sliding blocks of a batch of images as columns, and
the columns summed back into images, composed of strided slices (a copy per kernel position), with
PyTorch's checks and messages. Each is the other's adjoint, so gradients flow through the slices."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_stack = find_operator("stack")
_zeros = find_operator("zeros")
_constant_pad_nd = find_operator("constant_pad_nd")


def _check_block_args(kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> None:
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dh} dilation_width: "
                           f"{dw}")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}")


def _blocks(size: int, k: int, d: int, p: int, s: int) -> int:
    return (size + 2 * p - (d * (k - 1) + 1)) // s + 1


def _windows(height: int, width: int, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Any:
    """For each kernel position (i, j), the strided slices of the padded image its column reads."""
    (kh, kw), (dh, dw), _, (sh, sw) = kernel_size, dilation, padding, stride
    bh = _blocks(height, kh, dh, padding[0], sh)
    bw = _blocks(width, kw, dw, padding[1], sw)
    return bh, bw, [(slice(i * dh, i * dh + sh * (bh - 1) + 1, sh), slice(j * dw, j * dw + sw * (bw - 1) + 1, sw))
                    for i in range(kh) for j in range(kw)]


def im2col(self: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Any:
    _check_block_args(kernel_size, dilation, padding, stride)
    if self.dim() not in (3, 4) or any(s == 0 for s in self.shape[self.dim() - 3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(self.shape)}")
    batched = self.dim() == 4
    x = self if batched else self.unsqueeze(0)
    n, c, height, width = x.shape
    bh, bw, windows = _windows(height, width, kernel_size, dilation, padding, stride)
    if bh < 1 or bw < 1:
        raise RuntimeError(f"Given input with spatial size ({height}, {width}), kernel_size={tuple(kernel_size)}, "
                           f"dilation={tuple(dilation)}, padding={tuple(padding)}, calculated shape of the array of "
                           f"sliding blocks as ({bh}, {bw}), but its components must be at least one.")
    padded = _constant_pad_nd(x, [padding[1], padding[1], padding[0], padding[0]], 0.0)
    columns = _stack([padded[:, :, rows, cols] for rows, cols in windows], 2)       # (N, C, kh*kw, bh, bw)
    out = columns.reshape(n, c * len(windows), bh * bw)
    return out if batched else out.squeeze(0)


def col2im(self: Any, output_size: Any, kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> Any:
    _check_block_args(kernel_size, dilation, padding, stride)
    if self.dim() not in (2, 3) or any(s == 0 for s in self.shape[self.dim() - 2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(self.shape)}")
    batched = self.dim() == 3
    x = self if batched else self.unsqueeze(0)
    kh, kw = kernel_size
    if x.shape[1] % (kh * kw) != 0:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={x.shape[1]} and kernel_size={tuple(kernel_size)}.")
    height, width = int(output_size[0]), int(output_size[1])
    bh, bw, windows = _windows(height, width, kernel_size, dilation, padding, stride)
    if bh * bw != x.shape[2]:
        raise RuntimeError(f"Given output_size={(height, width)}, kernel_size={tuple(kernel_size)}, dilation="
                           f"{tuple(dilation)}, padding={tuple(padding)}, stride={tuple(stride)}, expected size of "
                           f"input's dimension 2 to match the calculated number of sliding blocks {bh} * {bw} = "
                           f"{bh * bw}, but got input.size(2)={x.shape[2]}.")
    n, c = x.shape[0], x.shape[1] // (kh * kw)
    columns = x.reshape(n, c, kh * kw, bh, bw)
    ph, pw = padding
    image = _zeros((n, c, height + 2 * ph, width + 2 * pw), dtype=x.dtype, device=x.device)
    for k, (rows, cols) in enumerate(windows):
        image[:, :, rows, cols] += columns[:, :, k]
    out = image[:, :, ph:ph + height, pw:pw + width]
    return out if batched else out.squeeze(0)
