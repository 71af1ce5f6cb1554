"""torch._dynamo.exc: the capture's errors, PyTorch's classes (all RuntimeErrors)."""
from __future__ import annotations

from typing import Any

__all__ = ["BackendCompilerFailed", "FailOnRecompileLimitHit", "InternalTorchDynamoError", "InvalidBackend", "RecompileError",
           "TorchDynamoException", "TorchRuntimeError", "Unsupported", "UserError"]


class TorchDynamoException(RuntimeError):
    pass


class Unsupported(TorchDynamoException):
    """What the capture cannot put in a graph (data-dependent control flow, reading a tensor's value):
    raised under fullgraph=True; otherwise the function runs eagerly there (a graph break)."""

    def __init__(self, msg: str, *, case_name: str | None = None) -> None:
        super().__init__(msg)
        self.msg = msg
        self.case_name = case_name


class BackendCompilerFailed(TorchDynamoException):
    """A backend raised while compiling a captured graph."""

    def __init__(self, backend_fn: Any, inner_exception: BaseException) -> None:
        self.backend_name = getattr(backend_fn, "__name__", "?")
        self.inner_exception = inner_exception
        super().__init__(f"backend={self.backend_name!r} raised:\n{type(inner_exception).__name__}: "
                         f"{inner_exception}")


class InvalidBackend(TorchDynamoException):
    def __init__(self, name: str) -> None:
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


class TorchRuntimeError(TorchDynamoException):
    pass


class InternalTorchDynamoError(TorchDynamoException):
    pass


class RecompileError(TorchDynamoException):
    """A recompile where config.error_on_recompile forbids it."""


class FailOnRecompileLimitHit(TorchDynamoException):
    """A function past config.recompile_limit, where the stance asks for an error instead of eager."""


class UserError(TorchDynamoException):
    def __init__(self, error_type: Any, msg: str, case_name: str | None = None) -> None:
        super().__init__(msg)
        self.error_type = error_type
        self.message = msg
