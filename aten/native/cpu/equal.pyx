"""aten::equal on the CPU: same shape and the same values (after promotion; NaN is never equal)."""
from c10.tensor_impl cimport TensorImpl
from aten.native.cpu._gen_eq import eq_Tensor_cpu
from aten.native.cpu.reduce_logical import all_cpu
from aten.native.meta.errors import device_mismatch_error


def cpu_equal(TensorImpl self not None, TensorImpl other not None):
    cdef int d
    if self.device_type != other.device_type:
        raise device_mismatch_error(self.device_obj, other.device_obj)
    if self.nd != other.nd:
        return False
    for d in range(self.nd):
        if self.sizes[d] != other.sizes[d]:
            return False
    if self.n_elem == 0:
        return True
    return bool(all_cpu(eq_Tensor_cpu(self, other)).item())
