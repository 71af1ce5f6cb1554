"""What a capture sees of the calls its function makes, as a profile function written in C (PyEval_SetProfile):
each Python function entered for the first time (its code not yet in `seen`) is handed to `entered(frame)`, and
each C function called whose name is one of `names` to `called(frame, function)`. A profile function written in
Python would be called at every call and return, which costs a capture a fifth of its time; this one calls into
Python only for those two events. An exception either raises stops the call it was made for, as a Python
profile function's does (fullgraph=True's Unsupported).

`watch` sets it on the calling thread in front of the profile function set there before, if any (cProfile's,
written in C, or one written in Python through sys.setprofile): that one is called after it at every event, so
the program's profiler still sees everything while the capture sees the C calls too. `unwatch` puts it back."""
from cpython.object cimport PyObject

cdef extern from "Python.h":
    ctypedef struct PyFrameObject
    ctypedef struct PyMethodDef:
        const char* ml_name
    ctypedef struct PyCFunctionObject:
        PyMethodDef* m_ml
    ctypedef int (*Py_tracefunc)(PyObject*, PyFrameObject*, int, PyObject*) except -1
    void PyEval_SetProfile(Py_tracefunc func, PyObject* obj)
    ctypedef struct PyThreadState:
        Py_tracefunc c_profilefunc
        PyObject* c_profileobj
    PyThreadState* PyThreadState_Get()
    bint PyCFunction_Check(PyObject* op)
    object PyUnicode_FromString(const char* s)
    int PyTrace_CALL
    int PyTrace_C_CALL

cdef extern from *:
    """
    static PyObject* ember_frame_code(PyFrameObject* frame) { return (PyObject*)PyFrame_GetCode(frame); }
    """
    object ember_frame_code(PyFrameObject* frame)     # (a new reference: Cython releases it)

# Whether a C function's name is watched, remembered per PyMethodDef (one per C function, static): most C calls
# are answered without making a str.
DEF TABLE = 4096
cdef const void* _methods[TABLE]
cdef char _watched[TABLE]


cdef class Watcher:
    cdef object seen, entered, names, called
    cdef Py_tracefunc previous          # the profile function set before watch (a profiler's), or NULL
    cdef PyObject* previous_state       # its object, kept alive by `kept`
    cdef object kept

    def __init__(self, seen, entered, names, called):
        self.seen = seen
        self.entered = entered
        self.names = names
        self.called = called

    def __call__(self, frame, event, arg):
        """The same watch from Python, where the program set this watcher back as a profile function
        (`previous = sys.getprofile(); sys.setprofile(None); ...; sys.setprofile(previous)`), followed by the
        profiler it was put in front of when that one is written in Python."""
        if event == "call":
            if frame.f_code not in self.seen:
                self.entered(frame)
        elif event == "c_call" and getattr(arg, "__name__", None) in self.names:
            self.called(frame, arg)
        if callable(self.kept):
            self.kept(frame, event, arg)


cdef bint _is_watched(PyMethodDef* method, object names) except -1:
    cdef size_t slot = (<size_t>method >> 4) & (TABLE - 1)
    if _methods[slot] != <const void*>method:
        _watched[slot] = PyUnicode_FromString(method.ml_name) in names
        _methods[slot] = <const void*>method
    return _watched[slot]


cdef int _profile(PyObject* state, PyFrameObject* frame, int what, PyObject* arg) except -1:
    cdef Watcher watcher = <Watcher>state
    if what == PyTrace_CALL:
        if ember_frame_code(frame) not in watcher.seen:
            watcher.entered(<object><PyObject*>frame)
    elif what == PyTrace_C_CALL and PyCFunction_Check(arg):
        if _is_watched((<PyCFunctionObject*>arg).m_ml, watcher.names):
            watcher.called(<object><PyObject*>frame, <object>arg)
    if watcher.previous != NULL:
        return watcher.previous(watcher.previous_state, frame, what, arg)
    return 0


def watch(Watcher watcher):
    """Set watcher's profile function on this thread, in front of the one set there before."""
    cdef PyThreadState* thread = PyThreadState_Get()
    watcher.previous, watcher.previous_state = thread.c_profilefunc, thread.c_profileobj
    # (PyEval_SetProfile releases the object it replaces: the watcher holds it until it is put back)
    watcher.kept = <object>thread.c_profileobj if thread.c_profileobj != NULL else None
    PyEval_SetProfile(_profile, <PyObject*>watcher)


def unwatch(Watcher watcher):
    """Put back on this thread the profile function set before watch, unless the program replaced watcher's
    meanwhile (a profiler it stopped stays stopped)."""
    if PyThreadState_Get().c_profileobj == <PyObject*>watcher:
        PyEval_SetProfile(watcher.previous, watcher.previous_state)
    watcher.previous, watcher.previous_state, watcher.kept = NULL, NULL, None
