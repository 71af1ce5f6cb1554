"""Sorting composites: argsort is the indices of sort (CompositeImplicitAutograd, as upstream)."""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator

_sort = find_operator("sort")
_sort_stable = find_operator("sort.stable")


def argsort(self: Any, dim: int = -1, descending: bool = False) -> Any:
    return _sort(self, dim, descending)[1]


def argsort_stable(self: Any, stable: bool, dim: int = -1, descending: bool = False) -> Any:
    return _sort_stable(self, stable=stable, dim=dim, descending=descending)[1]


# ---- isin -----------------------------------------------------------------------------------------

_any_dim = find_operator("any.dim")
_eq = find_operator("eq.Tensor")
_logical_not = find_operator("logical_not")
_searchsorted = find_operator("searchsorted.Tensor")
_clamp_max = find_operator("clamp_max")
_index_select = find_operator("index_select")


def _isin_check(*tensors: Any) -> None:
    for t in tensors:
        if t.dtype.is_complex or t.dtype.name == "bool":
            raise RuntimeError(f"Unsupported input type encountered for isin(): {t.dtype.type_name}")


def isin_Tensor_Tensor(elements: Any, test_elements: Any, assume_unique: bool = False,
                       invert: bool = False) -> Any:
    """Whether each element equals one of test_elements (==, so NaN is in nothing), in their promoted
    dtype: a comparison against every test element when they are few (PyTorch's threshold,
    10 * numel ** 0.145), else a binary search in the sorted test elements."""
    from aten.native.meta.pointwise import result_type_of
    _isin_check(elements, test_elements)
    common = result_type_of(elements, test_elements)
    values, tests = elements.to(dtype=common), test_elements.to(dtype=common).reshape(-1)
    searched = tests.numel() >= 10.0 * values.numel() ** 0.145
    if searched and tests.dtype.is_floating_point:      # NaN is in nothing; sorted last, it would hide matches
        tests = tests[_eq(tests, tests)]
    if not searched or tests.numel() == 0:
        found = _any_dim(_eq(values.unsqueeze(-1), tests), -1, False)
    else:
        ordered = _sort(tests, -1, False)[0]
        flat = values.reshape(-1)
        at = _clamp_max(_searchsorted(ordered, flat), tests.numel() - 1)
        found = _eq(_index_select(ordered, 0, at), flat).reshape(values.shape)
    return _logical_not(found) if invert else found


def isin_Tensor_Scalar(elements: Any, test_element: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    from c10 import tensor_impl
    test = tensor_impl.scalar_to_tensor(test_element).to(device=elements.device)
    return isin_Tensor_Tensor(elements, test, assume_unique, invert)


def isin_Scalar_Tensor(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    from c10 import tensor_impl
    value = tensor_impl.scalar_to_tensor(element).to(device=test_elements.device)
    return isin_Tensor_Tensor(value, test_elements, assume_unique, invert)
