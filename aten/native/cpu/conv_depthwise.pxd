# The depthwise forward convolution (conv_depthwise.pyx) and the column bounds every convolution loop uses.

cdef inline Py_ssize_t ceil_div(Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    # b > 0
    return -((-a) // b) if a < 0 else (a + b - 1) // b


cdef inline Py_ssize_t first_inside(Py_ssize_t w0, Py_ssize_t sw) noexcept nogil:
    """The first k >= 0 whose input column w0 + k*sw is >= 0."""
    cdef Py_ssize_t k = ceil_div(-w0, sw)
    return k if k > 0 else 0


cdef inline Py_ssize_t end_inside(Py_ssize_t W, Py_ssize_t n, Py_ssize_t w0, Py_ssize_t sw) noexcept nogil:
    """One past the last k < n whose input column w0 + k*sw is < W."""
    cdef Py_ssize_t k = ceil_div(W - w0, sw)
    return k if k < n else n


cdef void depthwise_forward(bint f64, const char* x, const char* w, const char* bias, char* out, Py_ssize_t N,
                            Py_ssize_t C, Py_ssize_t H, Py_ssize_t W, Py_ssize_t Cout, Py_ssize_t kh, Py_ssize_t kw,
                            Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t ph, Py_ssize_t pw, Py_ssize_t dh, Py_ssize_t dw,
                            Py_ssize_t Ho, Py_ssize_t Wo, int nt) noexcept nogil
