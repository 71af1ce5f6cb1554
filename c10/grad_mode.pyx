"""Grad mode and inference mode, per thread (c10's GradMode and InferenceMode).

The flags are C `__thread` variables defined in this one module (other modules reach them
through the functions of grad_mode.pxd), so a worker thread starts with grad mode on, as
PyTorch's does, and switching it costs no Python lookups.
"""

cdef extern from *:
    """
    static __thread int ember_grad_enabled = 1;
    static __thread int ember_inference_enabled = 0;
    static __thread int ember_below_autograd = 0;
    """
    int ember_grad_enabled
    int ember_inference_enabled
    int ember_below_autograd


cdef bint grad_enabled() noexcept nogil:
    return ember_grad_enabled != 0


cdef void set_grad_enabled_flag(bint enabled) noexcept nogil:
    global ember_grad_enabled
    ember_grad_enabled = 1 if enabled else 0


cdef bint inference_enabled() noexcept nogil:
    return ember_inference_enabled != 0


cdef bint below_autograd() noexcept nogil:
    return ember_below_autograd != 0


cdef void enter_below_autograd() noexcept nogil:
    global ember_below_autograd
    ember_below_autograd += 1


cdef void exit_below_autograd() noexcept nogil:
    global ember_below_autograd
    ember_below_autograd -= 1


def is_grad_enabled():
    """Whether operations record autograd history on this thread."""
    return ember_grad_enabled != 0


def set_grad_enabled(bint enabled):
    global ember_grad_enabled
    ember_grad_enabled = 1 if enabled else 0


def is_inference_mode_enabled():
    return ember_inference_enabled != 0


def set_inference_mode(bint enabled):
    """Inference mode on (grad mode off too) or off; the caller restores grad mode itself."""
    global ember_inference_enabled, ember_grad_enabled
    ember_inference_enabled = 1 if enabled else 0
    if enabled:
        ember_grad_enabled = 0
