"""Record PyTorch's torch.fx answers for the torch.fx tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_fx_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes `fx.json`: for
each case, what the case saw while running its program under PyTorch: printed graphs, generated code,
print_readable output, node names, ops and targets, make_fx's aten calls, returned values, warnings, and
each error's type and message. A case is a function of a torch package that builds and runs one small
program (modules, functions, graph edits, make_fx calls) and returns a Run: `seen`, the observations, and
the objects it built. The tests in test/fx run the same cases on Ember (run_case), compare `seen` with the
recording (reference) and check what they compute themselves on the objects.

The cases are in tools/fx_reference_graphs.py, fx_reference_modules.py and fx_reference_tracing.py (their
machinery in fx_reference_run.py); the programs that call functions registered with torch.fx.wrap, which
works on a module's globals only, are in fx_reference_wrapped.py. The programs are the tests' programs as
they wrote them, annotations included: unannotated, or annotated with strings where the test module used
`from __future__ import annotations` (annotations show in printed graphs and generated code). When
recording, this directory is imported as the package `tools` (without putting the repository on sys.path),
so the names that printed graphs and generated code give the programs' functions are the tests' names.
"""
import builtins
import importlib
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any, Callable

TOOLS_DIR = Path(__file__).resolve().parent
DATA_DIR = TOOLS_DIR.parent / "test" / "data" / "fx"
REFERENCE_PACKAGE = "torch"
CASE_MODULES = ("tools.fx_reference_graphs", "tools.fx_reference_modules", "tools.fx_reference_tracing")


def cases() -> dict[str, Callable[[Any], Any]]:
    """Every case: its name -> the function of a torch package that runs it (and returns its Run)."""
    for name in CASE_MODULES:
        importlib.import_module(name)
    registry: dict[str, Callable[[Any], Any]] = importlib.import_module("tools.fx_reference_run").CASES
    return registry


def run_case(torch: Any, name: str) -> Any:
    """Run the case `name` on torch: its Run (`seen`, and the objects it built as attributes)."""
    return cases()[name](torch)


def run_cases(torch: Any) -> dict[str, Any]:
    """Every case's observations."""
    return {name: fn(torch).seen for name, fn in cases().items()}


def reference() -> dict[str, Any]:
    """The recorded observations: case name -> what the case saw under PyTorch."""
    recorded: dict[str, Any] = json.loads((DATA_DIR / "fx.json").read_text())["cases"]
    return recorded


def resolve(torch: Any, qualified: str) -> Any:
    """The object a qualified name (as torch.fx writes it: "torch.relu", "_operator.add", "getattr") names."""
    parts = qualified.split(".")
    if len(parts) == 1:
        return getattr(builtins, qualified)
    found = torch if parts[0] == "torch" else importlib.import_module(parts[0])
    for i, part in enumerate(parts[1:], start=2):
        found = getattr(found, part) if hasattr(found, part) else importlib.import_module(".".join(parts[:i]))
    return found


def same_objects(torch: Any, recorded: list[str], targets: list[Any]) -> bool:
    """Whether each target is the very object its recorded qualified name names (the tests' identity check)."""
    return len(recorded) == len(targets) and all(resolve(torch, name) is t for name, t in zip(recorded, targets))


def _import_tools_package() -> None:
    """Make this directory importable as the package `tools` without the repository on sys.path."""
    spec = importlib.util.spec_from_file_location("tools", TOOLS_DIR / "__init__.py",
                                                  submodule_search_locations=[str(TOOLS_DIR)])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["tools"] = package
    spec.loader.exec_module(package)


def main(out_dir: Path) -> None:
    if str(TOOLS_DIR.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    _import_tools_package()
    torch = importlib.import_module(REFERENCE_PACKAGE)
    recorded = run_cases(torch)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "fx.json").write_text(json.dumps({"torch": torch.__version__, "cases": recorded}, indent=1) + "\n")
    print(f"wrote {len(recorded)} cases to {out_dir / 'fx.json'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
