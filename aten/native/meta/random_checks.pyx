"""randperm's argument checks, shared by every backend, with PyTorch's messages."""
from libc.stdint cimport int64_t
from c10.scalar_type cimport is_floating, has_arithmetic, is_barebones, ST_BOOL, ST_FLOAT16, ST_FLOAT32, ST_FLOAT64
from aten.native.meta.messages cimport type_name
from aten.native.meta.pointwise cimport check_scalar_fits


cpdef int check_randperm(int64_t n, int st) except -1:
    """n and the result's dtype (its scalar type) as PyTorch's randperm checks them."""
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    if st == ST_BOOL or st == ST_FLOAT16 or not has_arithmetic(st) or is_barebones(st):
        raise NotImplementedError(f'"randperm" not implemented for \'{type_name(st)}\'')
    if st == ST_FLOAT32 and n > (1 << 24) + 1:
        raise RuntimeError("n cannot be greater than 2^24+1 for Float type.")
    if st == ST_FLOAT64 and n > (1 << 53) + 1:
        raise RuntimeError("n cannot be greater than 2^53+1 for Double type.")
    if not is_floating(st):
        check_scalar_fits(n - 1 if n > 0 else n, st)     # the largest value it writes
    return 0
