"""torch.library: define operators and register their kernels from Python, as PyTorch's.

    lib = torch.library.Library("myops", "DEF")
    lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
    lib.impl("scale", lambda x, factor=2.0: x * factor, "CPU")
    torch.ops.myops.scale(torch.ones(3))

Operators live in aten's dispatcher under "ns::name.overload"; their schemas are parsed at run time
(aten.schema) and calls through torch.ops are checked against them (torch._ops). A Library owns
what it defined and registered: `_destroy()` or its collection removes them, and a kernel it
replaced comes back.

custom_op defines an operator from a typed Python function (its schema inferred as PyTorch infers
it) and returns a CustomOpDef; register_autograd makes an operator differentiable through an
autograd.Function around its kernel. register_fake stores the shape function Ember keeps for
tracers to come: eager calls, as in PyTorch, never run it.

Not (yet) as PyTorch: an operator must be defined before a kernel is registered for it; a call
with no tensor arguments runs the CPU kernel (PyTorch reports that no tensor picked a backend);
only Ember's dispatch keys exist (CPU, CUDA, the Autograd* and Composite* keys); register_vmap,
register_torch_dispatch and register_autocast are not here.
"""
from __future__ import annotations

import re
import sys
import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from aten import dispatcher
from aten.schema import parse_schema
from c10.dispatch_key import DispatchKey, DispatchKeySet
from torch._ops import OpOverload, ops

__all__ = ["Library", "custom_op", "define", "fallthrough_kernel", "impl", "infer_schema", "register_autograd",
           "register_fake", "register_kernel"]

_reserved_namespaces = ["prim"]
_impls: set[str] = set()                  # "ns/name/key" registered through a Library
_defs: set[str] = set()                   # "ns::name.overload" defined through a Library
_def_locations: dict[str, str] = {}       # where each of _defs was defined
_def_libraries: dict[str, str] = {}       # namespace -> where its DEF library was made
_keep_alive: list[Library] = []           # the FRAGMENT libraries of torch.library.define/impl

_DEVICE_KEYS = {"cpu": "CPU", "cuda": "CUDA", "default": "CompositeExplicitAutograd"}
NAMELESS_SCHEMA = re.compile(r"\(.*\) -> .*")


def fallthrough_kernel() -> None:
    """A kernel that marks a key to be skipped: the call goes on to the next lower key."""
    raise NotImplementedError("fallthrough_kernel() should never be called.")


def _parse_key(name: str) -> DispatchKey:
    try:
        return DispatchKey[name]
    except KeyError:
        raise RuntimeError(f"could not parse dispatch key: {name}") from None


def _caller() -> str:
    frame = sys._getframe(2)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"


class _State:
    """What a Library registered (kept apart from it so the finalizer holds no reference to it)."""

    def __init__(self, ns: str, kind: str, location: str) -> None:
        self.ns = ns
        self.kind = kind
        self.location = location
        self.op_defs: list[str] = []                       # dispatcher names, in definition order
        self.op_impls: set[str] = set()
        self.kernels: list[tuple[Any, DispatchKey, Any]] = []   # (handle, key, kernel)


def _del_library(state: _State) -> None:
    for handle, key, kernel in reversed(state.kernels):
        try:
            handle.deregister(key, kernel)
        except RuntimeError:
            pass                                           # its operator went first
    state.kernels.clear()
    _impls.difference_update(state.op_impls)
    for name in state.op_defs:
        if dispatcher.has_operator(name):
            dispatcher.undefine(name)
        qualified = name if "::" in name else "aten::" + name
        _defs.discard(qualified)
        _def_locations.pop(qualified, None)
        ns, _, rest = qualified.partition("::")
        namespace = ops.__dict__.get(ns)
        if namespace is not None:
            namespace._forget(rest.split(".", 1)[0])
    state.op_defs.clear()
    if state.kind == "DEF" and _def_libraries.get(state.ns) == state.location:
        del _def_libraries[state.ns]


class Library:
    """A set of operator definitions and kernels of one namespace.

    kind "DEF" defines a namespace's operators (one live DEF library per namespace), "FRAGMENT"
    adds definitions to a namespace, "IMPL" only registers kernels (also for aten's operators).
    dispatch_key is the default key of `impl`. Deleting the library (or `_destroy()`) removes its
    operators and kernels."""

    def __init__(self, ns: str, kind: str, dispatch_key: str = "") -> None:
        if kind not in ("IMPL", "DEF", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        if ns in _reserved_namespaces and kind in ("DEF", "FRAGMENT"):
            raise ValueError(f"{ns} is a reserved namespace. Please try creating a library with another name.")
        if dispatch_key:
            _parse_key(dispatch_key)
        location = _caller()
        if kind == "DEF":
            if ns in _def_libraries or ns == "aten":
                previous = _def_libraries.get(ns, "aten/native/native_functions.yaml")
                raise RuntimeError(
                    f"Only a single TORCH_LIBRARY can be used to register the namespace {ns}; please put all of "
                    "your definitions in a single TORCH_LIBRARY block.  If you were trying to specify "
                    "implementations, consider using TORCH_LIBRARY_IMPL (which can be duplicated).  If you really "
                    "intended to define operators for a single namespace in a distributed way, you can use "
                    "TORCH_LIBRARY_FRAGMENT to explicitly indicate this.  Previous registration of TORCH_LIBRARY "
                    f"was registered at {previous}; latest registration was registered at {location}")
            _def_libraries[ns] = location
        self.ns = ns
        self.kind = kind
        self.dispatch_key = dispatch_key
        self.m: _State | None = _State(ns, kind, location)
        self._finalizer = weakref.finalize(self, _del_library, self.m)

    def __repr__(self) -> str:
        return f"Library(kind={self.kind}, ns={self.ns}, dispatch_key={self.dispatch_key})>"

    @property
    def _op_defs(self) -> set[str]:
        return {n if "::" in n else "aten::" + n for n in (self.m.op_defs if self.m else [])}

    @property
    def _op_impls(self) -> set[str]:
        return set(self.m.op_impls) if self.m else set()

    def define(self, schema: str, alias_analysis: str = "", *, tags: Any = ()) -> str:
        """Define an operator of this namespace from its schema; returns its name as the schema wrote it."""
        if alias_analysis not in ("", "FROM_SCHEMA", "CONSERVATIVE"):
            raise RuntimeError(f"Invalid alias_analysis type {alias_analysis}")
        if self.m is None:
            raise AssertionError("Library object has been destroyed")
        written = schema.split("(", 1)[0].strip()
        if self.kind == "IMPL":
            raise RuntimeError(
                f'def("{written}"): Cannot define an operator inside of a TORCH_LIBRARY_IMPL block.  All def()s '
                "should be placed in the (unique) TORCH_LIBRARY block for their namespace.  (Error occurred while "
                f"processing TORCH_LIBRARY_IMPL block at {self.m.location})")
        parsed = parse_schema(schema)
        if "::" in parsed.name:
            ns, _, bare = parsed.name.partition("::")
            if ns != self.ns:
                raise RuntimeError(
                    f"Explicitly provided namespace ({ns}) in schema string does not match namespace of enclosing "
                    f"TORCH_LIBRARY block ({self.ns}).  Move this definition to the (unique) TORCH_LIBRARY block "
                    "corresponding to this namespace (and consider deleting the namespace from your schema "
                    f"string.)  (Error occurred while processing TORCH_LIBRARY block at {self.m.location})")
        else:
            bare = parsed.name
        parsed.name = f"{self.ns}::{bare}"
        qualified = parsed.name + (f".{parsed.overload_name}" if parsed.overload_name else "")
        location = _caller()
        if dispatcher.has_operator(qualified):
            original = _def_locations.get(qualified, "aten/native/native_functions.yaml")
            raise RuntimeError(
                f"Tried to register an operator ({parsed}) with the same name and overload name multiple times. "
                "Each overload's schema should only be registered with a single call to def(). Duplicate "
                f"registration: registered at {location}. Original registration: registered at {original}")
        handle = dispatcher.define(str(parsed))
        self.m.op_defs.append(handle.name)
        _defs.add(qualified)
        _def_locations[qualified] = location
        return written.split(".", 1)[0]

    def _resolve(self, op_name: Any) -> Any:
        if isinstance(op_name, OpOverload):
            return op_name._handle
        if not isinstance(op_name, str):
            raise RuntimeError(f"impl should be passed either a name or an OpOverload object as the first argument, "
                               f"got {type(op_name)}")
        ns, _, bare = op_name.rpartition("::")
        ns = ns or self.ns
        name = bare if ns == "aten" else f"{ns}::{bare}"
        if not dispatcher.has_operator(name):
            raise RuntimeError(f"operator {ns}::{bare} is not defined: define it (Library.define or "
                               "torch.library.define) before registering a kernel for it")
        return dispatcher.find_operator(name)

    def impl(self, op_name: Any, fn: Callable[..., Any], dispatch_key: str = "", *, with_keyset: bool = False,
             allow_override: bool = True) -> None:
        """Register fn as op_name's kernel for dispatch_key ("CPU", "CUDA", "CompositeImplicitAutograd",
        "CompositeExplicitAutograd", "Autograd", ...; default: the library's key, else
        CompositeImplicitAutograd). A kernel already at that key is overridden with a warning, or,
        with allow_override=False, refused. with_keyset passes the call's DispatchKeySet first."""
        if not callable(fn):
            raise TypeError(f"Input function is required to be a callable but found type {type(fn)}")
        if dispatch_key == "":
            dispatch_key = self.dispatch_key
        if self.m is None:
            raise AssertionError("Library object has been destroyed")
        handle = self._resolve(op_name)
        bare = handle.name.split("::")[-1]
        impl_key = f"{self.ns}/{bare}/{dispatch_key}"
        if not allow_override and impl_key in _impls:
            raise RuntimeError(f"This is not allowed since there's already a kernel registered from python overriding "
                               f"{bare}'s behavior for {dispatch_key} dispatch key and {self.ns} namespace.")
        key = _parse_key(dispatch_key or "CompositeImplicitAutograd")
        kernel: Any = fn
        if fn is fallthrough_kernel:
            kernel = dispatcher.FALLTHROUGH
        elif with_keyset:
            kernel = _with_keyset(fn)
        override = handle.has_kernel(key)
        if override:
            warnings.warn("Overriding a previously registered kernel for the same operator and the same dispatch key\n"
                          f"  operator: {handle.schema}\n  dispatch key: {key.name}", UserWarning, stacklevel=2)
        handle.register(key, kernel, override)
        self.m.kernels.append((handle, key, kernel))
        self.m.op_impls.add(impl_key)
        _impls.add(impl_key)

    def _destroy(self) -> None:
        """Remove everything this library defined and registered."""
        self._finalizer()
        self.m = None


def _with_keyset(fn: Callable[..., Any]) -> Callable[..., Any]:
    def kernel(*args: Any, **kwargs: Any) -> Any:
        bits = dispatcher.keys_of((*args, *kwargs.values()))
        return fn(DispatchKeySet(bits or 1 << int(DispatchKey.CPU)), *args, **kwargs)
    kernel.__wrapped__ = fn  # type: ignore[attr-defined]
    return kernel


def _parse_namespace(qualname: str) -> tuple[str, str]:
    ns, sep, name = qualname.partition("::")
    if not sep or "::" in name:
        raise ValueError(f'Expected `qualname` to be of the form "namespace::name", but got {qualname}. The qualname '
                         "passed to the torch.library APIs must consist of a namespace and a name, e.g. aten::sin")
    return ns, name


def _library_for(namespace: str, lib: Library | None) -> Library:
    if lib is not None:
        return lib
    made = Library(namespace, "FRAGMENT")
    _keep_alive.append(made)
    return made


def define(qualname: Any, schema: str, *, lib: Library | None = None, tags: Any = ()) -> Any:
    """Define the operator qualname ("ns::name") with schema "(Tensor x) -> Tensor".

    Its lifetime is lib's when given, else the program's. The old form define(lib, schema) returns a
    decorator that defines the operator and registers the decorated function as its kernel."""
    if isinstance(qualname, Library):
        def wrap(f: Callable[..., Any]) -> Callable[..., Any]:
            name = qualname.define(schema)
            qualname.impl(name, f)
            return f
        return wrap
    if not isinstance(qualname, str):
        raise ValueError(f"define(qualname, schema): expected qualname to be instance of str, got {type(qualname)}")
    namespace, name = _parse_namespace(qualname)
    use = _library_for(namespace, lib)
    if not NAMELESS_SCHEMA.fullmatch(schema):
        raise ValueError(f'define(qualname, schema, ...): expected schema to look like e.g. "(Tensor x) -> Tensor" '
                         f'but got "{schema}"')
    use.define(name + schema, alias_analysis="", tags=tags)


def _keys_for(types: str | Sequence[str] | None) -> list[str]:
    if types is None:
        return ["CompositeExplicitAutograd"]
    if isinstance(types, str):
        types = (types,)
    keys = []
    for t in types:
        if t in DispatchKey.__members__:
            keys.append(t)
        elif t.split(":", 1)[0] in _DEVICE_KEYS:
            keys.append(_DEVICE_KEYS[t.split(":", 1)[0]])
        else:
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {t}")
    return keys


def impl(qualname: Any, types: Any, func: Callable[..., Any] | None = None, *,
         lib: Library | None = None) -> Any:
    """Register func as the kernel of qualname ("ns::name") for device types ("cpu", "cuda",
    "default" = every device) or dispatch key names; without func, a decorator.

    The old form impl(lib, name, dispatch_key="") returns a decorator registering through lib."""
    if isinstance(qualname, Library):
        legacy_lib, name, key = qualname, types, func if isinstance(func, str) else ""

        def wrap_legacy(f: Callable[..., Any]) -> Callable[..., Any]:
            legacy_lib.impl(name, f, key)
            return f
        return wrap_legacy
    keys = _keys_for(types)

    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        namespace, _ = _parse_namespace(qualname)
        use = _library_for(namespace, lib)
        for key in keys:
            use.impl(qualname, f, key)
        return f

    if func is None:
        return register
    register(func)
    return None


def _resolve_op(op: Any, api: str) -> OpOverload:
    if isinstance(op, CustomOpDef):
        return op._opoverload
    if isinstance(op, OpOverload):
        return op
    if not isinstance(op, str):
        raise ValueError(f"{api}({op}): got unexpected type for op: {type(op)}")
    namespace, name = _parse_namespace(op)
    opname, _, overload = name.partition(".")
    return getattr(getattr(getattr(ops, namespace), opname), overload or "default")


def register_kernel(op: Any, device_types: Any, func: Callable[..., Any] | None = None, *,
                    lib: Library | None = None) -> Any:
    """Register func as op's kernel for device_types (None: every device); without func, a decorator."""
    overload = _resolve_op(op, "register_kernel")
    return impl(overload._name, device_types, func, lib=lib)


def register_autograd(op: Any, backward: Callable[..., Any], /, *, setup_context: Callable[..., Any] | None = None,
                      lib: Library | None = None) -> None:
    """Make op differentiable: `backward(ctx, *grads)` returns one gradient per input, and
    `setup_context(ctx, inputs, output)` saves what backward needs (as an autograd.Function's).
    An autograd kernel is registered for op: it runs op below autograd inside such a Function."""
    overload = _resolve_op(op, "register_autograd")
    if overload.namespace == "aten":
        raise RuntimeError(f"register_autograd({overload._name}): expected a custom operator (not one of aten's); "
                           "aten's operators get their derivatives from autograd's formulas")
    if not callable(backward):
        raise TypeError(f"register_autograd: expected backward to be callable, got {type(backward)}")
    if setup_context is not None and not callable(setup_context):
        raise TypeError(f"register_autograd: expected setup_context to be callable, got {type(setup_context)}")
    overload._autograd_backward = backward
    overload._autograd_setup_context = setup_context
    overload._handle.register(DispatchKey.Autograd, _autograd_kernel(overload, backward, setup_context), True)


def _autograd_kernel(overload: Any, backward: Callable[..., Any],
                     setup_context: Callable[..., Any] | None) -> Callable[..., Any]:
    """The Autograd-key kernel of a custom op: a torch.autograd.Function around its kernel."""
    from torch.autograd.function import Function
    handle = overload._handle

    def forward(*args: Any, **kwargs: Any) -> Any:
        return handle.call_below_autograd(*args, **kwargs)

    def setup(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        if setup_context is not None:
            setup_context(ctx, inputs, output)

    def run_backward(ctx: Any, *grads: Any) -> Any:
        return backward(ctx, *grads)

    name = "".join(part.capitalize() for part in overload._opname.split("_"))
    body = {"forward": staticmethod(forward), "setup_context": staticmethod(setup), "backward": staticmethod(run_backward)}
    function: Any = type(name, (Function,), body)
    return lambda *args, **kwargs: function.apply(*args, **kwargs)


# ---- custom_op: an operator from a typed Python function --------------------------------------

def _schema_type(annotation: Any, where: str) -> str:
    """The schema type of a parameter or result annotation (PyTorch's infer_schema table)."""
    import types
    import typing

    import torch
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
        return _schema_type(next(a for a in args if a is not type(None)), where) + "?"
    if origin in (list, Sequence) and len(args) == 1:
        return _schema_type(args[0], where) + "[]"
    table = {torch.Tensor: "Tensor", int: "SymInt", float: "float", bool: "bool", str: "str",
             torch.dtype: "ScalarType", torch.device: "Device"}
    if annotation in table:
        return table[annotation]
    raise ValueError(f"infer_schema(func): {where} has unsupported type {annotation}.")


def _default_text(value: Any) -> str:
    import torch
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, torch.dtype):
        return str(value).removeprefix("torch.")
    if isinstance(value, torch.device):
        return f'"{value}"'
    return repr(value)


def infer_schema(prototype_function: Callable[..., Any], /, *, mutates_args: Any, op_name: str | None = None,
                 tags: Any = ()) -> str:
    """The operator schema of a function from its type annotations: "(Tensor x, SymInt n) -> Tensor";
    the arguments named in mutates_args ("unknown": all tensors) are written as mutated."""
    import inspect
    import typing
    signature = inspect.signature(prototype_function)
    hints = typing.get_type_hints(prototype_function)
    params = []
    keyword_only = False
    for index, (name, param) in enumerate(signature.parameters.items()):
        if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
            raise ValueError(f"infer_schema(func): We do not support positional-only args, varargs, or varkwargs. "
                             f"Got func with signature {signature})")
        if param.kind == param.KEYWORD_ONLY and not keyword_only:
            keyword_only = True
            params.append("*")
        if name not in hints:
            raise ValueError(f"infer_schema(func): Parameter {name} must have a type annotation. Got func with "
                             f"signature {signature})")
        kind = _schema_type(hints[name], f"Parameter {name}")
        mutated = mutates_args == "unknown" and kind.startswith("Tensor") or (
            mutates_args != "unknown" and name in mutates_args)
        if mutated:
            kind = kind.replace("Tensor", f"Tensor(a{index}!)", 1)
        text = f"{kind} {name}"
        if param.default is not param.empty:
            text += f"={_default_text(param.default)}"
        params.append(text)
    if mutates_args != "unknown":
        unknown = set(mutates_args) - set(signature.parameters)
        if unknown:
            raise ValueError(f"{sorted(unknown)} in mutates_args were not found in the custom op's signature. "
                             "mutates_args should contain the names of all args that the custom op mutates, or "
                             "just the string 'unknown' if you don't know.")
    result = hints.get("return", None)
    if result is None or result is type(None):
        returns = "()"
    elif typing.get_origin(result) is tuple:
        returns = "(" + ", ".join(_schema_type(a, "the return") for a in typing.get_args(result)) + ")"
    else:
        returns = _schema_type(result, "the return")
    schema = f"({', '.join(params)}) -> {returns}"
    return f"{op_name}{schema}" if op_name is not None else schema


class CustomOpDef:
    """An operator made by custom_op: callable as the op, with the registration methods."""

    def __init__(self, namespace: str, name: str, schema: str, fn: Callable[..., Any], lib: Library) -> None:
        self._namespace, self._name = namespace, name
        self._qualname = f"{namespace}::{name}"
        self._schema = schema
        self._init_fn = fn
        self._lib = lib
        self._abstract_fn: Callable[..., Any] | None = None

    @property
    def _opoverload(self) -> OpOverload:
        return getattr(getattr(ops, self._namespace), self._name).default

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._opoverload(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<CustomOpDef({self._qualname})>"

    def register_kernel(self, device_types: Any, fn: Callable[..., Any] | None = None, /) -> Any:
        """fn as the kernel for device_types (None: every device); without fn, a decorator."""
        def register(f: Callable[..., Any]) -> Callable[..., Any]:
            impl(self._qualname, device_types, f, lib=self._lib)
            return f
        return register if fn is None else register(fn)

    def register_fake(self, fn: Callable[..., Any], /) -> Callable[..., Any]:
        self._abstract_fn = fn
        self._opoverload._fake_impl = fn  # type: ignore[attr-defined]
        return fn

    def register_autograd(self, backward: Callable[..., Any], /, *,
                          setup_context: Callable[..., Any] | None = None) -> None:
        register_autograd(self._opoverload, backward, setup_context=setup_context, lib=self._lib)


def custom_op(name: str, fn: Callable[..., Any] | None = None, /, *, mutates_args: Any,
              device_types: Any = None, schema: str | None = None, tags: Any = None) -> Any:
    """Define the operator name ("ns::name") from fn, a function of typed arguments: its schema is
    schema or inferred from fn's annotations, fn its kernel on device_types (None: every device).
    Returns a CustomOpDef (without fn, a decorator making one)."""
    def make(f: Callable[..., Any]) -> CustomOpDef:
        namespace, opname = _parse_namespace(name)
        text = schema if schema is not None else infer_schema(f, mutates_args=mutates_args)
        lib = Library(namespace, "FRAGMENT")
        _keep_alive.append(lib)
        lib.define(opname + text, alias_analysis="", tags=tags or ())
        definition = CustomOpDef(namespace, opname, text, f, lib)
        impl(name, device_types, f, lib=lib)
        return definition

    return make if fn is None else make(fn)


def register_fake(op: Any, func: Callable[..., Any] | None = None, /, *, lib: Library | None = None,
                  _stacklevel: int = 1, allow_override: bool = True) -> Any:
    """Store func as op's fake (shape-only) implementation; eager calls never run it. Without func,
    a decorator."""
    if isinstance(op, str):
        namespace, opname = _parse_namespace(op)
        base, _, overload = opname.partition(".")
        if not dispatcher.has_operator(f"{namespace}::{base}" + (f".{overload}" if overload else "")):
            raise RuntimeError(f"operator {op} does not exist")

    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        if isinstance(op, CustomOpDef):
            return op.register_fake(f)
        _resolve_op(op, "register_fake")._fake_impl = f  # type: ignore[attr-defined]
        return f

    return register if func is None else register(func)
