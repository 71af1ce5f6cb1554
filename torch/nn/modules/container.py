"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict (PyTorch's
indexing, numbering, errors and reprs)."""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain, islice
from typing import Any

from torch import Tensor
from torch.nn.modules.module import Module, _addindent
from torch.nn.parameter import Parameter

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _abs_index(idx: Any, size: int) -> int:
    idx = operator.index(idx)
    if not (-size <= idx < size):
        raise IndexError(f"index {idx} is out of range")
    return idx + size if idx < 0 else idx


def _renumber(modules: dict[str, Any]) -> dict[str, Any]:
    return OrderedDict((str(i), m) for i, m in enumerate(modules.values()))


class Sequential(Module):
    """Modules called in order, each on the previous one's output; built from modules (named
    0, 1, ...) or from one OrderedDict of named modules."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _get_item_by_idx(self, iterator: Iterable[Any], idx: Any) -> Any:
        size = len(self)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError(f"index {idx} is out of range")
        idx %= size
        return next(islice(iterator, idx, None))

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._get_item_by_idx(self._modules.values(), idx)

    def __setitem__(self, idx: int, module: Module) -> None:
        key = self._get_item_by_idx(self._modules.keys(), idx)
        setattr(self, key, module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, self._get_item_by_idx(self._modules.keys(), idx))
        self._modules = _renumber(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __add__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        ret = Sequential()
        for layer in chain(self, other):
            ret.append(layer)
        return ret

    def __iadd__(self, other: Any) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(other):
            self.add_module(str(i + offset), module)
        return self

    def __mul__(self, other: Any) -> Sequential:
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        combined = Sequential()
        offset = 0
        for _ in range(other):
            for module in self:
                combined.add_module(str(offset), module)
                offset += 1
        return combined

    __rmul__ = __mul__

    def pop(self, key: Any) -> Module:
        v = self[key]
        del self[key]
        return v

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())   # type: ignore[arg-type]

    def append(self, module: Module) -> Sequential:
        """Add module at the end."""
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Insert module before index (renumbering the ones after)."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Append every module of an iterable."""
        for layer in sequential:
            self.append(layer)
        return self

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as submodules 0, 1, ..."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return self.__class__([m for m in list(self._modules.values())[idx] if m is not None])
        return self._modules[str(_abs_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_abs_index(idx, len(self))), module)

    def __delitem__(self, idx: Any) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_abs_index(idx, len(self))))
        self._modules = _renumber(self._modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())   # type: ignore[arg-type]

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate(chain(self, other)):
            combined.add_module(str(i), module)
        return combined

    def __repr__(self) -> str:
        # As PyTorch's: runs of identical reprs are folded into "(i-j): n x <repr>".
        reprs = [repr(item) for item in self]
        if not reprs:
            return self._get_name() + "()"
        blocks: list[list[Any]] = []
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = []
        for start, end, r in blocks:
            text = f"({start}): {r}" if start == end else f"({start}-{end}): {end - start + 1} x {r}"
            lines.append(_addindent(text, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def insert(self, index: int, module: Module) -> None:
        """Insert module before index."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def append(self, module: Module) -> ModuleList:
        """Add module at the end."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: Any) -> Module:
        v = self[key]
        del self[key]
        return v

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Append every module of an iterable."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """An ordered dict of modules, registered as submodules under their keys."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]   # type: ignore[return-value]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        """Add modules from a mapping or an iterable of (key, module) pairs."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleDict.update should be called with an iterable of key/value pairs, but got "
                            + type(modules).__name__)
        if isinstance(modules, (OrderedDict, ModuleDict, Mapping)):
            for key, module in modules.items():
                self[key] = module
            return
        for j, pair in enumerate(modules):
            m: Any = pair
            if not isinstance(pair, Iterable):
                raise TypeError("ModuleDict update sequence element #" + str(j) + " should be Iterable; is"
                                + type(m).__name__)
            if not len(m) == 2:
                raise ValueError("ModuleDict update sequence element #" + str(j) + " has length " + str(len(m))
                                 + "; 2 is required")
            self[m[0]] = m[1]


def _describe(p: Any, dtype_text: str) -> str:
    size_str = "x".join(str(size) for size in p.size())
    device_str = f" ({p.device})" if p.device.type == "cuda" else ""
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"{kind} containing: [{dtype_text} of size {size_str}{device_str}]"


class ParameterList(Module):
    """A list of parameters (tensors are wrapped as Parameters), registered as 0, 1, ..."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            out = self.__class__()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(_abs_index(idx, len(self))))

    def __setitem__(self, idx: int, param: Any) -> None:
        idx = _abs_index(idx, len(self))
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, value: Any) -> ParameterList:
        """Add value at the end."""
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Append every value of an iterable."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got " + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                lines.append(f"  ({k}): " + _describe(p, str(p.dtype)))
            else:
                lines.append(f"  ({k}): Object of type: " + type(p).__name__)
        return "\n".join(lines)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    """An ordered dict of parameters (tensors are wrapped as Parameters), registered under their
    keys; a plain dict is added in sorted key order, as PyTorch's."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is "
                            f"not a string (type is '{type(key).__name__}'). Open an issue on "
                            "github if you need non-string keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(list(self._keys))

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        for k in self._keys.copy():
            del self[k]

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def popitem(self) -> tuple[str, Any]:
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        """Add parameters from a mapping or an iterable of (key, value) pairs."""
        if not isinstance(parameters, Iterable):
            raise TypeError("ParametersDict.update should be called with an iterable of key/value pairs, but got "
                            + type(parameters).__name__)
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for j, pair in enumerate(parameters):
                p: Any = pair
                if not isinstance(pair, Iterable):
                    raise TypeError("ParameterDict update sequence element #" + str(j) + " should be Iterable; is"
                                    + type(p).__name__)
                if not len(p) == 2:
                    raise ValueError("ParameterDict update sequence element #" + str(j) + " has length "
                                     + str(len(p)) + "; 2 is required")
                self[p[0]] = p[1]

    def extra_repr(self) -> str:
        lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                lines.append(f"  ({k}): " + _describe(p, p.type()))
            else:
                lines.append(f"  ({k}): Object of type: " + type(p).__name__)
        return "\n".join(lines)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self
