"""torch._logging: the compiler's logs, switched on by the TORCH_LOGS environment variable or set_logs().

As PyTorch's, TORCH_LOGS is a comma-separated list of artifacts (graph_code, output_code, recompiles,
graph_breaks, guards) and components (dynamo, inductor, aot), a component optionally prefixed with +
(DEBUG) or - (ERROR). An artifact's records go to the logger ``torch._<component>.__<artifact>``, printed
to stderr, each line prefixed with ``[__<artifact>]`` as PyTorch prints them."""
from __future__ import annotations

import logging
import os
import sys

__all__ = ["getArtifactLogger", "set_logs"]

# artifact -> the component whose logger carries it
ARTIFACTS = {"graph_code": "dynamo", "graph": "dynamo", "recompiles": "dynamo", "graph_breaks": "dynamo",
             "guards": "dynamo", "dynamic": "dynamo", "output_code": "inductor", "aot_graphs": "aot"}
COMPONENTS = ("dynamo", "inductor", "aot")

_enabled: set[str] = set()
_from_env: str | None = None


class _StderrHandler(logging.Handler):
    """Writes to whatever sys.stderr is now (so a redirected or captured stderr sees the records)."""

    def emit(self, record: logging.LogRecord) -> None:
        artifact = getattr(record, "artifact", None)
        text = self.format(record)
        if artifact is not None:
            text = "\n".join(f"[__{artifact}] {line}" for line in text.splitlines())
        sys.stderr.write(text + "\n")


_handler = _StderrHandler()


def _logger(name: str) -> logging.Logger:
    logger = logging.getLogger(name)
    if _handler not in logger.handlers:
        logger.addHandler(_handler)
        logger.propagate = False
    return logger


def getArtifactLogger(module_qname: str, artifact: str) -> logging.Logger:
    """The logger an artifact's records go to (PyTorch's torch._logging.getArtifactLogger)."""
    if artifact not in ARTIFACTS:
        raise ValueError(f"Artifact name: {artifact!r} not registered, please call register_artifact({artifact!r})")
    logger = _logger(f"torch._{ARTIFACTS[artifact]}.__{artifact}")
    logger.setLevel(logging.DEBUG)      # whether a record is wanted is artifact_enabled's question
    return logger


def set_logs(*, dynamo: int | None = None, inductor: int | None = None, aot: int | None = None,
             **artifacts: bool) -> None:
    """Set the compiler's logs, replacing what TORCH_LOGS or an earlier call set (PyTorch's set_logs)."""
    unknown = set(artifacts) - set(ARTIFACTS)
    if unknown:
        raise ValueError(f"Unrecognized log or artifact name passed to set_logs: {sorted(unknown)[0]}")
    _enabled.clear()
    _enabled.update(name for name, on in artifacts.items() if on)
    for component, level in (("dynamo", dynamo), ("inductor", inductor), ("aot", aot)):
        logger = logging.getLogger(f"torch._{component}")
        if level is not None:           # the component's records printed by this module, at that level
            _logger(logger.name).setLevel(level)
        elif _handler in logger.handlers:   # back to Python's defaults: warnings reach the root's handlers
            logger.removeHandler(_handler)
            logger.propagate = True
            logger.setLevel(logging.NOTSET)


def _parse_env(text: str) -> None:
    artifacts: dict[str, bool] = {}
    levels: dict[str, int] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name = item.lstrip("+-")
        if name in ARTIFACTS:
            artifacts[name] = True
        elif name in COMPONENTS:
            levels[name] = logging.DEBUG if item.startswith("+") else (
                logging.ERROR if item.startswith("-") else logging.INFO)
        else:
            raise ValueError(f"Invalid log settings: {text!r}, invalid log name {name!r}; valid names are "
                             f"{', '.join(sorted([*ARTIFACTS, *COMPONENTS]))}")
    set_logs(**levels, **artifacts)     # type: ignore[arg-type]


def artifact_enabled(artifact: str) -> bool:
    """Whether an artifact's records are wanted now (TORCH_LOGS is read again when it changed)."""
    global _from_env
    env = os.environ.get("TORCH_LOGS")
    if env != _from_env:
        _from_env = env
        _parse_env(env or "")
    return artifact in _enabled


def log_artifact(artifact: str, text: str) -> None:
    """Print text as a record of artifact when it is enabled."""
    if artifact_enabled(artifact):
        getArtifactLogger(__name__, artifact).info(text, extra={"artifact": artifact})
