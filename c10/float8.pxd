# The float8 storage formats as structs of their byte (c10/float8.h): Cython sees no arithmetic on
# them, so every conversion is explicit, through float, as PyTorch converts.
from libc.stdint cimport uint8_t

cdef extern from "c10/float8.h" nogil:
    ctypedef struct float8_e5m2 "ember_e5m2":
        uint8_t x
    ctypedef struct float8_e4m3fn "ember_e4m3fn":
        uint8_t x
    ctypedef struct float8_e5m2fnuz "ember_e5m2fnuz":
        uint8_t x
    ctypedef struct float8_e4m3fnuz "ember_e4m3fnuz":
        uint8_t x
    float e5m2_to_float "ember_e5m2_to_float"(float8_e5m2 v)
    float e4m3fn_to_float "ember_e4m3fn_to_float"(float8_e4m3fn v)
    float e5m2fnuz_to_float "ember_e5m2fnuz_to_float"(float8_e5m2fnuz v)
    float e4m3fnuz_to_float "ember_e4m3fnuz_to_float"(float8_e4m3fnuz v)
    float8_e5m2 float_to_e5m2 "ember_float_to_e5m2"(float f)
    float8_e4m3fn float_to_e4m3fn "ember_float_to_e4m3fn"(float f)
    float8_e5m2fnuz float_to_e5m2fnuz "ember_float_to_e5m2fnuz"(float f)
    float8_e4m3fnuz float_to_e4m3fnuz "ember_float_to_e4m3fnuz"(float f)
