"""Behaviour of the linear-algebra and neural-network kernels that the OpInfo database cannot
express: PyTorch's error types and messages (each verified with PyTorch 2.13), running
statistics of batch norm, numerical stability, and hypothesis properties of conv2d and
pooling output shapes."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torch

A = torch.ops.aten
NN = torch._C._nn      # the python_module: nn ops, as torch.nn.functional calls them


def t(*shape, dtype=np.float32, fill=1.0):
    return torch.from_numpy(np.asarray(np.full(shape, fill, dtype=dtype)))


def r(*shape, dtype=np.float32, seed=0, scale=1.0):
    return torch.from_numpy(np.asarray(np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype))


def idx(*values):
    return torch.from_numpy(np.array(values, dtype=np.int64))


F64 = np.float64
I64 = np.int64

ERRORS = [
    # linear algebra
    (lambda: torch.mm(t(2, 3), t(4, 5)), RuntimeError, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
    (lambda: torch.mm(t(2, 3, dtype=F64), t(3, 2)), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: double != float"),
    (lambda: torch.mm(t(2, 3, dtype=F64), t(3, 2, dtype=I64)), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: double != long int"),
    (lambda: torch.mm(t(2, 3), t(3)), RuntimeError, "mat2 must be a matrix"),
    (lambda: torch.mm(t(2, 3, 4), t(3, 2)), RuntimeError, "self must be a matrix"),
    (lambda: torch.mm(t(2, 3, dtype=np.bool_), t(3, 2, dtype=np.bool_)), NotImplementedError,
     "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
    (lambda: torch.bmm(t(2, 3, 4), t(2, 4, 5, dtype=F64)), RuntimeError, "expected scalar type Float but found Double"),
    (lambda: torch.bmm(t(2, 3, 4), t(2, 3, 5)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."),
    (lambda: torch.bmm(t(2, 3, 4), t(2, 4)), RuntimeError, "batch2 must be a 3D tensor"),
    (lambda: torch.mv(t(2, 3), t(3, 1)), RuntimeError, "vector + matrix @ vector expected, got 1, 2, 2"),
    (lambda: torch.mv(t(2, 3), t(3, dtype=F64)), RuntimeError,
     "addmv input tensors must have the same dtype, but got Double, Float, and Double"),
    (lambda: torch.mv(t(2, 3), t(4, dtype=F64)), RuntimeError, "size mismatch, got input (2), mat (2x3), vec (4)"),
    (lambda: torch.dot(t(2, 3), t(3)), RuntimeError, "1D tensors expected, but got 2D and 1D tensors"),
    (lambda: torch.dot(t(3), t(4, dtype=F64)), RuntimeError,
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda: torch.dot(t(3), t(4)), RuntimeError,
     "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 "
     "elements respectively"),
    (lambda: torch.vdot(t(3), t(3, dtype=F64)), RuntimeError,
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda: torch.outer(t(3, 2), t(3)), RuntimeError, "outer: Expected 1-D argument self, but got 2-D"),
    (lambda: torch.addmm(t(2, 2, dtype=F64), t(2, 3), t(3, 2)), RuntimeError,
     "self and mat2 must have the same dtype, but got Double and Float"),
    (lambda: torch.addmm(t(2, 2), t(3), t(3, 2)), RuntimeError, "mat1 must be a matrix, got 1-D tensor"),
    (lambda: torch.addmm(t(2, 2), t(2, 3), t(3, 4)), RuntimeError,
     "The expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 1.  "
     "Target sizes: [2, 4].  Tensor sizes: [2, 2]"),
    (lambda: torch.addmv(t(3), t(2, 3), t(3)), RuntimeError, "size mismatch, got input (3), mat (2x3), vec (3)"),
    (lambda: torch.baddbmm(t(2, 3, 5, dtype=F64), t(2, 3, 4), t(2, 4, 5)), RuntimeError,
     "Input dtypes must be the same, got: input double, batch1: float, batch2: float"),
    (lambda: torch.addbmm(t(3, 5), t(2, 3, 4), t(3, 4, 5)), RuntimeError,
     "batch1 and batch2 must have same number of batches, got 2 and 3"),
    (lambda: torch.matmul(t(2, 3), t(2)), RuntimeError, "size mismatch, got input (2), mat (2x3), vec (2)"),
    (lambda: torch.matmul(t(2), t(3, 4)), RuntimeError, "mat1 and mat2 shapes cannot be multiplied (1x2 and 3x4)"),
    (lambda: torch.matmul(t(5, 2, 3), t(2)), RuntimeError, "size mismatch, got input (10), mat (10x3), vec (2)"),
    (lambda: torch.matmul(t(2), t(5, 3, 4)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [5, 2] but got: [5, 3]."),
    (lambda: torch.matmul(t(5, 2, 3), t(4, 3, 2)), RuntimeError,
     "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 0"),
    (lambda: torch.matmul(t(), t(2, 3)), RuntimeError,
     "both arguments to matmul need to be at least 1D, but they are 0D and 2D"),
    (lambda: torch.matmul(t(3), t(3, dtype=F64)), RuntimeError,
     "dot : expected both vectors to have same dtype, but found Float and Double"),
    (lambda: torch.einsum("ij,jk->ik", [t(2, 3), t(4, 4)]), RuntimeError,
     "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3"),
    (lambda: torch.einsum("ii->i", [t(2, 3)]), RuntimeError,
     "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"),
    (lambda: torch.einsum("ij->ji", [t(2, 3, 4)]), RuntimeError,
     "einsum(): the number of subscripts in the equation (2) does not match the number of dimensions (3) for "
     "operand 0 and no ellipsis was given"),
    (lambda: torch.einsum("ij,jk->ik", [t(2, 3)]), RuntimeError,
     "einsum(): fewer operands were provided than specified in the equation"),
    (lambda: torch.einsum("ij->jj", [t(3, 2)]), RuntimeError,
     "einsum(): output subscript j appears more than once in the output"),
    (lambda: torch.einsum("ij->k", [t(3, 2)]), RuntimeError,
     "einsum(): output subscript k does not appear in the equation for any input operand"),
    (lambda: torch.einsum("i1->i", [t(3, 2)]), RuntimeError,
     "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]"),
    (lambda: torch.einsum("ij,jk->ik", [t(2, 3), t(3, 4, dtype=F64)]), RuntimeError,
     "expected scalar type Float but found Double"),
    # softmax
    (lambda: torch.softmax(t(3, dtype=I64), 0), NotImplementedError,
     "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'"),
    (lambda: torch.softmax(t(3, 4, dtype=I64), 0), NotImplementedError,
     "\"softmax_kernel_impl\" not implemented for 'Long'"),
    (lambda: torch.log_softmax(t(3, 4, dtype=np.bool_), 0), NotImplementedError,
     "\"log_softmax_kernel_impl\" not implemented for 'Bool'"),
    (lambda: torch._softmax(t(3, 4), 1, True), RuntimeError,
     "softmax with half to float conversion is not supported on CPU"),
    (lambda: torch.softmax(t(3, 4), 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)"),
    # convolution
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 3)), RuntimeError,
     "expected stride to be a single integer value or a list of 1 values to match the convolution dimensions, but "
     "got stride=[1, 1]"),
    (lambda: torch.conv2d(t(1, 2, 5, 5), t(4, 3, 3, 3)), RuntimeError,
     "Given groups=1, weight of size [4, 3, 3, 3], expected input[1, 2, 5, 5] to have 3 channels, but got 2 "
     "channels instead"),
    (lambda: torch.conv2d(t(1, 6, 5, 5), t(3, 3, 3, 3), groups=2), RuntimeError,
     "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 3, 3, 3]] "
     "instead"),
    (lambda: torch.conv2d(t(1, 3, 2, 2), t(4, 3, 3, 3)), RuntimeError,
     "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size can't be greater than "
     "actual input size"),
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), stride=0), RuntimeError, "non-positive stride is not supported"),
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), padding=-1), RuntimeError, "negative padding is not supported"),
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), dilation=0), RuntimeError,
     "dilation should be greater than zero, but got [0, 0]"),
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), groups=0), RuntimeError, "non-positive groups is not supported"),
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), t(3)), RuntimeError,
     "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, but got bias of size "
     "[3] instead"),
    (lambda: torch.conv2d(t(1, 3, 5, 5, dtype=F64), t(4, 3, 3, 3)), RuntimeError,
     "expected scalar type Double but found Float"),
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), t(4, dtype=F64)), RuntimeError,
     "Input type (float) and bias type (double) should be the same"),
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), stride=(1, 2, 3)), RuntimeError,
     "expected stride to be a single integer value or a list of 2 values to match the convolution dimensions, but "
     "got stride=[1, 2, 3]"),
    (lambda: torch.conv2d(t(5, 5), t(4, 3, 3, 3)), RuntimeError,
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [5, 5]"),
    (lambda: torch.conv2d(t(2, 3, 5, 5), t(0, 3, 3, 3)), RuntimeError,
     "Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size [0, 3, 3, 3] instead"),
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 3, 3), padding="same", stride=2), RuntimeError,
     "padding='same' is not supported for strided convolutions"),
    (lambda: torch.conv2d(t(1, 3, 5, 5), t(4, 3, 4, 4), padding="full"), RuntimeError, "Invalid padding string: 'full'"),
    (lambda: torch.conv1d(t(1, 3, 5, 5), t(4, 3, 3)), RuntimeError,
     "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [1, 3, 5, 5]"),
    (lambda: torch.conv_transpose2d(t(1, 2, 5, 5), t(3, 4, 3, 3)), RuntimeError,
     "Given transposed=1, weight of size [3, 4, 3, 3], expected input[1, 2, 5, 5] to have 3 channels, but got 2 "
     "channels instead"),
    (lambda: torch.conv_transpose2d(t(1, 3, 5, 5), t(3, 4, 3, 3), stride=2, output_padding=2), RuntimeError,
     "output padding must be smaller than either stride or dilation, but got output_padding_height: 2 "
     "output_padding_width: 2 stride_height: 2 stride_width: 2 dilation_height: 1 dilation_width: 1"),
    (lambda: torch.conv_transpose2d(t(1, 3, 1, 1), t(3, 4, 3, 3), padding=2), RuntimeError,
     "Given input size per channel: (1 x 1). Calculated output size per channel: (-1 x -1). Output size is too small"),
    (lambda: torch.conv_transpose2d(t(1, 3, 5, 5), t(3, 4, 3, 3), t(3)), RuntimeError,
     "Given transposed=1, weight of size [3, 4, 3, 3], expected bias to be 1-dimensional with 4 elements, but got "
     "bias of size [3] instead"),
    (lambda: torch.convolution(t(3, 5, 5), t(4, 3, 3, 3), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
     RuntimeError, "Expected 4-dimensional input for 4-dimensional weight [4, 3, 3, 3], but got 3-dimensional input "
                   "of size [3, 5, 5] instead"),
    # pooling
    (lambda: torch.max_pool2d(t(1, 2, 5, 5, dtype=np.bool_), 2), NotImplementedError,
     "\"max_pool2d\" not implemented for 'Bool'"),
    (lambda: torch.max_pool2d(t(1, 2, 5, 5), 3, padding=2), RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=2, kernel_size=3 and dilation=1"),
    (lambda: torch.max_pool2d(t(1, 2, 5, 5), 3, padding=-1), RuntimeError, "pad must be non-negative, but got pad: -1"),
    (lambda: torch.max_pool2d(t(1, 2, 5, 5), 3, stride=0), RuntimeError, "stride should not be zero"),
    (lambda: torch.max_pool2d(t(1, 2, 5, 5), 3, dilation=0), RuntimeError,
     "dilation should be greater than zero, but got dilationH: 0 dilationW: 0"),
    (lambda: torch.max_pool2d(t(1, 2, 2, 2), 3), RuntimeError,
     "Given input size: (2x2x2). Calculated output size: (2x0x0). Output size is too small"),
    (lambda: torch.max_pool2d(t(5, 5), 2), RuntimeError, "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: torch.max_pool2d(t(2, 0, 5, 5), 2), RuntimeError,
     "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[2, 0, 5, 5]"),
    (lambda: torch.max_pool2d(t(1, 2, 5, 5), (2, 2, 2)), RuntimeError,
     "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"),
    (lambda: torch.max_pool2d(t(1, 2, 5, 5), 3, dilation=2, padding=2), RuntimeError,
     "pad should be smaller than or equal to half of kernel size, but got padW = 2, padH = 2, kW = 3, kH = 3"),
    (lambda: NN.avg_pool2d(t(1, 2, 5, 5), 2, divisor_override=0), RuntimeError, "divisor must be not zero"),
    (lambda: NN.avg_pool2d(t(5, 5), 2), IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    (lambda: NN.adaptive_avg_pool2d(t(1, 2, 5, 5), (3,)), RuntimeError, "adaptive_avg_pool2d: output_size must be 2"),
    (lambda: NN.adaptive_avg_pool2d(t(5, 5), (3, 2)), RuntimeError,
     "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [5, 5]"),
    (lambda: NN.adaptive_avg_pool2d(t(1, 2, 5, 5, dtype=I64), (3, 2)), NotImplementedError,
     "\"adaptive_avg_pool2d\" not implemented for 'Long'"),
    (lambda: NN.adaptive_avg_pool2d(t(1, 2, 5, 5), (-1, 2)), RuntimeError,
     "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-1, 2}"),
    # normalisation
    (lambda: torch.layer_norm(t(2, 3), [4]), RuntimeError,
     "Given normalized_shape=[4], expected input with shape [*, 4], but got input of size[2, 3]"),
    (lambda: torch.layer_norm(t(2, 3), [3], t(4)), RuntimeError,
     "Expected weight to be of same shape as normalized_shape, but got weight of shape [4] and normalized_shape = [3]"),
    (lambda: torch.layer_norm(t(2, 3), []), RuntimeError,
     "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
     "normalized_shape = []"),
    (lambda: torch.layer_norm(t(2, 3, dtype=I64), [3]), NotImplementedError,
     "\"LayerNormKernelImpl\" not implemented for 'Long'"),
    (lambda: torch.layer_norm(t(2, 3), [3], t(3, dtype=F64)), RuntimeError,
     "mixed dtype (CPU): expect parameter to have scalar type of Float"),
    (lambda: torch.native_batch_norm(t(2, 3, dtype=I64), None, None, None, None, True, 0.1, 1e-5),
     NotImplementedError, "\"batch_norm\" not implemented for 'Long'"),
    (lambda: torch.native_batch_norm(t(2, 3, dtype=F64), t(3), None, None, None, True, 0.1, 1e-5), RuntimeError,
     "mixed dtype (CPU): all inputs must share same datatype."),
    (lambda: torch.native_batch_norm(t(0, 3), None, None, t(3), t(3), True, 0.1, 1e-5), RuntimeError,
     "input tensor must have at least one element, but got input_sizes = [0, 3]"),
    (lambda: torch.native_batch_norm(t(2), None, None, None, None, True, 0.1, 1e-5), IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    (lambda: torch.batch_norm(t(2, 3), t(2), None, None, None, True, 0.1, 1e-5, False), RuntimeError,
     "weight should contain 3 elements not 2"),
    (lambda: torch.batch_norm(t(2, 3), None, None, None, None, False, 0.1, 1e-5, False), RuntimeError,
     "running_mean must be defined in evaluation mode"),
    (lambda: torch.group_norm(t(2, 6, 4), 4), RuntimeError,
     "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 6, 4] and "
     "num_groups=4"),
    (lambda: torch.group_norm(t(2, 6, 4), 3, t(5)), RuntimeError,
     "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [5] "
     "and input of shape [2, 6, 4]"),
    (lambda: torch.group_norm(t(2, 6, 4), 0), RuntimeError, "Expected num groups to be greater than 0, got 0"),
    (lambda: torch.native_group_norm(t(2, 6, 4, dtype=I64), None, None, 2, 6, 4, 3, 1e-5), NotImplementedError,
     "\"GroupNormKernelImpl\" not implemented for 'Long'"),
    # losses
    (lambda: NN.nll_loss(r(3, 5), idx(1, 5, 2)), IndexError, "Target 5 is out of bounds."),
    (lambda: NN.nll_loss(r(3, 5), idx(1, -1, 2)), IndexError, "Target -1 is out of bounds."),
    (lambda: NN.nll_loss(r(3, 5), idx(1, 2)), RuntimeError, "size mismatch (got input: [3, 5], target: [2])"),
    (lambda: NN.nll_loss(r(3, 5), t(3)), RuntimeError, "expected target dtype to be Long or Byte, but got Float"),
    (lambda: NN.nll_loss(r(3, 5), idx(1, 2, 3), t(4)), RuntimeError,
     "weight tensor should be defined either for all 5 classes or no classes but got weight tensor of shape: [4]"),
    (lambda: NN.nll_loss(r(3, 5), idx(1, 2, 3), t(5, dtype=F64)), RuntimeError,
     "expected scalar type Float but found Double"),
    (lambda: NN.nll_loss(r(3, 5), torch.from_numpy(np.array([[1, 2, 3]]))), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (lambda: NN.nll_loss_nd(r(3, 5, 4), torch.from_numpy(np.zeros((3, 3), np.int64)), None, 0, -100), RuntimeError,
     "Expected target size [3, 4], got [3, 3]"),
    (lambda: NN.nll_loss_nd(r(), torch.from_numpy(np.array(0)), None, 0, -100), ValueError,
     "Expected 1 or more dimensions (got 0)"),
    (lambda: NN.nll_loss2d(r(3, 5, 4), torch.from_numpy(np.zeros((3, 4), np.int64)), None, 0, -100), RuntimeError,
     "only batches of spatial targets supported (3D tensors) but got targets of dimension: 2"),
    (lambda: NN.cross_entropy_loss(r(3, 5), r(3, 4)), RuntimeError,
     "0D or 1D target tensor expected, multi-target not supported"),
    (lambda: NN.cross_entropy_loss(r(3, 5), idx(1, 2, 3), None, 1, -100, 1.5), RuntimeError,
     "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    (lambda: NN.cross_entropy_loss(r(3, 5), r(3, 5), None, 1, 3), RuntimeError,
     "ignore_index is not supported for floating point target"),
    (lambda: NN.mse_loss(r(3, 5), r(4), 0), RuntimeError,
     "The size of tensor a (5) must match the size of tensor b (4) at non-singleton dimension 1"),
    (lambda: NN.mse_loss(t(3, 5, dtype=I64), t(5, dtype=I64), 1), NotImplementedError,
     "\"mse_cpu\" not implemented for 'Long'"),
    (lambda: NN.binary_cross_entropy(t(3, 5, fill=2.0), t(3, 5, fill=0.5)), RuntimeError,
     "all elements of input should be between 0 and 1"),
    (lambda: NN.binary_cross_entropy(t(3, 5, fill=0.5), t(3, 5, dtype=F64)), RuntimeError,
     "Found dtype Double but expected Float"),
    (lambda: torch.binary_cross_entropy_with_logits(r(3, 5), r(3, 4)), RuntimeError,
     "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1"),
    # padding, embedding, one_hot, upsampling, attention
    (lambda: torch.constant_pad_nd(t(2, 3), [1, 1, 1]), RuntimeError, "Length of pad must be even but instead it equals 3"),
    (lambda: torch.constant_pad_nd(t(2, 3), [-2, -2]), RuntimeError, "narrow(): length must be non-negative."),
    (lambda: torch.constant_pad_nd(t(2, 3, dtype=np.uint8), [1, 1], 300), RuntimeError,
     "value cannot be converted to type uint8_t without overflow"),
    (lambda: NN.reflection_pad3d(t(1, 2, 2, 2, 2), [0, 0, 2, 0, 0, 0]), RuntimeError,
     "Argument #6: Padding size should be less than the corresponding input dimension, but got: padding (2, 0) at "
     "dimension 3 of input [1, 2, 2, 2, 2]"),
    (lambda: NN.reflection_pad3d(t(2, 2, 2), [0] * 6), RuntimeError,
     "Expected 4D or 5D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but "
     "got: [2, 2, 2]"),
    (lambda: NN.reflection_pad3d(t(2, 3, 4, 5, 6), [-7, 0, -6, 0, -5, 0]), RuntimeError,
     "input (D: 4 H: 5, W: 6) is too small. Calculated output D: -1 H: -1 W: -1"),
    (lambda: torch.conv_transpose3d(t(1, 2, 2, 2, 2, dtype=np.int32), t(2, 1, 1, 1, 1, dtype=np.int32)),
     NotImplementedError, "\"slow_conv_transpose3d_out_cpu\" not implemented for 'Int'"),
    (lambda: torch.conv_transpose1d(t(1, 2, 3, dtype=np.int16), t(2, 1, 2, dtype=np.int16)), NotImplementedError,
     "\"slow_conv_transpose2d_out_cpu\" not implemented for 'Short'"),
    (lambda: NN.replication_pad3d(t(1, 2, 2, 2, 2), [0, -2, -2, 0, -3, 0]), RuntimeError,
     "input (D: 2 H: 2, W: 2) is too small. Calculated output D: -1 H: 0 W: 0"),
    (lambda: NN.replication_pad3d(t(1, 2, 2, 2, 2), [0, 0, -1, -1, -3, 0]), RuntimeError,
     "Trying to create tensor with negative dimension -1: [1, 2, -1, 0, 2]"),
    (lambda: NN.reflection_pad1d(t(1, 2, 3), [3, 3]), RuntimeError,
     "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, 3) at "
     "dimension 2 of input [1, 2, 3]"),
    (lambda: NN.reflection_pad1d(t(2, 3, 4, 5), [1, 1]), RuntimeError,
     "Expected 2D or 3D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but "
     "got: [2, 3, 4, 5]"),
    (lambda: NN.reflection_pad1d(t(1, 2, 3, dtype=np.bool_), [1, 1]), NotImplementedError,
     "\"reflection_pad1d\" not implemented for 'Bool'"),
    (lambda: NN.reflection_pad2d(t(1, 2, 3, 4), [1, 1, 3, 3]), RuntimeError,
     "Argument #6: Padding size should be less than the corresponding input dimension, but got: padding (3, 3) at "
     "dimension 2 of input [1, 2, 3, 4]"),
    (lambda: NN.replication_pad1d(t(1, 2, 3), [-2, -2]), RuntimeError, "input (W: 3) is too small. Calculated output W: -1"),
    (lambda: NN.replication_pad2d(t(2, 3, 4, 5), [1, 1]), RuntimeError, "padding size is expected to be 4"),
    (lambda: NN.pad(t(2, 3), [1, 1, 1], "constant"), RuntimeError, "Padding length must be divisible by 2"),
    (lambda: NN.pad(t(2, 3), [1, 1, 1, 1, 1, 1], "constant"), RuntimeError,
     "Padding length should be less than or equal to two times the input dimension but got padding length 6 and "
     "input of dimension 2"),
    (lambda: NN.pad(t(2, 3), [1, 1], "foo"), NotImplementedError, "Unrecognised padding mode foo"),
    (lambda: NN.pad(t(2, 3), [1, 1], "reflect", 1.0), RuntimeError,
     "Padding mode \"reflect\" doesn't take in value argument"),
    (lambda: NN.pad(t(3), [1, 1], "reflect"), NotImplementedError, "Padding size 2 is not supported for 1D input tensor."),
    (lambda: torch.embedding(t(5, 3), idx(1, 5)), IndexError, "index out of range in self"),
    (lambda: torch.embedding(t(5, 3), idx(1, -1)), IndexError, "index out of range in self"),
    (lambda: torch.embedding(t(5, 3), t(2)), RuntimeError,
     "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got "
     "torch.FloatTensor instead (while checking arguments for embedding)"),
    (lambda: torch.embedding(t(5), idx(1, 2)), RuntimeError, "'weight' must be 2-D"),
    (lambda: NN.one_hot(idx(1, 2), 2), RuntimeError, "Class values must be smaller than num_classes."),
    (lambda: NN.one_hot(idx(1, -2), 3), RuntimeError, "Class values must be non-negative."),
    (lambda: NN.one_hot(t(2), 3), RuntimeError, "one_hot is only applicable to index tensor of type LongTensor."),
    (lambda: NN.one_hot(torch.from_numpy(np.zeros(0, np.int64)), -1), RuntimeError,
     "Can not infer total number of classes from empty tensor."),
    (lambda: A.upsample_nearest2d.vec(t(2, 3, 4), [6, 8], None), RuntimeError,
     "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be true, but got false."),
    (lambda: A.upsample_nearest2d.vec(t(1, 2, 0, 4), [6, 8], None), RuntimeError,
     "Input and output sizes should be greater than 0, but got input (H: 0, W: 4) output (H: 6, W: 8)"),
    (lambda: A.upsample_nearest2d.vec(t(1, 2, 3, 4), [6, 8], [2.0, 1.5]), RuntimeError,
     "Must specify exactly one of output_size and scale_factors"),
    (lambda: A.upsample_nearest2d.vec(t(1, 2, 3, 4, dtype=I64), [6, 8], None), NotImplementedError,
     "\"upsample_nearest2d_channels_last\" not implemented for 'Long'"),
    (lambda: NN.scaled_dot_product_attention(t(2, 3, 4), t(2, 5, 4, dtype=F64), t(2, 5, 6)), RuntimeError,
     "Expected query, key, and value to have the same dtype, but got query.dtype: float key.dtype: double and "
     "value.dtype: float instead."),
    (lambda: NN.scaled_dot_product_attention(t(4), t(4), t(6)), RuntimeError,
     "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: 1 key.dim: 1 and "
     "value.dim: 1 instead."),
    (lambda: NN.scaled_dot_product_attention(t(2, 3, 4), t(2, 5, 4), t(2, 5, 6), t(3, 5), 0.0, True), RuntimeError,
     "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"),
    (lambda: NN.scaled_dot_product_attention(t(2, 3, 4), t(2, 5, 4), t(2, 5, 6), t(3, 5, dtype=I64)), RuntimeError,
     "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: long int and  "
     "query.dtype: float instead."),
    (lambda: NN.scaled_dot_product_attention(t(2, 3, 4), t(2, 5, 3), t(2, 5, 6)), RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."),
]


@pytest.mark.parametrize("call, error, message", ERRORS, ids=[m[:60] for _, _, m in ERRORS])
def test_errors_match_pytorch_type_and_message(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


# ---- batch norm running statistics --------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_training_batch_norm_updates_running_stats_in_place_with_momentum_and_unbiased_var(dtype):
    x = r(4, 3, 5, 2, dtype=dtype, scale=3.0)
    rm0, rv0 = np.array([0.5, -1.0, 2.0], dtype), np.array([1.0, 2.0, 0.5], dtype)
    rm, rv = torch.from_numpy(rm0.copy()), torch.from_numpy(rv0.copy())
    versions = rm._version, rv._version
    out, save_mean, save_invstd = torch.native_batch_norm(x, None, None, rm, rv, True, 0.3, 1e-5)
    a = x.numpy().astype(np.float64)
    mean, var, unbiased = a.mean(axis=(0, 2, 3)), a.var(axis=(0, 2, 3)), a.var(axis=(0, 2, 3), ddof=1)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(rm.numpy(), 0.7 * rm0 + 0.3 * mean, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(rv.numpy(), 0.7 * rv0 + 0.3 * unbiased, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(save_mean.numpy(), mean, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(save_invstd.numpy(), 1 / np.sqrt(var + 1e-5), rtol=rtol, atol=rtol)
    # written without a version bump, as PyTorch's (the schema does not mark them written)
    assert (rm._version, rv._version) == versions


def test_running_stats_that_are_non_contiguous_views_are_updated_through_the_view():
    base = torch.from_numpy(np.zeros((3, 2), np.float32))
    rm = torch.from_numpy(base.numpy()[:, 0])       # stride 2: a view of base's column 0
    assert not rm.is_contiguous()
    torch.batch_norm(r(8, 3, scale=2.0), None, None, rm, None, True, 1.0, 1e-5, False)
    np.testing.assert_allclose(base.numpy()[:, 0], r(8, 3, scale=2.0).numpy().mean(axis=0), rtol=1e-5, atol=1e-6)
    assert np.all(base.numpy()[:, 1] == 0)


def test_eval_batch_norm_leaves_running_stats_and_returns_empty_saved_stats():
    rm, rv = torch.from_numpy(np.array([1.0, 2.0], np.float32)), torch.from_numpy(np.array([4.0, 9.0], np.float32))
    out, save_mean, save_invstd = torch.native_batch_norm(r(3, 2), None, None, rm, rv, False, 0.1, 0.0)
    assert rm.tolist() == [1.0, 2.0] and rv.tolist() == [4.0, 9.0]
    assert tuple(save_mean.shape) == (0,) and tuple(save_invstd.shape) == (0,)
    np.testing.assert_allclose(out.numpy(), (r(3, 2).numpy() - [1.0, 2.0]) / [2.0, 3.0], rtol=1e-6)


def test_batch_norm_of_an_empty_batch_returns_an_empty_copy():
    out = torch.batch_norm(t(0, 3, 2), None, None, None, None, True, 0.1, 1e-5, False)
    assert tuple(out.shape) == (0, 3, 2)


# ---- stability and special values ---------------------------------------------------------------

@pytest.mark.parametrize("dtype, big", [(np.float32, 3e38), (np.float64, 1e308)])
def test_softmax_is_stable_for_huge_inputs(dtype, big):
    x = torch.from_numpy(np.array([[big, big / 2, -big], [0.0, big, big]], dtype))
    p = torch.softmax(x, 1).numpy()
    assert np.isfinite(p).all()
    np.testing.assert_allclose(p, [[1, 0, 0], [0, 0.5, 0.5]], atol=1e-7)
    lp = torch.log_softmax(x, 1).numpy()
    assert lp[0, 0] == 0 and lp[1, 1] == pytest.approx(-np.log(2))
    assert torch.softmax(x, 0).numpy()[0, 0] == 1.0


def test_softmax_propagates_nan_and_inf_as_pytorch():
    f = lambda *v: torch.from_numpy(np.array(v, np.float32))  # noqa: E731
    assert np.isnan(torch.softmax(f(np.inf, 1.0), 0).numpy()).all()
    assert np.isnan(torch.softmax(f(-np.inf, -np.inf), 0).numpy()).all()
    assert np.isnan(torch.softmax(f(np.nan, 1.0), 0).numpy()).all()
    assert torch.log_softmax(f(-np.inf, 1.0), 0).tolist() == [-np.inf, 0.0]
    assert torch.softmax(f(-np.inf, 0.0), 0).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_of_large_rows_matches_float64_reference(dtype, threads):
    torch.set_num_threads(2)
    x = np.random.default_rng(3).standard_normal((64, 5000)).astype(dtype) * 30
    got = torch.softmax(torch.from_numpy(x), 1).numpy()
    a = x.astype(np.float64)
    ref = np.exp(a - a.max(1, keepdims=True))
    ref /= ref.sum(1, keepdims=True)
    np.testing.assert_allclose(got, ref, rtol=2e-6 if dtype == np.float32 else 1e-13, atol=1e-30)


def test_safe_softmax_gives_zero_for_fully_masked_rows():
    x = torch.from_numpy(np.array([[-np.inf, -np.inf], [0.0, -np.inf]], np.float32))
    assert torch._safe_softmax(x, 1).tolist() == [[0.0, 0.0], [1.0, 0.0]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_safe_softmax_zeroes_masked_rows_along_any_dim_and_keeps_nan_rows(dtype, dim):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 5, 6)).astype(dtype)
    a[np.roll(np.arange(4 * 5 * 6).reshape(4, 5, 6) % 3 == 0, 1)] = -np.inf     # partly masked rows
    masked = [1, 2, 3]
    masked[dim] = slice(None)
    a[tuple(masked[:dim] + [slice(None)] + masked[dim + 1:])] = -np.inf       # one fully masked row
    nan_row = [0, 0, 0]
    nan_row[dim] = 1
    a[tuple(nan_row)] = np.nan                                                # a NaN: its row stays NaN
    got = torch._safe_softmax(torch.from_numpy(a), dim).numpy()
    with np.errstate(invalid="ignore"):
        e = np.exp(a - a.max(dim, keepdims=True))
        want = e / e.sum(dim, keepdims=True)
    want = np.where(np.isneginf(a).all(dim, keepdims=True), 0, want)
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == np.float32 else 1e-13, atol=1e-30)
    assert np.isnan(got[tuple(nan_row[:dim] + [slice(None)] + nan_row[dim + 1:])]).all()


def test_max_pool_propagates_nan_and_reports_its_index():
    x = np.zeros((1, 1, 2, 2), np.float32)
    x[0, 0, 1, 0] = np.nan
    out, index = NN.max_pool2d_with_indices(torch.from_numpy(x), 2)
    assert np.isnan(out.item()) and index.item() == 2


def test_binary_cross_entropy_clamps_log_at_minus_100():
    assert NN.binary_cross_entropy(t(3, fill=0.0), t(3, fill=1.0), None, 0).tolist() == [100.0] * 3


def test_bce_with_logits_is_stable_for_large_logits():
    x = torch.from_numpy(np.array([1000.0, -1000.0], np.float32))
    y = torch.from_numpy(np.array([0.0, 1.0], np.float32))
    assert torch.binary_cross_entropy_with_logits(x, y, None, None, 0).tolist() == [1000.0, 1000.0]


def test_nll_loss_mean_over_only_ignored_targets_is_nan():
    assert np.isnan(NN.nll_loss(r(3, 5), idx(-100, -100, -100), None, 1).item())
    assert NN.nll_loss(r(3, 5), idx(-100, -100, -100), None, 2).item() == 0.0


# ---- kernels and views ---------------------------------------------------------------------------

def test_mm_reads_transposed_and_strided_views_without_changing_them():
    a = np.random.default_rng(0).standard_normal((6, 8)).astype(np.float32)
    ta = torch.from_numpy(a)
    tt = torch.from_numpy(a.T)                     # column-major: BLAS reads it transposed
    ts = torch.from_numpy(a[::2, ::2])             # no unit stride: copied first
    np.testing.assert_allclose(torch.mm(ta, tt).numpy(), a @ a.T, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(torch.mm(ts, torch.from_numpy(a[::2, ::2].T)).numpy(), a[::2, ::2] @ a[::2, ::2].T,
                               rtol=1e-5, atol=1e-5)
    assert np.array_equal(ta.numpy(), a)


def test_integer_matmul_wraps_like_pytorch():
    a = torch.from_numpy(np.full((2, 3), 100, np.int8))
    assert torch.mm(a, torch.from_numpy(np.full((3, 2), 2, np.int8))).tolist() == [[88, 88], [88, 88]]
    big = torch.from_numpy(np.full((1, 2), 2**62, np.int64))
    assert torch.mm(big, torch.from_numpy(np.full((2, 1), 2, np.int64))).item() == 0


def test_addmm_with_beta_zero_ignores_nan_in_self():
    out = torch.addmm(t(2, 2, fill=np.nan), t(2, 3), t(3, 2), beta=0)
    assert out.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_integral_alpha_and_beta_are_truncated_as_pytorch():
    ones = lambda *s: t(*s, dtype=I64)  # noqa: E731
    assert torch.addmm(ones(2, 2), ones(2, 3), ones(3, 2), alpha=2.7, beta=1.5).tolist() == [[7, 7], [7, 7]]


def test_conv2d_on_a_non_contiguous_input_equals_the_contiguous_result():
    x = r(2, 8, 9, 10, seed=1)
    w = r(4, 4, 3, 3, seed=2)
    strided = torch.from_numpy(x.numpy()[:, ::2, ::2, :])     # channels and rows strided
    dense = torch.from_numpy(np.ascontiguousarray(strided.numpy()))
    np.testing.assert_array_equal(torch.conv2d(strided, w, padding=1).numpy(), torch.conv2d(dense, w, padding=1).numpy())


def test_conv2d_same_padding_keeps_the_spatial_size_for_even_kernels():
    out = torch.conv2d(r(1, 3, 7, 6), r(2, 3, 4, 2), padding="same", dilation=(1, 3))
    assert tuple(out.shape) == (1, 2, 7, 6)


def test_conv2d_handles_a_batch_bigger_than_one_column_chunk():
    # 40 images of 64x64 with 3x3x8 columns: more than one 32 MiB chunk of columns
    x, w = r(40, 8, 64, 64, seed=3), r(4, 8, 3, 3, seed=4)
    got = torch.conv2d(x, w, padding=1).numpy()
    first = torch.conv2d(torch.from_numpy(x.numpy()[:1].copy()), w, padding=1).numpy()
    last = torch.conv2d(torch.from_numpy(x.numpy()[-1:].copy()), w, padding=1).numpy()
    np.testing.assert_array_equal(got[:1], first)
    np.testing.assert_array_equal(got[-1:], last)


def test_kernels_do_not_write_their_inputs():
    x = r(2, 3, 6, 6)
    before = x.numpy().copy()
    torch.conv2d(x, r(4, 3, 3, 3), padding=1)
    torch.softmax(x, 1)
    torch.layer_norm(x, [6])
    torch.max_pool2d(x, 2)
    NN.reflection_pad2d(x, [1, 1, 1, 1])
    assert np.array_equal(x.numpy(), before)


def test_einsum_accepts_spaces_implicit_output_and_a_list_of_operands():
    a, b = r(2, 3, seed=5), r(3, 4, seed=6)
    np.testing.assert_allclose(torch.einsum(" i j , j k ", [a, b]).numpy(), a.numpy() @ b.numpy(), rtol=1e-5)
    assert tuple(torch.einsum("ba", [a]).shape) == (3, 2)


# ---- hypothesis: output shapes ---------------------------------------------------------------------

def _pool_out(size, k, p, s, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = num // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


@settings(max_examples=60, deadline=None)
@given(h=st.integers(1, 12), w=st.integers(1, 12), kh=st.integers(1, 4), kw=st.integers(1, 4),
       stride=st.tuples(st.integers(1, 3), st.integers(1, 3)), padding=st.tuples(st.integers(0, 2), st.integers(0, 2)),
       dilation=st.tuples(st.integers(1, 3), st.integers(1, 3)), groups=st.sampled_from([1, 2]))
def test_conv2d_output_shape_is_pytorch_formula(h, w, kh, kw, stride, padding, dilation, groups):
    x, wt = r(2, 2 * groups, h, w), r(2 * groups, 2, kh, kw)
    eff = [dilation[0] * (kh - 1) + 1, dilation[1] * (kw - 1) + 1]
    if h + 2 * padding[0] < eff[0] or w + 2 * padding[1] < eff[1]:
        with pytest.raises(RuntimeError, match="Kernel size can't be greater than actual input size"):
            torch.conv2d(x, wt, None, stride, padding, dilation, groups)
        return
    out = torch.conv2d(x, wt, None, stride, padding, dilation, groups)
    expected = [(n + 2 * p - e) // s + 1 for n, p, e, s in zip((h, w), padding, eff, stride)]
    assert tuple(out.shape) == (2, 2 * groups, *expected)


@settings(max_examples=60, deadline=None)
@given(h=st.integers(1, 12), w=st.integers(1, 12), k=st.integers(1, 4), s=st.integers(1, 3), p=st.integers(0, 2),
       d=st.integers(1, 2), ceil=st.booleans())
def test_max_pool2d_output_shape_matches_pytorch_formula_or_raises(h, w, k, s, p, d, ceil):
    x = r(1, 2, h, w)
    try:
        out, index = NN.max_pool2d_with_indices(x, k, s, p, d, ceil)
    except RuntimeError as e:
        assert re.search("pad should|Output size is too small", str(e))
        eff = (k - 1) * d + 1
        assert p > eff // 2 or p > k // 2 or _pool_out(h, k, p, s, d, ceil) < 1 or _pool_out(w, k, p, s, d, ceil) < 1
        return
    assert tuple(out.shape) == (1, 2, _pool_out(h, k, p, s, d, ceil), _pool_out(w, k, p, s, d, ceil))
    assert tuple(index.shape) == tuple(out.shape)
    # a window whose dilated taps all fall in the padding gives -inf and, as in PyTorch, the index
    # of its first tap (outside the plane); every other window gives its max and where it is
    o, i = out.numpy(), index.numpy()
    seen = np.isfinite(o)
    flat = x.numpy().reshape(1, 2, -1)
    assert np.array_equal(np.take_along_axis(flat, np.where(seen, i, 0).reshape(1, 2, -1), 2).reshape(o.shape)[seen],
                          o[seen])


@settings(max_examples=40, deadline=None)
@given(h=st.integers(1, 10), w=st.integers(1, 10), k=st.integers(1, 4), s=st.integers(1, 3), p=st.integers(0, 2),
       ceil=st.booleans(), include=st.booleans())
def test_avg_pool2d_output_shape_and_constant_input(h, w, k, s, p, ceil, include):
    try:
        out = NN.avg_pool2d(t(1, 1, h, w, fill=2.0), k, s, p, ceil, include)
    except RuntimeError:
        assert p > k // 2 or _pool_out(h, k, p, s, 1, ceil) < 1 or _pool_out(w, k, p, s, 1, ceil) < 1
        return
    assert tuple(out.shape) == (1, 1, _pool_out(h, k, p, s, 1, ceil), _pool_out(w, k, p, s, 1, ceil))
    if not include:
        assert np.allclose(out.numpy(), 2.0)   # padding never counts: the mean of 2s is 2


@settings(max_examples=40, deadline=None)
@given(h=st.integers(1, 9), w=st.integers(1, 9), oh=st.integers(1, 9), ow=st.integers(1, 9))
def test_adaptive_avg_pool2d_preserves_the_mean_of_constant_planes(h, w, oh, ow):
    out = NN.adaptive_avg_pool2d(t(2, 3, h, w, fill=1.5), (oh, ow))
    assert tuple(out.shape) == (2, 3, oh, ow) and np.allclose(out.numpy(), 1.5)


def test_sdpa_dropout_is_pytorchs_math_path_from_the_default_generator():
    rng = np.random.default_rng(0)
    q, k, v = (torch.from_numpy(rng.standard_normal(s).astype(np.float32)) for s in [(2, 3, 4, 8), (2, 3, 5, 8),
                                                                                        (2, 3, 5, 8)])
    torch.manual_seed(1)
    got = NN.scaled_dot_product_attention(q, k, v, dropout_p=0.3)
    torch.manual_seed(1)
    scores = torch.matmul(q, k.transpose(-2, -1)) * (1 / np.sqrt(8))
    expected = torch.matmul(torch.dropout(torch.softmax(scores, -1), 0.3, True), v)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    assert (got.numpy() != NN.scaled_dot_product_attention(q, k, v).numpy()).any()


def test_einsum_of_a_pure_permutation_is_a_view_as_in_pytorch():
    a = torch.from_numpy(np.arange(24.0).reshape(2, 3, 4))
    b = torch.einsum("ijk->kij", a)
    assert tuple(b.shape) == (4, 2, 3) and b.stride() == (1, 12, 4)
    np.testing.assert_array_equal(b.numpy(), np.einsum("ijk->kij", a.numpy()))
    b[0, 0, 0] = 100.0
    assert a[0, 0, 0].item() == 100.0
    assert torch.einsum("ji", a[0]).stride() == (1, 4)


def test_einsum_of_an_expanded_operand_sums_as_a_matrix_product_does():
    # einops' repeat hands einsum a stride-0 view; summed one product at a time in float32, 7e4 terms drift 1e-5
    # off (einops' own compile test failed on it), where PyTorch's bmm on the copy its reshape makes stays 5e-6
    x = np.random.default_rng(13).random((40, 41, 42), dtype=np.float32)     # (one-by-one sums: 8.8e-6 off)
    expanded = torch.from_numpy(x)[..., None].expand(40, 41, 42, 4)
    got = torch.einsum("abc,abcd->d", torch.from_numpy(x), expanded).numpy()
    exact = np.einsum("abc,abcd->d", x.astype(np.float64), np.broadcast_to(x[..., None], (40, 41, 42, 4)))
    assert np.abs(got - exact).max() / np.abs(exact).max() < 4e-6
    assert expanded.stride()[-1] == 0           # (the operand itself is left as it is)


def test_spatial_nll_loss_takes_only_int64_targets_as_pytorch():
    scores = torch.randn(2, 3, 4, 4)
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Byte"):
        torch.nn.functional.nll_loss(scores, torch.zeros(2, 4, 4, dtype=torch.uint8))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        torch.nn.functional.nll_loss(scores, torch.zeros(2, 4, 4, dtype=torch.int32))
