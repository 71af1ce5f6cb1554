"""The gradcheck and gradgradcheck tests that each test/torch/test_autograd_<area>.py runs over
its CASES table (name -> (function, make inputs))."""
from __future__ import annotations

from typing import Any, Callable

import pytest

from torch.autograd import gradcheck, gradgradcheck

Cases = dict[str, tuple[Callable[..., Any], Callable[[], Any]]]


def gradcheck_tests(cases: Cases, no_gradgrad: Any = ()) -> tuple[Callable[[str], None], Callable[[str], None]]:
    """(test_gradcheck, test_gradgradcheck) over cases; no_gradgrad: names whose backward is not
    twice differentiable (in PyTorch either)."""
    @pytest.mark.parametrize("name", sorted(cases))
    def test_gradcheck(name: str) -> None:
        fn, make = cases[name]
        assert gradcheck(fn, make())

    @pytest.mark.parametrize("name", sorted(set(cases) - set(no_gradgrad)))
    def test_gradgradcheck(name: str) -> None:
        fn, make = cases[name]
        assert gradgradcheck(fn, make())

    return test_gradcheck, test_gradgradcheck
