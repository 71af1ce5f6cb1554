"""torch.profiler: profile (with activities, schedule, on_trace_ready), record_function, schedule,
tensorboard_trace_handler. Ember records the host side of every operator call through the dispatcher
(ProfilerActivity.CPU); CUDA kernels are timed inside the CPU time of the operator that launched them
(Ember launches synchronously on one stream), so no separate CUDA rows are reported."""
from torch.autograd.profiler import record_function
from torch.profiler.profiler import (ProfilerAction, ProfilerActivity, profile, schedule, supported_activities,
                                     tensorboard_trace_handler)

__all__ = ["profile", "schedule", "supported_activities", "tensorboard_trace_handler", "ProfilerAction",
           "ProfilerActivity", "record_function", "kineto_available"]


def kineto_available() -> bool:
    """Whether the profiler records through Kineto: Ember's records through its dispatcher."""
    return False
