"""index_copy's argument checks, shared by every backend, with PyTorch's messages."""
from c10.scalar_type cimport ST_INT64
from c10.tensor_impl cimport TensorImpl
from aten.native.meta.messages cimport type_name


cpdef int check_index_copy(TensorImpl self, int d, TensorImpl index, TensorImpl source) except -1:
    cdef Py_ssize_t n = index.n_elem
    cdef list self_sliced, source_sliced
    if index.nd >= 2:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.nd})")
    if source.nd == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {n})")
    if source.nd != self.nd and source.nd != 0 and self.nd != 0:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.nd}), destination dimensionality ({self.nd})")
    if index.scalar_type != ST_INT64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {type_name(index.scalar_type)}")
    if self.scalar_type != source.scalar_type:
        raise RuntimeError("index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{type_name(self.scalar_type)} and (source) {type_name(source.scalar_type)}")
    self_sliced = list(self._sizes())
    if self_sliced:
        del self_sliced[d]
    source_sliced = list(source._sizes())
    if source_sliced:
        if d >= len(source_sliced):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-source.nd}, {source.nd - 1}], "
                             f"but got {d})")
        del source_sliced[d]
    if self_sliced != source_sliced:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. "
                           f"Destination slice shape: {' '.join(map(str, self_sliced))} at dimension {d} and source "
                           f"slice shape: {' '.join(map(str, source_sliced))} at dimension 0.")
    if source.nd != 0 and n != source.sizes[d]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to source.size(dim) "
                         f"({source.sizes[d]})")
    return 0
