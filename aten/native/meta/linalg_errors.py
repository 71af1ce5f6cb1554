"""torch.linalg's error for a matrix the factorization could not handle (PyTorch's LinAlgError, a
RuntimeError), and its messages built from LAPACK's info codes, with the batch element named when
the input is a batch."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class _LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a singular or not positive-definite input (as PyTorch names it)."""


_LinAlgError.__module__ = "torch._C"

_MESSAGES = {
    "inv": "The diagonal element {info} is zero, the inversion could not be completed because the input matrix is "
           "singular.",
    "cholesky": "The factorization could not be completed because the input is not positive-definite (the leading "
                "minor of order {info} is not positive-definite).",
    "solve": "The solver failed because the input matrix is singular.",
    "lu_factor": "U[{info},{info}] is zero and using it on lu_solve would result in a division by zero. If you still "
                 "want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                 "linalg.lu_factor_ex(A, pivot)",
}


def _flat(values: Any) -> list[int]:
    if hasattr(values, "tolist"):
        values = values.tolist()
    if isinstance(values, Iterable):
        return [v for item in values for v in _flat(item)]
    return [int(values)]


def raise_for_info(api: str, kind: str, info: Any) -> None:
    """Raise _LinAlgError for the first matrix whose info is positive (info: a number, or nested
    lists / an array / a tensor of them; more than one value means a batch)."""
    values = _flat(info)
    for index, code in enumerate(values):
        if code > 0:
            batch = f"(Batch element {index}): " if hasattr(info, "__len__") and _is_batch(info) else ""
            # lu_factor's check is a plain TORCH_CHECK in PyTorch, the others LinAlgError
            error = RuntimeError if kind == "lu_factor" else _LinAlgError
            raise error(f"{api}: {batch}{_MESSAGES[kind].format(info=code)}")


def _is_batch(info: Any) -> bool:
    shape = getattr(info, "shape", None)
    if shape is not None:
        return len(shape) > 0
    return isinstance(info, (list, tuple))
