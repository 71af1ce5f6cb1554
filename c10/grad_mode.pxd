# Grad mode and inference mode: thread-local flags (c10/core/GradMode.h, InferenceMode.h). The
# dispatcher reads grad mode on every call, so both are C-level reads.
cdef bint grad_enabled() noexcept nogil
cdef void set_grad_enabled_flag(bint enabled) noexcept nogil
cdef bint inference_enabled() noexcept nogil
# Set while an autograd kernel runs the op below autograd (PyTorch's AutoDispatchBelowAutograd):
# the ops that kernel calls in turn record no history.
cdef bint below_autograd() noexcept nogil
cdef void enter_below_autograd() noexcept nogil
cdef void exit_below_autograd() noexcept nogil
