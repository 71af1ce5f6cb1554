"""Type promotion: the result dtype of a pointwise op from its operands.

It follows PyTorch's ResultTypeState (aten/src/ATen/native/TypeProperties.cpp): dimensioned
tensors outrank zero-dim tensors, which outrank wrapped Python numbers, unless a lower-priority
operand is of a higher category (bool < integral < floating).
"""
from c10.scalar_type cimport promote, is_floating, default_float_type, dtype_of, ST_BOOL, ST_UNDEFINED
from c10.tensor_impl cimport TensorImpl


cdef inline int _promote_skip_undefined(int a, int b) except -2:
    if a == ST_UNDEFINED:
        return b
    if b == ST_UNDEFINED:
        return a
    return promote(a, b)


cdef inline int _combine_categories(int higher, int lower) except -2:
    if higher == ST_UNDEFINED:
        return lower
    if is_floating(higher):
        return higher
    if higher == ST_BOOL or is_floating(lower):
        return _promote_skip_undefined(higher, lower)
    return higher


cdef int result_type(tuple inputs) except -2:
    cdef int dim_result = ST_UNDEFINED, zero_result = ST_UNDEFINED, wrapped_result = ST_UNDEFINED
    cdef int current
    cdef TensorImpl t
    for obj in inputs:
        t = <TensorImpl>obj
        current = t.scalar_type
        if t.is_wrapped_number:
            if is_floating(current):
                current = default_float_type()
            wrapped_result = _promote_skip_undefined(wrapped_result, current)
        elif t.nd == 0:
            zero_result = _promote_skip_undefined(zero_result, current)
        else:
            dim_result = _promote_skip_undefined(dim_result, current)
    return _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))


def result_type_of(*tensors):
    """torch.result_type for tensors (Python numbers must be wrapped first)."""
    return dtype_of(result_type(tensors))
