"""native_functions.yaml entries: NativeFunction (a schema with its dispatch, variants, tags and
Ember's ember_pointwise formula), read with every problem reported at its file:line."""
from __future__ import annotations

import keyword
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

try:
    from yaml import CSafeLoader as _SafeLoader
except ImportError:  # pragma: no cover - pyyaml built without libyaml (about 10x slower)
    from yaml import SafeLoader as _SafeLoader  # type: ignore[assignment]

from torchgen.model import (BaseTy, BaseType, COMPOSITE_DISPATCH_KEYS, DispatchKey, FunctionSchema, Location,
                            OperatorName, OptionalType, RUNTIME_ONLY_DISPATCH_KEYS, STRUCTURED_DISPATCH_KEYS,
                            SchemaError, SchemaErrors, SchemaKind, Variant)


POINTWISE_DTYPES = ("AllAndBool", "All", "Floating", "Integral", "IntegralAndBool")
POINTWISE_PROMOTE = ("default", "int_to_float", "always_bool")


@dataclass(frozen=True, slots=True)
class PointwiseFormula:
    """Ember's ``ember_pointwise`` key: one scalar formula rendered for every backend."""

    formula: str
    dtypes: str = "AllAndBool"
    promote: str = "default"
    # (when, message): raise RuntimeError(message) when all / any tensor inputs are bool,
    # checked in this order before type promotion (PyTorch's sub_check, neg's check).
    bool_inputs: tuple[tuple[str, str], ...] = ()
    # A formula for the bool loop when the general one means something else for bool
    # (bitwise_not is logical not on bool).
    bool_formula: str | None = None
    # Tensor arguments that must be bool, checked before promotion (where's condition).
    bool_args: tuple[str, ...] = ()
    # Tensor arguments that must hold no zero when the op computes in an integral dtype
    # (divisors: PyTorch raises "ZeroDivisionError" instead of trapping).
    nonzero_args: tuple[str, ...] = ()
    # 0-dim CPU tensor arguments that a float16 computation takes at their own value in float
    # instead of rounding them to float16 first (PyTorch's mul/div `original_scalar_value`).
    opmath_scalar_args: tuple[str, ...] = ()
    # Also loops for PyTorch's barebones unsigned types (uint16, uint32, uint64), as the PyTorch kernels
    # that name AT_BAREBONES_UNSIGNED_TYPES have them (mul, eq, ne, the bitwise ops).
    barebones_unsigned: bool = False
    # Also loops for the float8 storage types (the few ops PyTorch gives them): "float32" computes in
    # float32 (abs, eq, ne, isnan), "bits" moves their bytes (where).
    float8: str = ""
    # The formula of the CPU and CUDA loops over complex64 and complex128 (complex arithmetic and
    # torchgen/formula.py's COMPLEX_FUNCTIONS); None: the op has no complex loops. "same": `formula`.
    complex: str | None = None
    # What a complex loop stores: "complex", or "real" (abs, angle: PyTorch's real-valued results).
    complex_result: str = "complex"

    @property
    def complex_formula(self) -> str | None:
        return self.formula if self.complex == "same" else self.complex


@dataclass(frozen=True, slots=True)
class AutocastPolicy:
    """Ember's ``ember_autocast`` key, one device's entry: how the op casts its inputs under autocast
    (PyTorch's CastPolicy; aten/autocast_mode.pyx)."""

    device: DispatchKey               # CPU or CUDA: the Autocast key is AutocastCPU or AutocastCUDA
    policy: str
    redispatch: OperatorName | None = None   # fp32_append_dtype: the overload that takes the dtype


AUTOCAST_POLICIES = ("lower_precision_fp", "fp32", "fp32_set_opt_dtype", "fp32_append_dtype", "promote", "banned")


@dataclass(frozen=True, slots=True)
class NativeFunction:
    func: FunctionSchema
    loc: Location
    variants: frozenset[Variant]
    dispatch: tuple[tuple[DispatchKey, str], ...]  # yaml order; implicit/generated kernels included
    has_explicit_dispatch: bool
    tags: frozenset[str]
    structured: bool = False
    structured_delegate: OperatorName | None = None
    structured_inherits: str | None = None
    python_module: str | None = None
    device_check: str | None = None
    device_guard: bool = True
    autogen: tuple[OperatorName, ...] = ()
    cpp_no_default_args: frozenset[str] = frozenset()
    manual_cpp_binding: bool = False
    manual_kernel_registration: bool = False
    category_override: str | None = None
    use_const_ref_for_mutable_tensors: bool = False
    precomputed: tuple[str, ...] | None = None
    ufunc_inner_loop: tuple[tuple[str, str], ...] = ()
    pointwise: PointwiseFormula | None = None
    # Ember's ``ember_opmath`` key: the backends whose handwritten kernels compute reduced-precision
    # floating dtypes in float32 and round once (aten/native/meta/opmath.pyx).
    opmath: frozenset[DispatchKey] = frozenset()
    autocast: tuple[AutocastPolicy, ...] = ()
    # Ember's ``ember_storage_dtypes`` key: (group, mode) pairs, how every kernel of the op serves
    # float8 and uint16/32/64 operands (aten/native/meta/opmath.pyx).
    storage: tuple[tuple[str, str], ...] = ()
    # Ember's ``ember_opmath_mixed`` key: (params, float_results), PyTorch's mixed-type normalisation: the
    # operands that may be float32 beside reduced ones, and the results such a call keeps in float32.
    opmath_mixed: tuple[tuple[str, ...], tuple[int, ...]] = ((), ())

    def dispatch_dict(self) -> dict[DispatchKey, str]:
        return dict(self.dispatch)


# Keys holding one bool or str, stored in the NativeFunction field of the same name: (type, default).
_SIMPLE_KEYS: dict[str, tuple[type, Any]] = {
    "structured": (bool, False), "structured_inherits": (str, None), "python_module": (str, None),
    "device_check": (str, None), "device_guard": (bool, True), "manual_cpp_binding": (bool, False),
    "manual_kernel_registration": (bool, False), "category_override": (str, None),
    "use_const_ref_for_mutable_tensors": (bool, False),
}  # fmt: skip
_KNOWN_KEYS = frozenset(
    {"func", "variants", "dispatch", "tags", "structured_delegate", "autogen", "cpp_no_default_args", "precomputed",
     "ufunc_inner_loop", *_SIMPLE_KEYS}
)  # fmt: skip
_EXTENSION_KEYS = frozenset({"ember_pointwise", "ember_opmath", "ember_opmath_mixed", "ember_autocast",
                             "ember_storage_dtypes"})
_STORAGE_MODES = {"float8": ("widen", "bits"), "unsigned": ("widen", "promote", "order"), "complex": ("kernel",)}
_OPMATH_KEYS = (DispatchKey.CPU, DispatchKey.CUDA)
_DEVICE_CHECKS = ("ExactSame", "NoCheck")
# Upstream's three legacy ops with an argument named `from` (rule 18); add no more.
_LEGACY_KEYWORD_ARGS = frozenset({"_has_compatible_shallow_copy_type", "random_.from", "uniform_"})
_GENERATOR_TYPES = (BaseType(BaseTy.Generator), OptionalType(BaseType(BaseTy.Generator)))
_FORMULA_TOKEN = re.compile(r"0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|([A-Za-z_]\w*)(\s*\()?")


class _YamlMap(dict[Any, Any]):
    """A YAML mapping that remembers its line and each key's line (1-based)."""

    line: int
    key_lines: dict[Any, int]


class _YamlList(list[Any]):
    """A YAML sequence that remembers each item's line (1-based)."""

    item_lines: list[int]


class _LineLoader(_SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.duplicate_keys: list[tuple[int, str]] = []


def _construct_map(loader: _LineLoader, node: yaml.MappingNode) -> Iterator[_YamlMap]:
    data = _YamlMap()
    data.line, data.key_lines = node.start_mark.line + 1, {}
    yield data
    for key_node, _ in node.value:
        if isinstance(key_node, yaml.ScalarNode):
            if key_node.value in data.key_lines:
                loader.duplicate_keys.append((key_node.start_mark.line + 1, key_node.value))
            data.key_lines[key_node.value] = key_node.start_mark.line + 1
    data.update(loader.construct_mapping(node))


def _construct_list(loader: _LineLoader, node: yaml.SequenceNode) -> Iterator[_YamlList]:
    data = _YamlList()
    data.item_lines = [item.start_mark.line + 1 for item in node.value]
    yield data
    data.extend(loader.construct_sequence(node))


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_list)


def _load_yaml(text: str, path: str) -> Any:
    loader = _LineLoader(text)
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise SchemaErrors([SchemaError(Location(path, line), f"invalid YAML: {getattr(e, 'problem', None) or e}")])
    finally:
        loader.dispose()
    if loader.duplicate_keys:
        raise SchemaErrors([SchemaError(Location(path, n), f"duplicate key {k!r}") for n, k in loader.duplicate_keys])
    if not isinstance(data, _YamlList):
        line = data.line if isinstance(data, _YamlMap) else 1
        raise SchemaErrors([SchemaError(Location(path, line), "expected a YAML list of entries ('- key: ...')")])
    return data


_T = TypeVar("_T")
_TYPE_NAMES = {bool: "a boolean (True/False)", str: "a string", _YamlMap: "a mapping"}


class _Reader:
    """Reads typed values off one YAML mapping, recording each problem with its line."""

    def __init__(self, raw: _YamlMap, path: str, errors: list[SchemaError]) -> None:
        self.raw, self.path, self.errors = raw, path, errors

    def loc(self, key: Any = None) -> Location:
        return Location(self.path, self.raw.key_lines.get(key, self.raw.line))

    def error(self, key: Any, msg: str) -> None:
        self.errors.append(SchemaError(self.loc(key), msg))

    def opt(self, key: str, kind: type[_T]) -> _T | None:
        value = self.raw.get(key)
        if value is not None and not isinstance(value, kind):
            self.error(key, f"{key!r} must be {_TYPE_NAMES.get(kind, kind.__name__)}, got {value!r}")
            return None
        return value

    def get(self, key: str, kind: type[_T], default: _T) -> _T:
        value = self.opt(key, kind)
        return default if value is None else value

    def strings(self, key: str) -> list[str] | None:
        """A list of strings; one string counts as a list of one."""
        value = self.raw.get(key)
        if value is None or isinstance(value, str):
            return None if value is None else [value]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
        self.error(key, f"{key!r} must be a string or a list of strings, got {value!r}")
        return None

    def operator_names(self, key: str) -> tuple[OperatorName, ...]:
        names: list[OperatorName] = []
        text = self.get(key, str, "")
        for part in text.split(", ") if text else []:
            try:
                names.append(OperatorName.parse(part))
            except SchemaError as e:
                self.error(key, e.msg)
        return tuple(names)


def _cpp_name(func: FunctionSchema) -> str:
    """Default kernel name, as upstream's cpp.name(): the base name, plus ``_out`` for out= ops."""
    return f"{func.name.name}_out" if func.is_out_fn() else str(func.name.name)


def _read_dispatch(r: _Reader, raw: _YamlMap) -> list[tuple[DispatchKey, str]]:
    dispatch: list[tuple[DispatchKey, str]] = []
    sub = _Reader(raw, r.path, r.errors)
    for keys, kernel in raw.items():
        if not isinstance(keys, str) or not isinstance(kernel, str):
            sub.error(keys, f"dispatch entries map key names to kernel names, got {keys!r}: {kernel!r}")
            continue
        for text in keys.split(","):
            try:
                key = DispatchKey.parse(text.strip(), sub.loc(keys))
            except SchemaError as e:
                r.errors.append(e)
                continue
            if key in RUNTIME_ONLY_DISPATCH_KEYS:
                sub.error(keys, f"dispatch key {key.value} (kernel {kernel!r}) is runtime-only; it cannot be listed")
            elif any(key is k for k, _ in dispatch):
                sub.error(keys, f"dispatch key {key.value} is listed twice")
            else:
                dispatch.append((key, kernel))
    return dispatch


def _read_autocast(r: _Reader, func: FunctionSchema | None) -> tuple[AutocastPolicy, ...]:
    """ember_autocast: {CPU: POLICY, CUDA: POLICY}; fp32_append_dtype names its overload:
    `fp32_append_dtype(norm.ScalarOpt_dtype)`."""
    raw = r.opt("ember_autocast", _YamlMap)
    if raw is None or func is None:
        return ()
    if func.kind() is not SchemaKind.functional:
        r.error("ember_autocast", f"{func.name}: ember_autocast applies to functional ops (not in-place or out=)")
        return ()
    sub = _Reader(raw, r.path, r.errors)
    policies: list[AutocastPolicy] = []
    for device, text in raw.items():
        try:
            key = DispatchKey.parse(str(device), sub.loc(device))
        except SchemaError as e:
            r.errors.append(e)
            continue
        match = re.fullmatch(r"(\w+)(?:\(([\w.]+)\))?", str(text).strip())
        policy, target = (match.group(1), match.group(2)) if match else (str(text), None)
        if key not in _OPMATH_KEYS:
            sub.error(device, f"ember_autocast names devices ({', '.join(k.value for k in _OPMATH_KEYS)}), "
                              f"not {key.value}")
        elif policy not in AUTOCAST_POLICIES:
            sub.error(device, f"unknown autocast policy {text!r}; expected one of: {', '.join(AUTOCAST_POLICIES)}")
        elif (policy == "fp32_append_dtype") != (target is not None):
            sub.error(device, "fp32_append_dtype names the overload it calls with the dtype, "
                              "`fp32_append_dtype(op.overload)`; no other policy names one")
        elif policy == "fp32_set_opt_dtype" and not any(
                a.name == "dtype" and str(a.type) == "ScalarType?" for a in func.arguments.flat_all):
            sub.error(device, f"{func.name}: fp32_set_opt_dtype needs a `ScalarType? dtype` argument")
        else:
            policies.append(AutocastPolicy(key, policy, OperatorName.parse(target) if target else None))
    return tuple(policies)


def _read_storage(r: _Reader) -> tuple[tuple[str, str], ...]:
    """ember_storage_dtypes: {float8: widen | bits, unsigned: widen | promote | order, complex: kernel}."""
    raw = r.opt("ember_storage_dtypes", _YamlMap)
    if raw is None:
        return ()
    sub = _Reader(raw, r.path, r.errors)
    found: list[tuple[str, str]] = []
    for group, mode in raw.items():
        if group not in _STORAGE_MODES:
            sub.error(group, f"ember_storage_dtypes names dtype groups ({', '.join(_STORAGE_MODES)}), not {group!r}")
        elif mode not in _STORAGE_MODES[group]:
            sub.error(group, f"{group}: unknown mode {mode!r}; expected one of: {', '.join(_STORAGE_MODES[group])}")
        else:
            found.append((str(group), str(mode)))
    return tuple(found)


def _read_opmath_mixed(r: _Reader, func: FunctionSchema | None) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """ember_opmath_mixed: {params: [tensor arguments], float_results: [result positions]}, with ember_opmath."""
    raw = r.opt("ember_opmath_mixed", _YamlMap)
    if raw is None or func is None:
        return ((), ())
    sub = _Reader(raw, r.path, r.errors)
    params = tuple(sub.strings("params") or ())
    results = raw.get("float_results") or []
    tensors = {a.name for a in func.arguments.flat_all if str(a.type).startswith("Tensor")}
    if "ember_opmath" not in r.raw:
        r.error("ember_opmath_mixed", "ember_opmath_mixed needs ember_opmath (the backends it serves)")
    if not params or set(raw) - {"params", "float_results"}:
        r.error("ember_opmath_mixed", "ember_opmath_mixed holds params (a list of tensor arguments) and "
                                      "float_results (a list of result positions)")
    for name in params:
        if name not in tensors:
            sub.error("params", f"ember_opmath_mixed: {name!r} is not a tensor argument of {func.name}")
    if not isinstance(results, list) or not all(type(i) is int and 0 <= i < len(func.returns) for i in results):
        sub.error("float_results", f"ember_opmath_mixed: float_results lists positions of {func.name}'s "
                                   f"{len(func.returns)} results")
        results = []
    return params, tuple(results)


def _read_opmath(r: _Reader, dispatch: list[tuple[DispatchKey, str]]) -> frozenset[DispatchKey]:
    """ember_opmath: "CPU", "CPU, CUDA": backends with a handwritten kernel in this entry's dispatch."""
    keys: set[DispatchKey] = set()
    text = r.get("ember_opmath", str, "")
    listed = {k for k, _ in dispatch}
    for part in text.split(","):
        try:
            key = DispatchKey.parse(part.strip(), r.loc("ember_opmath"))
        except SchemaError as e:
            r.errors.append(e)
            continue
        if key not in _OPMATH_KEYS:
            r.error("ember_opmath", f"ember_opmath names backends ({', '.join(k.value for k in _OPMATH_KEYS)}), "
                                    f"not {key.value}")
        elif key not in listed:
            r.error("ember_opmath", f"ember_opmath names {key.value}, which has no kernel in this entry's dispatch")
        else:
            keys.add(key)
    return frozenset(keys)


_POINTWISE_KEYS = ("formula", "dtypes", "promote", "bool_inputs", "bool_formula", "bool_args", "nonzero_args",
                   "opmath_scalar_args", "barebones_unsigned", "float8", "complex", "complex_result")
# Non-tensor argument types a pointwise formula may read (each converted to the compute dtype).
_POINTWISE_SCALARS = (BaseType(BaseTy.Scalar), BaseType(BaseTy.int), BaseType(BaseTy.float), BaseType(BaseTy.bool))


def _read_pointwise(r: _Reader, raw: _YamlMap, func: FunctionSchema | None) -> PointwiseFormula | None:
    sub = _Reader(raw, r.path, r.errors)
    for key in raw:
        if key not in _POINTWISE_KEYS:
            sub.error(key, f"unknown ember_pointwise key {key!r}; valid keys are: {', '.join(_POINTWISE_KEYS)}")
    formula = sub.get("formula", str, "")
    dtypes = sub.get("dtypes", str, "AllAndBool")
    promote = sub.get("promote", str, "default")
    if "formula" not in raw:
        r.error("ember_pointwise", "ember_pointwise needs a non-empty 'formula'")
    elif not formula.strip():
        sub.error("formula", "ember_pointwise needs a non-empty 'formula'")
    for key, value, valid in (("dtypes", dtypes, POINTWISE_DTYPES), ("promote", promote, POINTWISE_PROMOTE)):
        if value not in valid:
            sub.error(key, f"unknown ember_pointwise {key} {value!r}; expected one of: {', '.join(valid)}")
    bool_inputs = _read_bool_inputs(sub, raw.get("bool_inputs"))
    bool_formula = sub.opt("bool_formula", str)
    bool_args = tuple(sub.strings("bool_args") or ())
    nonzero_args = tuple(sub.strings("nonzero_args") or ())
    opmath_scalar_args = tuple(sub.strings("opmath_scalar_args") or ())
    float8 = sub.get("float8", str, "")
    if float8 not in ("", "float32", "bits"):
        sub.error("float8", f"unknown ember_pointwise float8 {float8!r}; expected one of: float32, bits")
    complex_formula = sub.opt("complex", str)
    complex_result = sub.get("complex_result", str, "complex")
    if complex_result not in ("complex", "real"):
        sub.error("complex_result", f"unknown ember_pointwise complex_result {complex_result!r}; "
                                    "expected one of: complex, real")
    elif complex_result == "real" and complex_formula is None:
        sub.error("complex_result", "complex_result needs a `complex` formula")
    if func is None:
        return None
    args, returns = func.arguments.flat_all, func.returns
    tensor = BaseType(BaseTy.Tensor)
    for key, names in (("bool_args", bool_args), ("nonzero_args", nonzero_args),
                       ("opmath_scalar_args", opmath_scalar_args)):
        for name in names:
            if not any(a.name == name and a.type == tensor for a in args):
                sub.error(key, f"{key} names {name!r}, which is not a Tensor argument of {func.name}")
    if (
        func.kind() is not SchemaKind.functional
        or any(a.annotation is not None or (a.type != tensor and a.type not in _POINTWISE_SCALARS) for a in args)
        or not any(a.type == tensor for a in args)
        or [(ret.type, ret.annotation) for ret in returns] != [(tensor, None)]
    ):
        r.error("ember_pointwise", "ember_pointwise needs a functional op whose arguments are plain Tensor (at "
                f"least one), Scalar, int, float or bool, returning one Tensor; {func.name} does not qualify")  # fmt: skip
    arg_names = [a.name for a in args]
    for key, text in (("formula", formula), ("bool_formula", bool_formula or ""),
                      ("complex", "" if complex_formula in (None, "same") else complex_formula)):
        for m in _FORMULA_TOKEN.finditer(text):
            if m.group(1) and not m.group(2) and m.group(1) not in arg_names:
                sub.error(key, f"ember_pointwise formula uses unknown name {m.group(1)!r}; "
                          f"the arguments are: {', '.join(arg_names)}")  # fmt: skip
    if opmath_scalar_args and any(a.type != tensor for a in args):
        sub.error("opmath_scalar_args", "opmath_scalar_args needs an op whose arguments are all Tensors")
    return PointwiseFormula(formula, dtypes, promote, bool_inputs, bool_formula, bool_args, nonzero_args,
                            opmath_scalar_args, sub.get("barebones_unsigned", bool, False), float8, complex_formula,
                            complex_result)


def _read_bool_inputs(sub: _Reader, raw: Any) -> tuple[tuple[str, str], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not raw or any(k not in ("all", "any") or not isinstance(v, str) or not v
                                                   for k, v in raw.items()):
        sub.error("bool_inputs", "ember_pointwise bool_inputs must map 'all' and/or 'any' to an error message, "
                  f"got {raw!r}")  # fmt: skip
        return ()
    return tuple((when, raw[when]) for when in ("all", "any") if when in raw)


def _parse_entry(
    raw: _YamlMap, path: str, tags: frozenset[str] | None, allow_extension_keys: bool, errors: list[SchemaError]
) -> NativeFunction | None:
    r, n_errors = _Reader(raw, path, errors), len(errors)
    valid_keys = _KNOWN_KEYS | _EXTENSION_KEYS if allow_extension_keys else _KNOWN_KEYS
    for key in raw:
        if key not in valid_keys:
            r.error(key, f"unknown key {key!r}; valid keys are: {', '.join(sorted(valid_keys))}")
    func: FunctionSchema | None = None
    if not isinstance(func_text := raw.get("func"), str):
        r.error("func", f"each entry needs 'func: <schema string>', got {func_text!r}")
    else:
        try:
            func = FunctionSchema.parse(func_text)
        except SchemaError as e:
            r.error("func", e.msg)

    simple: dict[str, Any] = {key: r.get(key, kind, default) for key, (kind, default) in _SIMPLE_KEYS.items()}
    variants: set[Variant] = set()
    for text in r.get("variants", str, "function").split(","):
        try:
            variants.add(Variant.parse(text.strip(), r.loc("variants")))
        except SchemaError as e:
            errors.append(e)
    entry_tags = frozenset(r.strings("tags") or ())
    for tag in sorted(entry_tags - tags) if tags is not None else ():
        r.error("tags", f"unknown tag {tag!r}; tags.yaml defines: {', '.join(sorted(tags or ()))}")
    raw_dispatch = r.opt("dispatch", _YamlMap)
    dispatch = _read_dispatch(r, raw_dispatch) if raw_dispatch is not None else []
    delegates = r.operator_names("structured_delegate")
    if len(delegates) > 1:
        r.error("structured_delegate", "structured_delegate names exactly one out= operator")
    precomputed = r.strings("precomputed")
    ufunc = raw.get("ufunc_inner_loop") or {}
    if isinstance(ufunc, str):
        ufunc = {"Generic": ufunc}
    if not isinstance(ufunc, dict) or not all(isinstance(v, str) for v in ufunc.values()):
        r.error("ufunc_inner_loop", f"'ufunc_inner_loop' must be a string or a mapping of strings, got {ufunc!r}")
        ufunc = {}
    raw_pointwise = r.opt("ember_pointwise", _YamlMap) if allow_extension_keys else None
    pointwise = _read_pointwise(r, raw_pointwise, func) if raw_pointwise is not None else None
    opmath = _read_opmath(r, dispatch) if allow_extension_keys and "ember_opmath" in raw else frozenset()
    opmath_mixed = _read_opmath_mixed(r, func) if allow_extension_keys else ((), ())
    autocast = _read_autocast(r, func) if allow_extension_keys else ()
    storage = _read_storage(r) if allow_extension_keys else ()
    if func is None:
        return None

    kernels = list(dispatch)
    if pointwise is not None:  # generated kernels, like upstream's ufunc_inner_loop
        for key in (DispatchKey.CPU, DispatchKey.CUDA):
            if any(k is key for k, _ in dispatch):
                r.error("dispatch", f"ember_pointwise generates the {key.value} kernel; remove the explicit entry")
            kernels.append((key, f"{func.name.unambiguous_name()}_{key.value.lower()}"))
    elif raw_dispatch is None and not simple["structured"] and not delegates:
        kernels.append((DispatchKey.CompositeImplicitAutograd, _cpp_name(func)))
    nf = NativeFunction(
        func=func,
        loc=r.loc("func"),
        variants=frozenset(variants),
        dispatch=tuple(kernels),
        has_explicit_dispatch=raw_dispatch is not None,
        tags=entry_tags,
        structured_delegate=delegates[0] if delegates else None,
        autogen=r.operator_names("autogen"),
        cpp_no_default_args=frozenset(r.strings("cpp_no_default_args") or ()),
        precomputed=tuple(precomputed) if precomputed is not None else None,
        ufunc_inner_loop=tuple((str(k), v) for k, v in ufunc.items()),
        pointwise=pointwise,
        opmath=opmath,
        opmath_mixed=opmath_mixed,
        autocast=autocast,
        storage=storage,
        **simple,
    )
    _check_entry(r, nf, dispatch)
    return nf if len(errors) == n_errors else None


def _check_entry(r: _Reader, nf: NativeFunction, explicit: list[tuple[DispatchKey, str]]) -> None:
    """Rules 8-13, 15, 17 (its first half) and 18 of notes section a: those about one entry."""
    func, name, kind = nf.func, str(nf.func.name), nf.func.kind()
    if func.is_out_fn() and nf.variants != {Variant.function}:
        r.error("variants", f"{name}: out= functions must have 'variants: function' only")
    if nf.structured and kind is not SchemaKind.out:
        r.error("structured", f"{name}: put 'structured: True' on the out= variant; did you mean structured_delegate?")
    if nf.structured_delegate is not None and kind is SchemaKind.out:
        r.error("structured_delegate", f"{name}: structured_delegate is not allowed on out= ops; mean structured?")
    if (nf.structured or nf.structured_delegate is not None) and not nf.device_guard:
        r.error("device_guard", f"{name}: 'device_guard: False' is not respected by structured kernels")
    for key in ("structured_inherits", "precomputed", "ufunc_inner_loop"):
        if getattr(nf, key) and not nf.structured:
            r.error(key, f"{name}: {key} requires 'structured: True'")
    explicit_keys = [k for k, _ in explicit]
    if nf.ufunc_inner_loop and {DispatchKey.CPU, DispatchKey.CUDA} & set(explicit_keys):
        r.error("dispatch", f"{name}: ufunc_inner_loop generates the CPU and CUDA kernels; remove them from dispatch")
    if nf.structured_delegate is not None:
        for dk in STRUCTURED_DISPATCH_KEYS.intersection(explicit_keys):
            r.error("dispatch", f"{name}: with structured_delegate, {dk.value} must not be in dispatch (delegated)")
        if nf.pointwise is not None:
            r.error("ember_pointwise", f"{name}: ember_pointwise cannot be combined with structured_delegate")
    defaulted = {a.name for a in func.arguments.flat_all if a.default is not None}
    for arg_name in sorted(nf.cpp_no_default_args - defaulted):
        r.error("cpp_no_default_args", f"{name}: cpp_no_default_args names {arg_name!r}, which has no default")
    if nf.device_check is not None and nf.device_check not in _DEVICE_CHECKS:
        valid = ", ".join(_DEVICE_CHECKS)
        r.error("device_check", f"unknown device_check {nf.device_check!r}; expected one of: {valid}")
    elif name.startswith("_foreach") and nf.device_check != "NoCheck":
        r.error("device_check", f"{name}: _foreach ops must say 'device_check: NoCheck'")
    if (
        "rand" in name
        or ("dropout" in name and "backward" not in name)
        or any(a.type in _GENERATOR_TYPES for a in func.arguments.flat_all)
    ) and "nondeterministic_seeded" not in nf.tags:
        r.error("tags", f"{name}: random ops (rand/dropout in the name, or a Generator argument) "
                "need tag nondeterministic_seeded")  # fmt: skip
    if nf.python_module is not None and Variant.method in nf.variants:
        r.error("python_module", f"{name}: functions in a python_module cannot be methods")
    if nf.use_const_ref_for_mutable_tensors and func.is_out_fn():
        r.error("use_const_ref_for_mutable_tensors", f"{name}: use_const_ref_for_mutable_tensors forbids out arguments")
    if nf.manual_kernel_registration and nf.has_explicit_dispatch:
        r.error("dispatch", f"{name}: manual_kernel_registration and dispatch exclude each other")
    if explicit == [(DispatchKey.CompositeImplicitAutograd, _cpp_name(func))]:
        r.error("dispatch", f"{name}: unnecessary dispatch table (CompositeImplicitAutograd: {_cpp_name(func)} is "
                "the default); delete it")  # fmt: skip
    composites = COMPOSITE_DISPATCH_KEYS.intersection(explicit_keys)
    if len(composites) > 1 and not (
        len(composites) == 2
        and DispatchKey.CompositeImplicitAutogradNestedTensor in composites
        and DispatchKey.CompositeExplicitAutogradNonFunctional not in composites
    ):
        listed = ", ".join(sorted(k.value for k in composites))
        r.error("dispatch", f"{name}: at most one of {listed} per op; each subsumes the others")
    if name not in _LEGACY_KEYWORD_ARGS:
        for a in func.arguments.flat_all:
            if keyword.iskeyword(a.name):
                r.error("func", f"{name}: argument name {a.name!r} is a Python keyword")


def _sorted_by_line(errors: list[SchemaError]) -> list[SchemaError]:
    return sorted(errors, key=lambda e: e.loc.line if e.loc is not None else 0)


def parse_native_yaml_text(
    text: str, path: str = "<string>", tags: frozenset[str] | None = None, *, allow_extension_keys: bool = True
) -> list[NativeFunction]:
    """Parse native_functions.yaml text; raises SchemaErrors listing every problem found."""
    data = _load_yaml(text, path)
    errors: list[SchemaError] = []
    functions: list[NativeFunction] = []
    first_seen: dict[OperatorName, Location] = {}
    for raw, line in zip(data, data.item_lines):
        if not isinstance(raw, _YamlMap):
            errors.append(SchemaError(Location(path, line), f"expected a mapping with a 'func' key, got {raw!r}"))
        elif (nf := _parse_entry(raw, path, tags, allow_extension_keys, errors)) is None:
            continue
        elif (first := first_seen.get(nf.func.name)) is not None:
            errors.append(SchemaError(nf.loc, f"duplicate func {str(nf.func.name)!r} (first defined at {first})"))
        else:
            first_seen[nf.func.name] = nf.loc
            functions.append(nf)
    if errors:
        raise SchemaErrors(_sorted_by_line(errors))
    return functions


def parse_tags_yaml(path: str) -> frozenset[str]:
    """Read tags.yaml (entries ``- tag: name`` with a ``desc``) into the set of valid tag names."""
    data = _load_yaml(Path(path).read_text(), path)
    errors: list[SchemaError] = []
    names: set[str] = set()
    for raw, line in zip(data, data.item_lines):
        if not isinstance(raw, _YamlMap):
            errors.append(SchemaError(Location(path, line), f"expected a mapping with 'tag' and 'desc', got {raw!r}"))
            continue
        r = _Reader(raw, path, errors)
        for key in raw.keys() - {"tag", "desc"}:
            r.error(key, f"unknown key {key!r}; valid keys are: desc, tag")
        name, desc = r.opt("tag", str), r.opt("desc", str)
        if name is None or desc is None:
            r.error(None, "each tag needs a 'tag' name and a 'desc' string")
        elif name in names:
            r.error("tag", f"duplicate tag {name!r}")
        names.add(name or "")
    if errors:
        raise SchemaErrors(_sorted_by_line(errors))
    return frozenset(names - {""})


def parse_native_yaml(
    path: str, tags_path: str | None = None, *, allow_extension_keys: bool = True
) -> list[NativeFunction]:
    """Parse a native_functions.yaml file, checking tags against ``tags_path`` when given.

    Raises:
        SchemaErrors: every problem in the file, each as ``path:line: reason``.
    """
    tags = parse_tags_yaml(tags_path) if tags_path is not None else None
    return parse_native_yaml_text(Path(path).read_text(), path, tags, allow_extension_keys=allow_extension_keys)
