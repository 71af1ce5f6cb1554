"""torch.autograd: backward, grad, Function and the grad-mode context managers.

The graph and the engine are torch/csrc/autograd/graph.pyx; operators record history only
through torch.autograd.Function today (the generated formulas of derivatives.yaml come next).
backward and grad are defined in _backward.py, which the other modules here import them from:
none of this package's modules imports the package itself.
"""
from __future__ import annotations

from torch.autograd import forward_ad, functional
from torch.autograd._backward import _make_grads as _make_grads  # PyTorch's name here, kept importable
from torch.autograd._backward import backward, grad
from torch.autograd.anomaly_mode import detect_anomaly, set_detect_anomaly
from torch.autograd.function import Function, FunctionCtx, once_differentiable
from torch.autograd.gradcheck import gradcheck, gradgradcheck
from torch.autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                                      no_grad, set_grad_enabled)
from torch.autograd import graph     # the engine's graph and the saved-tensor hooks
from torch.autograd.variable import Variable

__all__ = ["Function", "FunctionCtx", "backward", "detect_anomaly", "enable_grad", "functional", "grad", "gradcheck",
           "gradgradcheck", "set_detect_anomaly", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "no_grad", "once_differentiable", "set_grad_enabled", "Variable"]
