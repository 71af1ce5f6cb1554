"""Target: operator definitions and kernel registrations (aten/_gen_registrations.py), and
kernel stubs for handwritten kernels that do not exist yet."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from torchgen.model import DispatchKey, SchemaError
from torchgen.native_yaml import NativeFunction
from torchgen.targets import kernel_signatures
from torchgen.targets.bindings import python_default

# Where a handwritten kernel for a dispatch key lives, and the stub file type written there.
KERNEL_DIRS: dict[str, tuple[str, str]] = {
    "CPU": ("aten/native/cpu", ".pyx"),
    "CUDA": ("aten/native/cuda", ".py"),
    "Composite": ("aten/native/composite", ".py"),
}
# Kernels that only touch metadata (resize_, ...) serve every backend from the device-neutral layer:
# a CPU or CUDA entry's kernel is looked up in its backend's directory first, then here (Python-level
# functions only: the layer's cdef helpers are not kernels).
NEUTRAL_DIR = "aten/native/meta"
_NEUTRAL_KEYS = ("CPU", "CUDA")
_PY_DEF = re.compile(r"^(?:cp)?def\s+(?:[\w.\[\]*]+\s+)*?(\w+)\s*\(", re.M)
_DEF = re.compile(r"^(?:c?p?def)\s+(?:[\w.\[\]*]+\s+)*?(\w+)\s*\(", re.M)


def kernel_dir(key: DispatchKey) -> tuple[str, str]:
    if key.name in KERNEL_DIRS:
        return KERNEL_DIRS[key.name]
    if key.name.startswith("Composite"):
        return KERNEL_DIRS["Composite"]
    raise SchemaError(None, f"dispatch key {key.name} has no kernel directory in Ember (CPU, CUDA, Composite*)")


def _source_of(root: Path, module: str) -> str:
    base = module.replace(".", "/")
    return base + ".pyx" if (root / (base + ".pyx")).exists() else base + ".py"


def module_of(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def find_kernels(root: Path) -> dict[str, dict[str, str]]:
    """kernel directory -> {function name -> module} for every handwritten module there."""
    found: dict[str, dict[str, str]] = {}
    for directory in [d for d, _ in KERNEL_DIRS.values()] + [NEUTRAL_DIR]:
        names: dict[str, str] = {}
        pattern = _PY_DEF if directory == NEUTRAL_DIR else _DEF
        for path in sorted((root / directory).glob("*.py*")):
            if path.name.startswith(("_gen_", "__")) or path.suffix not in (".py", ".pyx"):
                continue
            for name in pattern.findall(path.read_text()):
                names.setdefault(name, module_of(path, root))
        found[directory] = names
    return found


@dataclass(frozen=True)
class Definition:
    """An operator's schema as registrations.py.j2 defines it."""
    schema: str
    inplace_view: bool


@dataclass(frozen=True)
class Registration:
    op: str
    key: str
    module: str
    kernel: str
    opmath: bool = False        # the kernel computes reduced-precision floats in float32 (ember_opmath)
    storage: tuple[tuple[str, str], ...] = ()   # how it serves float8 and uint16/32/64 (ember_storage_dtypes)
    mixed: tuple[tuple[str, ...], tuple[int, ...]] = ((), ())   # ember_opmath_mixed: (params, float_results)

    @property
    def storage_literal(self) -> str:
        return repr(dict(self.storage))

    @property
    def mixed_literal(self) -> str:
        return repr(self.mixed)


@dataclass(frozen=True)
class AutocastRegistration:
    """An op's ember_autocast entry for one device, as registrations.py.j2 registers it."""
    op: str
    key: str                    # AutocastCPU or AutocastCUDA
    policy: str
    redispatch: str | None = None
    defaults: str = ""          # fp32_append_dtype: a tuple display of the op's parameter defaults


def plan_autocast(fns: list[NativeFunction]) -> list[AutocastRegistration]:
    """The Autocast kernels the schema declares; an fp32_append_dtype overload must take the op's
    arguments and then a keyword-only `ScalarType dtype`."""
    by_name = {str(fn.func.name): fn for fn in fns}
    regs: list[AutocastRegistration] = []
    for fn in fns:
        for entry in fn.autocast:
            key = "Autocast" + entry.device.value
            if entry.redispatch is None:
                regs.append(AutocastRegistration(str(fn.func.name), key, entry.policy))
                continue
            target = by_name.get(str(entry.redispatch))
            mine = [(a.name, str(a.type).rstrip("?")) for a in fn.func.arguments.flat_all]
            if target is None or [(a.name, str(a.type).rstrip("?")) for a in target.func.arguments.flat_all] != \
                    mine + [("dtype", "ScalarType")]:
                raise SchemaError(fn.loc, f"{fn.func.name}: fp32_append_dtype({entry.redispatch}) must name an "
                                          "overload taking this op's arguments and then `*, ScalarType dtype`")
            defaults = "".join((python_default(fn, a) if a.default is not None else "None") + ", "
                               for a in fn.func.arguments.flat_all)
            regs.append(AutocastRegistration(str(fn.func.name), key, entry.policy, str(entry.redispatch),
                                             f"({defaults})"))
    return regs


@dataclass(frozen=True)
class KernelStub:
    """A handwritten kernel's stub (kernel_stub.py.j2), written when its module does not exist yet:
    its parameters are the schema's, each defaulting to None where the schema has a default."""
    op: str
    loc: str
    kernel: str
    path: str
    params: tuple[tuple[str, bool], ...]      # (name, has a default)


def kernel_stub(fn: NativeFunction, kernel: str, path: str) -> KernelStub:
    return KernelStub(str(fn.func.name), str(fn.loc), kernel, path,
                      tuple((a.name, a.default is not None) for a in fn.func.arguments.flat_non_out))


def plan_registrations(fns: list[NativeFunction], root: Path, generated: dict[tuple[str, str], str],
                       stubs: dict[str, KernelStub]) -> list[Registration]:
    """Resolve each dispatch entry to a module. Missing handwritten kernels get a stub (added to
    `stubs` by path) when their file does not exist yet, else an error."""
    kernels = find_kernels(root)
    regs: list[Registration] = []
    for fn in fns:
        for key, kernel in fn.dispatch:
            if (str(fn.func.name), key.name) in generated:
                regs.append(Registration(str(fn.func.name), key.name, generated[(str(fn.func.name), key.name)], kernel,
                                         storage=fn.storage))
                continue
            directory, suffix = kernel_dir(key)
            module = kernels[directory].get(kernel)
            if module is None and key.name in _NEUTRAL_KEYS:
                module = kernels[NEUTRAL_DIR].get(kernel)
            if module is not None:
                source = _source_of(root, module)
                kernel_signatures.check(fn, key.name, kernel, root / source, source)
            if module is None:
                stub_path = f"{directory}/{fn.func.name.name.base}{suffix}"
                if (root / stub_path).exists() or stub_path in stubs:
                    raise SchemaError(fn.loc, f"kernel {kernel} for aten::{fn.func.name} ({key.name}) is not defined: "
                                              f"add `def {kernel}(...)` to {stub_path} or another module of {directory}")
                stubs[stub_path] = kernel_stub(fn, kernel, stub_path)
                module = module_of(root / stub_path, root)
                kernels[directory][kernel] = module
            regs.append(Registration(str(fn.func.name), key.name, module, kernel, key in fn.opmath, fn.storage,
                                     fn.opmath_mixed if key in fn.opmath else ((), ())))
    return regs
