"""torch.ops: every operator of the dispatcher, as `torch.ops.<namespace>.<name>.<overload>`.

`torch.ops.aten.add` is an OpOverloadPacket (all overloads of one name); `torch.ops.aten.add.Tensor`
an OpOverload (one schema). An aten OpOverload's call goes straight to its OperatorHandle (the
dispatcher's fast path: key set from the tensor arguments, Python numbers wrapped for Tensor
parameters). Operators of other namespaces (torch.library) have their calls checked against their
schema first, as PyTorch's torch.ops does (RuntimeErrors with PyTorch's messages), and their kernels
get the arguments PyTorch's Python kernels get: positional arguments up to the last one that is not
its default, keyword-only arguments that are not their default as keywords.
A packet's call tries each overload's schema in definition order and runs the first that matches.
"""
from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import aten._gen_registrations  # noqa: F401  (defines the operators)
from aten import dispatcher
from aten.schema import Argument, FunctionSchema, parse_schema
from c10.dispatch_key import DispatchKey
from c10.tensor_impl import TensorImpl

_CPU_KEYS = 1 << int(DispatchKey.CPU)


def _overload_names(namespace: str, opname: str) -> list[str]:
    """The overload names of namespace::opname ("" for the default) in definition order."""
    base = opname if namespace == "aten" else f"{namespace}::{opname}"
    prefix = base + "."
    return [n[len(prefix):] if n != base else "" for n in dispatcher.defined_names()
            if n == base or n.startswith(prefix)]


# ---------------------------------------------------------------------------------------------
# Matching a call against a schema (PyTorch's conversion of Python values to IValues).

_TYPE_NAMES = {"Scalar": "number", "SymInt": "int", "SymFloat": "float", "SymBool": "bool", "ScalarType": "int",
               "Layout": "int", "MemoryFormat": "int"}


def _type_name(type_text: str) -> str:
    if type_text.endswith("?"):
        return f"Optional[{_type_name(type_text[:-1])}]"
    if type_text.endswith("]"):
        return f"List[{_type_name(type_text[:type_text.rindex('[')])}]"
    return _TYPE_NAMES.get(type_text, type_text)


class _NoMatch(Exception):
    pass


def _is_int(value: object) -> bool:
    return isinstance(value, int) or (hasattr(value, "__index__") and not isinstance(value, TensorImpl))


def _convert(type_text: str, value: Any, numbers_as_tensors: bool) -> Any:
    """The value a kernel receives for value at a parameter of type_text; _NoMatch if it does not fit."""
    if type_text.endswith("?"):
        return None if value is None else _convert(type_text[:-1], value, numbers_as_tensors)
    if type_text.endswith("]"):
        element = type_text[:type_text.rindex("[")]
        size = type_text[type_text.rindex("[") + 1:-1]
        if size and element in ("int", "SymInt") and _is_int(value) and not isinstance(value, TensorImpl):
            return [int(value)] * int(size)
        if not isinstance(value, (list, tuple)):
            raise _NoMatch(f"Unable to cast {value} to {_type_name(type_text)}")
        return [_convert(element, v, numbers_as_tensors) for v in value]
    if type_text == "Tensor":
        if isinstance(value, TensorImpl) or (numbers_as_tensors and isinstance(value, (bool, int, float))):
            return value
        raise _NoMatch(f"Unable to cast {value} to Tensor")
    if type_text in ("int", "SymInt"):
        if isinstance(value, TensorImpl) and value.dim() == 0 and not value.dtype.is_floating_point:
            return int(value.item())
        if isinstance(value, TensorImpl) or not _is_int(value):
            raise _NoMatch(f"Unable to cast {value!r} to int")
        return int(value)
    if type_text in ("float", "SymFloat"):
        if isinstance(value, TensorImpl) and value.dim() == 0:
            return float(value.item())
        if isinstance(value, (int, float)):
            return float(value)
        raise _NoMatch(f"Unable to cast {value!r} to float")
    if type_text in ("bool", "SymBool"):
        if isinstance(value, int):
            return bool(value)
        raise _NoMatch(f"Unable to cast {value!r} to bool")
    if type_text == "Scalar":
        if isinstance(value, (bool, int, float, complex)):
            return value
        raise _NoMatch(f"Cannot cast {value} to number")
    if type_text == "str":
        if isinstance(value, str):
            return value
        raise _NoMatch(f"Unable to cast {value!r} to str")
    if type_text == "ScalarType":
        from c10.scalar_type import dtype
        if isinstance(value, dtype):
            return value
        raise _NoMatch(f"Unable to cast {value!r} to ScalarType")
    if type_text == "Device":
        from c10.device import canonical, device
        if isinstance(value, (str, device)) or (_is_int(value) and not isinstance(value, bool)):
            return canonical(value)
        raise _NoMatch(f"Unable to cast {value!r} to Device")
    return value


def _same(value: Any, default: Any) -> bool:
    """Whether value equals its parameter's default (PyTorch then leaves it out of a kernel's call)."""
    if isinstance(value, TensorImpl) or isinstance(default, TensorImpl):
        return False
    if isinstance(value, bool) != isinstance(default, bool):
        return False                    # True is not the default 1 (IValues of different tags)
    if isinstance(value, list) and isinstance(default, list):
        return len(value) == len(default) and all(_same(v, d) for v, d in zip(value, default))
    if isinstance(value, (int, float)) and isinstance(default, (int, float)):
        return value == default
    return type(value) is type(default) and bool(value == default)


def bind(schema: FunctionSchema, qualname: str, args: tuple[Any, ...], kwargs: dict[str, Any], numbers_as_tensors: bool = False
         ) -> tuple[tuple[Any, ...], dict[str, Any], int]:
    """Match a call against schema: (kernel's positional args, kernel's keyword args, dispatch key set).

    RuntimeError, with PyTorch's messages, when the call does not fit the schema."""
    params = schema.arguments
    npositional = sum(1 for a in params if not a.kwarg_only)
    if len(args) > npositional:
        raise RuntimeError(f"{qualname}() takes {npositional} positional argument(s) but {len(args)} was/were "
                           f"given.  Declaration: {schema}")
    names = {a.name for a in params}
    for name in kwargs:
        if name not in names:
            raise RuntimeError(f"Unknown keyword argument '{name}' for operator '{qualname}'. Schema: {schema}")
    values: list[Any] = []
    defaulted: list[bool] = []
    for i, a in enumerate(params):
        if i < len(args):
            value = args[i]
            if a.name in kwargs:
                raise RuntimeError(f"Argument '{a.name}' specified both as positional and keyword argument. "
                                   f"Schema: {schema}")
        elif a.name in kwargs:
            value = kwargs[a.name]
        elif a.has_default:
            values.append(a.default_value)
            defaulted.append(True)
            continue
        else:
            raise RuntimeError(f"{qualname}() is missing value for argument '{a.name}'. Declaration: {schema}")
        try:
            converted = _convert(a.type, value, numbers_as_tensors)
        except _NoMatch as e:
            raise RuntimeError(
                f"{qualname}() Expected a value of type '{_type_name(a.type)}' for argument '{a.name}' but instead "
                f"found type '{type(value).__name__}'.\nPosition: {i}\nValue: {value!r}\nDeclaration: {schema}\n"
                f"Cast error details: {e}") from None
        values.append(converted)
        defaulted.append(a.has_default and _same(converted, a.default_value))
    end = npositional
    while end > 0 and defaulted[end - 1]:
        end -= 1
    call_kwargs = {a.name: values[i] for i, a in enumerate(params)
                   if a.kwarg_only and not defaulted[i]}
    return tuple(values[:end]), call_kwargs, dispatcher.keys_of(values) or _CPU_KEYS


# ---------------------------------------------------------------------------------------------


class OpOverload:
    """One overload of an operator: `torch.ops.aten.add.Tensor`."""

    def __init__(self, packet: OpOverloadPacket, overload_name: str, handle: dispatcher.OperatorHandle) -> None:
        self.overloadpacket = packet
        self.namespace = packet._namespace
        self._opname = packet._opname
        self._overloadname = overload_name or "default"
        self._handle = handle
        self._name = packet._qualified_op_name + (f".{overload_name}" if overload_name else "")
        self.__name__ = f"{self._opname}.{self._overloadname}"
        self.__qualname__ = self._name
        self.__module__ = f"torch._ops.{self.namespace}"
        self.__doc__ = f"{self._name}: see its _schema"
        self._parsed: FunctionSchema | None = None
        # Set by torch.library.register_autograd: the formulas of the operator's autograd kernel.
        self._autograd_backward: Callable[..., Any] | None = None
        self._autograd_setup_context: Callable[..., Any] | None = None
        self._call = handle if self.namespace == "aten" else self._checked_call

    @property
    def _schema(self) -> FunctionSchema:
        if self._parsed is None:
            text = self._handle.schema
            self._parsed = parse_schema(text if "::" in text.split("(", 1)[0] else f"{self.namespace}::{text}")
        return self._parsed

    def name(self) -> str:
        return self._name

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        return self._call(*args, **kwargs)

    def _checked_call(self, *args: Any, **kwargs: Any) -> Any:
        call_args, call_kwargs, ks = bind(self._schema, self.overloadpacket._qualified_op_name, args, kwargs)
        return self._handle.call_kernel_for(ks)(*call_args, **call_kwargs)

    def _matches(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
        bind(self._schema, self.overloadpacket._qualified_op_name, args, kwargs, self.namespace == "aten")
        return True

    def redispatch(self, keyset: Any, *args: Any, **kwargs: Any) -> Any:
        """Run the kernel for an explicit key set (a DispatchKeySet or its bits)."""
        bits = getattr(keyset, "repr", keyset)
        return self._handle.kernel_for(bits)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<OpOverload(op='{self.namespace}.{self._opname}', overload='{self._overloadname}')>"

    def __str__(self) -> str:
        return f"{self.namespace}.{self._opname}.{self._overloadname}"

    def __hash__(self) -> int:
        return hash(self._name)

    def __reduce__(self) -> Any:
        return _lookup, (self.namespace, self._opname, self._overloadname)


class OpOverloadPacket:
    """All overloads of one operator name: `torch.ops.aten.add`; `.default` is the unnamed overload."""

    def __init__(self, namespace: str, opname: str) -> None:
        self._namespace = namespace
        self._opname = opname
        self._qualified_op_name = f"{namespace}::{opname}"
        self.__name__ = opname
        self.__qualname__ = opname
        self.__module__ = f"torch._ops.{namespace}"

    @property
    def op(self) -> OpOverloadPacket:
        return self

    def __getattr__(self, key: str) -> OpOverload:
        if key.startswith("__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{key}'")
        overload = "" if key == "default" else key
        base = self._opname if self._namespace == "aten" else self._qualified_op_name
        name = base + (f".{overload}" if overload else "")
        if not dispatcher.has_operator(name):
            raise AttributeError(f"The underlying op of '{self}' has no overload name '{key}'")
        op = OpOverload(self, overload, dispatcher.find_operator(name))
        setattr(self, key, op)
        return op

    def overloads(self) -> list[str]:
        return [n or "default" for n in _overload_names(self._namespace, self._opname)]

    def _overload_ops(self) -> list[OpOverload]:
        """The OpOverloads a call tries, in definition order: cached until an operator is (un)defined,
        since listing them scans every operator name."""
        generation = dispatcher.definitions_generation()
        cached = self.__dict__.get("_cached_overloads")
        if cached is None or cached[0] != generation:
            cached = (generation, [getattr(self, n) for n in self.overloads()])
            self._cached_overloads = cached
        return cached[1]

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        overloads = self._overload_ops()
        if len(overloads) == 1:
            return overloads[0](*args, **kwargs)
        errors = []
        for op in overloads:
            try:
                op._matches(args, kwargs)
            except RuntimeError as e:
                errors.append(str(e))
                continue
            return op(*args, **kwargs)
        raise RuntimeError("Overloaded torch operator invoked from Python failed to match any schema:\n"
                           + "\n\n".join(errors) + "\n\n")

    def __repr__(self) -> str:
        return f"<OpOverloadPacket(op='{self._namespace}.{self._opname}')>"

    def __str__(self) -> str:
        return f"{self._namespace}.{self._opname}"

    def __hash__(self) -> int:
        return hash(self._qualified_op_name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self.overloads()))


class _OpNamespace(types.ModuleType):
    """`torch.ops.<namespace>`: its operators as attributes (cached once looked up)."""

    def __init__(self, name: str) -> None:
        super().__init__("torch.ops." + name)
        self.name = name
        self.__file__ = "torch.ops"

    def __getattr__(self, op_name: str) -> OpOverloadPacket:
        if op_name.startswith("__") or op_name in ("name", "_dir"):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        if not _overload_names(self.name, op_name):
            raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{op_name}'")
        packet = OpOverloadPacket(self.name, op_name)
        setattr(self, op_name, packet)
        return packet

    def __iter__(self) -> Any:
        return iter(sorted({n.split(".", 1)[0] for n in self._names()}))

    def _names(self) -> list[str]:
        if self.name == "aten":
            return [n for n in dispatcher.defined_names() if "::" not in n]
        prefix = self.name + "::"
        return [n[len(prefix):] for n in dispatcher.defined_names() if n.startswith(prefix)]

    def __dir__(self) -> list[str]:
        return list(self)

    def _forget(self, op_name: str) -> None:
        """Drop the cached packet (torch.library, when its operator is removed)."""
        self.__dict__.pop(op_name, None)


class _Ops(types.ModuleType):
    """`torch.ops`: a namespace object per operator namespace, made on first use."""
    __file__ = "_ops.py"

    def __init__(self) -> None:
        super().__init__("torch.ops")

    def __getattr__(self, name: str) -> _OpNamespace:
        if name.startswith("__"):
            raise AttributeError(f"module 'torch.ops' has no attribute '{name}'")
        namespace = _OpNamespace(name)
        setattr(self, name, namespace)
        return namespace

    def __iter__(self) -> Any:
        return iter([v for v in self.__dict__.values() if isinstance(v, _OpNamespace)])


def _lookup(namespace: str, opname: str, overload: str) -> OpOverload:
    return getattr(getattr(getattr(ops, namespace), opname), overload)


ops = _Ops()

__all__ = ["Argument", "FunctionSchema", "OpOverload", "OpOverloadPacket", "bind", "ops"]
