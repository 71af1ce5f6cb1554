"""The argument and shape checks of 2-D pooling and the output sizes they imply, shared by every
backend, with PyTorch's messages (its pooling_output_shape and pool2d_shape_check)."""
from c10.tensor_impl cimport TensorImpl
from aten.native.meta.messages cimport shape_of


cdef tuple _pair(object value, str op, str what, bint allow_empty):
    value = (value,) if isinstance(value, int) else tuple(value)
    if allow_empty and len(value) == 0:
        return ()
    if len(value) not in (1, 2):
        if what == "kernel_size":
            raise RuntimeError(f"{op}: kernel_size must either be a single int, or a tuple of two ints")
        if what == "stride":
            raise RuntimeError(f"{op}: stride must either be omitted, a single int, or a tuple of two ints")
        if what == "dilation":
            raise RuntimeError(f"{op}: dilation must be either a single int, or a tuple of two ints")
        raise RuntimeError(f"{op}: {what} must either be a single int, or a tuple of two ints")
    return value * 2 if len(value) == 1 else value


cdef Py_ssize_t pooling_output_shape(Py_ssize_t size, Py_ssize_t k, Py_ssize_t pad, Py_ssize_t stride,
                                     Py_ssize_t dilation, bint ceil_mode) except? -1:
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > ((k - 1) * dilation + 1) // 2:
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={k} "
                           f"and dilation={dilation}")
    cdef Py_ssize_t num = size + 2 * pad - dilation * (k - 1) - 1 + (stride - 1 if ceil_mode else 0)
    cdef Py_ssize_t out = (num // stride if num >= 0 else -((-num + stride - 1) // stride)) + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


cdef int pool2d_shape_check(TensorImpl input, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh, Py_ssize_t sw,
                            Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh, Py_ssize_t dw, Py_ssize_t planes,
                            Py_ssize_t ih, Py_ssize_t iw, Py_ssize_t oh, Py_ssize_t ow) except -1:
    if kw <= 0 or kh <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kh} kW: {kw}")
    if sw <= 0 or sh <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {sh} dW: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dh} dilationW: {dw}")
    valid = input.sizes[1] != 0 and input.sizes[2] != 0
    if not ((input.nd == 3 and input.sizes[0] != 0 and valid) or (input.nd == 4 and valid and input.sizes[3] != 0)):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
                           f"got:{list(shape_of(input))}")
    if kw // 2 < pw or kh // 2 < ph:
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = {pw}, "
                           f"padH = {ph}, kW = {kw}, kH = {kh}")
    if ow < 1 or oh < 1:
        raise RuntimeError(f"Given input size: ({planes}x{ih}x{iw}). Calculated output size: ({planes}x{oh}x{ow}). "
                           "Output size is too small")
    return 0


def max_pool2d_geometry(TensorImpl self not None, kernel_size, stride=(), padding=0, dilation=1,
                        bint ceil_mode=False):
    """PyTorch's max_pool2d argument and shape checks; (kh, kw, sh, sw, ph, pw, dh, dw, N, C, H, W,
    Ho, Wo). The CUDA kernel (aten/native/cuda/conv.py) checks through it too."""
    cdef tuple k = _pair(kernel_size, "max_pool2d", "kernel_size", False)
    cdef tuple s = _pair(stride, "max_pool2d", "stride", True)
    cdef tuple pd = _pair(padding, "max_pool2d", "padding", False)
    cdef tuple dl = _pair(dilation, "max_pool2d", "dilation", False)
    if not s:
        s = k
    if self.nd != 3 and self.nd != 4:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    cdef Py_ssize_t kh = k[0], kw = k[1], sh = s[0], sw = s[1], ph = pd[0], pw = pd[1], dh = dl[0], dw = dl[1]
    cdef Py_ssize_t H = self.sizes[self.nd - 2], W = self.sizes[self.nd - 1], C = self.sizes[self.nd - 3]
    cdef Py_ssize_t N = self.sizes[0] if self.nd == 4 else 1
    cdef Py_ssize_t Ho = pooling_output_shape(H, kh, ph, sh, dh, ceil_mode)
    cdef Py_ssize_t Wo = pooling_output_shape(W, kw, pw, sw, dw, ceil_mode)
    pool2d_shape_check(self, kh, kw, sh, sw, ph, pw, dh, dw, C, H, W, Ho, Wo)
    return kh, kw, sh, sw, ph, pw, dh, dw, N, C, H, W, Ho, Wo


def avg_pool2d_geometry(TensorImpl self not None, kernel_size, stride=(), padding=0, bint ceil_mode=False,
                        divisor_override=None):
    """PyTorch's avg_pool2d argument and shape checks; (kh, kw, sh, sw, ph, pw, N, C, H, W, Ho, Wo).
    The CUDA kernel (aten/native/cuda/conv.py) checks through it too."""
    cdef tuple k = _pair(kernel_size, "avg_pool2d", "kernel_size", False)
    cdef tuple s = _pair(stride, "avg_pool2d", "stride", True)
    cdef tuple pd = _pair(padding, "avg_pool2d", "padding", False)
    if not s:
        s = k
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if self.nd < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(self.nd, 1)}, "
                         f"{max(self.nd, 1) - 1}], but got -3)")
    cdef Py_ssize_t kh = k[0], kw = k[1], sh = s[0], sw = s[1], ph = pd[0], pw = pd[1]
    cdef Py_ssize_t H = self.sizes[self.nd - 2], W = self.sizes[self.nd - 1], C = self.sizes[self.nd - 3]
    cdef Py_ssize_t N = self.sizes[0] if self.nd == 4 else 1
    cdef Py_ssize_t Ho = pooling_output_shape(H, kh, ph, sh, 1, ceil_mode)
    cdef Py_ssize_t Wo = pooling_output_shape(W, kw, pw, sw, 1, ceil_mode)
    pool2d_shape_check(self, kh, kw, sh, sw, ph, pw, 1, 1, C, H, W, Ho, Wo)
    return kh, kw, sh, sw, ph, pw, N, C, H, W, Ho, Wo


def adaptive_avg_pool2d_geometry(TensorImpl self not None, output_size):
    """PyTorch's adaptive_avg_pool2d argument and shape checks; (planes, H, W, Ho, Wo). The CUDA
    kernel (aten/native/cuda/conv.py) checks through it too."""
    output_size = tuple(output_size)
    if len(output_size) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    cdef int i
    for i in range(self.nd - 2, self.nd):
        if i >= 0 and self.sizes[i] == 0:
            raise RuntimeError(f"adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(shape_of(self))} with dimension {i} being empty")
    if self.nd != 3 and self.nd != 4:
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(shape_of(self))}")
    if output_size[0] < 0 or output_size[1] < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                           f"received {{{output_size[0]}, {output_size[1]}}}")
    return (self.sizes[self.nd - 3] * (self.sizes[0] if self.nd == 4 else 1), self.sizes[self.nd - 2],
            self.sizes[self.nd - 1], output_size[0], output_size[1])
