"""Linear-algebra composites (CompositeImplicitAutograd, as upstream): matmul, linear, outer.

Written with mm/bmm/mv/dot and views, so that autograd differentiates through the pieces and
every backend with those kernels gets them. matmul follows upstream's _matmul_impl: the same
cases, the same folding of batch dimensions into one mm, hence the same error messages (they
come from the ops it calls).
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_dot = find_operator("dot")
_mv = find_operator("mv")
_mm = find_operator("mm")
_bmm = find_operator("bmm")
_addmm = find_operator("addmm")
_add = find_operator("add.Tensor")
_mul = find_operator("mul.Tensor")
_reshape = find_operator("reshape")
_unsafe_view = find_operator("reshape")     # upstream's _unsafe_view: a view whenever the result is fresh
_expand = find_operator("expand")
_unsqueeze = find_operator("unsqueeze")
_squeeze = find_operator("squeeze.dim")
_transpose = find_operator("transpose.int")
_t = find_operator("t")
_contiguous = find_operator("contiguous")


def _prod(values: Any) -> int:
    n = 1
    for v in values:
        n *= v
    return n


def infer_size(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """The broadcast of two shapes, with PyTorch's message when they do not broadcast."""
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        da = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        db = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b ({db}) at "
                               f"non-singleton dimension {i}")
        out.append(db if da == 1 else da)
    return tuple(out)


def _requires_grad(t: Any) -> bool:
    return bool(getattr(t, "requires_grad", False))


def _should_fold(tensor1: Any, tensor2: Any) -> bool:
    tensor1_larger = tensor1.dim() >= tensor2.dim()
    t1 = tensor1 if tensor1_larger else _transpose(tensor2, -1, -2)
    dim_t2 = tensor2.dim() if tensor1_larger else tensor1.dim()
    if not (t1.dim() >= 3 and dim_t2 <= 2):
        return False
    if _requires_grad(tensor2 if tensor1_larger else tensor1):
        return True
    if tensor1.dim() == 2:
        return False
    if t1.numel() == 0:
        return True
    sizes, strides = t1._sizes(), t1.stride()
    return all(strides[i] == strides[i + 1] * sizes[i + 1] for i in range(t1.dim() - 2))


def matmul(self: Any, other: Any) -> Any:
    dim1, dim2 = self.dim(), other.dim()
    if dim1 == 0 or dim2 == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {dim1}D and {dim2}D")
    if dim1 == 1 and dim2 == 1:
        return _dot(self, other)
    if dim1 == 2 and dim2 == 1:
        return _mv(self, other)
    if dim1 == 1 and dim2 == 2:
        return _squeeze(_mm(_unsqueeze(self, 0), other), 0)
    if dim1 == 2 and dim2 == 2:
        return _mm(self, other)
    if _should_fold(self, other):
        # fold the batch of the larger operand into the rows of one mm (or mv)
        transpose = dim2 > dim1
        t1 = _transpose(other, -1, -2) if transpose else self
        t2 = other if not transpose else (_t(self) if dim1 == 2 else self)
        sizes1 = t1._sizes()
        output_shape = list(sizes1[:-1])
        folded = _prod(output_shape)
        t1_folded = _reshape(t1, (folded, sizes1[-1]))
        if t2.dim() == 2:
            output_shape.append(t2._sizes()[1])
            output = _unsafe_view(_mm(t1_folded, t2), tuple(output_shape))
            return _contiguous(_transpose(output, -1, -2)) if transpose else output
        return _unsafe_view(_mv(t1_folded, t2), tuple(output_shape))
    # batched: broadcast the batch dims, flatten them, one bmm
    s1, s2 = self._sizes(), other._sizes()
    n = s1[-2] if dim1 > 1 else 1
    m1 = s1[-1]
    m2 = s2[-2] if dim2 > 1 else s2[0]
    p = s2[-1] if dim2 > 1 else 1
    batch1, batch2 = s1[:max(dim1 - 2, 0)], s2[:max(dim2 - 2, 0)]
    if dim1 == 3 and dim2 == 3 and batch1[0] != batch2[0]:
        # a batch of one broadcast against a larger one is squeezed (PyTorch 2.13 does so whether
        # or not it requires grad): (b, n, m) @ (1, m, p) then folds into one mm
        if batch1[0] == 1:
            return matmul(_squeeze(self, 0), other)
        if batch2[0] == 1:
            return matmul(self, _squeeze(other, 0))
    output_shape = list(infer_size(batch1, batch2))
    batch = _prod(output_shape)
    tensor1 = _reshape(_expand(self, tuple(output_shape) + (n, m1)), (batch, n, m1))
    vector_rhs = dim2 == 1
    if vector_rhs:
        tensor2 = _unsqueeze(_reshape(_expand(other, tuple(output_shape) + (m2,)), (batch, m2)), 2)
    else:
        tensor2 = _reshape(_expand(other, tuple(output_shape) + (m2, p)), (batch, m2, p))
    if dim1 > 1:
        output_shape.append(n)
    if dim2 > 1:
        output_shape.append(p)
    result = _bmm(tensor1, tensor2)
    if vector_rhs:
        result = _squeeze(result, -1)
    return _unsafe_view(result, tuple(output_shape))


def linear(input: Any, weight: Any, bias: Any = None) -> Any:
    if input.dim() == 2 and bias is not None:
        return _addmm(bias, input, _t(weight))
    if bias is not None and input.dim() == 3 and input.is_contiguous():
        sizes = input._sizes()
        flat = _reshape(input, (sizes[0] * sizes[1], sizes[2]))
        result = _addmm(bias, flat, _t(weight))
        return _reshape(result, (sizes[0], sizes[1], result._sizes()[-1]))
    output = matmul(input, _t(weight))
    return output if bias is None else _add(output, bias)


def outer(self: Any, vec2: Any) -> Any:
    if self.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {self.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    return _mul(_reshape(self, (self._sizes()[0], 1)), vec2)
