# bfloat16 storage as a struct of its bits (c10/bfloat16.h): Cython sees no arithmetic on it, so
# every loop converts explicitly, to float when it loads and back (rounded once) when it stores.
from libc.stdint cimport uint16_t

cdef extern from "c10/bfloat16.h" nogil:
    ctypedef struct bfloat16 "ember_bf16":
        uint16_t x
    float bf16_to_float "ember_bf16_to_float"(bfloat16 v)
    bfloat16 float_to_bf16 "ember_float_to_bf16"(float f)
    bfloat16 float_to_bf16_scalar "ember_float_to_bf16_scalar"(float f)
