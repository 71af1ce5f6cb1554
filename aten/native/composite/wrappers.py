"""Kernels for in-place and out= variants that have none of their own (generated into
_gen_wrappers.py by torchgen/targets/variants.py): run the functional op, then write its
result into `self` or `out` with PyTorch's rules.

out=: the result dtype must be castable to out's (c10::canCast, "result type Float can't be
cast to the desired output type Long"); an op with a `dtype` argument computes in out's dtype
when none is given, as PyTorch's reductions do; an out tensor of another shape is resized
(warning when it held elements). In place: the result must have self's shape.
"""
from __future__ import annotations

from typing import Any

from aten.dispatcher import find_operator
from aten.native.meta.errors import output_cast_error, output_shape_error, warn_resized
from c10.grad_mode import is_grad_enabled
from c10.scalar_type import can_cast

_copy = find_operator("copy_")
_clone = find_operator("clone")
_resize = find_operator("resize_")


def _check_cast(result: Any, target: Any) -> None:
    if not can_cast(result.dtype, target.dtype):
        raise output_cast_error(result.dtype.type_name, target.dtype.type_name)


class out_wrapper:
    """The kernel of `<op>.out`: the functional op's result copied into the out tensors."""

    def __init__(self, functional: str, n_args: int, out_names: tuple[str, ...], dtype_index: int = -1) -> None:
        self.functional = functional
        self.n_args = n_args
        self.out_names = out_names
        self.dtype_index = dtype_index      # position of a `ScalarType? dtype` argument, or -1
        self._op: Any = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        outs = [kwargs.pop(name) for name in self.out_names if name in kwargs]
        if not outs:
            outs, args = list(args[self.n_args:]), args[:self.n_args]
        if len(outs) != len(self.out_names):
            raise TypeError(f"{self.functional}: expected {len(self.out_names)} out tensor(s) "
                            f"({', '.join(self.out_names)}), got {len(outs)}")
        if self._op is None:
            self._op = find_operator(self.functional)
        if self.dtype_index >= 0 and len(outs) == 1:
            if len(args) > self.dtype_index:
                if args[self.dtype_index] is None:
                    args = args[:self.dtype_index] + (outs[0].dtype,) + args[self.dtype_index + 1:]
            elif kwargs.get("dtype") is None:
                kwargs["dtype"] = outs[0].dtype
        result = self._op(*args, **kwargs)
        results = result if isinstance(result, tuple) else (result,)
        for out, value in zip(outs, results):
            _check_cast(value, out)
            if out.shape != value.shape:
                if out.numel() != 0:
                    warn_resized(out.shape, value.shape)
                _resize(out, value.shape)
            _copy(out, value)
        return outs[0] if len(outs) == 1 else tuple(outs)


class inplace_wrapper:
    """The kernel of `<op>_`: the functional op's result copied back into self."""

    def __init__(self, functional: str) -> None:
        self.functional = functional
        self._op: Any = None

    def __call__(self, self_: Any, *args: Any, **kwargs: Any) -> Any:
        if self._op is None:
            self._op = find_operator(self.functional)
        # Under autograd the functional op may save self for its backward (absolute saves it for
        # sign(self), multiply for the other factor's gradient): it computes on a copy, so that
        # writing the result into self does not invalidate that saved value (PyTorch's in-place
        # kernels save the original self too).
        recording = is_grad_enabled() and any(
            getattr(a, "requires_grad", False) for a in (self_, *args, *kwargs.values()))
        result = self._op(_clone(self_) if recording else self_, *args, **kwargs)
        if result.shape != self_.shape:
            raise output_shape_error(self_.shape, result.shape)
        _check_cast(result, self_)
        return _copy(self_, result)
