"""What every check reports: a Finding names the place, the rule broken and the fix.

Each check owns one bit of the exit status, so CI can tell which kind of rule failed:
the status is the OR of the bits of the checks that found an error. 255 means the audit
could not run at all (bad arguments, an unreadable manifest, the build missing).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CHECK_BITS = {
    "layers": 1,        # an import across a boundary that boundaries.yaml does not allow
    "cycles": 2,        # modules importing each other, directly or through others
    "coupling": 4,      # a module's incoming/outgoing dependencies, or a file's lines, over budget
    "build-only": 8,    # the runtime importing torchgen, tools, architecture or a build-only package
    "third-party": 16,  # a third-party import outside the packages allowed for that module
    "surfaces": 32,     # a public name, signature, env variable, CLI or format removed or changed
    "schemas": 64,      # an operator schema changed in a way PyTorch's BC checker rejects
    "maps": 128,        # committed maps (.importlinter, docs/architecture/*.md) out of date
}
COULD_NOT_RUN = 255

ERROR = "error"
NOTE = "note"     # listed, never fails (an addition to a surface, a skipped check)


@dataclass(frozen=True)
class Finding:
    check: str                  # a key of CHECK_BITS
    rule: str                   # what was broken, e.g. "layer", "removed", "default-changed"
    message: str
    fix: str = ""
    path: str | None = None     # repository-relative, '/'-separated
    line: int | None = None
    severity: str = ERROR
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.check not in CHECK_BITS:
            raise ValueError(f"unknown check {self.check!r}; expected one of {sorted(CHECK_BITS)}")
        if self.severity not in (ERROR, NOTE):
            raise ValueError(f"severity must be {ERROR!r} or {NOTE!r}, got {self.severity!r}")

    @property
    def location(self) -> str:
        if self.path is None:
            return "<repo>"
        return f"{self.path}:{self.line}" if self.line is not None else self.path

    def render(self) -> str:
        text = f"{self.location}: {self.severity}: [{self.check}/{self.rule}] {self.message}"
        return text + (f"\n    fix: {self.fix}" if self.fix else "")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"check": self.check, "rule": self.rule, "severity": self.severity,
                               "path": self.path, "line": self.line, "message": self.message, "fix": self.fix}
        if self.extra:
            out["extra"] = self.extra
        return out


def exit_status(findings: list[Finding]) -> int:
    status = 0
    for f in findings:
        if f.severity == ERROR:
            status |= CHECK_BITS[f.check]
    return status
