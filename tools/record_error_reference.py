"""Record what PyTorch does with calls at the edge of what it allows, for the tests that replay
them with Ember (needs a real PyTorch):

- OVERLAP_CASES (test/aten/test_memory_overlap.py): writes into a tensor whose elements share
  memory (an expanded tensor: a stride of 0 on a dim of size > 1) or into a view overlapping one
  of its inputs;
- INTEGER_DOMAIN_CASES (test/torch/test_integer_domain_errors.py): integer ops with no integer
  result (division by zero, negative powers) and numbers beyond a dtype or beyond int64.

    cd /tmp && /path/to/pytorch/python /path/to/ember/tools/record_error_reference.py [OUTPUT_DIR]

Run it from outside the repository (Ember's package is also called `torch`). Each case is a
function of a torch module; the tests expect Ember's outcome to be PyTorch's: its error (type and
first line), its deprecation warning (then the values it left), or the values of what it allows.
`overlap.json` and `integer_domain.json` hold, per case, that outcome.
"""
from __future__ import annotations

import importlib
import json
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

DATA_DIR = Path(__file__).resolve().parent.parent / "test" / "data" / "errors"

Case = Callable[[Any], Any]
REFERENCE_PACKAGE = "torch"


def _expanded(torch: Any, dtype: Any = None) -> Any:
    """A (2, 3) tensor whose two rows are one row of memory: [[0, 1, 2], [0, 1, 2]]."""
    return torch.arange(3, dtype=dtype or torch.float32).reshape(1, 3).expand(2, 3)


def _scalar_expanded(torch: Any, dtype: Any = None) -> Any:
    """Three elements over one: torch.zeros(1).expand(3)."""
    return torch.zeros(1, dtype=dtype or torch.float32).expand(3)


def _long(torch: Any, values: list[int]) -> Any:
    return torch.tensor(values, dtype=torch.int64)


OVERLAP_CASES: dict[str, Case] = {
    # the issue's own examples
    "add_scalar_expanded": lambda torch: _scalar_expanded(torch).add_(1),
    "mul_expanded": lambda torch: _expanded(torch).mul_(2),
    "add_out_expanded": lambda torch: torch.add(torch.ones(2, 3), torch.ones(2, 3), out=_expanded(torch)),
    "mul_out_expanded": lambda torch: torch.mul(torch.ones(2, 3), 3, out=_expanded(torch)),
    "copy_expanded": lambda torch: _expanded(torch).copy_(torch.ones(2, 3)),
    "scatter_expanded": lambda torch: _scalar_expanded(torch).scatter_(0, _long(torch, [1]), torch.ones(1)),
    "index_add_expanded": lambda torch: _scalar_expanded(torch).index_add_(0, _long(torch, [0]), torch.ones(1)),
    "clamp_expanded": lambda torch: _expanded(torch).clamp_(0, 1),
    # more pointwise, in place and out=
    "sub_tensor_expanded": lambda torch: _expanded(torch).sub_(torch.ones(3)),
    "div_expanded": lambda torch: _expanded(torch).div_(2),
    "neg_expanded": lambda torch: _expanded(torch).neg_(),
    "exp_expanded": lambda torch: _expanded(torch).exp_(),
    "sigmoid_expanded": lambda torch: _expanded(torch).sigmoid_(),
    "relu_expanded": lambda torch: _expanded(torch).relu_(),
    "addcmul_expanded": lambda torch: _expanded(torch).addcmul_(torch.ones(3), torch.ones(3)),
    "lerp_expanded": lambda torch: _expanded(torch).lerp_(torch.ones(3), 0.5),
    "where_out_expanded": lambda torch: torch.where(torch.ones(2, 3, dtype=torch.bool), torch.ones(2, 3),
                                                    torch.zeros(2, 3), out=_expanded(torch)),
    "bitwise_and_expanded": lambda torch: _expanded(torch, torch.int64).bitwise_and_(1),
    "logical_not_expanded": lambda torch: _scalar_expanded(torch, torch.bool).logical_not_(),
    "eq_expanded": lambda torch: _expanded(torch).eq_(1),
    "sqrt_out_expanded": lambda torch: torch.sqrt(torch.ones(2, 3), out=_expanded(torch)),
    "pow_out_expanded": lambda torch: torch.pow(torch.ones(2, 3), 2, out=_expanded(torch)),
    "add_out_resized_from_expanded": lambda torch: torch.add(torch.ones(2, 3), 1, out=_scalar_expanded(torch)),
    # reductions, scans, linear algebra, shape ops with out=
    "cumsum_expanded": lambda torch: _scalar_expanded(torch).cumsum_(0),
    "cumsum_out_expanded": lambda torch: torch.cumsum(torch.ones(3), 0, out=_scalar_expanded(torch)),
    "mm_out_expanded": lambda torch: torch.mm(torch.ones(3, 3), torch.ones(3, 3),
                                              out=torch.zeros(1, 1).expand(3, 3)),
    "addmm_expanded": lambda torch: torch.zeros(1, 1).expand(3, 3).addmm_(torch.ones(3, 3), torch.ones(3, 3)),
    "cat_out_expanded": lambda torch: torch.cat([torch.ones(3)], out=_scalar_expanded(torch)),
    "tril_expanded": lambda torch: torch.arange(3.0).reshape(1, 3).expand(3, 3).tril_(),
    "sum_out_expanded": lambda torch: torch.sum(torch.ones(3, 3), 0, out=_scalar_expanded(torch)),
    # indexing and scatter family
    "index_copy_expanded": lambda torch: _scalar_expanded(torch).index_copy_(0, _long(torch, [0]), torch.ones(1)),
    "masked_scatter_expanded": lambda torch: _scalar_expanded(torch).masked_scatter_(
        torch.tensor([True, False, True]), torch.ones(3)),
    "put_expanded": lambda torch: _scalar_expanded(torch).put_(_long(torch, [0]), torch.ones(1)),
    "scatter_add_expanded": lambda torch: _scalar_expanded(torch).scatter_add_(0, _long(torch, [0]), torch.ones(1)),
    "scatter_reduce_expanded": lambda torch: _scalar_expanded(torch).scatter_reduce_(
        0, _long(torch, [0]), torch.ones(1), "sum"),
    "setitem_slice_expanded": lambda torch: _setitem(_scalar_expanded(torch), slice(None), torch.ones(3)),
    # random fills
    "uniform_expanded": lambda torch: _scalar_expanded(torch).uniform_(),
    "normal_expanded": lambda torch: _scalar_expanded(torch).normal_(),
    "bernoulli_expanded": lambda torch: _scalar_expanded(torch).bernoulli_(0.5),
    "random_expanded": lambda torch: _scalar_expanded(torch).random_(0, 4),
    "exponential_expanded": lambda torch: _scalar_expanded(torch).exponential_(),
    # what PyTorch lets through: fill_ and zero_ (idempotent), copy_ of a tensor into itself
    "fill_expanded": lambda torch: _scalar_expanded(torch).fill_(5),
    "zero_expanded": lambda torch: _expanded(torch).zero_(),
    "copy_into_itself_expanded": lambda torch: _copy_self(_expanded(torch)),
    "setitem_fill_expanded": lambda torch: _setitem(_scalar_expanded(torch), slice(None), 7.0),
    # metadata-only in-place ops never write an element
    "t_expanded": lambda torch: torch.zeros(1, 1).expand(2, 3).t_(),
    "unsqueeze_expanded": lambda torch: _scalar_expanded(torch).unsqueeze_(0),
    "squeeze_expanded": lambda torch: torch.zeros(1, 1).expand(1, 3).squeeze_(0),
    "as_strided_expanded": lambda torch: _scalar_expanded(torch).as_strided_((2,), (0,)),
    # what PyTorch warns about (deprecated), then does
    "index_put_expanded": lambda torch: _scalar_expanded(torch).index_put_((_long(torch, [0]),), torch.tensor(1.0)),
    "masked_fill_expanded": lambda torch: _scalar_expanded(torch).masked_fill_(torch.tensor([True, False, True]), 1.0),
    "index_fill_expanded": lambda torch: _scalar_expanded(torch).index_fill_(0, _long(torch, [1]), 2.0),
    "setitem_mask_expanded": lambda torch: _setitem(_scalar_expanded(torch), torch.tensor([True, False, True]), 4.0),
    # partial overlap between an input and the written tensor
    "add_partial_overlap": lambda torch: _shifted_add(torch),
    "add_exact_alias": lambda torch: _exact_alias(torch),
    "mul_out_partial_overlap": lambda torch: _shifted_mul_out(torch),
    "clamp_out_partial_overlap": lambda torch: _shifted(torch, lambda x: torch.clamp(x[:3], 0, 1, out=x[1:4])),
    "cat_out_partial_overlap": lambda torch: _shifted(torch, lambda x: torch.cat([x[:2]], out=x[1:3])),
    "cumsum_out_partial_overlap": lambda torch: _shifted(torch, lambda x: torch.cumsum(x[:3], 0, out=x[1:4])),
    "copy_partial_overlap": lambda torch: _shifted(torch, lambda x: x[:2].copy_(x[:1])),
    "copy_transposed_onto_itself": lambda torch: _shifted(torch, lambda x: x.view(2, 3)[:, :2].copy_(
        x.view(2, 3)[:, 1:])),
    "copy_full_transpose_onto_itself": lambda torch: _shifted(torch, lambda x: x[:4].view(2, 2).copy_(
        x[:4].view(2, 2).t())),
    "index_put_partial_overlap": lambda torch: _shifted(torch, lambda x: x[1:4].index_put_(
        (torch.tensor([0, 1, 2]),), x[:3])),
    "where_out_partial_overlap": lambda torch: _shifted(torch, lambda x: torch.where(
        x[:3] > 1, x[:3], torch.zeros(3), out=x[1:4])),
    "add_scalar_row_alias": lambda torch: _shifted(torch, lambda x: x.add_(x[0])),
    "mul_strided_input_allowed": lambda torch: _shifted(torch, lambda x: x[:3].mul_(x[::2])),
}


def _setitem(target: Any, index: Any, value: Any) -> Any:
    target[index] = value
    return target


def _copy_self(target: Any) -> Any:
    return target.copy_(target)


def _shifted(torch: Any, op: Callable[[Any], Any]) -> Any:
    """op on views of arange(6.0); the whole buffer afterwards."""
    x = torch.arange(6, dtype=torch.float32)
    op(x)
    return x


def _shifted_add(torch: Any) -> Any:
    x = torch.arange(6, dtype=torch.float32)
    return x[1:].add_(x[:-1])


def _exact_alias(torch: Any) -> Any:
    x = torch.arange(6, dtype=torch.float32)
    return x.add_(x)


def _shifted_mul_out(torch: Any) -> Any:
    x = torch.arange(6, dtype=torch.float32)
    return torch.mul(x[:-1], 2, out=x[1:])


def _integer_cases() -> dict[str, Case]:
    """Each integral dtype against each op with a domain error, and the numbers beyond a dtype."""
    cases: dict[str, Case] = {}
    ops: dict[str, Callable[[Any, Any, Any], Any]] = {
        "div_floor_by_zero": lambda torch, a, z: torch.div(a, z, rounding_mode="floor"),
        "div_trunc_by_zero": lambda torch, a, z: torch.div(a, z, rounding_mode="trunc"),
        "true_div_by_zero": lambda torch, a, z: torch.div(a, z),
        "floor_divide_by_zero": lambda torch, a, z: torch.floor_divide(a, z),
        "floordiv_operator_by_zero": lambda torch, a, z: a // 0,
        "mod_operator_by_zero": lambda torch, a, z: a % 0,
        "remainder_by_zero": lambda torch, a, z: torch.remainder(a, z),
        "fmod_by_zero": lambda torch, a, z: torch.fmod(a, z),
        "fmod_by_scalar_zero": lambda torch, a, z: torch.fmod(a, 0),
        "pow_negative_number": lambda torch, a, z: a ** -1,
        "pow_inplace_negative_number": lambda torch, a, z: a.clone().pow_(-2),
        "pow_out_negative_number": lambda torch, a, z: torch.pow(a, -1, out=torch.empty_like(a)),
        "pow_negative_tensor": lambda torch, a, z: a ** torch.tensor([-1, -1, -1]),
        "rpow_negative_tensor": lambda torch, a, z: 2 ** torch.tensor([-1, 0, 1], dtype=a.dtype),
        "full_beyond_dtype": lambda torch, a, z: torch.full((2,), 300, dtype=a.dtype),
        "fill_beyond_dtype": lambda torch, a, z: a.clone().fill_(2 ** 40),
        "add_beyond_uint64": lambda torch, a, z: a + 2 ** 70,
        "add_below_int64": lambda torch, a, z: a + (-2 ** 70),
        "add_in_uint64_range": lambda torch, a, z: a + 2 ** 63,
        "clamp_beyond_uint64": lambda torch, a, z: a.clamp(max=2 ** 70),
    }
    for dtype in ("uint8", "int8", "int16", "int32", "int64"):
        for name, op in ops.items():
            cases[f"{name}[{dtype}]"] = (lambda op, dtype: lambda torch: op(
                torch, torch.tensor([4, 0, 7], dtype=getattr(torch, dtype)), torch.zeros(3, dtype=getattr(torch, dtype))
            ))(op, dtype)
    return cases


INTEGER_DOMAIN_CASES = _integer_cases()
ERRORS = (RuntimeError, OverflowError, TypeError, ValueError, IndexError)


def run_case(torch: Any, fn: Case) -> dict[str, Any]:
    """The case's outcome: {"outcome": "error"|"warn"|"ok", "error", "message", "values"}."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(torch)
        except ERRORS as exc:
            return {"outcome": "error", "error": type(exc).__name__, "message": str(exc).split("\n")[0],
                    "values": None}
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)
                and "expanded tensors" in str(w.message)]
    values = result.tolist() if isinstance(result, torch.Tensor) else None
    dtype = str(result.dtype) if isinstance(result, torch.Tensor) else None
    if messages:
        return {"outcome": "warn", "message": messages[0].split(" (Triggered internally")[0], "values": values}
    return {"outcome": "ok", "message": None, "values": values, "dtype": dtype}


def main(argv: list[str]) -> int:
    # The real PyTorch, imported by a name held in a variable: build glue must not import Ember's
    # torch, and the audit cannot tell the two apart.
    torch = importlib.import_module(REFERENCE_PACKAGE)
    if Path(torch.__file__).resolve().parent.parent == DATA_DIR.parent.parent.parent:
        raise SystemExit("run this with a real PyTorch, from outside the Ember checkout")
    out_dir = Path(argv[1]) if len(argv) > 1 else DATA_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    for file, cases in (("overlap.json", OVERLAP_CASES), ("integer_domain.json", INTEGER_DOMAIN_CASES)):
        torch.manual_seed(0)
        # Random fills PyTorch allows would give seeded values: none is allowed, so none is kept.
        reference = {name: run_case(torch, fn) for name, fn in cases.items()}
        (out_dir / file).write_text(json.dumps(
            {"torch_version": torch.__version__, "cases": reference}, indent=1, sort_keys=True) + "\n")
        print(f"recorded {len(reference)} cases with PyTorch {torch.__version__} in {out_dir / file}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
