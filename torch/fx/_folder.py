"""GraphModule.to_folder: a GraphModule written out as an importable package (module.py with the
generated forward, the weights in state_dict.pt, and children that have no faithful repr pickled)."""
from __future__ import annotations

from pathlib import Path

import torch
from torch.fx._codegen import _addindent, _custom_builtins

_METHOD_INDENT = 4
_BODY_INDENT = 8


def _layers_rebuilt_by_repr() -> frozenset[type]:
    """The layer types whose repr, evaluated under ``from torch.nn import *``, constructs an equivalent layer
    (their weights come back with the state dict): Linear, and the 1-3d convolutions and batch norms."""
    nn = torch.nn
    sized = {getattr(nn, f"{family}{dims}d") for family in ("Conv", "BatchNorm") for dims in (1, 2, 3)}
    return frozenset({nn.Linear, *sized})


def _allocation(t: torch.Tensor) -> str:
    """Source for an uninitialised tensor shaped like t; load_state_dict fills it in."""
    return f"torch.empty({list(t.shape)}, dtype={t.dtype})"


class _InitWriter:
    """Collects the statements of the written module's ``__init__``, saving what they load as it goes."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.statements: list[str] = []
        self.pickled: list[str] = []

    def add_child(self, name: str, child: torch.nn.Module, by_repr: bool) -> None:
        if by_repr:
            self.statements.append(f"setattr(self, '{name}', {child!r})")
            return
        # no trustworthy constructor call: the module itself is pickled next to module.py
        saved_at = self.folder / f"{name}.pt"
        torch.save(child, saved_at)
        self.pickled.append(name)
        single_line = repr(child).replace("\r", " ").replace("\n", " ")
        self.statements.append(f"setattr(self, '{name}', torch.load(r'{saved_at}', weights_only=False)) "
                               f"# {single_line}")

    def add_buffer(self, name: str, buffer: torch.Tensor) -> None:
        self.statements.append(f"self.register_buffer('{name}', {_allocation(buffer)})")

    def add_parameter(self, name: str, param: torch.Tensor) -> None:
        self.statements.append(f"setattr(self, '{name}', torch.nn.Parameter({_allocation(param)}))")

    def add_weight_loading(self) -> None:
        self.statements.append(f"self.load_state_dict(torch.load(r'{self.folder}/state_dict.pt'))")


def write_module_folder(gm: torch.nn.Module, folder: Path, module_name: str) -> list[str]:
    """Write gm (a GraphModule) as the package folder, whose module.py defines class module_name, plus its
    weights. Returns the names of the children that had to be pickled."""
    folder.mkdir(exist_ok=True)
    torch.save(gm.state_dict(), folder / "state_dict.pt")
    writer = _InitWriter(folder)
    by_repr = _layers_rebuilt_by_repr()
    for name, child in gm.named_children():
        writer.add_child(name, child, type(child) in by_repr)
    for name, buffer in gm._buffers.items():
        if buffer is not None:
            writer.add_buffer(name, buffer)
    for name, param in gm._parameters.items():
        if param is not None:
            writer.add_parameter(name, param)
    writer.add_weight_loading()

    preamble = "\n".join(builtin.import_str for builtin in _custom_builtins.values())
    lines = ["", "import torch", preamble, "", "from torch.nn import *",
             f"class {module_name}(torch.nn.Module):",
             " " * _METHOD_INDENT + "def __init__(self):",
             " " * _BODY_INDENT + "super().__init__()"]
    lines += [" " * _BODY_INDENT + statement for statement in writer.statements]
    lines.append(_addindent(gm.code, _METHOD_INDENT))
    (folder / "module.py").write_text("\n".join(lines) + "\n")
    (folder / "__init__.py").write_text("from .module import *")
    return writer.pickled
