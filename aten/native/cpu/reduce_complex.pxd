from aten.native.cpu.reduce cimport ReduceOps

# The reduction engine's ops for a product over complex64 (acc_type ST_COMPLEX64) or complex128.
cdef void complex_prod_ops(ReduceOps* ops, int acc_type) noexcept
