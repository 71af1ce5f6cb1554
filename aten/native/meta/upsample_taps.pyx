"""Where each output element of an upsampling op reads its input, one axis at a time: the source
indices and weights of PyTorch's UpSample.h (nearest_idx, nearest_exact_idx, area_pixel_compute_scale,
area_pixel_compute_source_index, guard_index_and_lambda, the cubic convolution coefficients), with its
arithmetic: the nearest modes in float, the others in the kernel's opmath type (float, or double for
float64 tensors). Every backend applies the same taps, so they agree with each other and with PyTorch.

Also the argument checks the upsampling kernels share, with PyTorch's messages."""
from libc.math cimport floor, floorf

ctypedef fused real:
    float
    double

_AXES = ("D", "H", "W")


def check_upsample(tuple sizes, output_size, int spatial):
    """upsample_{1,2,3}d_common_check and the meta functions' non-empty check; the output size as a tuple."""
    output_size = tuple(int(s) for s in output_size)
    if len(output_size) != spatial:
        raise RuntimeError(f"It is expected output_size equals to {spatial}, but got size {len(output_size)}")
    if len(sizes) != spatial + 2:
        raise RuntimeError(f"It is expected input_size equals to {spatial + 2}, but got size {len(sizes)}")
    names = _AXES[3 - spatial:]
    if any(s <= 0 for s in sizes[2:]) or any(s <= 0 for s in output_size):
        given = ", ".join(f"{n}: {s}" for n, s in zip(names, sizes[2:]))
        wanted = ", ".join(f"{n}: {s}" for n, s in zip(names, output_size))
        joiner = " and output" if spatial == 1 else " output"
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({given}){joiner} "
                           f"({wanted})")
    if sizes[1] == 0:
        raise RuntimeError(f"Non-empty {spatial + 2}D data tensor expected but got a tensor with sizes "
                           f"{list(sizes)}")
    return output_size


cdef real _scales_value(object scale, Py_ssize_t in_size, Py_ssize_t out_size, real kind):
    if scale is not None and scale > 0:
        return <real>(1.0 / <double>scale)
    return <real>in_size / <real>out_size


cdef real _area_scale(Py_ssize_t in_size, Py_ssize_t out_size, bint align_corners, object scale, real kind):
    if align_corners:
        return <real>(in_size - 1) / <real>(out_size - 1) if out_size > 1 else <real>0
    return _scales_value(scale, in_size, out_size, kind)


cdef real _source_index(real scale, Py_ssize_t dst, bint align_corners, bint cubic):
    cdef real src
    if align_corners:
        return scale * <real>dst
    src = scale * (<real>dst + <real>0.5) - <real>0.5
    return <real>0 if (not cubic and src < 0) else src


def nearest(Py_ssize_t in_size, Py_ssize_t out_size, scale, bint exact):
    """The input index each output index copies (nearest, or nearest-exact)."""
    cdef float s = _scales_value[float](scale, in_size, out_size, 0)
    cdef Py_ssize_t i
    if not exact and out_size == in_size:
        return list(range(out_size))
    if not exact and out_size == 2 * in_size:
        return [i >> 1 for i in range(out_size)]
    if exact:       # (dst + 0.5) is a double in PyTorch, its product with the float scale rounded to float
        return [min(<Py_ssize_t>floorf(<float>((<double>i + 0.5) * s)), in_size - 1) for i in range(out_size)]
    return [min(<Py_ssize_t>floorf(<float>i * s), in_size - 1) for i in range(out_size)]


cdef tuple _linear(real kind, Py_ssize_t in_size, Py_ssize_t out_size, object scale, bint align_corners):
    cdef real s = _area_scale(in_size, out_size, align_corners, scale, kind)
    cdef real src, lam
    cdef Py_ssize_t i, i0
    first, second, w0, w1 = [], [], [], []
    for i in range(out_size):
        if out_size == in_size:
            first.append(i); second.append(i); w0.append(1.0); w1.append(0.0)
            continue
        src = _source_index(s, i, align_corners, False)
        i0 = min(<Py_ssize_t>floor(src), in_size - 1)
        lam = min(max(src - <real>i0, <real>0), <real>1)
        first.append(i0)
        second.append(i0 + 1 if i0 < in_size - 1 else i0)
        w1.append(lam)
        w0.append(<real>1 - lam)
    return [first, second], [w0, w1]


cdef real _cubic1(real x, real A):
    return ((A + 2) * x - (A + 3)) * x * x + 1


cdef real _cubic2(real x, real A):
    return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A


cdef tuple _cubic(real kind, Py_ssize_t in_size, Py_ssize_t out_size, object scale, bint align_corners):
    cdef real s = _area_scale(in_size, out_size, align_corners, scale, kind)
    cdef real A = <real>-0.75
    cdef real src, t
    cdef Py_ssize_t i, j, i0
    index = [[], [], [], []]
    weight = [[], [], [], []]
    for i in range(out_size):
        src = _source_index(s, i, align_corners, True)
        i0 = min(<Py_ssize_t>floor(src), in_size - 1)
        t = min(max(src - <real>i0, <real>0), <real>1)
        coeffs = (_cubic2(t + 1, A), _cubic1(t, A), _cubic1(1 - t, A), _cubic2(2 - t, A))
        for j in range(4):
            index[j].append(max(min(i0 - 1 + j, in_size - 1), 0))
            weight[j].append(coeffs[j])
    return index, weight


def linear(Py_ssize_t in_size, Py_ssize_t out_size, scale, bint align_corners, bint double_precision):
    """([indices of tap 0, tap 1], [weights of tap 0, tap 1]) of linear interpolation."""
    if double_precision:
        return _linear[double](0, in_size, out_size, scale, align_corners)
    return _linear[float](0, in_size, out_size, scale, align_corners)


def cubic(Py_ssize_t in_size, Py_ssize_t out_size, scale, bint align_corners, bint double_precision):
    """The four taps of bicubic interpolation (A = -0.75), indices clamped to the input."""
    if double_precision:
        return _cubic[double](0, in_size, out_size, scale, align_corners)
    return _cubic[float](0, in_size, out_size, scale, align_corners)
