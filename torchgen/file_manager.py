"""Write generated files deterministically, and only when their text changed.

Cython and setuptools rebuild by timestamp, so an untouched op must keep its file's mtime.
"""
from __future__ import annotations

import os
from pathlib import Path


class FileManager:
    """Collects every path written in one generator run, so stale outputs can be removed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.written: set[Path] = set()
        self.changed: list[Path] = []

    def write(self, relpath: str, text: str) -> bool:
        path = self.root / relpath
        if path in self.written:
            raise RuntimeError(f"duplicate file write {relpath}")
        self.written.add(path)
        if write_if_changed(path, text):
            self.changed.append(path)
            return True
        return False


def write_if_changed(path: Path, text: str) -> bool:
    """Write generated text; leave the file and its mtime alone if nothing changed."""
    if path.exists() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return True
