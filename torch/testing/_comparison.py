"""torch.testing.assert_close: PyTorch's comparison rules, tolerances and failure reports.

The inputs are first matched up into pairs (recursing through sequences and mappings), so that a
structural problem (lengths, keys, an unsupported type, a missing tolerance) is reported before any
value is compared; then the pairs are compared in order and the first failure is raised.

Tensor values are compared in NumPy, in the dtype PyTorch computes in: `isclose` works in the
tensors' (promoted) dtype, integers and booleans measure their error in the default dtype, and the
report's greatest differences come from the same arithmetic as PyTorch's, so the numbers it prints
(Python reprs of the resulting floats) are the ones PyTorch prints.
"""
from __future__ import annotations

import cmath
import collections.abc
import warnings
from typing import Any, Callable, NoReturn

import numpy as np

import torch

# {dtype: (rtol, atol)}; any other dtype compares exactly.
_DTYPE_PRECISIONS = {
    torch.float16: (0.001, 1e-5),
    torch.bfloat16: (0.016, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex32: (0.001, 1e-5),         # a complex dtype has its component dtype's tolerances
    torch.complex64: (1.3e-6, 1e-5),
    torch.complex128: (1e-7, 1e-7),
}
# Python numbers take the tolerances of int64 / float64 / complex128.
_NUMBER_DTYPES = {int: torch.int64, float: torch.float64, complex: torch.complex128}

_NUMPY_OF: dict[Any, Any] = {
    torch.bool: np.bool_, torch.uint8: np.uint8, torch.int8: np.int8, torch.int16: np.int16,
    torch.int32: np.int32, torch.int64: np.int64, torch.float16: np.float16, torch.float32: np.float32,
    torch.float64: np.float64, torch.bfloat16: np.float32,     # bfloat16 compares as its exact float32 values
}


class _Failure(Exception):
    """A user-facing failure: the exception type to raise, its message, and where it happened."""

    def __init__(self, kind: type[Exception], message: str, item: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.item = item

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        if isinstance(msg, str):
            return self.kind(msg)
        text = self.message
        if self.item:
            text += "\n\nThe failure occurred for item " + "".join(str([key]) for key in self.item)
        return self.kind(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """This kind of pair cannot hold the inputs; try the next kind."""


def _default_tolerances(*dtypes: Any) -> tuple[float, float]:
    rtols, atols = zip(*(_DTYPE_PRECISIONS.get(dtype, (0.0, 0.0)) for dtype in dtypes))
    return max(rtols), max(atols)


def _tolerances(*dtypes: Any, rtol: float | None, atol: float | None, item: tuple[Any, ...]) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                   f"but got no {'rtol' if rtol is None else 'atol'}.", item)
    if rtol is not None:
        return rtol, atol  # type: ignore[return-value]
    return _default_tolerances(*dtypes)


# ----------------------------------------------------------------------------------------- reports
def _diff_line(kind: str, diff: Any, index: tuple[int, ...] | None, tol: float, exact: bool) -> str:
    if index is None:
        line = f"{kind.title()} difference: {diff}"
    else:
        line = f"Greatest {kind} difference: {diff} at index {index}"
    return line if exact else f"{line} (up to {tol} allowed)"


def _mismatch_message(identifier: str, extra: str, abs_diff: Any, abs_index: tuple[int, ...] | None, atol: float,
                      rel_diff: Any, rel_index: tuple[int, ...] | None, rtol: float) -> str:
    exact = rtol == 0 and atol == 0
    lines = [f"{identifier} are not {'equal' if exact else 'close'}!", "", extra.strip(),
             _diff_line("absolute", abs_diff, abs_index, atol, exact),
             _diff_line("relative", rel_diff, rel_index, rtol, exact)]
    return "\n".join(lines)


def _scalar_message(actual: Any, expected: Any, rtol: float, atol: float) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_message("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, atol,
                             rel_diff, None, rtol)


def _tensor_message(actual: np.ndarray, expected: np.ndarray, matches: np.ndarray, rtol: float,
                    atol: float) -> str:
    total = matches.size
    mismatched = total - int(np.count_nonzero(matches))
    extra = f"Mismatched elements: {mismatched} / {total} ({mismatched / total:.1%})"
    a, e, m = actual.ravel(), expected.ravel(), matches.ravel()
    if a.dtype.kind not in "fc":     # PyTorch measures integer (and boolean) differences in int64
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[m] = 0
        absolute = np.abs(e)
        if abs_diff.dtype.kind != "f":   # int64 / int64 divides in the default dtype
            default = _NUMPY_OF[torch.get_default_dtype()]
            rel_diff = abs_diff.astype(default) / absolute.astype(default)
        else:
            rel_diff = abs_diff / absolute
        rel_diff[m] = 0
    abs_at, rel_at = _argmax(abs_diff), _argmax(rel_diff)
    shape = matches.shape
    return _mismatch_message("Tensor-likes", extra, abs_diff[abs_at].item(), _unravel(abs_at, shape), atol,
                             rel_diff[rel_at].item(), _unravel(rel_at, shape), rtol)


def _argmax(values: np.ndarray) -> int:
    """torch.max(values, 0)'s index: the first NaN if there is one, else the first maximum."""
    nans = np.isnan(values) if values.dtype.kind == "f" else None
    if nans is not None and nans.any():
        return int(np.argmax(nans))
    return int(np.argmax(values))


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


# ------------------------------------------------------------------------------------------- pairs
class _Pair:
    def __init__(self, actual: Any, expected: Any, item: tuple[Any, ...]) -> None:
        self.actual, self.expected, self.item = actual, expected, item

    def fail(self, kind: type[Exception], message: str) -> NoReturn:
        raise _Failure(kind, message, self.item)

    def compare(self) -> None:
        raise NotImplementedError


class _NonePair(_Pair):
    def __init__(self, actual: Any, expected: Any, item: tuple[Any, ...], **options: Any) -> None:
        if actual is not None and expected is not None:
            raise _Unsupported
        super().__init__(actual, expected, item)

    def compare(self) -> None:
        if not (self.actual is None and self.expected is None):
            self.fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    def __init__(self, actual: Any, expected: Any, item: tuple[Any, ...], **options: Any) -> None:
        if not all(isinstance(value, (bool, np.bool_)) for value in (actual, expected)):
            raise _Unsupported
        super().__init__(bool(actual), bool(expected), item)

    def compare(self) -> None:
        if self.actual is not self.expected:
            self.fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    def __init__(self, actual: Any, expected: Any, item: tuple[Any, ...], *, rtol: float | None, atol: float | None,
                 equal_nan: bool, check_dtype: bool, **options: Any) -> None:
        numbers = (int, float, complex, np.number)
        if not all(isinstance(value, numbers) for value in (actual, expected)):
            raise _Unsupported
        actual, expected = (value.item() if isinstance(value, np.number) else value for value in (actual, expected))
        super().__init__(actual, expected, item)
        dtypes = []
        for value in (actual, expected):
            if type(value) not in _NUMBER_DTYPES:   # a bool against a number: PyTorch fails here the same way
                error = KeyError(type(value))
                raise RuntimeError(
                    f"Originating a NumberPair() at item {''.join(str([key]) for key in item)} with\n\n"
                    f"{type(actual).__name__}(): {actual}\n\nand\n\n{type(expected).__name__}(): {expected}\n\n"
                    "resulted in the unexpected exception above. If you are a user and see this message during "
                    "normal operation please file an issue at https://github.com/pytorch/pytorch/issues. If you "
                    "are a developer and working on the comparison functions, please except the previous error "
                    "and raise an expressive `ErrorMeta` instead.") from error
            dtypes.append(_NUMBER_DTYPES[type(value)])
        self.rtol, self.atol = _tolerances(*dtypes, rtol=rtol, atol=atol, item=item)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        if self.check_dtype and type(actual) is not type(expected):
            self.fail(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        if actual == expected:
            return
        if self.equal_nan and cmath.isnan(actual) and cmath.isnan(expected):
            return
        abs_diff = abs(actual - expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(expected):
            return
        self.fail(AssertionError, _scalar_message(actual, expected, self.rtol, self.atol))


class _TensorLikePair(_Pair):
    def __init__(self, actual: Any, expected: Any, item: tuple[Any, ...], *, allow_subclasses: bool, rtol: float | None,
                 atol: float | None, equal_nan: bool, check_device: bool, check_dtype: bool, check_layout: bool,
                 check_stride: bool, **options: Any) -> None:
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _Unsupported
        if not allow_subclasses and type(actual) is not type(expected):
            raise _Unsupported
        actual, expected = self._to_tensor(actual), self._to_tensor(expected)
        for tensor in (actual, expected):
            if _layout(tensor) != torch.strided:
                raise _Failure(ValueError, f"Unsupported tensor layout {_layout(tensor)}", item)
        super().__init__(actual, expected, item)
        self.rtol, self.atol = _tolerances(actual.dtype, expected.dtype, rtol=rtol, atol=atol, item=item)
        self.equal_nan = equal_nan
        self.check_device, self.check_dtype = check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride

    @staticmethod
    def _to_tensor(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value
        try:
            return getattr(torch, "as_tensor", torch.tensor)(value)
        except Exception:
            raise _Unsupported from None

    def _mismatch(self, name: str, actual: Any, expected: Any) -> NoReturn:
        self.fail(AssertionError, f"The values for attribute '{name}' do not match: {actual} != {expected}.")

    def compare(self) -> None:
        actual, expected = self.actual, self.expected
        if actual.shape != expected.shape:
            self._mismatch("shape", actual.shape, expected.shape)
        if _layout(actual) != _layout(expected):
            if self.check_layout:
                self._mismatch("layout", _layout(actual), _layout(expected))
        elif self.check_stride and actual.stride() != expected.stride():
            self._mismatch("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            self._mismatch("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            self._mismatch("dtype", actual.dtype, expected.dtype)
        if "meta" in (actual.device.type, expected.device.type):
            return
        dtype = actual.dtype
        if actual.dtype != expected.dtype:
            dtype = torch.promote_types(actual.dtype, expected.dtype)
        self._compare_values(_to_numpy(actual, dtype), _to_numpy(expected, dtype))

    def _compare_values(self, actual: np.ndarray, expected: np.ndarray) -> None:
        matches = _isclose(actual, expected, self.rtol, self.atol, self.equal_nan)
        if matches.all():
            return
        if actual.ndim == 0:
            message = _scalar_message(actual.item(), expected.item(), self.rtol, self.atol)
        else:
            message = _tensor_message(actual, expected, matches, self.rtol, self.atol)
        self.fail(AssertionError, message)


def _to_numpy(tensor: Any, dtype: Any) -> np.ndarray:
    """The tensor's values as a NumPy array of `dtype` (a copy: comparing never touches the inputs)."""
    if dtype not in _NUMPY_OF:
        raise _Failure(TypeError, f"Comparing tensors of dtype {dtype} is not supported.")
    if tensor.device.type != "cpu":
        tensor = tensor.cpu()
    detach = getattr(tensor, "detach", None)
    if detach is not None:
        tensor = detach()
    if tensor.dtype.numpy_dtype is None:
        tensor = tensor.float()
    return np.array(tensor.numpy(), dtype=_NUMPY_OF[dtype])


def _layout(tensor: Any) -> Any:
    return getattr(tensor, "layout", torch.strided)   # every Ember tensor is strided


def _isclose(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    """torch.isclose: exact matches, NaN pairs when asked, else |a - e| <= atol + |rtol * e| when finite."""
    close = actual == expected
    floating = actual.dtype.kind in "fc"
    if equal_nan and floating:
        close |= np.isnan(actual) & np.isnan(expected)
    if rtol == 0 and atol == 0:
        return close
    if not floating:   # integers and booleans measure their error in the default dtype
        default = _NUMPY_OF[torch.get_default_dtype()]
        actual, expected = actual.astype(default), expected.astype(default)
    scalar = actual.dtype.type
    with np.errstate(all="ignore"):
        allowed = scalar(atol) + np.abs(scalar(rtol) * expected)
        error = np.abs(actual - expected)
        close |= np.isfinite(error) & (error <= allowed)
    return close


_PAIR_TYPES = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _originate(actual: Any, expected: Any, item: tuple[Any, ...], options: dict[str, Any]) -> list[_Pair]:
    sequence, mapping = collections.abc.Sequence, collections.abc.Mapping
    if (isinstance(actual, sequence) and not isinstance(actual, str)
            and isinstance(expected, sequence) and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _Failure(AssertionError,
                           f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", item)
        pairs = []
        for index in range(len(actual)):
            pairs.extend(_originate(actual[index], expected[index], (*item, index), options))
        return pairs
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _Failure(AssertionError,
                           "The keys of the mappings do not match:\n"
                           f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                           f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}", item)
        keys: Any = actual_keys
        try:
            keys = sorted(keys)   # deterministic order where the keys can be ordered
        except Exception:
            pass
        pairs = []
        for key in keys:
            pairs.extend(_originate(actual[key], expected[key], (*item, key), options))
        return pairs
    for pair_type in _PAIR_TYPES:
        try:
            return [pair_type(actual, expected, item, **options)]
        except _Unsupported:
            continue
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {type(actual)} "
                              f"and {type(expected)}.", item)


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Asserts that `actual` and `expected` are close (PyTorch's `torch.testing.assert_close`).

    Tensors (or tensor-likes of directly related types) must match in shape, and unless disabled in
    device, dtype, layout and (if `check_stride`) stride; their values must satisfy
    ``|actual - expected| <= atol + rtol * |expected|`` with per-dtype default tolerances. Python
    numbers, booleans, None, and nested sequences and mappings of these are compared item by item.
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    try:
        pairs = _originate(actual, expected, (), options)
    except _Failure as failure:
        raise failure.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _Failure as failure:
            raise failure.to_error(msg) from None


_ALLCLOSE_PRECISIONS = {torch.float16: (1e-3, 1e-3), torch.float32: (1e-4, 1e-5), torch.float64: (1e-5, 1e-8)}


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    """Deprecated since PyTorch 1.12 (still present in 2.13): use `assert_close`."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, torch.Tensor):
        actual = torch.tensor(actual)
    if not isinstance(expected, torch.Tensor):
        expected = torch.tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtols, atols = zip(*(_ALLCLOSE_PRECISIONS.get(t.dtype, (0.0, 0.0)) for t in (actual, expected)))
        rtol, atol = max(rtols), max(atols)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
