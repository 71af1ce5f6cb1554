"""Python-level functions over the generated bindings, as PyTorch's torch/functional.py (and its
hand-written bindings of nonzero): varargs forms (einsum, broadcast_tensors, broadcast_shapes), string norm orders,
unique over _unique2/unique_dim, nonzero(as_tuple=True).

torch.<name> resolves these names here before the generated bindings (torch.__init__'s
PYTHON_FUNCTIONS); the generated ones stay reachable as torch._C._gen_<name>.<name>.
"""
from __future__ import annotations

import importlib
from typing import Any

from c10.tensor_impl import TensorImpl

__all__ = ["broadcast_shapes", "broadcast_tensors", "einsum", "nonzero", "norm", "split", "unique"]


def _generated(name: str) -> Any:
    """The generated binding torch.<name> would be without this module."""
    from torch._C import _gen_index
    return getattr(importlib.import_module(_gen_index.FUNCTIONS[name]), name)


def _linalg(name: str) -> Any:
    from torch._C import _gen_index
    return getattr(importlib.import_module(_gen_index.NAMESPACES["linalg"][name]), name)


def broadcast_tensors(*tensors: Any) -> Any:
    """broadcast_tensors(*tensors): views of the tensors expanded to their common shape."""
    return _generated("broadcast_tensors")(tensors)


def broadcast_shapes(*shapes: Any) -> Any:
    """broadcast_shapes(*shapes): the shape broadcast_tensors would give tensors of these shapes
    (each a sequence of sizes or one int; None is skipped), computed without making tensors."""
    from collections.abc import Sequence

    from torch._size import Size
    given = [(shape,) if isinstance(shape, int) else shape for shape in shapes if shape is not None]
    for shape in given:
        if not isinstance(shape, Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {shape}")
    common: list[Any] = [1] * max((len(shape) for shape in given), default=0)
    for index, shape in enumerate(given):
        for dim in range(-1, -1 - len(shape), -1):
            size = shape[dim]
            if size == common[dim]:
                continue
            if common[dim] == 1:
                if size < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[dim] = size
            elif size != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at {dim}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be "
                                   f"broadcastable to {common}")
    for i, size in enumerate(common):
        if not isinstance(size, int):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(size).__name__}')")
    return Size(common)


def split(tensor: Any, split_size_or_sections: Any, dim: int = 0) -> Any:
    """split(tensor, split_size_or_sections, dim=0): equal chunks of an int size, or the given sizes."""
    return tensor.split(split_size_or_sections, dim)


_EINSUM_NEEDS = ("einsum(): must specify the equation string and at least one operand, or at least one operand "
                 "and its subscripts list")


def _subscript(n: Any) -> str:
    if n == Ellipsis:
        return "..."
    if 0 <= n < 26:
        return chr(ord("A") + n)
    if 26 <= n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def einsum(*args: Any) -> Any:
    """einsum(equation, *operands), einsum(equation, [operands]) or the sublist form
    einsum(op1, sublist1, op2, sublist2, ..., [sublist_out])."""
    if len(args) < 2:
        raise ValueError(_EINSUM_NEEDS)
    if isinstance(args[0], TensorImpl):
        # Sublist form: operands alternate with lists of subscripts (ints in [0, 52) or Ellipsis).
        equation = ",".join("".join(_subscript(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_subscript(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])   # the list form
    return _generated("einsum")(equation, operands)


def unique(input: Any, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: Any = None) -> Any:
    """The unique elements (or slices along dim) of input; with return_inverse and/or
    return_counts, a tuple that adds the inverse indices and/or the counts."""
    if dim is not None:
        output, inverse, counts = _generated("unique_dim")(input, dim, sorted=sorted, return_inverse=return_inverse,
                                                            return_counts=return_counts)
    else:
        output, inverse, counts = _generated("_unique2")(input, sorted=sorted, return_inverse=return_inverse,
                                                          return_counts=return_counts)
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def nonzero(input: Any, *, out: Any = None, as_tuple: bool = False) -> Any:
    """Indices of the nonzero elements: an (n, ndim) tensor, or with as_tuple one index tensor
    per dimension (a 0-dim input counts as 1-dim)."""
    if not isinstance(as_tuple, bool):
        raise TypeError(f"nonzero(): argument 'as_tuple' must be bool, not {type(as_tuple).__name__}")
    if not as_tuple:
        return _generated("nonzero")(input) if out is None else _generated("nonzero")(input, out=out)
    if out is not None:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    if not isinstance(input, TensorImpl):
        return _generated("nonzero")(input)   # the binding's TypeError
    tensor: Any = input   # a torch.Tensor (every TensorImpl is one)
    indices = _generated("nonzero")(tensor.unsqueeze(0) if tensor.dim() == 0 else tensor)
    return tuple(indices.unbind(1))


def norm(input: Any, p: Any = "fro", dim: Any = None, keepdim: bool = False, out: Any = None,
         dtype: Any = None) -> Any:
    """The vector norm of order p over dim (all of input by default), as PyTorch's torch.norm on
    strided tensors: numbers and 'fro' go to linalg.vector_norm; 'nuc' and other strings are
    matrix norms, which need linalg.matrix_norm (not in Ember yet)."""
    dims = [dim] if isinstance(dim, int) else dim
    kwargs = {"dtype": dtype} if out is None else {"dtype": dtype, "out": out}
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _linalg("vector_norm")(input, 2, dims, keepdim, **kwargs)
        if p == "nuc":
            raise NotImplementedError("torch.norm(p='nuc') is a nuclear norm (linalg.matrix_norm over singular "
                                      "values), which needs linalg.svdvals: not in Ember yet")
        if p == "fro":
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
        raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
    return _linalg("vector_norm")(input, 2.0 if p is None else p, dims, keepdim, **kwargs)


def numel(input: Any) -> int:
    """The number of elements of input (upstream binds torch.numel by hand too: its schema,
    numel(Tensor self) -> int, is a method only)."""
    if not isinstance(input, TensorImpl):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.numel()
