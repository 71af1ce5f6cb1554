# The fused element types CPU kernels are written over, declared once. A kernel over `num_t` gets a
# specialisation per dtype with kernels (bool computes as uint8_t, normalised to 0/1 after);
# `int_t` covers the integral dtypes, `floating_t` the floating ones (float16 computes in float,
# PyTorch's opmath), and `word_t` moves elements by their width alone (bool/uint8/int8 as uint8_t,
# int16 as uint16_t, int32/float32 as uint32_t, int64/float64 as uint64_t). Two roles that must
# specialise independently (an input type and an accumulator type) need two fused types: those
# stay with their kernel.
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint16_t, uint32_t, uint64_t

ctypedef fused num_t:
    uint8_t
    int8_t
    int16_t
    int32_t
    int64_t
    float
    double

ctypedef fused int_t:
    uint8_t
    int8_t
    int16_t
    int32_t
    int64_t

ctypedef fused floating_t:
    float
    double

ctypedef fused word_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t
