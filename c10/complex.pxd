# complex64 / complex128 storage as C99's float _Complex / double _Complex (Cython's `float complex`
# and `double complex`, which it compiles to the C99 types under gcc): a (real, imaginary) pair of
# float32 / float64, the layout of c10::complex<T> and NumPy's complex64 / complex128.
ctypedef float complex complex64_t
ctypedef double complex complex128_t

# Either complex dtype, for code written once for both.
ctypedef fused complex_t:
    complex64_t
    complex128_t
