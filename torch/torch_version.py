"""TorchVersion: torch.__version__ as PyTorch gives it, a str that compares as a version.

Programs compare it with strings (`torch.__version__ >= "2.0"`), tuples (`>= (2, 1)`) and
packaging's Version objects; each side is parsed as a PEP 440 version, and a comparison with
something that is not one falls back to plain string comparison, as PyTorch's does.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from torch.version import __version__ as internal_version

__all__ = ["TorchVersion"]


class TorchVersion(str):
    """A string that compares as a version with strings, tuples and packaging Versions."""

    __slots__ = ()

    def _convert_to_version(self, other: Any) -> Any:
        from packaging.version import InvalidVersion, Version    # on first comparison: keeps import fast
        if isinstance(other, Version):
            return other
        if isinstance(other, str):
            return Version(other)
        if isinstance(other, Iterable):
            return Version(".".join(str(item) for item in other))
        raise InvalidVersion(other)

    def _compare(self, other: Any, method: str) -> bool:
        from packaging.version import InvalidVersion, Version
        try:
            return bool(getattr(Version(self), method)(self._convert_to_version(other)))
        except InvalidVersion:
            return bool(getattr(str, method)(self, other))

    def __gt__(self, other: Any) -> bool:
        return self._compare(other, "__gt__")

    def __lt__(self, other: Any) -> bool:
        return self._compare(other, "__lt__")

    def __ge__(self, other: Any) -> bool:
        return self._compare(other, "__ge__")

    def __le__(self, other: Any) -> bool:
        return self._compare(other, "__le__")

    def __eq__(self, other: object) -> bool:
        return self._compare(other, "__eq__")

    __hash__ = str.__hash__     # (`!=` stays str's, as in PyTorch)


__version__ = TorchVersion(internal_version)
