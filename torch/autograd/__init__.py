"""torch.autograd: grad mode today; the engine, backward and Function arrive with issue 6."""
from __future__ import annotations

from torch.autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                                      no_grad, set_grad_enabled)

__all__ = ["enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "no_grad",
           "set_grad_enabled"]
