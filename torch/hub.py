"""torch.hub: models from a directory's hubconf.py (source="local"), and checkpoints fetched by URL
into the cache under $TORCH_HOME (file:// URLs, or any URL urllib reaches). Loading repositories
from GitHub is not provided yet: it raises, naming the local route."""
from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
from typing import Any, Iterator

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
READ_DATA_CHUNK = 128 * 1024
_hub_dir: str | None = None


def _torch_home() -> str:
    cache = os.getenv("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch")))


def get_dir() -> str:
    """Where hub keeps what it downloads: set_dir's directory, else $TORCH_HOME/hub."""
    if os.getenv("TORCH_HUB"):
        import warnings
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", UserWarning, stacklevel=2)
    return _hub_dir if _hub_dir is not None else os.path.join(_torch_home(), "hub")


def set_dir(d: str | os.PathLike[str]) -> None:
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def _github_refused(repo: str) -> RuntimeError:
    return RuntimeError(f"torch.hub: Ember cannot load {repo!r} from GitHub yet; clone the repository and pass its "
                        "directory with source='local'")


@contextlib.contextmanager
def _on_sys_path(path: str) -> Iterator[None]:
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_hubconf(directory: str) -> Any:
    path = os.path.join(directory, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location("hubconf", path)
    if spec is None or spec.loader is None or not os.path.isfile(path):
        raise FileNotFoundError(f"[Errno 2] No such file or directory: '{path}'")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entry(module: Any, model: Any) -> Any:
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    missing = [pkg for pkg in getattr(module, VAR_DEPENDENCY, None) or [] if importlib.util.find_spec(pkg) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    func = getattr(module, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _local_dir(github: str) -> str:
    if not os.path.isdir(github):
        raise _github_refused(github)
    return github


def load(repo_or_dir: str, model: str, *args: Any, source: str = "github", trust_repo: Any = "check",
         force_reload: bool = False, verbose: bool = True, skip_validation: bool = False, **kwargs: Any) -> Any:
    """model(*args, **kwargs), the entrypoint of that name in repo_or_dir's hubconf.py."""
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        raise _github_refused(repo_or_dir)
    with _on_sys_path(repo_or_dir):
        module = _import_hubconf(repo_or_dir)
        return _entry(module, model)(*args, **kwargs)


def list(github: str, force_reload: bool = False, skip_validation: bool = False, trust_repo: Any = "check",
         verbose: bool = True) -> Any:
    """The entrypoints of a hubconf.py (here: of a local directory's)."""
    directory = _local_dir(github)
    with _on_sys_path(directory):
        module = _import_hubconf(directory)
    return [name for name in dir(module) if callable(getattr(module, name)) and not name.startswith("_")]


def help(github: str, model: str, force_reload: bool = False, skip_validation: bool = False,
         trust_repo: Any = "check") -> Any:
    """The docstring of an entrypoint (here: of a local directory's hubconf.py)."""
    directory = _local_dir(github)
    with _on_sys_path(directory):
        module = _import_hubconf(directory)
        return _entry(module, model).__doc__


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Fetch url into dst (through a temporary file beside it); with hash_prefix, the SHA-256 of the
    bytes must start with it."""
    dst = os.path.expanduser(dst)
    request = urllib.request.Request(url, headers={"User-Agent": "torch.hub"})
    with urllib.request.urlopen(request) as response:   # noqa: S310 (the caller's URL, as PyTorch's)
        size = response.headers.get("Content-Length") if hasattr(response, "headers") else None
        bar = _progress(int(size) if size else None) if progress else None
        sha256 = hashlib.sha256() if hash_prefix is not None else None
        handle = tempfile.NamedTemporaryFile(delete=False, dir=os.path.dirname(os.path.abspath(dst)))
        try:
            with handle:
                while chunk := response.read(READ_DATA_CHUNK):
                    handle.write(chunk)
                    if sha256 is not None:
                        sha256.update(chunk)
                    if bar is not None:
                        bar.update(len(chunk))
            if sha256 is not None and hash_prefix is not None:
                digest = sha256.hexdigest()
                if digest[:len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
            shutil.move(handle.name, dst)
        finally:
            if bar is not None:
                bar.close()
            if os.path.exists(handle.name):
                os.remove(handle.name)


def _progress(total: int | None) -> Any:
    """A tqdm bar on stderr where tqdm is installed (PyTorch's), else none."""
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:
        return None
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location: Any = None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None,
                             weights_only: bool = False) -> dict[str, Any]:
    """torch.load of the file at url, downloaded once into model_dir ($TORCH_HOME/hub/checkpoints)."""
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        if progress:
            sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        match = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress=progress)
    import torch
    return torch.load(cached, map_location=map_location, weights_only=weights_only)
