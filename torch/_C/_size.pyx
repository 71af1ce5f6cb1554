"""torch.Size: the shape of a tensor, a tuple of ints.

`x.shape[0]` is on every user's hot path, and a Python-level __getitem__ would cost twice the
rest of the call. So the class keeps the Python-visible __getitem__ (slices give a Size, as
PyTorch's) but its C subscript slot is replaced by size_subscript below, which answers an int
index with tuple's own C code.
"""
cdef extern from *:
    """
    static PyObject* ember_size_type = NULL;

    /* Size's subscript: tuple's for an int, and a Size for a slice. */
    static PyObject* ember_size_subscript(PyObject* self, PyObject* index) {
        PyObject* result = PyTuple_Type.tp_as_mapping->mp_subscript(self, index);
        if (result == NULL || !PySlice_Check(index)) return result;
        PyObject* sized = PyObject_CallOneArg(ember_size_type, result);
        Py_DECREF(result);
        return sized;
    }

    static void ember_install_size_subscript(PyObject* cls) {
        Py_INCREF(cls);
        ember_size_type = cls;
        ((PyTypeObject*)cls)->tp_as_mapping->mp_subscript = ember_size_subscript;
        PyType_Modified((PyTypeObject*)cls);
    }
    """
    void ember_install_size_subscript(object cls)


class Size(tuple):
    __module__ = "torch"
    __slots__ = ()

    def numel(self):
        cdef Py_ssize_t n = 1
        for v in self:
            n *= v
        return n

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def __getitem__(self, index):
        result = tuple.__getitem__(self, index)
        return Size(result) if isinstance(index, slice) else result

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))


ember_install_size_subscript(Size)
