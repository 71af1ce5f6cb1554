"""The shape and dtype checks of the matrix products (bmm, baddbmm, addbmm, addmv, mv, dot), shared
by every backend, with PyTorch's messages and in its order."""
from c10.scalar_type cimport ST_BOOL
from c10.tensor_impl cimport TensorImpl, empty_contiguous
from aten.native.meta.messages cimport shape_of, type_name, cpp_type


cdef TensorImpl _vector(Py_ssize_t n, int scalar_type):
    """A placeholder input for mv's checks, which PyTorch runs as addmv's (no data is read)."""
    return empty_contiguous(1, &n, scalar_type, None)


cdef int check_expand(TensorImpl t, tuple target) except -1:
    """PyTorch's expand() errors when t cannot broadcast to the target shape."""
    cdef int n = len(target)
    cdef int i, j
    if t.nd > n:
        raise RuntimeError(f"expand(torch.{type_name(t.scalar_type)}Tensor{{{list(shape_of(t))}}}, size={list(target)}): "
                           f"the number of sizes provided ({n}) must be greater or equal to the number of "
                           f"dimensions in the tensor ({t.nd})")
    for i in range(t.nd):
        j = n - t.nd + i
        if t.sizes[i] != 1 and t.sizes[i] != target[j]:
            raise RuntimeError(f"The expanded size of the tensor ({target[j]}) must match the existing size "
                               f"({t.sizes[i]}) at non-singleton dimension {j}.  Target sizes: {list(target)}.  "
                               f"Tensor sizes: {list(shape_of(t))}")
    return 0


cdef int refuse_bool(str op, TensorImpl t) except -1:
    """The shared checks' dtype test: they also serve the portable kernels, which see float16 as it is."""
    if t.scalar_type == ST_BOOL:
        raise NotImplementedError(f'"{op}" not implemented for \'Bool\'')
    return 0


cpdef int check_bmm(TensorImpl batch1, TensorImpl batch2) except -1:
    if batch1.nd != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.nd != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if batch2.sizes[0] != batch1.sizes[0] or batch2.sizes[1] != batch1.sizes[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch1.sizes[0]}, "
                           f"{batch1.sizes[2]}] but got: [{batch2.sizes[0]}, {batch2.sizes[1]}].")
    if batch1.scalar_type != batch2.scalar_type:
        raise RuntimeError(f"expected scalar type {type_name(batch1.scalar_type)} but found "
                           f"{type_name(batch2.scalar_type)}")
    return 0


cpdef int check_baddbmm(TensorImpl self, TensorImpl batch1, TensorImpl batch2) except -1:
    if batch1.nd == 3 and batch2.nd == 3:
        check_expand(self, (batch1.sizes[0], batch1.sizes[1], batch2.sizes[2]))
    if self.scalar_type != batch1.scalar_type:
        raise RuntimeError(f"Input dtypes must be the same, got: input {cpp_type(self.scalar_type)}, batch1: "
                           f"{cpp_type(batch1.scalar_type)}, batch2: {cpp_type(batch2.scalar_type)}")
    check_bmm(batch1, batch2)
    refuse_bool("baddbmm", self)
    return 0


cpdef int check_addbmm(TensorImpl self, TensorImpl batch1, TensorImpl batch2) except -1:
    if batch1.nd != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if batch2.nd != 3:
        raise RuntimeError(f"batch2 must be a 3D tensor")
    if batch1.sizes[0] != batch2.sizes[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.sizes[0]} and "
                           f"{batch2.sizes[0]}")
    if batch1.sizes[2] != batch2.sizes[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.sizes[1]}x{batch1.sizes[2]} and "
                           f"{batch2.sizes[1]}x{batch2.sizes[2]})")
    check_expand(self, (batch1.sizes[1], batch2.sizes[2]))
    if self.scalar_type != batch2.scalar_type:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {type_name(self.scalar_type)} and "
                           f"{type_name(batch2.scalar_type)}")
    if batch1.scalar_type != batch2.scalar_type:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {type_name(batch1.scalar_type)} and "
                           f"{type_name(batch2.scalar_type)}")
    refuse_bool("addmm_impl_cpu_", self)
    return 0


cpdef int check_addmv(TensorImpl self, TensorImpl mat, TensorImpl vec) except -1:
    if not (mat.nd == 2 and vec.nd == 1 and self.nd <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.nd}, {mat.nd}, {vec.nd}")
    if not (mat.sizes[1] == vec.sizes[0] and (mat.sizes[0] == self.n_elem or self.n_elem == 1)):
        raise RuntimeError(f"size mismatch, got input ({self.sizes[0] if self.nd else 1}), "
                           f"mat ({mat.sizes[0]}x{mat.sizes[1]}), vec ({vec.sizes[0]})")
    if not (self.scalar_type == mat.scalar_type == vec.scalar_type):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {type_name(self.scalar_type)}, "
                           f"{type_name(mat.scalar_type)}, and {type_name(vec.scalar_type)}")
    refuse_bool("addmv_impl_cpu", self)
    return 0


cpdef int check_mv(TensorImpl self, TensorImpl vec) except -1:
    # PyTorch: addmv(empty(self.size(0), vec's dtype), self, vec, beta=0): its checks, its messages
    if self.nd != 2 or vec.nd != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.nd}, {vec.nd}")
    check_addmv(_vector(self.sizes[0], vec.scalar_type), self, vec)
    return 0


cpdef int check_dot(str op, TensorImpl self, TensorImpl other) except -1:
    if self.nd != 1 or other.nd != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.nd}D and {other.nd}D tensors")
    if self.scalar_type != other.scalar_type:
        raise RuntimeError(f"{op} : expected both vectors to have same dtype, but found "
                           f"{type_name(self.scalar_type)} and {type_name(other.scalar_type)}")
    if self.n_elem != other.n_elem:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{self.n_elem}] and src [{other.n_elem}] to "
                           f"have the same number of elements, but got {self.n_elem} and {other.n_elem} elements "
                           "respectively")
    refuse_bool(op, self)
    return 0
