"""The argument checks of the losses that every backend runs before reading values: reduction,
shapes and dtypes, with PyTorch's messages."""
from c10.scalar_type cimport ST_UINT8
from c10.tensor_impl cimport TensorImpl
from aten.native.meta.messages cimport shape_of, type_name


cdef int check_reduction(object reduction) except -1:
    if reduction not in (NONE, MEAN, SUM):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return 0


cpdef int check_nll_loss2d(TensorImpl self, TensorImpl target) except -1:
    if target.nd != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.nd}")
    if self.nd != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{self.nd}")
    if (self.sizes[0] != target.sizes[0] or self.sizes[2] != target.sizes[1] or self.sizes[3] != target.sizes[2]):
        raise RuntimeError(f"size mismatch (got input: {list(shape_of(self))} , target: {list(shape_of(target))}")
    if target.scalar_type == ST_UINT8:      # the 1-D form takes bytes; PyTorch's spatial kernel reads int64
        raise RuntimeError("expected scalar type Long but found Byte")
    return 0


cdef tuple broadcast_pair(TensorImpl a, TensorImpl b):
    """PyTorch's broadcast shape of a and b, with its message (a, b as named there)."""
    cdef int n = max(a.nd, b.nd), i
    out = []
    for i in range(n):
        da = a.sizes[i - n + a.nd] if i - n + a.nd >= 0 else 1
        db = b.sizes[i - n + b.nd] if i - n + b.nd >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton "
                               f"dimension {i}")
        out.append(db if da == 1 else da)
    return tuple(out)


cpdef int check_binary_cross_entropy(TensorImpl self, TensorImpl target, object weight, int reduction) except -1:
    """The checks before the values' range (which needs the data)."""
    check_reduction(reduction)
    broadcast_pair(self, target)
    if target.scalar_type != self.scalar_type:
        raise RuntimeError(f"Found dtype {type_name(target.scalar_type)} but expected {type_name(self.scalar_type)}")
    if weight is not None:
        broadcast_pair(self, <TensorImpl?>weight)
    return 0
