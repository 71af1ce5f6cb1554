"""Python-level functions over the generated bindings, as PyTorch's torch/functional.py (and its
hand-written bindings of nonzero): varargs forms (einsum, broadcast_tensors, broadcast_shapes, meshgrid,
cartesian_prod, block_diag, atleast_*d), tensordot's dims forms, cdist's compute_mode names, string norm
orders, unique over _unique2/unique_dim, nonzero(as_tuple=True).

torch.<name> resolves these names here before the generated bindings (torch.__init__'s
PYTHON_FUNCTIONS); the generated ones stay reachable as torch._C._gen_<name>.<name>.
"""
from __future__ import annotations

import importlib
from typing import Any

from c10.tensor_impl import TensorImpl

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "cdist", "einsum", "meshgrid", "nonzero", "norm", "split", "tensordot", "unique",
           "unique_consecutive"]


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
    return _asked(output, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input: Any, return_inverse: bool = False, return_counts: bool = False, dim: Any = None) -> Any:
    """input with each run of equal consecutive elements (or slices along dim) kept once; with return_inverse
    and/or return_counts, a tuple that adds the inverse indices and/or the runs' lengths."""
    output, inverse, counts = _generated("unique_consecutive")(input, return_inverse=return_inverse,
                                                               return_counts=return_counts, dim=dim)
    return _asked(output, inverse, counts, return_inverse, return_counts)


def _asked(output: Any, inverse: Any, counts: Any, return_inverse: bool, return_counts: bool) -> Any:
    """unique's result as PyTorch gives it: the output alone, or a tuple with what was asked for."""
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
    strided tensors: numbers and 'fro' go to linalg.vector_norm; 'nuc' and the other strings are
    matrix norms (linalg.matrix_norm, over every dim when dim is None)."""
    dims = [dim] if isinstance(dim, int) else dim
    kwargs = {"dtype": dtype} if out is None else {"dtype": dtype, "out": out}
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _linalg("vector_norm")(input, 2, dims, keepdim, **kwargs)
        matrix_dims = list(range(input.dim())) if dims is None else dims
        return _linalg("matrix_norm")(input, p, matrix_dims, keepdim, **kwargs)
    return _linalg("vector_norm")(input, 2.0 if p is None else p, dims, keepdim, **kwargs)


def numel(input: Any) -> int:
    """The number of elements of input (upstream binds torch.numel by hand too: its schema,
    numel(Tensor self) -> int, is a method only)."""
    if not isinstance(input, TensorImpl):
        raise TypeError(f"numel(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.numel()


def _tensors(args: tuple[Any, ...]) -> Any:
    """Varargs tensors, or one list/tuple of them."""
    return args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args


def meshgrid(*tensors: Any, indexing: str | None = None) -> Any:
    """Coordinate grids from 1-D tensors: "ij" (matrix) or "xy" (Cartesian) indexing; without
    indexing, "ij" with PyTorch's warning that it will become required."""
    if indexing is None:
        return tuple(_generated("meshgrid")(list(_tensors(tensors))))
    return tuple(_generated("meshgrid")(list(_tensors(tensors)), indexing=indexing))


def cartesian_prod(*tensors: Any) -> Any:
    """The Cartesian product of 1-D tensors, one row per combination."""
    return _generated("cartesian_prod")(list(_tensors(tensors)))


def block_diag(*tensors: Any) -> Any:
    """The tensors (0-, 1- or 2-D) as the blocks of a block-diagonal matrix."""
    return _generated("block_diag")(list(tensors))


def tensordot(a: Any, b: Any, dims: Any = 2, out: Any = None) -> Any:
    """Contract a's last `dims` dims with b's first (dims an int), or the dims listed in a pair."""
    if isinstance(dims, TensorImpl):
        dims = dims.tolist() if dims.dim() else int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.dim() - dims, a.dim())), list(range(dims))
    elif isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists or an integer")
        dims_a, dims_b = dims
        dims_a = [dims_a] if isinstance(dims_a, int) else list(dims_a)
        dims_b = [dims_b] if isinstance(dims_b, int) else list(dims_b)
    else:
        raise RuntimeError(f"tensordot expects dims to be int or Tuple[List[int], List[int]] or List[List[int]] "
                           f"containing two lists, but got dims={dims}")
    result = _generated("tensordot")(a, b, dims_a, dims_b)
    return result if out is None else out.resize_(result.shape).copy_(result)


_CDIST_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
                "donot_use_mm_for_euclid_dist": 2}


def cdist(x1: Any, x2: Any, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Any:
    """Pairwise p-norm distances between the rows of x1 (..., P, M) and x2 (..., R, M)."""
    if compute_mode not in _CDIST_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _generated("cdist")(x1, x2, p, _CDIST_MODES[compute_mode])


def _atleast(name: str, tensors: tuple[Any, ...]) -> Any:
    if len(tensors) == 1 and isinstance(tensors[0], TensorImpl):
        return _generated(name)(tensors[0])
    return tuple(_generated(name)(list(_tensors(tensors))))


def atleast_1d(*tensors: Any) -> Any:
    return _atleast("atleast_1d", tensors)


def atleast_2d(*tensors: Any) -> Any:
    return _atleast("atleast_2d", tensors)


def atleast_3d(*tensors: Any) -> Any:
    return _atleast("atleast_3d", tensors)


def _assert(condition: Any, message: str) -> None:
    """Python's assert as a function, so that symbolic tracing records it (a Proxy condition goes to its
    __torch_function__, as PyTorch's torch._assert)."""
    from torch._C.arg_parser import handle_torch_function, overloaded_among, wants_torch_function
    if wants_torch_function((condition,)):         # plain tensors and bools never do; subclasses may
        return handle_torch_function(_assert, overloaded_among((condition,)), (condition, message), {})
    assert condition, message


_assert.__module__ = "torch"
