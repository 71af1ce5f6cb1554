"""The checks of reflection and replication padding that every backend runs, with PyTorch's
messages; they return the (lo, hi) pairs, last dim first (F.pad's order)."""
from c10.tensor_impl cimport TensorImpl
from aten.native.meta.messages cimport shape_of


cdef int _check_batch_input(TensorImpl self, int spatial) except -1:
    """2D/3D (1-d padding), 3D/4D (2-d) or 4D/5D (3-d): batch may be 0, the other dims may not."""
    cdef int i
    ok = self.nd == spatial + 1 or self.nd == spatial + 2
    if ok:
        for i in range(1 if self.nd == spatial + 2 else 0, self.nd):
            if self.sizes[i] == 0:
                ok = False
    if not ok:
        raise RuntimeError(f"Expected {spatial + 1}D or {spatial + 2}D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {list(shape_of(self))}")
    return 0


cdef int _check_reflect(TensorImpl self, tuple pads, int first_arg) except -1:
    cdef int i, d
    for i in range(len(pads)):
        d = self.nd - 1 - i
        lo, hi = pads[i]
        if lo >= self.sizes[d] or hi >= self.sizes[d]:
            raise RuntimeError(f"Argument #{first_arg + 2 * i}: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({lo}, {hi}) at dimension {d} of input "
                               f"{list(shape_of(self))}")
        if len(pads) < 3 and self.sizes[d] + lo + hi < 1:
            raise RuntimeError(f"input (W: {self.sizes[d]}) is too small. Calculated output W: "
                               f"{self.sizes[d] + lo + hi}")
    if len(pads) == 3:       # reflection_pad3d sizes its output as replication_pad3d does
        return _check_replicate_3d(self, pads)
    return 0


cdef int _check_replicate(TensorImpl self, tuple pads) except -1:
    cdef int i, d
    if len(pads) == 3:
        return _check_replicate_3d(self, pads)
    for i in range(len(pads)):
        d = self.nd - 1 - i
        out = self.sizes[d] + pads[i][0] + pads[i][1]
        if out < 1:
            names = ("D", "H", "W")[3 - len(pads):]
            sizes = [self.sizes[self.nd - len(pads) + j] for j in range(len(pads))]
            outs = [sizes[j] + pads[len(pads) - 1 - j][0] + pads[len(pads) - 1 - j][1] for j in range(len(pads))]
            given = ", ".join([f"{n}: {v}" for n, v in zip(names, sizes)])
            calculated = " ".join([f"{n}: {v}" for n, v in zip(names, outs)])
            raise RuntimeError(f"input ({given}) is too small. Calculated output {calculated}")
    return 0


cdef int _check_replicate_3d(TensorImpl self, tuple pads) except -1:
    """PyTorch's 3-d padding refuses only an output with no positive size, then the shape with
    a negative one (an output size of 0 in some dims is an empty result); its message, a comma short, too."""
    sizes = [self.sizes[self.nd - 3 + j] for j in range(3)]
    outs = [sizes[j] + pads[2 - j][0] + pads[2 - j][1] for j in range(3)]
    if all([v < 1 for v in outs]):
        raise RuntimeError(f"input (D: {sizes[0]} H: {sizes[1]}, W: {sizes[2]}) is too small. Calculated output "
                           f"D: {outs[0]} H: {outs[1]} W: {outs[2]}")
    shape = list(shape_of(self))[:self.nd - 3] + outs
    for v in outs:
        if v < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {v}: {shape}")
    return 0


cdef tuple _pairs(object padding, int n, str name):
    padding = tuple(padding)
    if len(padding) != 2 * n:
        raise RuntimeError(f"padding size is expected to be {2 * n}")
    return tuple([(padding[2 * i], padding[2 * i + 1]) for i in range(n)])


def check_gather_pad(TensorImpl self not None, padding, bint reflect, int spatial):
    """reflection_pad/replication_pad's checks over `spatial` trailing dims; returns the (lo, hi)
    pairs, last dim first (F.pad's order). Shared with the portable kernels."""
    cdef tuple pads = _pairs(padding, spatial, "padding")
    _check_batch_input(self, spatial)
    if reflect:
        _check_reflect(self, pads, 4)
    else:
        _check_replicate(self, pads)
    return pads
