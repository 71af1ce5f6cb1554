"""torch.load's weights_only unpickler (PyTorch's torch/_weights_only_unpickler.py): pickle's Python
Unpickler with a restricted opcode table, which builds only what its allow list names (tensors,
containers, primitives, dtypes, devices, torch.Size and the user's safe globals) and refuses every
other global with PyTorch's messages. torch.serialization owns the allow list and passes it in.
"""
from __future__ import annotations

import pickle
import re
from collections import Counter, OrderedDict
from collections.abc import Callable
from typing import IO, Any

# pickle's pure-Python Unpickler (its opcode methods are what the class below extends; typeshed
# describes only the C class).
_PyUnpickler: Any = getattr(pickle, "_Unpickler")

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, "
    "but it can result in arbitrary code execution. Do it only if you got the file from a "
    "trusted source."
)
_DOCS_MESSAGE = ("\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
                 "weights_only https://pytorch.org/docs/stable/generated/torch.load.html.")


def as_str(value: Any) -> str:
    return value.decode("ascii") if isinstance(value, bytes) else str(value)


def weights_only_message(message: str) -> str:
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two options, "
                "\033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
                f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please check "
                "the recommended steps in the following error message.\n\tWeightsUnpickler error: "
                + message + _DOCS_MESSAGE)
    updated = f"Weights only load failed. {UNSAFE_MESSAGE}\n"
    if not re.search(r"whose module (\S+) is blocked", message):
        updated += ("Please file an issue with the following so that we can make `weights_only=True` "
                    "compatible with your use case: WeightsUnpickler error: ")
    return updated + "\n\n" + message + _DOCS_MESSAGE


_BLOCKED_MODULES = ("sys", "os", "posix", "nt")


class WeightsOnlyUnpickler(_PyUnpickler):  # type: ignore[misc]
    """pickle's Python Unpickler with a restricted opcode table: globals only from the allow list,
    calls (REDUCE, NEWOBJ) only of allowed globals, BUILD only on instances of allowed types, and no
    opcode that can reach anything else (INST, OBJ, EXT*, text persistent ids)."""

    dispatch = dict(_PyUnpickler.dispatch)

    def __init__(self, file: IO[bytes], persistent_load: Callable[[Any], Any], allowed: dict[str, Any],
                 encoding: str = "utf-8") -> None:
        super().__init__(file, encoding=encoding)
        self._persistent_load = persistent_load
        self.allowed = allowed
        self.allowed_values = list(allowed.values())

    stack: list[Any]
    metastack: list[list[Any]]
    proto: int
    append: Callable[[Any], None]

    def _is_allowed(self, obj: Any) -> bool:
        return any(obj is value for value in self.allowed_values)

    def find_class(self, module: str, name: str) -> Any:
        if self.proto < 3:   # protocol 2 names Python 3's modules by their Python 2 names
            import _compat_pickle
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full_path} whose module {module} "
                                         "is blocked.")
        if full_path in self.allowed:
            return self.allowed[full_path]
        if full_path.startswith("builtins."):
            full_path = full_path[len("builtins."):]
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. Please use "
            f"`torch.serialization.add_safe_globals([{full_path}])` or the "
            f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist this global "
            "if you trust this class/function.")

    def persistent_load(self, pid: Any) -> Any:
        if type(pid) is not tuple:
            raise pickle.UnpicklingError(f"persistent_load id must be tuple or int, but got {type(pid)}")
        if not pid or as_str(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
        return self._persistent_load(pid)

    def load_reduce(self) -> None:
        args = self.stack.pop()
        func = self.stack[-1]
        if not self._is_allowed(func):
            raise pickle.UnpicklingError(f"Trying to call reduce for unrecognized function {func}")
        if type(args) is not tuple:
            raise pickle.UnpicklingError("REDUCE arguments must be a tuple")
        self.stack[-1] = func(*args)

    def load_newobj(self) -> None:
        args = self.stack.pop()
        cls = self.stack.pop()
        if not self._is_allowed(cls) or not isinstance(cls, type):
            raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes allowlisted "
                                         f"via `add_safe_globals` but got {cls}")
        parameter: Any = self.allowed.get("torch.nn.parameter.Parameter")
        new: Any = cls.__new__
        self.append(parameter(*args) if cls is parameter else new(cls, *args))

    def load_build(self) -> None:
        state = self.stack.pop()
        inst = self.stack[-1]
        if isinstance(inst, type) or not any(type(inst) is value for value in self.allowed_values):
            raise pickle.UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types allowlisted "
                                         f"via `add_safe_globals`, but got {type(inst)}")
        if type(inst) is self.allowed.get("torch.Tensor"):
            raise pickle.UnpicklingError("Ember cannot BUILD a torch.Tensor (PyTorch's set_ state)")
        setstate = getattr(inst, "__setstate__", None)
        if type(inst) is OrderedDict:
            inst.__dict__.update(state)
        elif setstate is not None:
            setstate(state)
        else:
            slotstate = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slotstate = state
            if state:
                inst.__dict__.update(state)
            for key, value in (slotstate or {}).items():
                setattr(inst, key, value)

    def load_setitems(self) -> None:
        if type(self._peek_under_mark()) not in (dict, OrderedDict, Counter):
            raise pickle.UnpicklingError("Can only SETITEMS for dict, collections.OrderedDict, collections.Counter, "
                                         f"but got {type(self._peek_under_mark())}")
        _PyUnpickler.load_setitems(self)

    def load_setitem(self) -> None:
        if type(self.stack[-3]) not in (dict, OrderedDict, Counter):
            raise pickle.UnpicklingError("Can only SETITEM for dict, collections.OrderedDict, collections.Counter, "
                                         f"but got {type(self.stack[-3])}")
        _PyUnpickler.load_setitem(self)

    def _peek_under_mark(self) -> Any:
        return self.metastack[-1][-1] if self.metastack and self.metastack[-1] else None

    def load_append(self) -> None:
        if type(self.stack[-2]) is not list:
            raise pickle.UnpicklingError(f"Can only append to lists, but got {type(self.stack[-2])}")
        _PyUnpickler.load_append(self)

    def load_appends(self) -> None:
        if type(self._peek_under_mark()) not in (list, set):
            raise pickle.UnpicklingError(f"Can only extend lists, but got {type(self._peek_under_mark())}")
        _PyUnpickler.load_appends(self)

    def load_additems(self) -> None:
        if type(self._peek_under_mark()) is not set:
            raise pickle.UnpicklingError(f"Can only add items to sets, but got {type(self._peek_under_mark())}")
        _PyUnpickler.load_additems(self)


def _install_dispatch() -> None:
    table = WeightsOnlyUnpickler.dispatch
    overrides = {pickle.REDUCE: "load_reduce", pickle.NEWOBJ: "load_newobj", pickle.BUILD: "load_build",
                 pickle.SETITEMS: "load_setitems", pickle.SETITEM: "load_setitem", pickle.APPEND: "load_append",
                 pickle.APPENDS: "load_appends", pickle.ADDITEMS: "load_additems"}
    for opcode, method in overrides.items():
        table[opcode[0]] = getattr(WeightsOnlyUnpickler, method)
    for opcode in (pickle.INST, pickle.OBJ, pickle.NEWOBJ_EX, pickle.EXT1, pickle.EXT2, pickle.EXT4,
                   pickle.PERSID):
        def refuse(self: Any, code: int = opcode[0]) -> None:
            raise pickle.UnpicklingError(f"Unsupported operand {code}")
        table[opcode[0]] = refuse


_install_dispatch()
