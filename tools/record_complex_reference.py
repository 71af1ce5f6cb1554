"""Record PyTorch's complex64/complex128 tensors for the complex tests (needs a real PyTorch).

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_complex_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). It writes
`complex.json`: for each case of CASES, what `run_case` returns under PyTorch (a repr, values as
[real, imaginary] pairs, a dtype, or the error's type and message), and `checkpoint.pt`, complex
tensors saved by PyTorch, which the tests load (and save back for PyTorch to read).
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "complex"
REFERENCE_PACKAGE = "torch"
REAL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
VALUES = [1.5 + 2.0j, -3.25 - 0.5j, 0.0 + 0.0j, 1e-3 - 7.0j, 300.75 + 1.0j]


def _pairs(values: Any) -> Any:
    if isinstance(values, list):
        return [_pairs(v) for v in values]
    if isinstance(values, complex):
        return [values.real, values.imag]
    return values


def _steps(torch: Any, name: str) -> Any:
    t = lambda data, **kw: torch.tensor(data, **kw)  # noqa: E731
    z = t(VALUES)
    m = t([[1 + 2j, 3 - 1j], [5j, 2.0 + 0j]])
    cases: dict[str, Any] = {
        "repr_small": lambda: repr(t([1 + 2j, 3 - 4j, -0.5j])),
        "repr_int_valued": lambda: repr(t([1 + 2j, 3.0])),
        "repr_fixed": lambda: repr(z),
        "repr_sci": lambda: repr(t([1e10 + 2j, 3e-5 - 1j])),
        "repr_complex128": lambda: repr(t([1.5 + 2j, -3.25j], dtype=torch.complex128)),
        "repr_2d": lambda: repr(t([[1 + 1j, -2.5 + 0j], [0.125j, 4 - 4j]])),
        "repr_nonfinite": lambda: repr(t([complex(float("nan"), 1), complex(float("inf"), -float("inf"))])),
        "repr_summarised": lambda: repr(torch.arange(2000.0).to(torch.complex64)),
        "repr_scalar": lambda: repr(t(2 - 3j)),
        "repr_empty": lambda: repr(torch.zeros(0, dtype=torch.complex64)),
        "repr_default_double": lambda: _with_default(torch, torch.float64, lambda: repr(t([1 + 2j]))),
        "infer_python": lambda: str(t([1 + 2j, 3]).dtype),
        "infer_default_double": lambda: _with_default(torch, torch.float64, lambda: str(t([1j]).dtype)),
        "full_infers": lambda: str(torch.full((2,), 1 + 2j).dtype),
        "item": lambda: _pairs(t(2.5 - 1j).item()),
        "tolist": lambda: _pairs(t([[1 + 2j], [3.5 - 1e-8j]], dtype=torch.complex128).tolist()),
        "to_complex64": lambda: _pairs(t([1.5, -2.0, 3.0]).to(torch.complex64).tolist()),
        "to_complex128_from_int": lambda: _pairs(t([1, -2, 7]).to(torch.complex128).tolist()),
        "complex64_to_complex128": lambda: _pairs(z.to(torch.complex128).tolist()),
        "fill": lambda: _pairs(torch.zeros(2, dtype=torch.complex64).fill_(1 - 2j).tolist()),
        "setitem": lambda: _pairs(_setitem(torch).tolist()),
        "index": lambda: _pairs(z[[0, 3]].tolist()),
        "mask": lambda: _pairs(z[t([True, False, True, False, True])].tolist()),
        "result_type_float_tensor_complex_number": lambda: str(torch.result_type(torch.zeros(2), 1j)),
        "result_type_double_and_complex64_scalar": lambda: str(torch.result_type(
            torch.zeros(2, dtype=torch.float64), torch.zeros((), dtype=torch.complex64))),
        "result_type_int_tensor_complex_number": lambda: str(torch.result_type(torch.zeros(2, dtype=torch.int32), 1j)),
        "promote_types": lambda: [str(torch.promote_types(torch.complex64, torch.float64)),
                                  str(torch.promote_types(torch.int8, torch.complex128))],
        "error_tensor_complex_as_float": lambda: t([1 + 2j], dtype=torch.float32),
        "error_full_complex_as_float": lambda: torch.full((2,), 1 + 2j, dtype=torch.float32),
        "error_fill_real_with_complex": lambda: torch.zeros(2).fill_(1 + 2j),
        "error_setitem_real_with_complex": lambda: torch.zeros(2).__setitem__(0, 1 + 1j),
        "fill_real_with_real_complex": lambda: torch.zeros(2).fill_(3 + 0j).tolist(),
        "view_as_real": lambda: _geometry(torch.view_as_real(m)),
        "view_as_real_transposed": lambda: _geometry(torch.view_as_real(m.t())),
        "view_as_real_offset": lambda: _geometry(torch.view_as_real(m[0, 1:])),
        "view_as_complex": lambda: _pairs(torch.view_as_complex(torch.arange(8.0).reshape(2, 2, 2)).tolist()),
        "real_imag": lambda: [_geometry(m.real), _geometry(m.imag), m.t().imag.tolist()],
        "real_of_real_is_itself": lambda: [torch.real(torch.zeros(2)).tolist()],
        "write_through_real_imag": lambda: _pairs(_write_parts(torch, m).tolist()),
        "complex": lambda: _pairs(torch.complex(t([1.0, 2.0]), t([[3.0], [4.0]])).tolist()),
        "complex_double": lambda: [str(torch.complex(t([1.0]).double(), t([2.0]).double()).dtype)],
        "polar": lambda: _pairs(torch.polar(t([1.0, 2.0]), t([0.0, 1.5707963267948966])).tolist()),
        "error_view_as_real_of_real": lambda: torch.view_as_real(torch.zeros(2)),
        "error_view_as_complex_0d": lambda: torch.view_as_complex(t(1.0)),
        "error_view_as_complex_last_size": lambda: torch.view_as_complex(torch.arange(6.0).reshape(2, 3)),
        "error_view_as_complex_last_stride": lambda: torch.view_as_complex(
            torch.arange(8.0).reshape(2, 2, 2).transpose(1, 2)),
        "error_view_as_complex_offset": lambda: torch.view_as_complex(torch.arange(8.0)[1:7].reshape(3, 2)),
        "error_view_as_complex_long": lambda: torch.view_as_complex(torch.zeros(2, 2, dtype=torch.int64)),
        "error_imag_of_real": lambda: torch.zeros(2).imag,
        "error_complex_dtypes": lambda: torch.complex(t([1.0]), t([1.0]).double()),
        "error_complex_long": lambda: torch.complex(t([1]), t([1])),
        "error_polar_long": lambda: torch.polar(t([1]), t([1])),
        "error_index_put_int_into_complex": lambda: _index_put(torch, t([1j, 2j]), t(5)),
        "error_index_put_complex_into_int": lambda: _index_put(torch, t([1, 2, 3]), t(1j)),
        "error_gcd": lambda: torch.gcd(t([1 + 2j]), t([1 + 2j])),
        "error_float_power_inplace_complex_exponent": lambda: t([2.0, 3.0], dtype=torch.float64).float_power_(1j),
        "assign_real_number": lambda: _pairs(_assign_real(torch).tolist()),
        "bool_fill_with_complex": lambda: torch.zeros(2, dtype=torch.bool).fill_(1j).tolist(),
        "cfloat_cdouble": lambda: [str(t([1.0]).cfloat().dtype), str(t([1]).cdouble().dtype)],
    }
    for name_ in REAL_DTYPES:
        cases[f"to_{name_}"] = (lambda d: lambda: _pairs(z.to(getattr(torch, d)).float().tolist()
                                                        if d == "bfloat16" else z.to(getattr(torch, d)).tolist()))(name_)
    return cases[name]()


def _geometry(x: Any) -> Any:
    return [str(x.dtype), list(x.shape), list(x.stride()), x.storage_offset(), x.tolist()]


def _write_parts(torch: Any, m: Any) -> Any:
    w = m.clone()
    w.real[0, 0] = 9
    w.imag.fill_(7)
    w.real = torch.zeros(2, 2)
    return w


def _index_put(torch: Any, dst: Any, value: Any) -> Any:
    dst[[0]] = value
    return dst


def _assign_real(torch: Any) -> Any:
    z = torch.tensor([1 + 2j, 3j])
    z.real = 5
    return z


def _with_default(torch: Any, dtype: Any, fn: Any) -> Any:
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return fn()
    finally:
        torch.set_default_dtype(old)


def _setitem(torch: Any) -> Any:
    z = torch.zeros(3, dtype=torch.complex64)
    z[0] = 1 + 1j
    z[1] = 2
    z[2:] = torch.tensor([5 - 1j])
    return z


CASES = ("repr_small", "repr_int_valued", "repr_fixed", "repr_sci", "repr_complex128", "repr_2d", "repr_nonfinite",
         "repr_summarised", "repr_scalar", "repr_empty", "repr_default_double", "infer_python",
         "infer_default_double", "full_infers", "item", "tolist", "to_complex64", "to_complex128_from_int",
         "complex64_to_complex128", "fill", "setitem", "index", "mask", "result_type_float_tensor_complex_number",
         "result_type_double_and_complex64_scalar", "result_type_int_tensor_complex_number", "promote_types",
         "error_tensor_complex_as_float", "error_full_complex_as_float", "error_fill_real_with_complex",
         "error_setitem_real_with_complex", "fill_real_with_real_complex", "view_as_real", "view_as_real_transposed",
         "view_as_real_offset", "view_as_complex", "real_imag", "real_of_real_is_itself", "write_through_real_imag",
         "complex", "complex_double", "polar", "error_view_as_real_of_real", "error_view_as_complex_0d",
         "error_view_as_complex_last_size", "error_view_as_complex_last_stride", "error_view_as_complex_offset",
         "error_view_as_complex_long", "error_imag_of_real", "error_complex_dtypes", "error_complex_long",
         "error_polar_long", "error_index_put_int_into_complex", "error_index_put_complex_into_int", "error_gcd",
         "error_float_power_inplace_complex_exponent", "assign_real_number", "bool_fill_with_complex",
         "cfloat_cdouble") + tuple(f"to_{d}" for d in REAL_DTYPES)


def run_case(torch: Any, name: str) -> dict[str, Any]:
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")      # the complex-to-real cast warns once per process
            return {"result": _steps(torch, name)}
    except Exception as e:  # noqa: BLE001 (the recorded behaviour is the error)
        return {"error": type(e).__name__, "message": str(e)}


def checkpoint(torch: Any) -> dict[str, Any]:
    """The tensors checkpoint.pt holds (the tests rebuild them to compare)."""
    return {"z64": torch.tensor(VALUES), "z128": torch.tensor(VALUES, dtype=torch.complex128)[1:4],
            "strided": torch.tensor([[1 + 1j, 2 - 2j], [3j, -4.0 + 0j]]).t()}


def main(out_dir: Path) -> None:
    if str(Path(__file__).resolve().parent.parent) in [str(Path(p).resolve()) for p in sys.path if p]:
        raise SystemExit("run this from outside the Ember repository: its `torch` would shadow PyTorch's")
    torch = importlib.import_module(REFERENCE_PACKAGE)
    out_dir.mkdir(parents=True, exist_ok=True)
    cases = {name: run_case(torch, name) for name in CASES}
    (out_dir / "complex.json").write_text(json.dumps({"torch": torch.__version__, "cases": cases}, indent=1) + "\n")
    torch.save(checkpoint(torch), out_dir / "checkpoint.pt")
    print(f"wrote {out_dir / 'complex.json'} and {out_dir / 'checkpoint.pt'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DATA_DIR)
